"""Verification: adversarial candidates (KernelBench style) are rejected, correct ones pass, and the
input sets cover signs, edge values, tails, broadcast dims and shared symbols."""

import functools
import math

import pytest
import torch
import torch.nn.functional as F

from torch_ascendgen.capture import TensorSpec
from torch_ascendgen.evaluate.verify import (
    MAX_ELEMENTS,
    InputSet,
    ReferenceFailed,
    Tolerance,
    check,
    default_tolerance,
    make_input_sets,
    verify,
)

F32_MATRIX = (TensorSpec(torch.float32, ("s0", "s1")),)


def sets_for(*specs, traced, **kwargs):
    return make_input_sets(specs, traced, **kwargs)


@functools.cache
def relu_sets():
    """Shared by the tests: checks never touch an input set's tensors (candidates get clones)."""
    return sets_for(*F32_MATRIX, traced=[(4, 64)])


def rms_norm(x, weight):
    variance = x.float().pow(2).mean(-1, keepdim=True)
    return (x * torch.rsqrt(variance + 1e-6)).to(x.dtype) * weight


# --- correct candidates pass ---------------------------------------------------------------------


def test_a_correct_candidate_passes_every_set_and_records_the_shapes():
    sets = relu_sets()
    verdict = verify(torch.relu, lambda x: torch.clamp(x, min=0), sets)
    assert verdict.ok, verdict.reason
    assert verdict.passed_shapes == tuple(dict.fromkeys(s.shapes for s in sets))
    assert ((4, 64),) in verdict.passed_shapes and len(verdict.passed_shapes) >= 4


def test_a_half_precision_kernel_that_rounds_once_passes_rms_norm():
    """Computing in float32 and rounding once is within f16 tolerance, on every set."""
    specs = (TensorSpec(torch.float16, ("s0", "s1")), TensorSpec(torch.float16, ("s1",)))  # as capture() gives
    sets = make_input_sets(specs, [(4, 64), (64,)])

    def rounds_once(x, w):
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(variance + 1e-6) * w.float()).half()

    verdict = verify(rms_norm, rounds_once, sets)
    assert verdict.ok, verdict.reason
    assert verdict.max_abs_error > 0  # it really differs, within tolerance
    assert [s.shapes[1] == (s.shapes[0][1],) for s in sets] == [True] * len(sets)


def test_a_multi_output_candidate_with_disjoint_slices_of_one_buffer_passes():
    def reference(x):
        return x.sum(-1), x.amax(-1)

    def one_buffer(x):
        out = torch.empty(2, x.shape[0])
        out[0], out[1] = x.sum(-1), x.amax(-1)
        return [out[0], out[1]]

    sets = relu_sets()
    assert verify(reference, one_buffer, sets, Tolerance(1e-4, 1e-4)).ok


# --- (a) returning the input ---------------------------------------------------------------------


def test_returning_the_input_values_passes_relu_on_non_negative_data_but_not_the_mixed_sign_set():
    cheat = lambda x: x.clone()  # noqa: E731
    non_negative = InputSet("non-negative [4, 64]", (torch.rand(4, 64),))
    assert check(torch.relu, cheat, non_negative).ok  # the hole the mixed-sign set closes
    verdict = check(torch.relu, cheat, relu_sets()[0])
    assert not verdict.ok and verdict.kind == "values" and verdict.input_set.startswith("normal")
    assert verdict.expected == 0.0 and verdict.got < 0


# --- (b) zeros where outputs are tiny ------------------------------------------------------------


def test_zeros_are_rejected_where_every_expected_value_is_below_atol():
    reference = lambda x: x * 1e-7  # noqa: E731
    input_set = relu_sets()[0]
    expected = reference(input_set.tensors[0])
    tol = default_tolerance(torch.float32)
    assert torch.allclose(torch.zeros_like(expected), expected, rtol=tol.rtol, atol=tol.atol)  # isclose is blind
    verdict = check(reference, torch.zeros_like, input_set)
    assert not verdict.ok and "wrong as a whole" in verdict.reason and "relative L2 error is 1 " in verdict.reason


