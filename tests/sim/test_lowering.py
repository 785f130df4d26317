"""The built-in generator's lowering (generators/builtin/lowering.py) on its own: the code text it emits per ATen op,
the kinds it gives values, its scalar folding, select/compare modes, casts and refusals.

Most tests lower a captured graph with a small driver (``lower``) that classifies values by shape as the generator's
plans do, and read the emitted lines; ``interpret`` runs those lines on torch tensors (one entry per scratch slot),
so that a lowering's numbers -- and its reuse of scratch slots -- are checked without a compiler. A few ``sim`` tests
build kernels for ops no other test lowers and run them on the simulator.
"""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch.fx.experimental.proxy_tensor import make_fx

from torch_ascendgen.capture import TensorSpec, capture
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.lowering import (
    HANDLERS,
    Lowering,
    Val,
    bool_condition_input,
    float_literal,
    io_lines,
    widen,
)

unit = pytest.mark.unit
sim = pytest.mark.sim


def x(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype)


@pytest.fixture(autouse=True)
def _same_data_every_run():
    """Each test draws the same values whatever ran before it (float32 steps differ from torch's by an ulp or so)."""
    torch.manual_seed(13)


# ---- driving the lowering -----------------------------------------------------------------------------------


def _ones(shape) -> bool:
    return all(s == 1 for s in shape)


def lower(function=None, inputs=(), reduced: int = 0, split: bool = False, task=None) -> Lowering:
    """Lowers ``function`` (captured) or ``task``, input 0 giving the full shape and ``reduced`` trailing dims the rows.

    As in the generator's plans: a one-element value is "scalar", a per-row one (lead dims, trailing dims 1 or gone)
    "col", any other "full"; inputs are named in0 (full), scalarI_ (one element), colI (per row), rowConstI_ (rows).
    """
    task = task or capture(function, list(inputs))
    full = tuple(task.inputs[0].shape)
    lead = full[: len(full) - reduced]
    col_shapes = {lead + (1,) * reduced, lead} if reduced else set()

    def classify(node) -> str:
        shape = node.meta.get("shape")
        if shape is None:
            return "full"
        if split and _ones(shape) and node.op != "placeholder":
            return "col"
        if shape in col_shapes and shape != full:
            return "col"
        return "scalar" if _ones(shape) else "full"

    vals = {}
    for i, spec in enumerate(task.inputs):
        shape = tuple(spec.shape)
        if shape == full:
            vals[i] = Val("full", f"in{i}")
        elif _ones(shape):
            vals[i] = Val("scalar", f"scalar{i}_")
        elif shape in col_shapes:
            vals[i] = Val("col", f"col{i}")
        else:
            vals[i] = Val("full", f"rowConst{i}_")
    lowering = Lowering(task, classify, vals, tuple(range(len(full) - reduced, len(full))), split=split)
    lowering.run()
    return lowering


def raw_task(function, inputs):
    """A task of ``function``'s ATen graph as traced, without capture's decompositions: the handlers of ops that
    core ATen decomposes (silu, softplus, rsub.Scalar, ...) are reached only this way."""
    graph = make_fx(function)(*inputs)
    for node in graph.graph.nodes:
        value = node.meta.get("val")
        if isinstance(value, torch.Tensor):
            node.meta["shape"] = tuple(value.shape)
    return SimpleNamespace(graph=graph, inputs=tuple(TensorSpec(t.dtype, tuple(t.shape)) for t in inputs))


def text(lowering: Lowering) -> str:
    return "\n".join(lowering.lines)


def kinds(lowering: Lowering) -> list[str]:
    return [value.kind for value in lowering.output_vals]


def ops(lowering: Lowering) -> list[str]:
    """The instruction of each line (a per-row loop's body instruction for a loop)."""
    return [re.match(r"(?:for \(.*?\) )?(\w+)\(", line).group(1) for line in lowering.lines]


# ---- an interpreter of the emitted elementwise instructions ----------------------------------------------------

_UNARY = {"Exp": torch.exp, "Ln": torch.log, "Abs": torch.abs, "Sqrt": torch.sqrt, "Relu": torch.relu}
_BINARY = {"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div, "Max": torch.maximum,
           "Min": torch.minimum}
_WITH_SCALAR = {"Adds": torch.add, "Muls": torch.mul, "Maxs": torch.clamp_min, "Mins": torch.clamp_max,
                "LeakyRelu": lambda t, s: torch.where(t >= 0, t, t * s)}
_CMP = {"LT": torch.lt, "LE": torch.le, "GT": torch.gt, "GE": torch.ge, "EQ": torch.eq, "NE": torch.ne}
_SPECIAL = {"(0.0f / 0.0f)": "nan", "(1.0f / 0.0f)": "inf", "(-1.0f / 0.0f)": "-inf"}


