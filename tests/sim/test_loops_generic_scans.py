"""The general lowering's generic scans: a combine function of several ops (cummax/cummin with their indices,
logcumsumexp, cumprod, running sums of half types) walked step by step on the scalar unit, along the lanes and across
them. Each kernel built once per session, checked on the verifier's input sets and on edge inputs (NaN, infinities,
ties, signed zeros) against torch exactly."""

import pytest
import torch

from generated_kernels import assert_same_as_torch, build_cases, full_verification
from torch_ascendgen.capture import capture
from torch_ascendgen.generators.builtin.loops import generate_loops
from torch_ascendgen.generators.builtin.loops.inductor import program_of
from torch_ascendgen.generators.builtin.loops.ir import Combine

NAN, INF = float("nan"), float("inf")


def f(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def _envelope(p, r):  # pycocotools' precision envelope: cummax from the right, with its positions
    envelope = torch.cummax(torch.flip(p, dims=[-1]), dim=-1)
    return torch.flip(envelope.values, dims=[-1]), envelope.indices, torch.cummin(r, dim=-1)


# ties (the last equal value's index), signed zeros, NaN (the last NaN's index from there on) and infinities
_EDGE_ROWS = torch.tensor([[1.0, 2.0, 2.0, NAN, 3.0, NAN, 0.0, 5.0],
                           [-0.0, 0.0, -0.0, 1.0, 1.0, -INF, INF, INF],
                           [-INF, -INF, -INF, -INF, 2.0, 2.0, -1.0, 3.0],
                           [INF, 1.0, -INF, NAN, NAN, 1.0, 2.0, -3.0]])

# logcumsumexp's special cases: equal infinities, -inf runs, NaN, huge and tiny magnitudes
_LOG_ROWS = torch.tensor([[-INF, -INF, 0.0, -INF, 1.0, 80.0, -80.0, 3.0],
                          [INF, 1.0, INF, -INF, 2.0, 3.0, 4.0, 5.0],
                          [0.0, NAN, 1.0, 2.0, -INF, INF, 0.0, 1.0],
                          [1e30, -1e30, 1e-30, 88.0, 89.0, -100.0, 0.5, 0.25]])

# name -> (function, the inputs it is captured with, edge input sets compared exactly)
CASES = {
    "cummax_cummin_along_rows": (_envelope, [f(6, 40), f(6, 40)], [[_EDGE_ROWS, _EDGE_ROWS.flip(0)]]),
    "cummax_over_columns_half": (lambda x: torch.cummax(x, 0), [f(40, 6, dtype=torch.float16)],
                                 [[_EDGE_ROWS.t().contiguous().half()]]),
    "cummin_int32_along_rows": (lambda x: torch.cummin(x, -1),
                                [torch.randint(-2 ** 31, 2 ** 31 - 1, (5, 33), dtype=torch.int32)],
                                [[torch.tensor([[3, 3, -2 ** 31, 2 ** 31 - 1, -2 ** 31, 0]], dtype=torch.int32)]]),
    "logcumsumexp_along_rows": (lambda x: torch.logcumsumexp(x, -1), [f(5, 300) * 4], [[_LOG_ROWS]]),
    "logcumsumexp_over_columns": (lambda x: torch.logcumsumexp(x, 0), [f(70, 9) * 4],
                                  [[_LOG_ROWS.t().contiguous()]]),
    "logcumsumexp_bfloat16": (lambda x: torch.logcumsumexp(x, 1), [f(3, 50, 4, dtype=torch.bfloat16)],
                              [[_LOG_ROWS.bfloat16()[:, :, None].expand(4, 8, 3).contiguous()]]),
    "cumprod_float32": (lambda x: torch.cumprod(x, -1), [f(4, 30) * 0.5 + 1.0],
                        [[torch.tensor([[2.0, 0.5, INF, 0.0, 3.0], [NAN, 1.0, 2.0, 3.0, 4.0]])]]),
    "cumsum_half_rounds_every_step": (lambda x: torch.cumsum(x, 1), [f(3, 200, 5, dtype=torch.float16)],
                                      [[torch.full((1, 4000, 1), 0.1).half()]]),
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
    for inputs in edge_sets:
        assert_same_as_torch(function, task, kernel, inputs)


@pytest.mark.unit
def test_cummax_is_a_recorded_combine():
    program = program_of(capture(lambda x: torch.cummax(x, -1), [f(4, 9)]))
    scans = [n for p in program.passes for n in p.nodes if n.op == "scan"]
    assert scans and all(isinstance(scan.args[0], Combine) for scan in scans)  # a pass per output buffer
    assert {n.op for n in scans[0].args[0].nodes} >= {"gt", "eq", "where"}