def test_half_of_a_tiny_output_is_rejected_but_its_rounding_is_not():
    reference = lambda x: x * 1e-7  # noqa: E731
    input_set = relu_sets()[0]
    assert not check(reference, lambda x: x * 0.5e-7, input_set).ok
    assert check(reference, lambda x: (x.double() * 1e-7).float(), input_set).ok


# --- (c) zeroing or modifying the inputs ---------------------------------------------------------


@pytest.mark.parametrize("tamper", [
    lambda x: x.zero_(),
    lambda x: x.view(-1)[5:6].add_(1),
    lambda x: x.view(-1)[7:8].neg_(),
    lambda x: x.resize_(2),
])
def test_a_candidate_that_modifies_its_input_is_rejected_even_with_the_right_output(tamper):
    def candidate(x):
        out = torch.relu(x)
        tamper(x)
        return out

    verdict = check(torch.relu, candidate, relu_sets()[0])
    assert not verdict.ok and verdict.kind == "modified_input", verdict.reason
    assert "input 0" in verdict.reason


def test_inputs_holding_nan_compare_bitwise_so_an_untouched_nan_is_not_a_change():
    nan_set = next(s for s in relu_sets() if s.name.startswith("inf and nan"))
    assert torch.isnan(nan_set.tensors[0]).any()
    assert check(torch.relu, torch.relu, nan_set).ok

    def flips_zero_sign(x):
        out = torch.relu(x)
        x[x == 0] = -0.0
        return out

    zero_set = InputSet("zeros [8]", (torch.zeros(8),))
    assert check(torch.relu, flips_zero_sign, zero_set).kind == "modified_input"


# --- (d) aliasing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("candidate", [lambda x: x, lambda x: x.view(-1).view(x.shape), lambda x: x[:, :].contiguous()])
def test_returning_the_input_or_a_view_of_it_is_rejected(candidate):
    verdict = check(lambda x: x * 1, candidate, relu_sets()[0])
    assert not verdict.ok and verdict.kind == "aliasing" and "input 0" in verdict.reason


def test_two_outputs_sharing_memory_are_rejected():
    def candidate(x):
        out = x + 1
        return out, out

    verdict = check(lambda x: (x + 1, x + 1), candidate, relu_sets()[0])
    assert not verdict.ok and verdict.kind == "aliasing" and "outputs 0 and 1" in verdict.reason


# --- (e) reusing the reference's output memory ---------------------------------------------------


def test_a_candidate_returning_the_last_reference_output_is_rejected():
    last = {}

    def reference(x):
        last["out"] = torch.relu(x)
        return last["out"]

    def cheat(x):
        return last["out"].to(x.dtype) if "out" in last else torch.relu(x)  # honest once, then replays

    input_set = relu_sets()[0]
    assert check(reference, cheat, input_set).ok  # it ran before the reference: nothing to steal yet
    again = check(reference, cheat, input_set)  # the kept output was overwritten after the first check
    assert not again.ok and again.kind == "values" and math.isnan(again.got)
    assert not verify(reference, lambda x: last["out"].to(x.dtype, copy=True), relu_sets()).ok


# --- (f) specialising on the traced shape ---------------------------------------------------------


def test_a_kernel_correct_only_for_the_first_shape_it_sees_fails_on_a_tail_shape():
    seen = []

    def specialised(x):
        seen.append(tuple(x.shape))
        return torch.exp(x) if x.shape == seen[0] else torch.zeros_like(x)

    verdict = verify(torch.exp, specialised, relu_sets())
    assert not verdict.ok and verdict.input_set.startswith("tail")
    assert verdict.passed_shapes == (((4, 64),),)


