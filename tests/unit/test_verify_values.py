"""Verification a cheating kernel cannot pass (issue 12): fresh seeds, every magnitude band, tolerances in ulps of
the float64 result and a bias test -- while correct kernels that round differently still pass.

Candidates are plain Python callables (verify.verify/check need no kernel build); a fixed seed keeps a test
deterministic where its premise depends on the values drawn.
"""

import math

import pytest
import torch

from torch_ascendgen import pipeline
from torch_ascendgen.capture import TensorSpec, capture
from torch_ascendgen.evaluate.search import CandidateRecord, SearchResult
from torch_ascendgen.evaluate.verify import InputSet, Tolerance, check, make_input_sets, ulp, verify
from torch_ascendgen.records import Candidate
from torch_ascendgen.targets.target import Target

SEED = 1234


def sets(dtype=torch.float32, traced=(16, 256), seed=SEED, **kwargs):
    return make_input_sets([TensorSpec(dtype, ("s0", "s1"))], [traced], seed=seed, **kwargs)


def named(input_sets, prefix):
    return next(s for s in input_sets if s.name.startswith(prefix))


# --- a constant relative bias fails ---------------------------------------------------------------


def test_a_float32_result_off_by_one_part_in_1e5_fails_though_the_old_rtol_accepted_it():
    def biased(x):
        return torch.exp(x) * (1 + 1e-5)

    normal = sets()[0]
    assert check(torch.exp, biased, normal, Tolerance(1e-4, 1e-5)).ok  # the hole: rtol 1e-4 is ~800 ulps
    verdict = verify(torch.exp, biased, sets())
    assert not verdict.ok and verdict.kind == "values" and verdict.input_set.startswith("normal"), verdict.reason


@pytest.mark.parametrize("function", [torch.sigmoid, lambda x: x * 3, torch.tanh])
def test_a_float16_result_off_by_one_part_in_1e3_fails(function):
    def biased(x):
        return (function(x.float()) * (1 + 1e-3)).half()

    verdict = verify(function, biased, sets(torch.float16))
    assert not verdict.ok and verdict.kind == "values", verdict.reason


def test_a_bias_within_the_element_wise_bound_is_caught_by_the_median():
    """0.8 ulp of float16 on every value: each element is within 2 ulps, but the errors all lean one way."""
    def leaning(x):
        exact = torch.sigmoid(x.double())
        return (exact + 0.8 * ulp(exact, torch.float16)).half()

    verdict = check(torch.sigmoid, leaning, sets(torch.float16)[0])
    assert not verdict.ok and "is biased" in verdict.reason and "median" in verdict.reason, verdict.reason


# --- every magnitude band and the break points -----------------------------------------------------


def tanh_saturating_wrongly(x):
    """Exact except on 6 <= |x| < 1e14, a constant there: within rtol 1e-4 of tanh, hundreds of float32 ulps off."""
    return torch.where((x.abs() >= 6) & (x.abs() < 1e14), x.sign() * 0.9999, torch.tanh(x))


def test_an_approximation_that_breaks_beyond_6_fails_on_the_wide_sets_only():
    input_sets = sets()
    for prefix in ("normal", "edge values", "inf and nan"):
        assert check(torch.tanh, tanh_saturating_wrongly, named(input_sets, prefix)).ok, prefix
    for prefix in ("magnitudes", "break points"):
        verdict = check(torch.tanh, tanh_saturating_wrongly, named(input_sets, prefix))
        assert not verdict.ok and verdict.kind == "values", prefix
        assert abs(verdict.expected) == 1.0 or abs(verdict.expected) > 0.9999


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_the_magnitude_set_spans_subnormals_to_near_overflow_with_both_signs(dtype):
    values = named(sets(dtype), "magnitudes").tensors[0].double()
    info = torch.finfo(dtype)
    magnitudes = values.abs()
    assert (values > 0).any() and (values < 0).any() and torch.isfinite(values).all()
    assert ((magnitudes > 0) & (magnitudes < info.tiny)).any()  # subnormals
    assert (magnitudes > info.max / 2 ** 13).any()  # within MAGNITUDE_HEADROOM (+1) binades of overflow
    bands = torch.frexp(magnitudes[magnitudes > 0])[1]
    span = math.log2(info.max) - math.log2(info.tiny * info.eps)
    assert len(bands.unique()) > 0.5 * span  # most binades are there


@pytest.mark.parametrize("dtype, points", [(torch.float32, (6.0, 20.0, 88.72, 1.8e19)),
                                           (torch.float16, (6.0, 11.09, 65504.0))])
def test_the_break_point_set_holds_activation_thresholds_and_the_dtypes_limits(dtype, points):
    values = named(sets(dtype), "break points").tensors[0].double().abs()
    for point in points:
        assert ((values - point).abs() <= point * 0.1).any(), point