def _split_args(arguments: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, char in enumerate(arguments):
        if char in "(<":
            depth += 1
        elif char in ")>":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(arguments[start:i].strip())
            start = i + 1
    return parts + [arguments[start:].strip()]


def interpret(lowering: Lowering, inputs: list[torch.Tensor]) -> torch.Tensor:
    """The lowering's first output computed by running its lines on float32 tensors of the output's shape."""
    shape = torch.broadcast_shapes(*(t.shape for t in inputs))
    env: dict[str, torch.Tensor] = {}
    scalars = {"nan": math.nan, "inf": math.inf}
    for i, t in enumerate(inputs):
        env[f"in{i}"] = env[f"rowConst{i}_"] = t.float().expand(shape)
        scalars[f"scalar{i}_"] = float(t.reshape(-1)[0]) if t.numel() == 1 else math.nan

    def scalar(expr: str) -> float:
        for literal, name in _SPECIAL.items():
            expr = expr.replace(literal, name)
        return float(torch.tensor(eval(re.sub(r"(\d)f\b", r"\1", expr), {}, scalars), dtype=torch.float32))

    def value(expr: str):
        expr = expr.replace(".ReinterpretCast<half>()", "").replace(".ReinterpretCast<bfloat16_t>()", "")
        return env[expr] if expr in env else scalar(expr)

    for line in lowering.lines:
        if line in ("VectorToScalar();", "ScalarToVector();"):
            continue
        op, arguments = re.fullmatch(r"(\w+)\((.*)\);", line).groups()
        args = _split_args(arguments)
        dst = args[0].split(".ReinterpretCast")[0]
        if op == "Duplicate":
            result = torch.full(shape, value(args[1]))
        elif op in _UNARY:
            result = _UNARY[op](value(args[1]))
        elif op in _BINARY:
            result = _BINARY[op](value(args[1]), value(args[2]))
        elif op in _WITH_SCALAR:
            result = _WITH_SCALAR[op](value(args[1]), value(args[2]))
        elif op in ("Compare", "CompareScalar"):
            result = _CMP[args[3].split("::")[1]](value(args[1]), value(args[2]))
        elif op == "Select":
            result = torch.where(value(args[1]), value(args[2]), value(args[3]))
        elif op == "Cast":
            source, mode = value(args[1]), args[2]
            narrow = {"half": torch.float16, "bfloat16_t": torch.bfloat16}
            into = next((dtype for name, dtype in narrow.items() if f"<{name}>" in args[0]), None)
            result = torch.trunc(source) if mode.endswith("CAST_TRUNC") else source
            result = result.to(into).float() if into is not None else result.float()
        else:
            raise AssertionError(f"the interpreter does not know {line}")
        env[dst] = result.expand(shape) if isinstance(result, torch.Tensor) else torch.full(shape, result)
    out = lowering.output_vals[0]
    return env[out.expr] if out.kind != "scalar" else torch.full(shape, value(out.expr))


def assert_matches(got: torch.Tensor, expected: torch.Tensor, rtol=1e-5, atol=1e-6) -> None:
    expected = expected.float().expand(got.shape)
    assert torch.allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True), (got - expected).abs().max()


@unit
def test_the_interpreter_catches_a_wrong_lowering():
    """The numeric tests below lean on ``interpret``: a lowering with one instruction changed must not match."""
    lowering = lower(lambda a, b: a * b + 1, [x(4, 8), x(4, 8)])
    a, b = x(4, 8), x(4, 8)
    assert_matches(interpret(lowering, [a, b]), a * b + 1)
    lowering.lines[0] = lowering.lines[0].replace("Mul(", "Add(")
    assert not torch.allclose(interpret(lowering, [a, b]), a * b + 1)


# ---- literals, I/O declarations, widening --------------------------------------------------------------------


@unit
@pytest.mark.parametrize("number, literal", [
    (1.0, "1.0f"), (-2.0, "-2.0f"), (0.5, "0.5f"), (1e-30, "1e-30f"), (3e38, "3e+38f"),
    (math.nan, "(0.0f / 0.0f)"), (math.inf, "(1.0f / 0.0f)"), (-math.inf, "(-1.0f / 0.0f)"),
])
def test_float_literals_are_cpp_float_literals(number, literal):
    assert float_literal(number) == literal