def test_a_kernel_that_drops_the_row_tail_fails_on_a_tail_shape():
    def drops_tail(x):
        out = torch.exp(x)
        cols = x.shape[-1]
        out[..., cols - cols % 8:] = 0  # only whole 32-byte blocks of float32
        return out

    verdict = verify(torch.exp, drops_tail, relu_sets())
    assert not verdict.ok and verdict.input_set == "tail [7, 33]"
    assert verdict.first_mismatch == (0, 32) and verdict.got == 0.0
    assert verdict.reason.startswith(
        f"output 0 differs at 7 of 231 elements for input set 'tail [7, 33]' (seed {verdict.seed}; "
        f"TORCH_ASCENDGEN_VERIFY_SEED={verdict.seed} reproduces it): first at index (0, 32): expected ")


# --- (g) wrong dtype, shape, output count --------------------------------------------------------


@pytest.mark.parametrize("reference, candidate, kind", [
    (torch.relu, lambda x: torch.relu(x).double(), "dtype"),
    (torch.relu, lambda x: torch.relu(x).reshape(-1), "shape"),
    (torch.relu, lambda x: torch.relu(x)[:, :-1], "shape"),
    (torch.relu, lambda x: (torch.relu(x), torch.relu(x)), "count"),
    (lambda x: (x.sum(-1), x.amax(-1)), lambda x: x.sum(-1), "count"),
    (lambda x: (x.sum(-1), x.amax(-1)), lambda x: [x.sum(-1), x.amax(-1), x.amin(-1)], "count"),
    (torch.relu, lambda x: torch.relu(x).tolist(), "not_tensors"),
    (torch.relu, lambda x: 0.0, "not_tensors"),
    (torch.relu, lambda x: torch.relu(x).to("meta"), "device"),
])
def test_wrong_dtype_shape_count_or_device_is_rejected(reference, candidate, kind):
    verdict = check(reference, candidate, relu_sets()[0])
    assert not verdict.ok and verdict.kind == kind, verdict.reason


def test_the_float_value_of_an_integer_output_is_not_enough():
    verdict = check(lambda x: x.argmax(-1), lambda x: x.argmax(-1).float(), relu_sets()[0])
    assert verdict.kind == "dtype" and "torch.float32, expected torch.int64" in verdict.reason


# --- (h) NaN and inf positions -------------------------------------------------------------------


def test_nan_where_the_reference_is_finite_is_rejected():
    def one_nan(x):
        out = torch.relu(x)
        out[1, 2] = math.nan
        return out

    verdict = check(torch.relu, one_nan, relu_sets()[0])
    assert not verdict.ok and verdict.first_mismatch == (1, 2) and verdict.mismatches == 1
    assert "NaN positions must match" in verdict.reason


def test_finite_where_the_reference_is_nan_is_rejected():
    verdict = check(torch.log, lambda x: torch.log(x.abs()), relu_sets()[0])
    assert not verdict.ok and math.isnan(verdict.expected) and math.isfinite(verdict.got)


def test_finite_where_the_reference_is_inf_is_rejected():
    nan_to_num = lambda x: torch.nan_to_num(torch.exp(x), nan=math.nan)  # noqa: E731  (inf -> float max)
    verdict = verify(torch.exp, nan_to_num, relu_sets())
    assert not verdict.ok and verdict.input_set.startswith("edge values") and verdict.expected == math.inf
    assert "inf positions must match" in verdict.reason


def test_infinities_of_the_wrong_sign_are_rejected():
    reference = lambda x: x * 2  # noqa: E731
    nan_set = next(s for s in relu_sets() if s.name.startswith("inf and nan"))
    verdict = check(reference, lambda x: torch.where(torch.isinf(x), x.abs(), x * 2), nan_set)
    assert not verdict.ok and verdict.expected == -math.inf and verdict.got == math.inf


# --- (i) exceptions -------------------------------------------------------------------------------


def test_a_candidate_that_raises_fails_with_its_message():
    def raises(x):
        raise RuntimeError("ub overflow in block 3")

    verdict = verify(torch.relu, raises, relu_sets())
    assert not verdict.ok and verdict.kind == "raised" and verdict.passed_shapes == ()
    assert verdict.reason == (f"the candidate raised RuntimeError for input set 'normal [4, 64]' (seed {verdict.seed}; "
                              f"TORCH_ASCENDGEN_VERIFY_SEED={verdict.seed} reproduces it): ub overflow in block 3")