def test_integer_inputs_get_a_wider_magnitude_set():
    spec = TensorSpec(torch.int32, ("s0",))
    wide = named(make_input_sets([spec], [(4096,)], seed=SEED), "magnitudes").tensors[0]
    assert (wide != 0).all() and (wide < 0).any() and wide.abs().max() > 1000 and wide.abs().max() < 2 ** 15


def test_a_wide_set_the_original_itself_rejects_is_skipped_not_failed():
    def lookup(index):
        return torch.arange(20.0)[index]

    spec = TensorSpec(torch.int64, ("s0",))
    verdict = verify(lookup, lookup, make_input_sets([spec], [(64,)], seed=SEED))
    assert verdict.ok, verdict.reason
    wide = named(make_input_sets([spec], [(64,)], seed=SEED), "magnitudes")
    assert check(lookup, lambda index: torch.zeros(64), wide).reason.startswith("skipped")


# --- overflow in the original, the exact result and the kernel -------------------------------------


def test_a_kernel_finite_where_the_original_overflowed_but_the_exact_result_is_finite_passes():
    def std(x):
        return x.std(-1)

    x = torch.tensor([[3e19, 0.0, 1.0] * 11] * 4)
    input_set = InputSet("squares overflow", (x,))

    def squares_overflow(x):
        return ((x - x.mean(-1, keepdim=True)) ** 2).sum(-1).div(x.shape[-1] - 1).sqrt()

    assert torch.isinf(squares_overflow(x)).all() and torch.isfinite(std(x)).all()
    assert check(std, lambda x: x.double().std(-1).float(), input_set).ok
    verdict = check(std, squares_overflow, input_set)  # issue 12 h4 finding 1: inf where the original is finite
    assert not verdict.ok and verdict.kind == "values"


def test_an_infinity_is_accepted_where_the_exact_result_is_within_a_binade_of_overflow():
    x = torch.tensor([2.0e38, 1.0e38, 1.0, 2.0] * 8)
    input_set = InputSet("near overflow", (x,))
    reference = lambda x: x * 1.5  # noqa: E731 - 3e38 stays finite, 1.5e38 too
    overflowing = lambda x: (x * 3) / 2  # noqa: E731 - inf where x * 3 overflows
    assert torch.isinf(overflowing(x)[0]) and torch.isfinite(reference(x)).all()
    assert check(reference, overflowing, input_set).ok  # only at 3e38, a binade below overflow
    x_far = InputSet("far", (torch.tensor([1.0e38, 1.0, 2.0, 3.0] * 8),))
    assert not check(lambda x: x * 0.5, lambda x: (x * 4) / 8, x_far).ok  # inf where the exact is 5e37


# --- non-finite inputs and rounding boundaries ----------------------------------------------------


def test_on_inputs_with_infinities_a_nan_may_stand_for_an_infinity_but_not_for_a_finite_value():
    x = torch.tensor([1.0, float("inf"), -2.0, float("nan")] * 8)
    input_set = InputSet("inf and nan", (x,))

    def lerp_like(x):  # eager-style: a zero weight leaves the value alone
        return x * 1.0

    def decomposed(x):  # a decomposition's inf * 0 weight gives NaN where eager gives inf
        return x * 1.0 + torch.where(torch.isinf(x), x * 0.0, 0.0)

    assert torch.isnan(decomposed(x)[1]) and torch.isinf(lerp_like(x)[1])
    assert check(lerp_like, decomposed, input_set).ok
    finite = lambda x: torch.nan_to_num(x * 1.0, posinf=0.0)  # noqa: E731 - 0 where the original is inf
    assert not check(lerp_like, finite, input_set).ok
    flipped = lambda x: torch.where(torch.isinf(x), -x, x)  # noqa: E731 - -inf for +inf
    assert not check(lerp_like, flipped, input_set).ok
    finite_set = InputSet("normal", (torch.tensor([1e38, 2.0] * 8),))
    overflowing = lambda x: x * 4  # noqa: E731 - inf from finite inputs
    nan_for_inf = lambda x: (x * 4) * torch.where(torch.isinf(x * 4), float("nan"), 1.0)  # noqa: E731
    assert not check(overflowing, nan_for_inf, finite_set).ok  # the rule holds on non-finite inputs only


def quantize(x):
    scale = x.abs().amax(-1, keepdim=True) / 127
    return torch.round(x / scale).to(torch.int8)


def test_an_int8_quantization_one_off_at_a_rounding_boundary_passes_but_not_elsewhere():
    x = torch.randn(64, 256, generator=torch.Generator().manual_seed(3))
    x[:, 0] = 127.0  # scale 1: x / scale is x itself
    x[:4, 1] = 10.5 * (1 + 2 * torch.finfo(torch.float32).eps)  # just above a tie: rounds to 11
    input_set = InputSet("normal", (x,), seed=5)
    expected = quantize(x)
    assert (expected[:4, 1] == 11).all()

    def other_side(x):  # a kernel whose float rounding lands just below the tie
        out = quantize(x)
        out[:4, 1] = 10
        return out

    def off_elsewhere(x):
        out = quantize(x)
        out[:, 2] += 1
        return out

    assert check(quantize, other_side, input_set).ok
    verdict = check(quantize, off_elsewhere, input_set)
    assert not verdict.ok and verdict.kind == "values", verdict.reason