@unit
@settings(max_examples=20, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_literal_reads_back_as_its_value(number):
    literal = float_literal(number)
    assert literal.endswith("f") and float(literal[:-1]) == number


@unit
def test_io_lines_declare_gm_types_and_bools_as_bytes():
    task = capture(lambda m, a, b: torch.where(m, a, b.float()), [torch.rand(4, 8) > 0.5, x(4, 8),
                                                                x(4, 8, dtype=torch.bfloat16)])
    types, params, args = io_lines(task)
    assert types == ["using In0 = uint8_t;", "using In1 = float;", "using In2 = bfloat16_t;", "using Out0 = float;"]
    assert params == "GM_ADDR in0, GM_ADDR in1, GM_ADDR in2, GM_ADDR out0,"
    assert args == "in0, in1, in2, out0,"


@unit
def test_a_bool_input_is_a_condition_only_when_where_uses_it_as_one():
    condition = capture(lambda m, a: torch.where(m, a, 0.0), [torch.rand(4, 8) > 0.5, x(4, 8)])
    as_value = capture(lambda m, a: torch.where(m, a, m.float()), [torch.rand(4, 8) > 0.5, x(4, 8)])
    assert bool_condition_input(condition, condition.inputs[0])
    assert not bool_condition_input(condition, condition.inputs[1])  # not a bool
    assert not bool_condition_input(as_value, as_value.inputs[0])


@unit
@pytest.mark.parametrize("dtype, casts", [(torch.float16, 1), (torch.bfloat16, 1), (torch.bool, 2)])
def test_widening_an_input_tile_casts_bools_through_half(dtype, casts):
    lowering = lower(lambda a: a + 1, [x(4, 8)])
    lowering.lines.clear()
    dst = lowering.temp("full")
    widen(lowering, dst, "in3", dtype)
    assert [line.startswith("Cast(") for line in lowering.lines] == [True] * casts
    assert "in3" in lowering.lines[0] and lowering.lines[-1].startswith(f"Cast({dst.expr}, ")
    assert ("ReinterpretCast<half>" in text(lowering)) == (dtype == torch.bool)


# ---- the handler table ---------------------------------------------------------------------------------------


@unit
def test_every_handled_name_is_an_aten_op():
    for name in HANDLERS:
        if name == "getitem":
            continue
        namespace, op, overload = name.split(".")
        assert namespace == "aten" and hasattr(getattr(torch.ops.aten, op), overload), name


@unit
def test_an_unknown_op_is_refused_by_name():
    with pytest.raises(UnsupportedFunction, match=r"does not know aten\.atan\.default"):
        lower(torch.atan, [x(4, 8)])


# ---- arithmetic: scalar folding and operand order ------------------------------------------------------------


@unit
def test_scalar_arithmetic_folds_into_one_expression_without_instructions():
    lowering = lower(lambda a, s: s * 2 + 1, [x(4, 8), x(1)])
    assert lowering.lines == [] and kinds(lowering) == ["scalar"]
    assert lowering.output_vals[0].expr == "((scalar1_ * 2.0f) + 1.0f)"


@unit
def test_a_folded_scalar_feeds_a_tile_op_as_its_scalar_operand():
    lowering = lower(lambda a, s: a + s * 2, [x(4, 8), x(1)])
    assert lowering.lines == ["Adds(calc[0 * TILE], in0, (scalar1_ * 2.0f), count);"]


@unit
@pytest.mark.parametrize("function, lines", [
    (lambda a, s: s + a, ["Adds(calc[0 * TILE], in0, scalar1_, count);"]),
    (lambda a, s: a - s, ["Adds(calc[0 * TILE], in0, (scalar1_ * -1.0f), count);"]),
    (lambda a, s: s * a, ["Muls(calc[0 * TILE], in0, scalar1_, count);"]),
    # a scalar minus or over a tile is splatted first: Sub/Div have no scalar-first form
    (lambda a, s: s - a, ["Duplicate(calc[0 * TILE], scalar1_, count);",
                          "Sub(calc[1 * TILE], calc[0 * TILE], in0, count);"]),
    (lambda a, s: s / a, ["Duplicate(calc[0 * TILE], scalar1_, count);",
                          "Div(calc[1 * TILE], calc[0 * TILE], in0, count);"]),
])
def test_a_scalar_operand_takes_the_scalar_form_where_there_is_one(function, lines):
    assert lower(function, [x(4, 8), x(1)]).lines == lines


@unit
def test_division_by_a_constant_is_a_true_division():
    """a / 3 is not a * (1/3): the two differ in the last bit for many a, and torch divides."""
    lowering = lower(lambda a: a / 3, [x(4, 8)])
    assert ops(lowering) == ["Duplicate", "Div"] and "3.0f" in lowering.lines[0]


@unit
@pytest.mark.parametrize("function, expected_ops", [
    (lambda a, b: torch.add(a, b, alpha=2), ["Muls", "Add"]),
    (lambda a, b: torch.sub(a, b), ["Sub"]),
    (lambda a, b: torch.sub(a, b, alpha=0.5), ["Muls", "Add"]),
])
def test_alpha_scales_the_second_operand(function, expected_ops):
    lowering = lower(function, [x(4, 8), x(4, 8)])
    assert ops(lowering) == expected_ops
    if expected_ops[0] == "Muls":
        a, b = x(4, 8), x(4, 8)
        assert_matches(interpret(lowering, [a, b]), function(a, b))


@unit
def test_a_row_broadcast_input_is_a_full_tile_operand():
    lowering = lower(lambda a, b: a * b, [x(4, 8), x(8)])
    assert lowering.lines == ["Mul(calc[0 * TILE], in0, rowConst1_, count);"]


# ---- comparisons and selects ---------------------------------------------------------------------------------


@unit
@pytest.mark.parametrize("function, instruction, mode", [
    (lambda a, b: a < b, "Compare", "LT"), (lambda a, b: a <= b, "Compare", "LE"),
    (lambda a, b: a == b, "Compare", "EQ"), (lambda a, b: a != b, "Compare", "NE"),
    (lambda a, b: a >= 0.5, "CompareScalar", "GE"), (lambda a, b: a > 0.5, "CompareScalar", "GT"),
    (lambda a, b: torch.isnan(a), "Compare", "NE"),
])
def test_a_comparison_is_a_mask_over_whole_repeats(function, instruction, mode):
    lowering = lower(function, [x(4, 8), x(4, 8)])
    (line,) = lowering.lines
    assert kinds(lowering) == ["mask"] and line.startswith(f"{instruction}(masks[0 * MASK_BYTES], in0, ")
    assert f"CMPMODE::{mode}, (count + 63) / 64 * 64);" in line


@unit
def test_isnan_compares_a_value_with_itself():
    assert lower(torch.isnan, [x(4, 8)]).lines[0].startswith("Compare(masks[0 * MASK_BYTES], in0, in0, CMPMODE::NE")


@unit
def test_a_scalar_left_of_a_comparison_is_splatted():
    lowering = lower(lambda a, s: s < a, [x(4, 8), x(1)])
    assert ops(lowering) == ["Duplicate", "Compare"]


@unit
@pytest.mark.parametrize("function, mode", [
    (lambda a, b: torch.where(a > b, a, b), "VSEL_TENSOR_TENSOR_MODE"),
    (lambda a, b: torch.where(a > b, a, 0.5), "VSEL_TENSOR_SCALAR_MODE"),
    (lambda a, b: torch.where(a > b, 0.5, b), "VSEL_TENSOR_TENSOR_MODE"),  # the first operand is splatted
    (lambda a, b: torch.where(a > b, 1.0, -1.0), "VSEL_TENSOR_SCALAR_MODE"),
])
def test_where_selects_tensor_scalar_when_its_second_operand_is_a_scalar(function, mode):
    lowering = lower(function, [x(4, 8), x(4, 8)])
    (select,) = [line for line in lowering.lines if line.startswith("Select(")]
    assert f"SELMODE::{mode}" in select
    a, b = x(4, 8), x(4, 8)
    assert_matches(interpret(lowering, [a, b]), function(a, b))


@unit
def test_a_bool_input_condition_is_compared_with_zero():
    lowering = lower(lambda m, a: torch.where(m, a, 0.0), [torch.rand(4, 8) > 0.5, x(4, 8)])
    assert lowering.lines[0] == "CompareScalar(masks[0 * MASK_BYTES], in0, 0.0f, CMPMODE::NE, (count + 63) / 64 * 64);"


# ---- casts ---------------------------------------------------------------------------------------------------


@unit
@pytest.mark.parametrize("dtype, ctype", [(torch.float16, "half"), (torch.bfloat16, "bfloat16_t")])
def test_a_cast_to_a_narrow_type_rounds_through_it(dtype, ctype):
    lowering = lower(lambda a: a.to(dtype).float() * 2, [x(4, 8)])
    assert lowering.lines[:2] == [
        f"Cast(calc[0 * TILE].ReinterpretCast<{ctype}>(), in0, RoundMode::CAST_RINT, count);",
        f"Cast(calc[1 * TILE], calc[0 * TILE].ReinterpretCast<{ctype}>(), RoundMode::CAST_NONE, count);",
    ]
    a = x(4, 8) * 100
    assert_matches(interpret(lowering, [a]), a.to(dtype).float() * 2, rtol=0, atol=0)


@unit
def test_a_cast_to_float32_is_no_instruction():
    assert ops(lower(lambda a: a.float() + 1, [x(4, 8)])) == ["Adds"]


@unit
def test_a_cast_to_an_integer_type_is_refused_by_dtype():
    with pytest.raises(UnsupportedFunction, match=r"conversion to torch\.int32"):
        lower(lambda a: a.to(torch.int32), [x(4, 8)])


@unit
def test_a_one_element_value_cast_to_half_is_rounded():
    lowering = lower(lambda a, s: a * s.half().float(), [x(4, 8), x(1)])
    a, s = x(4, 8), torch.tensor([0.1])
    assert_matches(interpret(lowering, [a, s]), a * s.half().float(), rtol=0, atol=0)


@unit
def test_a_comparison_converted_to_float_is_a_full_tile_or_refused():
    try:
        lowering = lower(lambda a: (a >= 0.5).float(), [x(4, 8)])
    except UnsupportedFunction:
        return
    assert kinds(lowering) == ["full"]


# ---- powers --------------------------------------------------------------------------------------------------


@unit
@pytest.mark.parametrize("exponent, expected_ops", [
    (1, ["Muls"]), (0.5, ["Sqrt"]), (-0.5, ["Sqrt", "Div"]), (3, ["Muls", "Mul", "Mul"]),
    (-2, ["Muls", "Mul", "Div"]), (0, ["Duplicate"]), (1.7, ["Ln", "Muls", "Exp", "CompareScalar", "Select"]),
])
def test_a_constant_power_takes_the_cheapest_exact_form(exponent, expected_ops):
    lowering = lower(lambda a: a ** exponent, [x(4, 8)])
    assert [op for op in ops(lowering) if op != "Duplicate" or exponent == 0] == expected_ops
    a = x(4, 8).abs() + 0.1 if exponent == 1.7 else x(4, 8)
    assert_matches(interpret(lowering, [a]), a ** exponent)


@unit
@pytest.mark.parametrize("exponent", [1 / 3, -0.25])
def test_a_fractional_power_of_minus_infinity_follows_cs_pow(exponent):
    lowering = lower(lambda a: a ** exponent, [x(4, 8)])
    a = torch.tensor([-math.inf, math.inf, -0.0, 0.0, -2.0, 2.0, math.nan, 1.0]).repeat(4, 1)
    assert_matches(interpret(lowering, [a]), a ** exponent)


@unit
def test_a_large_integer_power_of_a_negative_base_is_finite():
    lowering = lower(lambda a: a ** 9, [x(4, 8)])
    a = -x(4, 8).abs() - 0.5
    assert_matches(interpret(lowering, [a]), a ** 9)


@unit
@pytest.mark.parametrize("base", [10000.0, 19342.5, 0.37, 2.0])
def test_a_constant_base_power_is_within_two_ulps(base):
    """10000 ** (-2i / d), rope's inverse frequencies: exp(y * ln base) alone is |y ln base| ulps off, which every
    angle t * inv_freq then carries into its sin and cos."""
    lowering = lower(lambda e: base ** e, [x(4, 16)])
    e = torch.cat([torch.linspace(-4, 4, 60), torch.tensor([0.0, math.inf, -math.inf, math.nan])]).reshape(4, 16)
    got, want = interpret(lowering, [e]), base ** e
    finite = want.isfinite() & (want != 0)
    assert torch.equal(got[~finite].nan_to_num(7.0), want[~finite].nan_to_num(7.0))
    ulps = (got[finite].view(torch.int32) - want[finite].view(torch.int32)).abs()
    assert ulps.max() <= 2, ulps.max()


@unit
def test_a_scalar_base_with_tensor_exponents_follows_cs_pow():
    lowering = lower(lambda a: 2 ** a, [x(4, 8)])
    a = torch.tensor([0.0, 1.0, -1.0, 0.5, 10.0, math.inf, -math.inf, math.nan]).repeat(4, 1)
    assert_matches(interpret(lowering, [a]), 2 ** a)


# ---- handlers of ops core ATen decomposes (reached by graphs traced without decompositions) --------------------


@unit
@pytest.mark.parametrize("function", [
    lambda a: F.silu(a), lambda a: F.hardswish(a), lambda a: F.hardsigmoid(a), lambda a: F.mish(a),
    lambda a: F.softplus(a, 2.0), lambda a: torch.rsub(a, 2), lambda a: torch.add(a, 2, alpha=3),
    lambda a: torch.clamp_min(a, 0.1), lambda a: torch.clamp_max(a, 0.1), lambda a: a.clone() * 2,
    lambda a: torch.log1p(a.abs()), lambda a: F.elu(a, 0.5), lambda a: F.gelu(a), lambda a: torch.tanh(a),
], ids=["silu", "hardswish", "hardsigmoid", "mish", "softplus_beta", "rsub_scalar", "add_scalar_alpha",
        "clamp_min", "clamp_max", "clone", "log1p", "elu_alpha", "gelu", "tanh"])
def test_an_activation_handler_computes_torchs_function(function):
    a = torch.cat([x(4, 16) * 4, torch.tensor([[0.0, -30.0, 30.0, 1e-3] * 4])])
    lowering = lower(task=raw_task(function, [a]))
    assert_matches(interpret(lowering, [a]), function(a), rtol=2e-5, atol=1e-6)


@unit
def test_softplus_returns_x_above_its_threshold():
    a = torch.linspace(-3, 3, 32).reshape(4, 8)
    lowering = lower(task=raw_task(lambda t: F.softplus(t, 1.0, 1.0), [a]))
    assert_matches(interpret(lowering, [a]), F.softplus(a, 1.0, 1.0))


# ---- clamps --------------------------------------------------------------------------------------------------


@unit
@pytest.mark.parametrize("function, inputs, expected_ops", [
    (lambda a: a.clamp(-0.5, 0.5), [x(4, 8)], ["Muls", "Maxs", "Mins"]),
    (lambda a: a.clamp(min=0.0), [x(4, 8)], ["Muls", "Maxs"]),
    (lambda a, lo, hi: torch.clamp(a, lo, hi), [x(4, 8), x(8), x(8)], ["Muls", "Max", "Min"]),
    (lambda a, lo: torch.clamp(a, min=lo), [x(4, 8), x(1)], ["Muls", "Maxs"]),  # a one-element bound is a scalar
])
def test_a_clamp_takes_scalar_bounds_as_scalars(function, inputs, expected_ops):
    lowering = lower(function, inputs)
    assert ops(lowering) == expected_ops
    fresh = [torch.randn_like(t) for t in inputs]
    assert_matches(interpret(lowering, fresh), function(*fresh))


# ---- row-wise kernels: kinds, broadcasts, reductions ---------------------------------------------------------


@unit
@pytest.mark.parametrize("function, instruction", [
    (lambda a: a.sum(-1), "ReduceSum"), (lambda a: a.amax(-1), "ReduceMax"), (lambda a: a.amin(-1), "ReduceMin"),
    (lambda a: a.max(-1).values, "ReduceMax"), (lambda a: a.min(-1).values, "ReduceMin"),
    (lambda a: a.mean(-1, keepdim=True), "ReduceSum"),
])
def test_a_row_reduction_is_one_value_per_row(function, instruction):
    lowering = lower(function, [x(4, 8)], reduced=1)
    assert kinds(lowering) == ["col"]
    assert f"{instruction}(colCalc[0 * COL_TILE][r * COL_STRIDE], in0[r * colsPad_]" in lowering.lines[0]


@unit
def test_a_mean_scales_the_row_sums_per_row():
    lowering = lower(lambda a: a.mean(-1), [x(4, 8)], reduced=1)
    assert lowering.lines[-1] == "Muls(colCalc[0 * COL_TILE], colCalc[0 * COL_TILE], invCols_, colCount);"


@unit
def test_a_per_row_value_in_full_tile_work_is_broadcast_over_its_row():
    lowering = lower(lambda a: a - a.mean(-1, keepdim=True), [x(4, 8)], reduced=1)
    assert kinds(lowering) == ["full"]
    assert any("Duplicate(calc[" in line and "GetValue(r * COL_STRIDE), colsPad_)" in line for line in lowering.lines)
    assert ops(lowering)[-1] == "Sub"


@unit
def test_per_row_work_stays_per_row():
    lowering = lower(lambda a: torch.sqrt(a.sum(-1) + 1), [x(4, 8)], reduced=1)
    assert kinds(lowering) == ["col"] and lowering.lines[-1].endswith(", colCount);")


@unit
def test_a_reduction_over_all_elements_folds_into_an_accumulator():
    lowering = lower(lambda a: (a * a).sum(), [x(4, 8)], reduced=1, split=True)  # collapsed to 1-D
    assert lowering.accumulators == ["sum"] and lowering.output_vals[0] == Val("col", "acc[0 * COL_STRIDE]")
    assert "ReduceSum(part, calc[0 * TILE], calc[1 * TILE], count);" in lowering.sections["full"]


@unit
def test_a_mean_over_all_elements_scales_once_at_the_end():
    lowering = lower(lambda a: a.mean(), [x(4, 8)], reduced=1, split=True)  # collapsed to 1-D
    assert lowering.sections["col"] == ["Muls(acc[0 * COL_STRIDE], acc[0 * COL_STRIDE], invCols_, colCount);"]


@unit
@pytest.mark.parametrize("function, squares", [(lambda a: a.var(-1), True), (lambda a: a.std(-1), False)])
def test_a_variance_under_a_square_root_is_the_root_itself(function, squares):
    lowering = lower(function, [x(4, 8)], reduced=1)
    root = lowering.output_vals[0].expr
    assert (f"Mul({root}, {root}, {root}, colCount);" in lowering.lines) == squares
    assert sum(op == "Sqrt" for op in ops(lowering)) == 1


@unit
@pytest.mark.parametrize("function, shape, tail", [
    (lambda a: torch.linalg.vector_norm(a, 1, -1), (4, 8), ["Abs", "ReduceSum"]),
    (lambda a: torch.linalg.vector_norm(a, 2, -1), (4, 8), ["Abs", "Mul", "ReduceSum", "Sqrt"]),
    (lambda a: torch.linalg.vector_norm(a, math.inf, -1), (4, 8), ["Abs", "ReduceMax"]),
    (lambda a: torch.linalg.vector_norm(a, -math.inf, -1), (4, 8), ["Abs", "ReduceMin"]),
    (lambda a: torch.linalg.vector_norm(a, 2, -1), (4, 1), ["Abs", "ReduceSum"]),  # the norm of one element is |x|
])
def test_vector_norms_by_order(function, shape, tail):
    assert ops(lower(function, [x(*shape)], reduced=1)) == tail


@unit
@pytest.mark.parametrize("function, helper", [
    (lambda a: torch.cumsum(a, -1), "CumSumRows"), (lambda a: torch.cumprod(a, -1), "CumProdRows"),
    (lambda a: a.flip(-1), "FlipRows"), (lambda a: a.prod(-1), "ProdRows"),
])
def test_scans_and_products_call_their_row_helpers(function, helper):
    lowering = lower(function, [x(4, 8)], reduced=1)
    assert ops(lowering) == [helper]
    assert kinds(lowering) == ["col" if helper == "ProdRows" else "full"]


@unit
def test_softmax_subtracts_the_row_max_before_exp():
    lowering = lower(lambda a: F.softmax(a, -1), [x(4, 8)], reduced=1)
    sequence = [op for op in ops(lowering) if op in ("Sub", "Exp", "Div", "Ln")]
    assert sequence == ["Sub", "Exp", "Div"] and "ReduceMax" in text(lowering)
    log = lower(lambda a: F.log_softmax(a, -1), [x(4, 8)], reduced=1)
    assert [op for op in ops(log) if op in ("Sub", "Exp", "Div", "Ln")] == ["Sub", "Exp", "Ln", "Sub"]


# ---- refusals ------------------------------------------------------------------------------------------------


@unit
@pytest.mark.parametrize("function, inputs, reduced, split, reason", [
    (lambda a, b: torch.div(a, b, rounding_mode="floor"), [x(4, 8), x(4, 8)], 0, False, "rounding_mode='floor'"),
    (lambda a: a.sum(0), [x(4, 8)], 1, False, r"reduces over dims \[0\]"),
    (lambda a: a.sum(-1), [x(4, 8)], 0, False, "trailing dims only"),  # no reduced dims in an elementwise kernel
    (lambda a: a.sum(-1, keepdim=True).sum(-1), [x(4, 8)], 1, False, "reduction of a per-row value"),
    (lambda a: a.half().prod(-1), [x(4, 8)], 1, False, "product of torch.float16"),
    (lambda a: a.bfloat16().cumprod(-1), [x(4, 8)], 1, False, "cumulative product of torch.bfloat16"),
    (lambda a: torch.linalg.vector_norm(a, 3, -1), [x(4, 8)], 1, False, "order 3"),
    (lambda a: a.max(-1).indices.float(), [x(4, 8)], 1, False, "argmax"),
    (lambda a: a + torch.full((4, 8), 2.0), [x(4, 8)], 0, False, "non-scalar shape"),
    (lambda a: a - a.mean(), [x(4, 8)], 1, True, "two passes"),  # collapsed to 1-D
    (lambda a: a.prod(0), [x(32)], 1, True, "product over all elements"),
    (lambda a: torch.cumsum(a, 0), [x(32)], 1, True, "over all elements"),
])
def test_what_the_lowering_cannot_do_says_why(function, inputs, reduced, split, reason):
    with pytest.raises(UnsupportedFunction, match=reason):
        lower(function, inputs, reduced=reduced, split=split)


@unit
def test_a_constant_that_is_not_a_number_is_refused():
    lowering = lower(lambda a: a + 1, [x(4, 8)])
    with pytest.raises(UnsupportedFunction, match="constant True is not a number"):
        lowering.scalar(True)


@unit
def test_a_size_used_as_a_number_is_refused_outside_reductions_over_all_elements():
    with pytest.raises(UnsupportedFunction, match="computes with a tensor's size"):
        lower(lambda a: a * a.shape[-1], [x(4, 8)])
    lowering = lower(lambda a: a.sum() / a.shape[0], [x(4, 8)], reduced=2, split=True)
    assert "static_cast<float>(dims_[0])" in text(lowering)


# ---- scratch reuse -------------------------------------------------------------------------------------------


@unit
def test_a_long_chain_reuses_its_scratch_slots():
    def chain(a):
        for _ in range(12):
            a = torch.exp(torch.abs(a) * 0.5)
        return a

    lowering = lower(chain, [x(4, 8)])
    assert len(lowering.lines) == 36 and lowering.slots("full") <= 2
    a = x(4, 8) * 0.1
    assert_matches(interpret(lowering, [a]), chain(a))


@unit
def test_a_value_used_twice_keeps_its_slot_until_its_last_use():
    def function(a, b):
        shared = a * b
        return torch.exp(shared) + torch.sqrt(shared.abs()) * shared

    lowering = lower(function, [x(4, 8), x(4, 8)])
    a, b = x(4, 8), x(4, 8)
    assert_matches(interpret(lowering, [a, b]), function(a, b))


_CHAIN_OPS = [
    lambda p, q: p + q, lambda p, q: p - q, lambda p, q: p * q, lambda p, q: p / (q.abs() + 1),
    lambda p, q: torch.maximum(p, q), lambda p, q: torch.minimum(p, q), lambda p, q: torch.where(p > q, p, q),
    lambda p, q: p * 2.5 - 1, lambda p, q: torch.relu(p) + q, lambda p, q: p.abs().sqrt(),
    lambda p, q: torch.sigmoid(p) * q, lambda p, q: p.clamp(-0.5, 0.5), lambda p, q: 1 - p,
]


@unit
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(2, 5), cols=st.integers(2, 9),
       broadcasts=st.lists(st.sampled_from(["full", "row", "one", "zero_dim"]), min_size=1, max_size=2),
       steps=st.lists(st.tuples(st.integers(0, len(_CHAIN_OPS) - 1), st.integers(0, 99), st.integers(0, 99)),
                      min_size=1, max_size=5),
       seed=st.integers(0, 2**16))