def test_a_reference_that_raises_is_an_error_not_a_verdict():
    def reference(x):
        raise ValueError("bad reference")

    with pytest.raises(ReferenceFailed, match="bad reference"):
        check(reference, torch.relu, relu_sets()[0])


def test_shapes_the_original_refuses_are_skipped_but_the_traced_ones_are_not():
    def clamp_to_last_index(x):  # uint8 cannot hold shape[-1] - 1 past 256 columns: torch raises there
        return x.clamp(0, x.shape[-1] - 1)

    sets = sets_for(TensorSpec(torch.uint8, ("s0", "s1")), traced=[(8, 8)])
    assert any(s.shapes[0][-1] > 256 for s in sets)
    verdict = verify(clamp_to_last_index, clamp_to_last_index, sets)
    assert verdict.ok and verdict.passed_shapes[0] == ((8, 8),) and all(s[0][-1] <= 256 for s in verdict.passed_shapes)
    verdict = verify(clamp_to_last_index, lambda x: x.clamp(0, 6), sets)  # wrong where the original works
    assert not verdict.ok
    with pytest.raises(ReferenceFailed):  # at the traced shapes a refusal is the reference's error
        check(lambda x: x.clamp(0, 1000), lambda x: x.clone(), sets[0])


def test_a_kernel_that_stops_where_the_original_raises_is_skipped_there_only():
    from torch_ascendgen.evaluate.verify import judge_run
    from torch_ascendgen.records import SetRun

    def one_hot_of_argmax(x):  # classes past 8 at other widths: torch raises, a kernel traps
        return F.one_hot(x.argmax(-1), 8)

    sets = sets_for(*F32_MATRIX, traced=[(4, 8)])
    wide = next(s for s in sets if s.optional and s.shapes[0][-1] > 8)
    trapped = SetRun(error="SimulatorError: Trap() called")
    assert judge_run(one_hot_of_argmax, wide, trapped).ok
    assert not judge_run(one_hot_of_argmax, sets[0], trapped).ok  # at the traced shapes the original works


# --- tolerances ------------------------------------------------------------------------------------


def _cancelling_rows():
    """Rows whose float32 sums cancel: the original's own result is off by far more than atol."""
    torch.manual_seed(3)
    rows = torch.randn(8, 40000) * 100
    rows[:, -1] = -rows[:, :-1].double().sum(1).float() + 0.01
    return InputSet("cancelling", (rows,))


def test_a_candidate_more_exact_than_the_original_passes():
    def sum_rows(x):
        return x.sum(-1)

    def exact(x):
        return x.double().sum(-1).float()

    input_set = _cancelling_rows()
    own_error = float((sum_rows(*input_set.tensors).double() - input_set.tensors[0].double().sum(-1)).abs().max())
    assert own_error > 1e-4  # the premise: the original is far from exact here
    verdict = check(sum_rows, exact, input_set)
    assert verdict.ok, verdict.reason


def test_a_candidate_much_less_exact_than_the_original_still_fails():
    def sum_rows(x):
        return x.sum(-1)

    def sloppy(x):
        return x.half().float().sum(-1)

    verdict = check(sum_rows, sloppy, _cancelling_rows())
    assert not verdict.ok and verdict.kind == "values"


def _next_to_half_midpoints() -> InputSet:
    """float32 activations, one in a hundred a float32 ulp below the midpoint of two neighbouring float16 values
    (the rest half values), and a float32 weight."""
    torch.manual_seed(5)
    x = torch.randn(64, 256).half()
    upper = torch.nextafter(x, torch.full_like(x, math.inf)).float()
    below_midpoint = torch.nextafter((x.float() + upper) / 2, torch.tensor(-math.inf))
    x = torch.where(torch.rand(64, 256) < 0.01, below_midpoint, x.float())
    return InputSet("next to midpoints", (x, torch.rand(256) + 0.5))


