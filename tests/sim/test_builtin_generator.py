"""The built-in generator: every pattern it claims is generated, built and verified on the simulator.

Each case runs the full verification (mixed-sign values, edge values, infinities and NaNs, tail
shapes, a shape spread over more blocks than cores) on the first variant, in this process.
"""

import pytest
import torch
import torch.nn.functional as F

from generated_kernels import build_cases, full_verification
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.targets.runtime import ContractKernel


def x(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype)


def rms_norm(a, weight):
    return (a.float() * torch.rsqrt(a.float().pow(2).mean(-1, keepdim=True) + 1e-6)).to(a.dtype) * weight


CASES = {
    # activations and elementwise chains
    "relu": (F.relu, [x(8, 64)]),
    "leaky_relu": (lambda a: F.leaky_relu(a, 0.2), [x(8, 64)]),
    "elu": (F.elu, [x(8, 64)]),
    "selu": (F.selu, [x(8, 64)]),
    "gelu": (F.gelu, [x(8, 64)]),
    "gelu_tanh": (lambda a: F.gelu(a, approximate="tanh"), [x(8, 64)]),
    "silu": (F.silu, [x(8, 64)]),
    "sigmoid": (torch.sigmoid, [x(8, 64)]),
    "tanh": (torch.tanh, [x(8, 64)]),
    "softplus": (F.softplus, [x(8, 64)]),
    "softsign": (F.softsign, [x(8, 64)]),
    "hardtanh": (F.hardtanh, [x(8, 64)]),
    "hardsigmoid": (F.hardsigmoid, [x(8, 64)]),
    "hardswish": (F.hardswish, [x(8, 64)]),
    "mish": (F.mish, [x(8, 64)]),
    "swiglu": (lambda g, u: F.silu(g) * u, [x(8, 64), x(8, 64)]),
    "clamp": (lambda a: a.clamp(-0.5, 0.5), [x(8, 64)]),
    "where": (lambda a, b: torch.where(a > b, a, b), [x(8, 64), x(8, 64)]),
    "pow_int": (lambda a: a ** 3 - a ** -2, [x(8, 64)]),
    "pow_float": (lambda a: a.abs() ** 1.7, [x(8, 64)]),
    "pow_tensor": (lambda a, e: a ** e, [x(8, 64), x(64)]),  # mixed signs, zeros, infinities in both
    "chain": (lambda a, b: ((a * 2 + 1).abs().sqrt() - b / 3).exp().neg(), [x(8, 64), x(8, 64)]),
    "half": (lambda a, b: a * b + 1, [x(8, 64, dtype=torch.float16), x(8, 64, dtype=torch.float16)]),
    "bfloat16": (F.gelu, [x(8, 64, dtype=torch.bfloat16)]),
    "promotion": (lambda a, b: a * b, [x(8, 64, dtype=torch.float16), x(8, 64)]),
    # broadcasting
    "row_bias": (lambda a, b: F.gelu(a + b), [x(8, 64), x(64)]),
    "per_row_scale": (lambda a, s: a * s, [x(8, 64), x(8, 1)]),
    "clamp_tensor": (lambda a, low, high: torch.clamp(a, min=low, max=high), [x(8, 64), x(64), x(64)]),
    "where_bool": (lambda m, a, b: torch.where(m, a, b), [torch.rand(8, 64) > 0.5, x(8, 64), x(8, 64)]),
    "where_bool_per_row": (lambda m, a: torch.where(m, a, 0.5), [torch.rand(8, 1) > 0.5, x(8, 64)]),
    "scalar_tensor": (lambda a, s: a * s + s, [x(8, 64), x(1)]),
    # reductions over the trailing dims
    "sum": (lambda a: a.sum(-1), [x(8, 64)]),
    "mean_keepdim": (lambda a: a.mean(-1, keepdim=True), [x(8, 64)]),
    "amax": (lambda a: a.amax(-1), [x(8, 64)]),
    "max_values": (lambda a: a.max(-1).values, [x(8, 64)]),
    "min_values": (lambda a: a.min(dim=-1)[0], [x(8, 64)]),
    "prod": (lambda a: a.prod(-1), [x(8, 16)]),
    "prod_chunks": (lambda a: a.prod(-1), [x(8, 100)]),  # 32-element chunks and a tail
    "sum_last_two": (lambda a: a.sum((-2, -1)), [x(4, 8, 16)]),
    "var": (lambda a: a.var(-1), [x(8, 64)]),
    "std": (lambda a: a.std(-1), [x(8, 64)]),
    # scans along the last dim
    "cumsum": (lambda a: torch.cumsum(a, 1), [x(8, 64)]),
    "cumprod": (lambda a: torch.cumprod(a, 1), [x(8, 64)]),
    "cumsum_reverse": (lambda a: torch.cumsum(a.flip(1), 1).flip(1), [x(8, 64)]),
    "cumsum_exclusive": (lambda a: torch.cumsum(a, 1) - a, [x(8, 64)]),
    # softmax and norms
    "softmax": (lambda a: F.softmax(a, -1), [x(8, 64)]),
    "log_softmax": (lambda a: F.log_softmax(a, -1), [x(8, 64)]),
    "layer_norm": (lambda a, w, b: F.layer_norm(a, (64,), w, b), [x(8, 64), x(64), x(64)]),
    "rms_norm": (rms_norm, [x(8, 64, dtype=torch.float16), x(64, dtype=torch.float16)]),
    "add_rms_norm": (lambda a, r, w: rms_norm(a + r, w), [x(8, 64), x(8, 64), x(64)]),
    "l1_norm": (lambda a: a.abs().sum(-1), [x(8, 64)]),
    "l2_norm": (lambda a: a.norm(dim=-1), [x(8, 64)]),
    "normalize_rows_of_one": (lambda a: F.normalize(a, dim=-1), [x(8, 1)]),
    "normalize": (lambda a: F.normalize(a, dim=-1), [x(8, 64)]),
    "softmax_then_scale": (lambda a, w: F.softmax(a * 0.125, -1) * w, [x(8, 64), x(64)]),
    # reductions over all elements: losses and global norms, spread over tiles and blocks
    "mse_loss": (F.mse_loss, [x(128, 4096), x(128, 4096)]),
    "huber_loss": (F.huber_loss, [x(64, 512), x(64, 512)]),
    "smooth_l1_loss": (F.smooth_l1_loss, [x(64, 512), x(64, 512)]),
    "hinge_loss": (lambda a, b: torch.clamp(1 - a * b, min=0).mean(), [x(64, 512), x(64, 512)]),
    "l1_loss_half": (F.l1_loss, [x(64, 512, dtype=torch.float16), x(64, 512, dtype=torch.float16)]),
    "kl_div_batchmean": (lambda p, t: F.kl_div(torch.log(p), t, reduction="batchmean"),
                         [x(64, 512).softmax(-1), x(64, 512).softmax(-1)]),
    "frobenius_norm": (lambda a: torch.norm(a), [x(64, 512)]),
    "sum_all": (lambda a: a.sum(), [x(64, 512)]),
    "max_all": (lambda a: a.max(), [x(64, 512)]),
}