def test_a_lowered_elementwise_chain_over_broadcast_inputs_matches_torch(rows, cols, broadcasts, steps, seed):
    generator = torch.Generator().manual_seed(seed)
    shapes = {"full": (rows, cols), "row": (cols,), "one": (1,), "zero_dim": ()}
    inputs = [torch.randn((rows, cols), generator=generator)]
    inputs += [torch.randn(shapes[b], generator=generator) for b in broadcasts]

    def chain(*tensors):
        pool = list(tensors)
        for op, i, j in steps:
            pool.append(_CHAIN_OPS[op](pool[i % len(pool)], pool[j % len(pool)]))
        return pool[-1] + tensors[0]  # the result is full-shaped whatever the chain

    lowering = lower(chain, inputs)
    assert_matches(interpret(lowering, inputs), chain(*inputs))


# ---- end to end on the simulator: ops no other generator test lowers ------------------------------------------


SIM_CASES = {
    "minimum_reciprocal_clone": (lambda a, b: torch.reciprocal(torch.minimum(a, b).clone()), [x(8, 64), x(8, 64)]),
    "comparisons": (lambda a, b: torch.where(a <= b, a, 0.5) + torch.where(a != b, 1.0, b)
                    + torch.where(a == b, a, 2.0) * torch.where(b >= 0.25, b, -b) + torch.where(a < b, 3.0, a),
                    [x(8, 64), x(8, 64)]),
    "amin_rows": (lambda a: a.amin(-1), [x(8, 64)]),
    "pow_scalar_base": (lambda a: 2 ** a, [x(8, 64)]),
    "logsigmoid_full": (F.logsigmoid, [x(8, 64)]),  # aten.full.default of a scalar, minimum, log1p
    "min_all": (lambda a: a.min(), [x(64, 512)]),
}