def _rounded_through_half(x, weight):
    return weight * x.to(torch.float16).float()  # LlamaRMSNorm's `weight * hidden.to(input_dtype)`


def test_a_kernel_that_rounds_through_half_the_wrong_way_everywhere_fails():
    def rounds_up(x, weight):
        return _rounded_through_half(x * (1 + 2 ** -11), weight)

    verdict = check(_rounded_through_half, rounds_up, _next_to_half_midpoints())
    assert not verdict.ok and verdict.kind == "values"


def test_tolerances_are_dtype_aware_and_integers_exact():
    f32, f16, bf16 = (default_tolerance(d) for d in (torch.float32, torch.float16, torch.bfloat16))
    assert f32.rtol < f16.rtol < bf16.rtol and f32.atol < f16.atol < bf16.atol
    assert default_tolerance(torch.int32) == Tolerance(0.0, 0.0) == default_tolerance(torch.bool)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_an_error_of_one_part_in_a_thousand_fails_half_and_single_precision(dtype):
    input_set = sets_for(TensorSpec(dtype, ("s0", "s1")), traced=[(4, 64)])[0]
    verdict = check(lambda x: x * 3, lambda x: x * 3 * (1 + 1e-3), input_set)
    assert not verdict.ok and verdict.kind == "values", verdict.reason


def test_a_user_tolerance_overrides_the_default():
    input_set = relu_sets()[0]
    off = lambda x: x * 3 * (1 + 1e-3)  # noqa: E731
    assert not check(lambda x: x * 3, off, input_set).ok
    assert check(lambda x: x * 3, off, input_set, Tolerance(rtol=1e-2, atol=1e-5)).ok


def test_integer_outputs_must_be_exact():
    input_set = sets_for(TensorSpec(torch.int32, ("s0",)), traced=[(64,)])[0]

    def off_by_one(x):
        out = x * 2
        out[10] += 1
        return out

    verdict = check(lambda x: x * 2, off_by_one, input_set)
    assert not verdict.ok and verdict.first_mismatch == (10,) and verdict.mismatches == 1


# --- input sets -----------------------------------------------------------------------------------


def test_sets_cover_normal_edge_nonfinite_tail_and_many_block_shapes():
    sets = relu_sets()
    kinds = [s.name.rsplit(" [", 1)[0] for s in sets]
    assert kinds == ["normal", "edge values", "inf and nan", "magnitudes", "break points", "tail", "tail",
                     "many blocks"]
    # optional (skipped where the original refuses them): wide values, and shapes other than the traced ones
    assert [s.optional for s in sets] == [False, False, False, True, True, True, True, True]
    assert len({s.name for s in sets}) == len(sets)
    normal = sets[0].tensors[0]
    assert (normal > 0).any() and (normal < 0).any()
    tails = [s.shapes[0] for s in sets if s.name.startswith("tail")]
    assert all(size * 4 % 32 for shape in tails for size in shape)
    assert (7, 33) in tails and any(1000 < shape[-1] < 1100 for shape in tails)
    many = sets[-1].shapes[0]
    assert many[0] > 48 and MAX_ELEMENTS // 4 < math.prod(many) <= MAX_ELEMENTS


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_edge_sets_hold_zero_large_subnormal_inf_and_nan(dtype):
    sets = sets_for(TensorSpec(dtype, ("s0", "s1")), traced=[(4, 64)])
    edge, nonfinite = sets[1].tensors[0].float(), sets[2].tensors[0].float()
    tiny = torch.finfo(dtype).tiny
    assert (edge == 0).any() and (edge >= 1e4).any() and ((edge.abs() > 0) & (edge.abs() < tiny)).any()
    assert torch.isfinite(edge).all() and (edge.signbit() & (edge == 0)).any()
    assert torch.isnan(nonfinite).any() and (nonfinite == math.inf).any() and (nonfinite == -math.inf).any()
    assert torch.isfinite(nonfinite).float().mean() > 0.9  # sprinkled into otherwise normal data


