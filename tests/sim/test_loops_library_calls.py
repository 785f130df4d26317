"""Ops PyTorch Inductor runs as library calls, given loop forms (generators/builtin/loops/library_calls.py, and
fmod of floats lane by lane): each kernel built once per session, checked on the verifier's input sets where it
draws every input freely, and on chosen edge inputs (NaN, ties, wrap-around, zero divisors) against torch."""

import pytest
import torch
import torch.nn.functional as F

from generated_kernels import assert_same_as_torch, build_cases, full_verification
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.loops import generate_loops
from torch_ascendgen.generators.builtin.loops.inductor import program_of

NAN, INF = float("nan"), float("inf")


def f(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def i(low, high, *shape, dtype=torch.int64):
    return torch.randint(low, high, shape, dtype=dtype)


def _both_sides(values, boundaries):
    return torch.bucketize(values, boundaries), torch.bucketize(values, boundaries, right=True)


def _scatters(x, index, src):
    return (x.scatter_reduce(1, index, src, "amax", include_self=False),
            x.scatter_reduce(1, index, src, "amin", include_self=True))


def _cases():
    """name -> (function, the inputs it is captured with, whether the verifier checks it, edge input sets)."""
    tiny, big = 1e-38, 3e38
    # 32 values each: eager's vectorised fmod takes them all (a tail shorter than its vector width would be
    # computed as C's fmod, which differs where the quotient overflows: NaN in the vectorised one)
    dividends = torch.tensor([5.5, -5.5, 0.0, -0.0, INF, -INF, NAN, 1.0, 3e38, -3e38, 1e-45, 7.0, 1e30, -1e10,
                              16777217.0, 2.5, 1.0, 0.0, 1e30, -1e30, 3e38, 1e-30, -7.5, 7.5] + [1e20] * 8)
    divisors = torch.tensor([2.0, 2.0, 3.0, 3.0, 2.0, 2.0, 2.0, NAN, 1e-45, tiny, 3e-45, INF, 3.3, 0.7,
                             0.1, 0.0, -0.0, 0.0, 1e-9, 3e-7, 7e-30, 1e-38, -2.0, -INF] + [3.0] * 8)
    boundaries = torch.tensor([-1.0, 0.0, 0.0, 0.5, NAN])  # ties and a NaN (sorted last)
    values = torch.tensor([[-2.0, -1.0, 0.0, 0.25, 0.5], [1.0, NAN, INF, -INF, -0.0]])
    info = torch.iinfo(torch.int64)
    bases = torch.tensor([2, 3, -3, 1, -1, -1, 0, 0, 5, 7, -2, 2, 1000000007, info.min, info.max, 9])
    exponents = torch.tensor([62, 63, 41, -5, -3, -4, 0, -1, -2, 100, 63, 64, 3, 2, 2, info.max])
    x, index, src = f(3, 6), torch.tensor([[0, 5, 5, 2], [1, 1, 1, 1], [4, 0, 4, 0]]), f(3, 4)
    src[0, 1] = NAN
    scattered = [x, index, src]
    return {
        "fmod_floats": (lambda a, b: torch.fmod(a, b), [f(40, 30) * 100, f(40, 30)], True,
                        [[dividends, divisors], [torch.rand(32) * big, torch.rand(32) * tiny]]),
        "fmod_half": (lambda a, b: torch.fmod(a, b), [f(4, 96, dtype=torch.float16), f(4, 96, dtype=torch.float16)],
                      True, []),
        "bucketize_both_sides": (_both_sides, [f(8, 30), f(13).sort().values], True, [[values, boundaries]]),
        "searchsorted_rows_with_a_sorter": (
            lambda s, v, order: torch.searchsorted(s, v, side="right", sorter=order),
            [f(2, 4), f(2, 3), torch.tensor([[1, 2, 3, 0], [2, 1, 3, 0]])], False,
            [[torch.tensor([[3.0, 1.0, 2.0, 2.0], [NAN, 0.0, -1.0, 5.0]]),
              torch.tensor([[2.0, 0.0, 3.5], [NAN, 5.0, -2.0]]), torch.tensor([[1, 2, 3, 0], [2, 1, 3, 0]])]]),
        "int8_pow_of_tensors": (lambda a, e: a ** e, [i(-128, 128, 300, dtype=torch.int8),
                                                      i(-10, 20, 300, dtype=torch.int8)], True, []),
        "int64_pow_wraps": (lambda a, e: a ** e, [i(-5, 5, 64), i(-3, 70, 64)], True, [[bases, exponents]]),
        "adaptive_avg_pool2d": (lambda x: (F.adaptive_avg_pool2d(x, (7, 5)), F.adaptive_avg_pool2d(x, 3)),
                                [f(2, 3, 20, 13, dtype=torch.bfloat16)], True, []),
        "cat_of_uint8": (lambda q: torch.stack(((q & 0xF), q >> 4), -1).flatten(-2),
                         [i(0, 256, 4, 40, dtype=torch.uint8)], True, []),
        "masked_scatter_broadcast_mask": (lambda x, m, s: x.masked_scatter(m, s),
                                          [f(3, 5, 4), torch.rand(3, 5, 1) > 0.5, f(70)], True, []),
        "scatter_reduce_amax_amin": (_scatters, scattered, False, [scattered]),
        # updates at no positions (a decode step with no new tokens): copies of the inputs
        "updates_at_no_positions": (lambda c, s, p: (c.index_copy(1, p, s), c.index_add(1, p, s),
                                                     c.index_put((p,), s.reshape(0, 16, 8)), c.index_fill(1, p, 2.0)),
                                    [f(2, 16, 8), f(2, 0, 8), torch.zeros(0, dtype=torch.int64)], True, []),
    }


CASES = _cases()


@pytest.fixture(scope="module")
def built():
    return build_cases({name: (case[0], case[1]) for name, case in CASES.items()},
                       lambda task: generate_loops(task, 1, 176 * 1024)[0])


@pytest.mark.parametrize("name", sorted(name for name, case in CASES.items() if case[2]))
def test_the_kernel_passes_the_verifier(name, built):
    task, kernel = built[name]
    verdict = full_verification(CASES[name][0], task, kernel)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize("name", sorted(name for name, case in CASES.items() if case[3]))
def test_edge_inputs_match_torch_exactly(name, built):
    function, _, _, edge_sets = CASES[name]
    task, kernel = built[name]
    for inputs in edge_sets:  # zeros keep the dividend's sign (a NaN's sign means nothing)
        assert_same_as_torch(function, task, kernel, inputs, signs=True)


@pytest.mark.unit
def test_a_dense_scatter_reduce_too_long_to_compare_is_refused_with_its_sizes():
    task = capture(lambda x, index, src: x.scatter_reduce(0, index, src, "amax"),
                   [f(8, 4), i(0, 8, 5000, 4), f(5000, 4)])
    with pytest.raises(UnsupportedFunction, match="scatter_reduce with 'amax' over an index of 5000"):
        program_of(task)


@pytest.mark.unit
def test_ops_without_a_loop_form_still_go_to_inductor():
    task = capture(lambda x, index, src: x.scatter_reduce(0, index, src, "mean"), [f(8, 4), i(0, 8, 5, 4), f(5, 4)])
    with pytest.raises(UnsupportedFunction, match="scatter_reduce"):
        program_of(task)