@pytest.fixture(scope="module")
def sim_kernels():
    from generated_kernels import build_cases
    from torch_ascendgen.generators.builtin.generator import generate_builtin

    return build_cases(SIM_CASES, lambda task: generate_builtin(task, 1)[0])


@sim
@pytest.mark.parametrize("name", SIM_CASES)
def test_a_lowered_op_is_right_on_the_simulator(name, sim_kernels):
    from generated_kernels import full_verification

    function, _ = SIM_CASES[name]
    task, kernel = sim_kernels[name]
    verdict = full_verification(function, task, kernel)
    assert verdict.ok, verdict.reason


@sim
def test_comparisons_see_ties_on_the_simulator(sim_kernels):
    """Equal elements decide ==, != and <=: inputs with many ties."""
    from torch_ascendgen.targets.runtime import ContractKernel

    function, _ = SIM_CASES["comparisons"]
    task, kernel = sim_kernels["comparisons"]
    a, b = torch.randint(-2, 3, (8, 64)).float() / 4, torch.randint(-2, 3, (8, 64)).float() / 4
    (got,) = ContractKernel(kernel, task, "Ascend910B2")(a.reshape(-1), b.reshape(-1))  # an elementwise task is 1-D
    assert torch.equal(got, function(a, b).reshape(-1))