def test_broadcast_dims_stay_one_and_symbols_are_never_one():
    specs = (TensorSpec(torch.float32, ("s0", 1)), TensorSpec(torch.float32, (1, "s1")))
    sets = sets_for(*specs, traced=[(4, 1), (1, 64)])
    for s in sets:
        (a0, a1), (b0, b1) = s.shapes
        assert a1 == 1 and b0 == 1 and a0 > 1 and b1 > 1
        assert a0 * b1 <= MAX_ELEMENTS  # the broadcast output stays small too
    assert verify(torch.add, lambda a, b: a + b, sets).ok


def test_shared_symbols_get_one_value_and_distinct_symbols_distinct_values():
    specs = (TensorSpec(torch.float32, ("s0", "s1", "s2")), TensorSpec(torch.float32, ("s2",)),
             TensorSpec(torch.float32, (1, "s1", 1)))
    sets = sets_for(*specs, traced=[(2, 3, 8), (8,), (1, 3, 1)])
    for s in sets:
        (s0, s1, s2), (t2,), (one, u1, one_again) = s.shapes
        assert t2 == s2 and u1 == s1 and one == one_again == 1
        if not s.name.startswith(("normal", "edge", "inf", "magnitudes", "break")):
            assert len({s0, s1, s2}) == 3 and min(s0, s1, s2) >= 3


def test_a_specialised_task_is_checked_at_its_traced_shapes_only():
    sets = sets_for(*F32_MATRIX, traced=[(4, 64)], generic=False)
    assert {s.shapes for s in sets} == {((4, 64),)} and len(sets) == 5


def test_sets_are_deterministic_by_seed():
    def flat(sets):
        return torch.cat([t.reshape(-1) for s in sets for t in s.tensors])

    a, b, c = relu_sets(), relu_sets(), sets_for(*F32_MATRIX, traced=[(4, 64)], seed=1)
    assert torch.equal(flat(a).nan_to_num(), flat(b).nan_to_num())
    assert not torch.equal(flat(a).nan_to_num(), flat(c).nan_to_num())


def test_integer_and_bool_inputs_get_nonzero_mixed_sign_values_and_both_truth_values():
    specs = (TensorSpec(torch.int32, ("s0",)), TensorSpec(torch.uint8, ("s0",)), TensorSpec(torch.bool, ("s0",)))
    sets = sets_for(*specs, traced=[(256,)] * 3)
    assert [s.name.split(" [")[0] for s in sets] == ["normal", "magnitudes", "tail", "tail", "many blocks"]
    ints, uints, bools = sets[0].tensors
    assert (ints != 0).all() and (ints < 0).any() and (ints > 0).any() and ints.abs().max() <= 16
    assert (uints > 0).all() and bools.any() and not bools.all()
    assert verify(lambda i, u, b: torch.where(b, i // u, i), lambda i, u, b: torch.where(b, i // u, i), sets).ok


def test_value_fn_replaces_the_normal_values():
    def positive(index, shape, dtype, generator):
        return torch.rand(shape, generator=generator, dtype=dtype) + 0.5

    sets = sets_for(*F32_MATRIX, traced=[(4, 64)], value_fn=positive)
    assert (sets[0].tensors[0] >= 0.5).all()
    assert verify(torch.log, torch.log, sets).ok


def test_a_symbol_repeated_in_one_input_keeps_every_set_within_the_element_budget():
    """Attention scores (s0, s1, s2, s2): a long tail of 1003 on s2 alone would be ~1 GB per tensor."""
    spec = TensorSpec(torch.float32, ("s0", "s1", "s2", "s2"))
    sets = make_input_sets([spec], [(2, 4, 64, 64)])
    assert len(sets) == 8
    for input_set in sets:
        (scores,) = input_set.tensors
        assert math.prod(scores.shape) <= MAX_ELEMENTS, input_set.name
        assert scores.shape[2] == scores.shape[3]