# --- correct kernels that round differently pass --------------------------------------------------


def sequential_sum(x):
    out = torch.zeros(x.shape[:-1], dtype=torch.float32)
    for column in x.unbind(-1):
        out = out + column.float()
    return out.to(x.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sequential_and_pairwise_sums_both_pass_every_set(dtype, seed):
    input_sets = sets(dtype, (16, 300), seed=seed, generic=False)
    reference = lambda x: x.sum(-1)  # noqa: E731
    assert verify(reference, sequential_sum, input_sets).ok
    pairwise = lambda x: x.double().sum(-1).to(x.dtype)  # noqa: E731
    assert verify(reference, pairwise, input_sets).ok


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_float32_compute_rounded_once_to_float16_passes(seed):
    def sigmoid_once(x):
        return torch.sigmoid(x.float()).half()

    def softmax_once(x):
        return torch.softmax(x.float(), -1).half()

    input_sets = sets(torch.float16, seed=seed)
    assert verify(torch.sigmoid, sigmoid_once, input_sets).ok
    assert verify(lambda x: torch.softmax(x, -1), softmax_once, input_sets).ok


def test_a_float32_kernel_computing_through_float64_passes_everywhere():
    for fn in (torch.tanh, torch.sigmoid, torch.nn.functional.softplus, torch.exp, torch.nn.functional.silu):
        verdict = verify(fn, lambda x, fn=fn: fn(x.double()).float(), sets(seed=7))
        assert verdict.ok, verdict.reason


def test_a_user_tolerance_still_overrides():
    biased = lambda x: torch.exp(x) * (1 + 1e-5)  # noqa: E731
    assert verify(torch.exp, biased, sets(), Tolerance(1e-4, 1e-5)).ok


# --- fresh seeds ------------------------------------------------------------------------------------


def test_every_verification_draws_fresh_values_unless_a_seed_is_forced(monkeypatch):
    monkeypatch.delenv("TORCH_ASCENDGEN_VERIFY_SEED", raising=False)  # conftest fixes one for the suite
    first, second = sets(seed=None), sets(seed=None)
    assert first[0].seed != second[0].seed
    assert not torch.equal(first[0].tensors[0], second[0].tensors[0])
    monkeypatch.setenv("TORCH_ASCENDGEN_VERIFY_SEED", str(first[0].seed))
    again = sets(seed=None)
    assert again[0].seed == first[0].seed
    assert all(torch.equal(a.tensors[0].nan_to_num(), b.tensors[0].nan_to_num()) for a, b in zip(first, again))


def test_a_kernel_keyed_on_the_first_values_of_seed_0_fails_with_fresh_seeds(monkeypatch):
    monkeypatch.delenv("TORCH_ASCENDGEN_VERIFY_SEED", raising=False)
    known = {tuple(s.tensors[0].reshape(-1)[:4].tolist()): s.name for s in sets(seed=0)}

    def keyed(x):
        right = tuple(x.reshape(-1)[:4].tolist()) in known
        return torch.relu(x) if right else torch.zeros_like(x)

    assert verify(torch.relu, keyed, sets(seed=0)).ok  # the hole a fixed seed left
    verdict = verify(torch.relu, keyed, sets(seed=None))
    assert not verdict.ok and f"seed {verdict.seed}" in verdict.reason


def test_the_seed_is_in_the_failure_reason_and_reproduces_it(monkeypatch):
    verdict = verify(torch.tanh, tanh_saturating_wrongly, sets(seed=None))
    assert not verdict.ok and f"TORCH_ASCENDGEN_VERIFY_SEED={verdict.seed}" in verdict.reason
    monkeypatch.setenv("TORCH_ASCENDGEN_VERIFY_SEED", str(verdict.seed))
    assert verify(torch.tanh, tanh_saturating_wrongly, sets(seed=None)).reason == verdict.reason


def test_the_cache_entry_meta_records_the_seed():
    task = capture(torch.relu, [torch.randn(4, 64)])
    input_sets = make_input_sets(task.inputs, task.traced_shapes, seed=None)
    verdict = verify(torch.relu, torch.relu, input_sets)
    record = CandidateRecord(Candidate("// source", "builtin-1"), verdict, "", None, 0.1)
    meta = pipeline._meta(task, Target("sim", "Ascend910B2"), SearchResult((record,)), record)
    assert meta["verify_seed"] == input_sets[0].seed == verdict.seed