@pytest.fixture(scope="module")
def generated():
    return build_cases(CASES, lambda task: generate_builtin(task, 1)[0])


@pytest.mark.parametrize("name", CASES)
def test_generated_kernel_passes_full_verification(name, generated):
    function, _ = CASES[name]
    task, kernel = generated[name]
    verdict = full_verification(function, task, kernel)
    assert verdict.ok, verdict.reason
    assert len(verdict.passed_shapes) >= 3


def test_a_product_overflows_and_underflows_where_torchs_does(generated):
    """The first row's exact product is -1.3e-8; torch's order of multiplication reaches -inf, one by one -0."""
    task, kernel = generated["prod_chunks"]
    row = torch.full((100,), 0.9)
    row[[12, 20, 60]] = 1e15
    row[[5, 6]] = torch.tensor([-2.9387e-39, 1e-10])
    rows = torch.stack([row, row.flip(0), torch.randn(100)])
    expected = rows.prod(-1)
    (got,) = ContractKernel(kernel, task, "Ascend910B2")(rows)
    assert torch.isneginf(expected[0]) and torch.isnan(expected[1])
    assert torch.allclose(got, expected, rtol=1e-5, equal_nan=True)


@pytest.mark.parametrize("name", ["var", "std"])
def test_variance_is_finite_where_torchs_is_though_squares_overflow(name, generated):
    """torch accumulates var in double: values past 1.8e19 square to inf in float32, not in the variance or its
    root (std stays finite up to float32's max)."""
    function, _ = CASES[name]
    task, kernel = generated[name]
    rows = torch.randn(4, 64)
    rows[0, 3], rows[1, 5], rows[2, 7] = 3e19, -2e20, 3e38
    (got,) = ContractKernel(kernel, task, "Ascend910B2")(rows)
    expected = function(rows)
    assert torch.isfinite(expected[0]) and torch.equal(torch.isinf(got), torch.isinf(expected))
    assert torch.allclose(got, expected, rtol=1e-4, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("name, huge_is_finite", [("l2_norm", False), ("normalize_rows_of_one", True)])
def test_norms_overflow_exactly_where_torchs_do(name, huge_is_finite, generated):
    """PyTorch squares in float32 for a norm (3.7e19 in a row overflows), but the norm of one element is |x|."""
    function, (example,) = CASES[name]
    task, kernel = generated[name]
    rows = torch.randn(example.shape)
    rows[0, 0] = 3.7e19
    (got,) = ContractKernel(kernel, task, "Ascend910B2")(rows)
    expected = function(rows)
    assert bool(torch.isfinite(expected[0]).all()) == huge_is_finite
    assert torch.allclose(got, expected, rtol=1e-4, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("function, reason", [
    (lambda a: a.double().exp(), "float64"),
    (lambda a: torch.nonzero(a), "depends on the values of its inputs"),
    (lambda a: torch.fft.fft(a).real, "fft"),
])
def test_what_it_cannot_generate_says_why(function, reason):
    with pytest.raises(UnsupportedFunction, match=reason):
        generate_builtin(capture(function, [x(8, 64)]), 1)


def test_what_the_templates_refuse_goes_to_the_general_lowering():
    for function, inputs in ((lambda m, a: a * m, [torch.rand(8, 64) > 0.5, x(8, 64)]),
                             (lambda a: torch.atan(a), [x(8, 64)]), (lambda a: a.to(torch.int32), [x(8, 64)])):
        candidates = generate_builtin(capture(function, inputs), 1)
        assert [c.variant["template"] for c in candidates] == ["loops"]


def test_variants_differ_in_tile_and_buffering():
    task = capture(lambda a, b: F.silu(a) * b, [x(8, 64), x(8, 64)])
    candidates = generate_builtin(task, 4)
    knobs = {(c.variant["tile"], c.variant["buffers"]) for c in candidates}
    assert len(candidates) == 4 and len(knobs) == 4
    assert {c.variant["buffers"] for c in candidates} == {1, 2}
