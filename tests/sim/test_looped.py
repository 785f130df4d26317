"""The looped plan: middle-dimension reductions, rows longer than the UB, whole-group broadcasts.

Each case is generated with the looped template, built once, and put through the full verification
(mixed-sign, edge, inf/NaN and tail input sets) in this process.
"""

import pytest
import torch
import torch.nn.functional as F

from generated_kernels import build_cases, full_verification
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.generator import _looped_candidates, generate_builtin
from torch_ascendgen.generators.builtin.looped import plan_looped
from torch_ascendgen.targets.runtime import ContractKernel


def x(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype)


CASES = {
    # columns form: the reduced dimension is not the last one
    "sum_middle": (lambda a: a.sum(1, keepdim=True), [x(4, 96, 40)]),
    "mean_middle_no_keepdim": (lambda a: a.mean(1), [x(4, 96, 40)]),
    "min_middle_values": (lambda a: torch.min(a, dim=1)[0], [x(4, 32, 72)]),
    "amax_first": (lambda a: a.amax(0), [x(24, 80)]),
    "rms_over_channels": (lambda a: a / torch.sqrt(torch.mean(a * a, dim=1, keepdim=True) + 1e-5), [x(2, 16, 8, 12)]),
    "softmax_middle": (lambda a: F.softmax(a, dim=1), [x(3, 40, 50)]),
    "log_softmax_middle_half": (lambda a: F.log_softmax(a, dim=1), [x(3, 40, 50, dtype=torch.float16)]),
    "var_middle": (lambda a: a.var(1), [x(3, 40, 50)]),
    "std_middle": (lambda a: a.std(1), [x(3, 40, 50)]),
    # rows form: rows longer than one chunk, several passes over each row
    "softmax_long_rows": (lambda a: F.softmax(a, dim=-1), [x(4, 20000)]),
    "layer_norm_long_rows": (lambda a, w: F.layer_norm(a, (20000,), w), [x(3, 20000), x(20000)]),
    "l2_normalize_long_rows": (lambda a: a / a.norm(dim=1, keepdim=True), [x(4, 20000)]),
    "sum_last_two_long": (lambda a: a.sum((1, 2)), [x(4, 30, 700)]),
    "global_normalize": (lambda a: a / torch.norm(a), [x(4, 16, 300)]),
    "rms_norm_half_long_rows": (lambda a, w: (a.float() * torch.rsqrt(a.float().pow(2).mean(-1, keepdim=True) + 1e-6))
                                .to(a.dtype) * w, [x(3, 20000, dtype=torch.float16), x(20000, dtype=torch.float16)]),
    # broadcasts over whole groups of dimensions
    "channel_bias_4d": (lambda a, b: F.relu(a + b.view(1, -1, 1, 1)), [x(2, 24, 8, 12), x(24)]),
    "outer_maximum": (lambda a, b: torch.maximum(a, b), [x(4, 48, 1), x(4, 1, 96)]),
    "per_row_divide": (lambda a, b: a / b, [x(16, 3000), x(16, 1).abs() + 0.5]),
}


@pytest.fixture(scope="module")
def generated():
    return build_cases(CASES, lambda task: _looped_candidates(task, 1)[0])


@pytest.mark.parametrize("name", CASES)
def test_looped_kernel_passes_full_verification(name, generated):
    function, _ = CASES[name]
    task, kernel = generated[name]
    verdict = full_verification(function, task, kernel)
    assert verdict.ok, verdict.reason
    assert len(verdict.passed_shapes) >= 3


@pytest.mark.parametrize("name", ["var_middle", "std_middle"])
def test_variance_is_finite_where_torchs_is_though_squares_overflow(name, generated):
    """torch accumulates var in double: values past 1.8e19 square to inf in float32, not in the variance or its
    root (std stays finite up to float32's max)."""
    function, _ = CASES[name]
    task, kernel = generated[name]
    a = torch.randn(3, 40, 50)
    a[0, 3, :] = 3e19
    a[1, 7, 4], a[2, 9, 9] = -2e20, 3e38
    (got,) = ContractKernel(kernel, task, "Ascend910B2")(a)
    expected = function(a)
    assert torch.isfinite(expected[0]).all()
    assert torch.equal(torch.isinf(got), torch.isinf(expected))
    assert torch.allclose(got, expected, rtol=1e-4, atol=1e-5, equal_nan=True)


def test_the_form_follows_where_the_reduced_dimension_is():
    middle = plan_looped(capture(lambda a: a.sum(1), [x(4, 8, 16)]))
    last = plan_looped(capture(lambda a: F.softmax(a, -1), [x(4, 16)]))
    assert not middle.layout.rows and (middle.layout.group_reduce, middle.layout.group_inner) == (1, 2)
    assert last.layout.rows and last.passes == 2


def test_rows_too_long_for_the_row_wise_template_get_a_looped_kernel_first():
    long_rows = generate_builtin(capture(lambda a: F.softmax(a, -1), [x(4, 60000)]), 2)
    short_rows = generate_builtin(capture(lambda a: F.softmax(a, -1), [x(4, 600)]), 2)
    assert [c.variant["template"] for c in long_rows] == ["looped", "rowwise"]
    assert [c.variant["template"] for c in short_rows] == ["rowwise", "looped"]


@pytest.mark.parametrize("function, inputs, reason", [
    (lambda a: a.sum(1) + a.sum(2), [x(4, 8, 8)], "different dimensions"),
    (lambda a: a.sum((0, 2)), [x(4, 8, 16)], "not adjacent"),
    (lambda a: a.sum(1) + a[:, 0], [x(4, 8, 16)], "does not know"),
    (lambda a, b: a * b, [x(4, 1, 16, 1), x(1, 8, 1, 5)], "more than three"),
])
def test_what_the_looped_plan_cannot_do_says_why(function, inputs, reason):
    with pytest.raises(UnsupportedFunction, match=reason):
        _looped_candidates(capture(function, inputs), 1)
