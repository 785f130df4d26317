"""The general lowering where it once refused: argmax/argmin, sums, max/min and running sums of integers too wide for
float (exact, first index on ties, wrapping as eager's int32 and int64 arithmetic wraps), graphs holding torch.empty
memory, functions returning nested lists of tensors, and rounding functions of values computed once per item
(interpolation and quantile source indices). Each kernel built once per session, checked on the verifier's input
sets and on chosen edge inputs against torch."""

import pytest
import torch
import torch.nn.functional as F

from generated_kernels import assert_same_as_torch, build_cases, full_verification
from torch_ascendgen.capture import capture
from torch_ascendgen.generators.builtin.loops import generate_loops
from torch_ascendgen.generators.builtin.loops.inductor import program_of

NAN, INF = float("nan"), float("inf")


def f(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def i(low, high, *shape, dtype=torch.int64):
    return torch.randint(low, high, shape, dtype=dtype)


def _clip_by_total_norm(a, b, c):
    grads = [a, b, c]
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g, 2.0) for g in grads]), 2.0)
    coefficient = torch.clamp(1.0 / (total + 1e-6), max=1.0)
    return [g * coefficient for g in grads], total


def _roundings(x, s):
    ones = torch.ones_like(x)
    return torch.floor(s) * ones, torch.ceil(s) * ones, torch.round(s) * ones, torch.trunc(s) * ones


_INT64 = torch.iinfo(torch.int64)
_INT32 = torch.iinfo(torch.int32)


def _wide_rows(dtype, info):
    """Rows of int extremes and ties (the first index must win), as (rows, 6) tensors."""
    return torch.tensor([[info.max, 3, info.max, info.min, 0, info.min],
                         [info.min] * 6,
                         [info.max] * 6,
                         [-1, -1, 2 ** 20 + 1, 2 ** 20, 2 ** 20 + 1, -1],
                         [5, info.min + 1, info.min, info.max - 1, info.max, 5]], dtype=dtype)


# name -> (function, the inputs it is captured with, edge input sets compared exactly)
CASES = {
    "argmax_argmin_int64_along_rows": (lambda x: (x.argmax(-1), x.argmin(-1, keepdim=True)),
                                       [i(-50, 50, 16, 7)], [[_wide_rows(torch.int64, _INT64)]]),
    "argmax_argmin_int64_over_columns": (lambda x: (x.argmax(0), x.argmin(0)), [i(-50, 50, 16, 7)],
                                         [[_wide_rows(torch.int64, _INT64)]]),
    "argmax_argmin_int32_middle_dim": (lambda x: (x.argmax(1), x.argmin(1, keepdim=True)),
                                       [i(-50, 50, 3, 4, 5, dtype=torch.int32)],
                                       [[_wide_rows(torch.int32, _INT32)[:, :, None].expand(5, 6, 3).contiguous()]]),
    "argmax_int32_long_rows": (lambda x: x.argmax(-1), [i(-2 ** 31, 2 ** 31 - 1, 3, 3000, dtype=torch.int32)], []),
    "sum_amax_amin_int64_along_rows": (lambda x: (x.sum(-1), x.amax(-1), x.amin(-1, keepdim=True)),
                                       [i(-2 ** 62, 2 ** 62, 16, 7)], [[_wide_rows(torch.int64, _INT64)]]),
    "sum_amax_amin_int32_over_columns": (lambda x: (x.sum(0, dtype=torch.int32), x.amax(0), x.amin(0)),
                                         [i(-2 ** 31, 2 ** 31 - 1, 37, 5, dtype=torch.int32)],
                                         [[_wide_rows(torch.int32, _INT32)]]),
    "cumsum_int32_rows_and_columns": (lambda x: (torch.cumsum(x, -1, dtype=torch.int32), torch.cumsum(x, 0)),
                                      [i(-2 ** 31, 2 ** 31 - 1, 9, 37, dtype=torch.int32)],
                                      [[_wide_rows(torch.int32, _INT32)]]),
    # an int64 made from bools (int32 lanes) inside a masked load of an int64 result: widened, not reinterpreted
    "bool_count_stacked_with_int64": (lambda x: torch.stack([(x != 0).to(torch.int64).reshape(()),
                                                             torch.zeros((), dtype=torch.int64)]),
                                      [torch.tensor([1])], [[torch.tensor([0])], [torch.tensor([-5])]]),
    # torch.empty memory in the graph (a copy into it): Inductor gives it loop ranges of 0
    "cosine_embedding_loss": (lambda a, b, y: (F.cosine_embedding_loss(a, b, y, margin=0.2),
                                               F.cosine_embedding_loss(a, b, y, margin=0.2, reduction="none")),
                              [f(32, 64), f(32, 64), i(0, 2, 32) * 2 - 1], []),
    "nested_outputs": (_clip_by_total_norm, [f(20, 30) * 0.1, f(30) * 0.1, f(4, 5, 6) * 0.1], []),
    "rounding_a_value_read_once": (_roundings, [f(4, 40), torch.tensor(2.5)],
                                   [[f(2, 8), torch.tensor(s)] for s in
                                    (-0.5, 0.5, 1.5, 2.5, -2.5, -0.0, 0.0, 0.7, -0.7, 8388609.0, -3e38, 1e-45,
                                     -1e-45, 4194304.5, -4194304.5, NAN, INF, -INF)]),
    "bilinear_to_another_tensors_size": (lambda x, like: F.interpolate(x, size=like.shape[-2:], mode="bilinear"),
                                         [f(2, 3, 7, 9), f(1, 1, 12, 5)], []),
}


@pytest.fixture(scope="module")
def built():
    return build_cases({name: (case[0], case[1]) for name, case in CASES.items()},
                       lambda task: generate_loops(task, 1, 176 * 1024)[0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_kernel_passes_the_verifier(name, built):
    task, kernel = built[name]
    verdict = full_verification(CASES[name][0], task, kernel)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize("name", sorted(name for name, case in CASES.items() if case[2]))
def test_edge_inputs_match_torch_exactly(name, built):
    function, _, edge_sets = CASES[name]
    task, kernel = built[name]
    for inputs in edge_sets:  # zeros keep their sign (floor(-0.0), ceil(-0.5) are -0.0)
        assert_same_as_torch(function, task, kernel, inputs, signs=True)


@pytest.mark.unit
def test_torch_empty_memory_is_no_pass():
    def overwrite(x):
        out = torch.empty(x.shape[0])
        return out.copy_(x.sum(-1)) * 2

    program = program_of(capture(overwrite, [f(8, 64)]))  # Inductor's checks of a range of 0 used to raise here
    assert [p.kind for p in program.passes] == ["reduction", "pointwise"]


@pytest.mark.unit
def test_nested_outputs_are_numbered_in_order():
    program = program_of(capture(_clip_by_total_norm, [f(20, 30), f(30), f(4, 5, 6)]))
    assert [b.name for b in program.outputs()] == ["out0", "out1", "out2", "out3"]
