"""Lowering: ATen ops of a captured graph -> AscendC statements of a kernel's compute section.

Every value is computed in float. A value is one of
- "full": a UB tile of the kernel's full shape (``count`` elements per tile),
- "col": one element per row of a row-wise kernel (``n`` elements), e.g. a row sum,
- "scalar": a C++ scalar expression (a constant, or a one-element input read once),
- "mask": a Compare bit mask, for torch.where.
Scratch tiles are reused once the values in them are dead. Each handler below lowers one op; a
composite (sigmoid, gelu, softmax, layer_norm, ...) is written out in basic instructions, in forms
that stay finite where torch's result is finite.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.fx
import torch.utils._pytree as pytree

from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import UnsupportedFunction

CTYPES = {torch.float32: "float", torch.float16: "half", torch.bfloat16: "bfloat16_t"}
GM_CTYPES = {**CTYPES, torch.bool: "uint8_t"}  # input element types in GM: a bool is one byte, 0 or 1


@dataclass(frozen=True)
class Val:
    """A value in the generated compute section.

    A "col" value keeps one element per 32 bytes (COL_STRIDE floats apart), so that each row's value
    starts 32-byte aligned, as reductions' destinations and vector operands must.
    """

    kind: str  # "full", "col", "scalar" or "mask"
    expr: str
    slot: int = -1  # scratch slot it owns, -1 when it owns none


class Lowering:
    """Walks the graph once and writes the compute section.

    ``classify(node)`` says whether a node's value is "full", "col" or "scalar" in the kernel at
    hand; ``inputs`` maps input indices to the Val the kernel provides for them (already in float).
    """

    def __init__(self, task: KernelTask, classify: Callable[[torch.fx.Node], str], inputs: dict[int, Val],
                 reduced_dims: tuple[int, ...] = (), split: bool = False):
        self.task = task
        # split: the reduced "row" is all elements, spread over tiles and blocks; full-tile work goes
        # into the per-tile section, reductions fold into accumulators, per-row work runs once at the end
        self.split = split
        self.sections: dict[str, list[str]] = {"full": [], "col": []}
        self.accumulators: list[str] = []
        self.classify = classify
        self.input_vals = inputs
        self.reduced_dims = reduced_dims  # the trailing dims a row-wise kernel reduces, as non-negative indices
        self.lines: list[str] = []
        self.values: dict[torch.fx.Node, Val] = {}
        self.pools = {"full": [0, []], "col": [0, []], "mask": [0, []]}  # [slots made, free slots]
        self.kind = "full"
        self.needs_scalar_sync = False
        self.given: set[torch.fx.Node] = set()  # nodes whose value an earlier handler already made (std's root)
        self.output_vals: list[Val] = []

    # -- scratch
    @property
    def N(self) -> str:
        """The element count of the value kind being computed."""
        return "colCount" if self.kind == "col" else "count"

    def slots(self, kind: str) -> int:
        return self.pools[kind][0]

    def temp(self, kind: str | None = None) -> Val:
        kind = kind or self.kind
        made, free = self.pools[kind]
        slot = free.pop() if free else made
        if slot == made:
            self.pools[kind][0] += 1
        expr = {"full": f"calc[{slot} * TILE]", "col": f"colCalc[{slot} * COL_TILE]",
                "mask": f"masks[{slot} * MASK_BYTES]"}[kind]
        return Val(kind, expr, slot)

    def mask(self) -> Val:
        return self.temp("mask")

    def release(self, value: Val) -> None:
        if value.slot >= 0:
            self.pools[value.kind][1].append(value.slot)

    def emit(self, line: str) -> None:
        self.lines.append(line)
        self.sections["col" if self.kind == "col" else "full"].append(line)

    # -- the walk
    def run(self) -> list[Val]:
        nodes = list(self.task.graph.graph.nodes)
        last_use = {}
        for position, node in enumerate(nodes):
            for used in node.all_input_nodes:
                last_use[used] = position
        holders: dict[str, int] = {}  # live nodes holding each value (a float->float copy shares one)
        index = 0
        for position, node in enumerate(nodes):
            if node.op == "placeholder":
                self.values[node] = self.input_vals[index]
                index += 1
            elif node.op == "call_function":
                self.values[node] = self._lower(node)
            elif node.op == "output":
                self.output_vals = [self.values[leaf] for leaf in pytree.tree_leaves(node.args[0])]
                continue
            if not isinstance(self.values[node], Val):  # a multi-output op (its getitem users hold the parts)
                continue                                    # or an unused part of one
            holders[self.values[node].expr] = holders.get(self.values[node].expr, 0) + 1
            for used in node.all_input_nodes:
                if last_use.get(used) == position and isinstance(self.values[used], Val):
                    self._drop(self.values[used], holders)
            if node not in last_use:
                self._drop(self.values[node], holders)
        return self.output_vals

    def _drop(self, value: Val, holders: dict[str, int]) -> None:
        holders[value.expr] -= 1
        if holders[value.expr] == 0:
            self.release(value)

    def _lower(self, node: torch.fx.Node) -> Val:
        if node in self.given:
            return self.values[node.args[0]]
        name = "getitem" if node.target.__name__ == "getitem" else str(node.target)
        handler = HANDLERS.get(name)
        if handler is None:
            raise UnsupportedFunction(f"the built-in generator does not know {name}")
        kind = self.classify(node)
        args = [self._arg(a, kind) for a in node.args]
        kwargs = {k: self._arg(v, kind) for k, v in node.kwargs.items()}
        self.kind = kind if kind in ("full", "col") else "full"
        value = handler(self, node, *args, **kwargs)
        dtype = getattr(node.meta.get("val"), "dtype", None)
        if dtype in (torch.float16, torch.bfloat16) and isinstance(value, Val) and value.kind in ("full", "col"):
            self._round_to(value, dtype)  # eager rounds every half-precision op's result
        return value

    def _round_to(self, value: Val, dtype: torch.dtype) -> None:
        """``value`` rounded in place to ``dtype``'s precision (idempotent: a value of that type stays itself)."""
        narrow = CTYPES[dtype]
        count = "colCount" if value.kind == "col" else "count"
        step = self.temp(value.kind)
        self.emit(f"Cast({step.expr}.ReinterpretCast<{narrow}>(), {value.expr}, RoundMode::CAST_RINT, {count});")
        self.emit(f"Cast({value.expr}, {step.expr}.ReinterpretCast<{narrow}>(), RoundMode::CAST_NONE, {count});")
        self.release(step)

    def _arg(self, arg, kind: str):
        """A node argument as a Val; a per-row value used in a full-tile op is broadcast over its row."""
        if isinstance(arg, (list, tuple)):
            return type(arg)(self._arg(a, kind) for a in arg)
        if not isinstance(arg, torch.fx.Node):
            return arg
        value = self.values[arg]
        if isinstance(value, Val) and kind == "full" and value.kind == "col":
            return self.broadcast_rows(value)
        return value

    def broadcast_rows(self, column: Val) -> Val:
        if self.split:
            raise UnsupportedFunction("it uses a reduction over all elements inside elementwise work (two passes "
                                      "over the data), which the built-in generator does not do yet")
        out = self.temp("full")
        self.scalar_sync()
        self.emit(f"for (uint32_t r = 0; r < n; ++r) Duplicate({out.expr}[r * colsPad_], "
                  f"{column.expr}.GetValue(r * COL_STRIDE), colsPad_);")
        self.emit("ScalarToVector();")
        return out

    def scalar_sync(self) -> None:
        self.emit("VectorToScalar();")

    # -- building blocks for the handlers
    def scalar(self, value) -> Val:
        if isinstance(value, Val):
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise UnsupportedFunction(f"constant {value!r} is not a number")
        return Val("scalar", float_literal(float(value)))

    def tensor(self, x: Val) -> Val:
        return self.splat(x) if x.kind == "scalar" else x

    def splat(self, x: Val) -> Val:
        out = self.temp()
        self.emit(f"Duplicate({out.expr}, {x.expr}, {self.N});")
        return out

    def unary(self, op: str, x: Val) -> Val:
        source = self.tensor(x)
        out = self.temp()
        self.emit(f"{op}({out.expr}, {source.expr}, {self.N});")
        if source is not x:
            self.release(source)
        return out

    def with_scalar(self, op: str, x: Val, s: Val) -> Val:
        out = self.temp()
        self.emit(f"{op}({out.expr}, {x.expr}, {s.expr}, {self.N});")
        return out

    def binary(self, op: str, a: Val, b: Val) -> Val:
        """``op(out, a, b)``; a scalar operand is splatted into a scratch tile first."""
        a_tensor, b_tensor = self.tensor(a), self.tensor(b)
        out = self.temp()
        self.emit(f"{op}({out.expr}, {a_tensor.expr}, {b_tensor.expr}, {self.N});")
        for value, original in ((a_tensor, a), (b_tensor, b)):
            if value is not original:
                self.release(value)
        return out

    def copy(self, x: Val) -> Val:
        if x.kind == "scalar":
            return self.splat(x)
        return self.with_scalar("Muls", x, Val("scalar", "1.0f"))

    def reduced(self, dims) -> bool:
        """Whether a reduction over ``dims`` (None or [] meaning all) is over exactly the kernel's reduced dims."""
        rank = self.full_rank
        if dims and not rank:  # a kernel without reduced dims (elementwise, looped)
            return False
        normal = sorted({d % rank for d in dims}) if dims else list(range(rank))
        return normal == list(self.reduced_dims)

    @property
    def full_rank(self) -> int:
        return max(self.reduced_dims) + 1 if self.reduced_dims else 0


def float_literal(value: float) -> str:
    if math.isnan(value):
        return "(0.0f / 0.0f)"
    if math.isinf(value):
        return "(1.0f / 0.0f)" if value > 0 else "(-1.0f / 0.0f)"
    text = repr(value)
    return f"{text}f" if ("e" in text or "." in text) else f"{text}.0f"


def bool_condition_input(task: KernelTask, spec) -> bool:
    """Whether ``spec`` is a bool input used only as torch.where's condition (read as 0.0 or 1.0)."""
    indices = [i for i, s in enumerate(task.inputs) if s is spec]
    if spec.dtype != torch.bool or not indices:
        return False
    placeholders = [node for node in task.graph.graph.nodes if node.op == "placeholder"]
    return all(str(user.target) == "aten.where.self" and user.args[0] is placeholders[i]
               and placeholders[i] not in user.args[1:] for i in indices for user in placeholders[i].users)


def io_lines(task: KernelTask) -> tuple[list[str], str, str]:
    """The In/Out type aliases, and the kernel's GM parameter list and argument list."""
    types = [f"using In{i} = {GM_CTYPES[spec.dtype]};" for i, spec in enumerate(task.inputs)]
    types += [f"using Out{i} = {CTYPES[spec.dtype]};" for i, spec in enumerate(task.outputs)]
    names = [f"in{i}" for i in range(len(task.inputs))] + [f"out{i}" for i in range(len(task.outputs))]
    return types, ", ".join(f"GM_ADDR {name}" for name in names) + ",", ", ".join(names) + ","


def widen(lo: Lowering, dst: Val, source: str, dtype: torch.dtype) -> None:
    """``dst`` (a float tile) = the input tile ``source`` of ``dtype`` in float."""
    if dtype == torch.bool:  # no Cast takes uint8 to float; uint8 -> half -> float is exact for 0 and 1
        step = lo.temp(dst.kind)
        lo.emit(f"Cast({step.expr}.ReinterpretCast<half>(), {source}, RoundMode::CAST_NONE, {lo.N});")
        lo.emit(f"Cast({dst.expr}, {step.expr}.ReinterpretCast<half>(), RoundMode::CAST_NONE, {lo.N});")
        lo.release(step)
    else:
        lo.emit(f"Cast({dst.expr}, {source}, RoundMode::CAST_NONE, {lo.N});")


# ---- handlers: one per ATen op -------------------------------------------------------------------

def _add(lo: Lowering, node, a, b, alpha=1):
    return _add_scaled(lo, lo.scalar(a), lo.scalar(b), float(alpha))


def _sub(lo: Lowering, node, a, b, alpha=1):
    return _add_scaled(lo, lo.scalar(a), lo.scalar(b), -float(alpha))


def _rsub(lo: Lowering, node, a, b, alpha=1):
    return _add_scaled(lo, lo.scalar(b), lo.scalar(a), -float(alpha))


def _add_scaled(lo: Lowering, a: Val, b: Val, alpha: float) -> Val:
    """a + alpha * b."""
    if a.kind == "scalar" and b.kind != "scalar" and alpha == 1.0:
        a, b = b, a
    if b.kind == "scalar":
        scaled = b if alpha == 1.0 else Val("scalar", f"({b.expr} * {float_literal(alpha)})")
        if a.kind == "scalar":
            return Val("scalar", f"({a.expr} + {scaled.expr})")
        return lo.with_scalar("Adds", a, scaled)
    if alpha == 1.0:
        return lo.binary("Add", a, b)
    if alpha == -1.0:
        return lo.binary("Sub", a, b)
    scaled = lo.with_scalar("Muls", b, Val("scalar", float_literal(alpha)))
    result = lo.binary("Add", a, scaled)
    lo.release(scaled)
    return result


def _mul(lo: Lowering, node, a, b):
    a, b = lo.scalar(a), lo.scalar(b)
    if a.kind == "scalar" and b.kind == "scalar":
        return Val("scalar", f"({a.expr} * {b.expr})")
    if b.kind == "scalar":
        return lo.with_scalar("Muls", a, b)
    if a.kind == "scalar":
        return lo.with_scalar("Muls", b, a)
    return lo.binary("Mul", a, b)


def _div(lo: Lowering, node, a, b, rounding_mode=None):
    if rounding_mode is not None:
        raise UnsupportedFunction(f"division with rounding_mode={rounding_mode!r} is not supported yet")
    a, b = lo.scalar(a), lo.scalar(b)
    if a.kind == "scalar" and b.kind == "scalar":
        return Val("scalar", f"({a.expr} / {b.expr})")
    return lo.binary("Div", a, b)


def _pow(lo: Lowering, node, x, exponent):
    if isinstance(exponent, Val):
        return _pow_tensor(lo, node, x, exponent)
    p = float(exponent)
    if p == 1.0:
        return lo.copy(x)
    if p == 0.5:
        return lo.unary("Sqrt", x)
    if p == -0.5:
        return _reciprocal_of(lo, lo.unary("Sqrt", x), consume=True)
    if p == int(p) and abs(p) <= 8:
        result = _int_power(lo, lo.tensor(x), int(abs(p)))
        return _reciprocal_of(lo, result, consume=True) if p < 0 else result
    if p == int(p):  # the sign of a negative base's odd power, as C's pow gives it
        return _pow_tensor(lo, node, x, Val("scalar", float_literal(p)))
    result = lo.unary("Ln", x)  # x ** p = exp(p * ln x): NaN for x < 0, as torch gives for non-integer p
    lo.emit(f"Muls({result.expr}, {result.expr}, {float_literal(p)}, {lo.N});")
    lo.emit(f"Exp({result.expr}, {result.expr}, {lo.N});")
    # but (-inf) ** p is inf (p > 0) or 0 (p < 0), as C's pow gives it (lp_pool's sign(s) * |s| ** (1 / p))
    at_minus_inf = Val("scalar", float_literal(math.inf if p > 0 else 0.0))
    _select_into(lo, result, _mask_of(lo, "NE", x, Val("scalar", float_literal(-math.inf))), result, at_minus_inf)
    return result


def _pow_tensor(lo: Lowering, node, x, exponent):
    """x ** y elementwise with C's pow special cases, as torch gives them.

    |x| ** y = exp(y * ln|x|), with y * ln|x| taken as 0 when |x| = 1 (so 1 ** inf = 1). Then: a
    negative base (also -0 and -inf) with an odd integer y negates the result; a finite negative
    base with a non-integer y gives NaN; y = 0 and x = 1 give 1 whatever the other operand.
    Integer-valued means trunc(y) == y (infinities count as even integers).
    """
    base, power = lo.scalar(x), lo.scalar(exponent)
    constant = literal_value(base)
    if power.kind != "scalar" and constant is not None and math.isfinite(constant) and 0 < constant != 1:
        return _pow_of_constant_base(lo, constant, power)
    x, y = lo.tensor(base), lo.tensor(power)
    result = _pow_of_magnitude(lo, x, y)
    factor, scratch, integer = _odd_integer_sign(lo, y)
    _sign_negative_bases(lo, x, result, factor, scratch, integer)
    for operand, value in ((y, "0.0f"), (x, "1.0f")):
        keep = _mask_of(lo, "NE", operand, Val("scalar", value))
        _select_into(lo, result, keep, result, Val("scalar", "1.0f"))
    for splatted, original in ((x, base), (y, power)):
        if splatted is not original:
            lo.release(splatted)
    return result


_LITERAL = re.compile(r"(?:static_cast<float>)?\(*(-?[0-9.]+(?:e[-+]?[0-9]+)?f|-?1\.0f/0\.0f|0\.0f/0\.0f)\)*")


def literal_value(value: Val) -> float | None:
    """The number a scalar Val's C++ literal holds (float_literal's forms), else None."""
    if value.kind != "scalar":
        return None
    found = _LITERAL.fullmatch(value.expr.replace(" ", ""))
    if found is None:
        return None
    number = found.group(1)
    return {"1.0f/0.0f": math.inf, "-1.0f/0.0f": -math.inf, "0.0f/0.0f": math.nan}.get(number) or float(
        number.rstrip("f"))


def _float32(value: float) -> float:
    return float(torch.tensor(value, dtype=torch.float32))


def _split_float32(value: float) -> tuple[float, float]:
    """A float32 value as two halves of 12 significant bits each (Dekker's split, in float32 arithmetic)."""
    scaled = _float32(value * 4097.0)
    high = _float32(scaled - _float32(scaled - value))
    return high, _float32(value - high)


def _pow_of_constant_base(lo: Lowering, base: float, y: Val) -> Val:
    """base ** y for a positive constant base (rope's inverse frequencies, 10000 ** (-2i / d)) to about an ulp:
    exp(y * ln(base)) with ln(base) taken in double on the host as hi + lo and the product's rounding error
    recovered exactly (Dekker's two-product), exp(p + e) = exp(p) * (1 + e). Exp(y * Ln(base)) alone is off by
    |y ln base| ulps, which an angle t * inv_freq then carries into every sin and cos."""
    log_base = math.log(_float32(base))
    log_high = _float32(log_base)
    log_low = _float32(log_base - log_high)
    head, tail = _split_float32(log_high)
    n = lo.N
    y = lo.tensor(y)
    product = lo.with_scalar("Muls", y, Val("scalar", float_literal(log_high)))
    y_head, y_tail = lo.with_scalar("Muls", y, Val("scalar", "4097.0f")), lo.temp()
    lo.emit(f"Sub({y_tail.expr}, {y_head.expr}, {y.expr}, {n});")
    lo.emit(f"Sub({y_head.expr}, {y_head.expr}, {y_tail.expr}, {n});")  # y's high 12 bits
    lo.emit(f"Sub({y_tail.expr}, {y.expr}, {y_head.expr}, {n});")  # and the rest
    error, term = lo.with_scalar("Muls", y_head, Val("scalar", float_literal(head))), lo.temp()
    lo.emit(f"Sub({error.expr}, {error.expr}, {product.expr}, {n});")
    for part, factor in ((y_head, tail), (y_tail, head), (y_tail, tail), (y, log_low)):
        lo.emit(f"Muls({term.expr}, {part.expr}, {float_literal(factor)}, {n});")
        lo.emit(f"Add({error.expr}, {error.expr}, {term.expr}, {n});")
    lo.release(y_head)
    lo.release(y_tail)
    result = lo.unary("Exp", product)
    lo.release(product)
    lo.emit(f"Mul({term.expr}, {result.expr}, {error.expr}, {n});")
    lo.emit(f"Add({term.expr}, {term.expr}, {result.expr}, {n});")
    # an infinite or huge y makes the corrected value NaN: exp(p) itself is then the answer (0, inf)
    _select_into(lo, result, _mask_of(lo, "EQ", term, term), term, result)
    lo.release(error)
    lo.release(term)
    return result


def _pow_of_magnitude(lo: Lowering, x: Val, y: Val) -> Val:
    """|x| ** y = exp(y * ln|x|), the exponent taken as 0 where |x| = 1."""
    n = lo.N
    result = lo.unary("Abs", x)
    lo.emit(f"Ln({result.expr}, {result.expr}, {n});")
    unit_base = _mask_of(lo, "NE", result, Val("scalar", "0.0f"))
    lo.emit(f"Mul({result.expr}, {result.expr}, {y.expr}, {n});")
    _select_into(lo, result, unit_base, result, Val("scalar", "0.0f"))
    lo.emit(f"Exp({result.expr}, {result.expr}, {n});")
    return result


def _odd_integer_sign(lo: Lowering, y: Val) -> tuple[Val, Val, Val]:
    """(factor, scratch, integer): factor is -1 where y is an odd integer, else 1; scratch is a free tile;
    integer is the mask of integer-valued y. The caller releases all three."""
    n = lo.N
    half, whole = lo.temp(), lo.temp()
    lo.emit(f"Muls({half.expr}, {y.expr}, 0.5f, {n});")
    lo.emit(f"Cast({whole.expr}, {half.expr}, RoundMode::CAST_TRUNC, {n});")
    even = _mask_of(lo, "EQ", whole, half)
    lo.emit(f"Duplicate({whole.expr}, 1.0f, {n});")
    _select_into(lo, half, even, whole, Val("scalar", "-1.0f"))
    lo.emit(f"Cast({whole.expr}, {y.expr}, RoundMode::CAST_TRUNC, {n});")
    integer = _mask_of(lo, "EQ", whole, y)
    _select_into(lo, whole, integer, half, Val("scalar", "1.0f"), consume_mask=False)
    return whole, half, integer


def _sign_negative_bases(lo: Lowering, x: Val, result: Val, factor: Val, scratch: Val, integer: Val) -> None:
    """Applies the sign factor where x is negative, and NaN where x is finite, negative and y not an integer.

    min(x, 1/x) < 0 for every negative base including -0 and -inf; max(x, 1/x) < 0 for finite ones.
    Releases factor, scratch and the integer mask.
    """
    n = lo.N
    reciprocal = _reciprocal_of(lo, x)
    lo.emit(f"Min({scratch.expr}, {x.expr}, {reciprocal.expr}, {n});")
    negative = _mask_of(lo, "LT", scratch, Val("scalar", "0.0f"))
    lo.emit(f"Mul({factor.expr}, {factor.expr}, {result.expr}, {n});")
    _select_into(lo, result, negative, factor, result)
    lo.emit(f"Max({scratch.expr}, {x.expr}, {reciprocal.expr}, {n});")
    lo.release(reciprocal)
    finite_negative = _mask_of(lo, "LT", scratch, Val("scalar", "0.0f"))
    _select_into(lo, factor, integer, result, Val("scalar", float_literal(math.nan)))
    _select_into(lo, result, finite_negative, factor, result)
    lo.release(factor)
    lo.release(scratch)


def _int_power(lo: Lowering, x: Val, n: int) -> Val:
    if n == 0:
        return lo.splat(Val("scalar", "1.0f"))
    result = lo.copy(x)
    for _ in range(n - 1):
        lo.emit(f"Mul({result.expr}, {result.expr}, {x.expr}, {lo.N});")
    return result


def _reciprocal_of(lo: Lowering, x: Val, consume: bool = False) -> Val:
    """1 / x by a true division (the Reciprocal instruction is documented as approximate)."""
    result = lo.binary("Div", Val("scalar", "1.0f"), x)
    if consume:
        lo.release(x)
    return result


def _reciprocal(lo: Lowering, node, x):
    return _reciprocal_of(lo, x)


def _rsqrt(lo: Lowering, node, x):
    return _reciprocal_of(lo, lo.unary("Sqrt", x), consume=True)


def _sigmoid_of(lo: Lowering, x: Val) -> Val:
    """1 / (1 + exp(-x)); exp overflow gives 1/inf = 0, as it should."""
    t = lo.with_scalar("Muls", x, Val("scalar", "-1.0f"))
    lo.emit(f"Exp({t.expr}, {t.expr}, {lo.N});")
    lo.emit(f"Adds({t.expr}, {t.expr}, 1.0f, {lo.N});")
    return _reciprocal_of(lo, t, consume=True)


def _sigmoid(lo: Lowering, node, x):
    return _sigmoid_of(lo, lo.tensor(x))


def _silu(lo: Lowering, node, x):
    x = lo.tensor(x)
    s = _sigmoid_of(lo, x)
    lo.emit(f"Mul({s.expr}, {s.expr}, {x.expr}, {lo.N});")
    return s


def _tanh_of(lo: Lowering, x: Val) -> Val:
    """tanh(x) = 1 - 2 / (exp(2x) + 1): saturates to ±1 instead of overflowing to NaN."""
    t = lo.with_scalar("Muls", x, Val("scalar", "2.0f"))
    lo.emit(f"Exp({t.expr}, {t.expr}, {lo.N});")
    lo.emit(f"Adds({t.expr}, {t.expr}, 1.0f, {lo.N});")
    r = lo.binary("Div", Val("scalar", "-2.0f"), t)
    lo.release(t)
    lo.emit(f"Adds({r.expr}, {r.expr}, 1.0f, {lo.N});")
    return r


def _tanh(lo: Lowering, node, x):
    return _tanh_of(lo, lo.tensor(x))


def _softplus_of(lo: Lowering, z: Val) -> Val:
    """log(1 + exp(z)) = max(z, 0) + log1p(exp(-|z|)), stable for large |z| (and exp(z) itself, not 0, far below 0:
    a decay exp(-A * softplus(z)) stays 0 instead of becoming 0 * inf)."""
    a = lo.unary("Abs", z)
    lo.emit(f"Muls({a.expr}, {a.expr}, -1.0f, {lo.N});")
    lo.emit(f"Exp({a.expr}, {a.expr}, {lo.N});")
    result = log1p_of(lo, a)
    lo.release(a)
    a = result
    m = lo.with_scalar("Maxs", z, Val("scalar", "0.0f"))
    lo.emit(f"Add({a.expr}, {a.expr}, {m.expr}, {lo.N});")
    lo.release(m)
    return a


def _softplus(lo: Lowering, node, x, beta=1, threshold=20):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (as torch's)."""
    x = lo.tensor(x)
    z = x if beta == 1 else lo.with_scalar("Muls", x, lo.scalar(beta))
    result = _softplus_of(lo, z)
    if beta != 1:
        lo.emit(f"Muls({result.expr}, {result.expr}, {float_literal(1.0 / beta)}, {lo.N});")
    _select_into(lo, result, _mask_of(lo, "GT", z, lo.scalar(threshold)), x, result)
    if z is not x:
        lo.release(z)
    return result


def _mish(lo: Lowering, node, x):
    x = lo.tensor(x)
    sp = _softplus_of(lo, x)
    t = _tanh_of(lo, sp)
    lo.release(sp)
    lo.emit(f"Mul({t.expr}, {t.expr}, {x.expr}, {lo.N});")
    return t


# erfc(a) = t * exp(-a^2 + P(t)), t = 1 / (1 + a / 2), for a >= 0: the Chebyshev fit of Numerical Recipes' erfcc,
# relative error below 1.2e-7 everywhere (Abramowitz & Stegun 7.1.26 is good to 1.5e-7 absolute only, and 38% off
# relative in the far tail).
_ERFC_COEFFICIENTS = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398,
                      1.48851587, -0.82215223, 0.17087277)


def _erfc_of_abs(lo: Lowering, a: Val) -> Val:
    """erfc(a) for a = |x|, accurate relative to itself: gelu's left tail x * Phi(x) is tiny, but a kernel's
    result may be scaled up by what follows (swiglu), so it must be right to its last bits, not to 1e-7 absolute."""
    t = lo.with_scalar("Muls", a, Val("scalar", "0.5f"))
    lo.emit(f"Adds({t.expr}, {t.expr}, 1.0f, {lo.N});")
    t = _reciprocal_of(lo, t, consume=True)
    poly = lo.with_scalar("Muls", t, Val("scalar", float_literal(_ERFC_COEFFICIENTS[-1])))
    for coefficient in reversed(_ERFC_COEFFICIENTS[1:-1]):
        lo.emit(f"Adds({poly.expr}, {poly.expr}, {float_literal(coefficient)}, {lo.N});")
        lo.emit(f"Mul({poly.expr}, {poly.expr}, {t.expr}, {lo.N});")
    lo.emit(f"Adds({poly.expr}, {poly.expr}, {float_literal(_ERFC_COEFFICIENTS[0])}, {lo.N});")
    square = lo.binary("Mul", a, a)
    lo.emit(f"Sub({poly.expr}, {poly.expr}, {square.expr}, {lo.N});")
    lo.release(square)
    lo.emit(f"Exp({poly.expr}, {poly.expr}, {lo.N});")
    lo.emit(f"Mul({poly.expr}, {poly.expr}, {t.expr}, {lo.N});")
    lo.release(t)
    return poly


# Where PyTorch's gelu is exactly 0 even in float64 (1 + erf(z), 1 + tanh(u) round to 0 in double): |z| beyond
# the first and u below the second. The kernel is 0 there too, though the true value is tiny but not 0: the verifier
# judges against the float64 result, and a product with a huge factor would show the difference.
_ERF_ZERO_BEYOND = 5.9216
_TANH_ZERO_BELOW = -19.0615


def _zero_where_above(lo: Lowering, value: Val, arg: Val, limit: float) -> None:
    """value *= 1 where arg <= limit, 0 where arg > limit (1 + 1e-5); a linear step between, in place."""
    width = abs(limit) * 1e-5
    keep = lo.with_scalar("Muls", arg, Val("scalar", float_literal(-1.0 / width)))
    lo.emit(f"Adds({keep.expr}, {keep.expr}, {float_literal((limit + width) / width)}, {lo.N});")
    lo.emit(f"Mins({keep.expr}, {keep.expr}, 1.0f, {lo.N});")
    lo.emit(f"Maxs({keep.expr}, {keep.expr}, 0.0f, {lo.N});")
    lo.emit(f"Mul({value.expr}, {value.expr}, {keep.expr}, {lo.N});")
    lo.release(keep)


def _normal_cdf_of(lo: Lowering, z: Val, finite_sign: bool = False) -> Val:
    """Phi = (1 + erf(z)) / 2 for z = x / sqrt(2), as m - sign * erfc(|z|) / 2 with m = (1 + sign) / 2: exactly
    erfc(|z|) / 2 for z < 0 (no 1 + erf cancellation), 1 - erfc(z) / 2 above. sign = z / (|z| + tiny) is NaN at
    +-inf, where PyTorch's float32 and bfloat16 gelu are NaN too; with ``finite_sign`` (float16, whose gelu is inf
    at +inf) z is clamped to float's range first, so that sign is +-1 there."""
    a = lo.unary("Abs", z)
    half_erfc = _erfc_of_abs(lo, a)
    lo.emit(f"Muls({half_erfc.expr}, {half_erfc.expr}, 0.5f, {lo.N});")
    _zero_where_above(lo, half_erfc, a, _ERF_ZERO_BEYOND)
    if finite_sign:
        z = lo.with_scalar("Mins", z, Val("scalar", "3.0e38f"))
        lo.emit(f"Maxs({z.expr}, {z.expr}, -3.0e38f, {lo.N});")
        lo.emit(f"Mins({a.expr}, {a.expr}, 3.0e38f, {lo.N});")
    lo.emit(f"Adds({a.expr}, {a.expr}, 1e-30f, {lo.N});")
    sign = lo.binary("Div", z, a)
    lo.release(a)
    if finite_sign:
        lo.release(z)
    lo.emit(f"Mul({half_erfc.expr}, {half_erfc.expr}, {sign.expr}, {lo.N});")
    lo.emit(f"Muls({sign.expr}, {sign.expr}, 0.5f, {lo.N});")
    lo.emit(f"Adds({sign.expr}, {sign.expr}, 0.5f, {lo.N});")
    lo.emit(f"Sub({sign.expr}, {sign.expr}, {half_erfc.expr}, {lo.N});")
    lo.release(half_erfc)
    return sign


def _gelu(lo: Lowering, node, x, approximate="none"):
    """x * Phi(x); the tanh form as x * sigmoid(2u) (= x * (1 + tanh(u)) / 2 without its cancellation for x << 0)."""
    x = lo.tensor(x)
    if approximate == "tanh":
        inner_arg = lo.binary("Mul", x, x)
        lo.emit(f"Mul({inner_arg.expr}, {inner_arg.expr}, {x.expr}, {lo.N});")
        lo.emit(f"Muls({inner_arg.expr}, {inner_arg.expr}, 0.044715f, {lo.N});")
        lo.emit(f"Add({inner_arg.expr}, {inner_arg.expr}, {x.expr}, {lo.N});")
        lo.emit(f"Muls({inner_arg.expr}, {inner_arg.expr}, {float_literal(2 * 0.7978845608028654)}, {lo.N});")
        cdf = _sigmoid_of(lo, inner_arg)  # inner_arg is 2u
        lo.emit(f"Muls({inner_arg.expr}, {inner_arg.expr}, -0.5f, {lo.N});")
        _zero_where_above(lo, cdf, inner_arg, -_TANH_ZERO_BELOW)
    else:
        inner_arg = lo.with_scalar("Muls", x, Val("scalar", "0.7071067811865476f"))
        cdf = _normal_cdf_of(lo, inner_arg, finite_sign=getattr(node.meta.get("val"), "dtype", None) == torch.float16)
    lo.release(inner_arg)
    lo.emit(f"Mul({cdf.expr}, {cdf.expr}, {x.expr}, {lo.N});")
    return cdf


def _elu(lo: Lowering, node, x, alpha=1.0, scale=1.0, input_scale=1.0):
    """scale * (max(x, 0) + min(alpha * expm1(input_scale * x), 0))."""
    x = lo.tensor(x)
    scaled = lo.with_scalar("Muls", x, lo.scalar(input_scale))
    e = expm1_of(lo, scaled)
    lo.release(scaled)
    lo.emit(f"Muls({e.expr}, {e.expr}, {float_literal(float(alpha))}, {lo.N});")
    lo.emit(f"Mins({e.expr}, {e.expr}, 0.0f, {lo.N});")
    positive = lo.with_scalar("Maxs", x, Val("scalar", "0.0f"))
    lo.emit(f"Add({e.expr}, {e.expr}, {positive.expr}, {lo.N});")
    lo.release(positive)
    if scale != 1.0:
        lo.emit(f"Muls({e.expr}, {e.expr}, {float_literal(float(scale))}, {lo.N});")
    return e


def _clamp(lo: Lowering, node, x, low=None, high=None):
    result = lo.copy(lo.tensor(x))
    if low is not None:
        lo.emit(f"Maxs({result.expr}, {result.expr}, {lo.scalar(low).expr}, {lo.N});")
    if high is not None:
        lo.emit(f"Mins({result.expr}, {result.expr}, {lo.scalar(high).expr}, {lo.N});")
    return result


def _clamp_tensor(lo: Lowering, node, x, low=None, high=None):
    """clamp with tensor bounds: max then min, each propagating NaN (torch gives NaN for a NaN bound too)."""
    result = lo.copy(lo.tensor(x))
    for op, bound in (("Max", low), ("Min", high)):
        if bound is None:
            continue
        bound = lo.scalar(bound)
        if bound.kind == "scalar":
            lo.emit(f"{op}s({result.expr}, {result.expr}, {bound.expr}, {lo.N});")
        else:
            lo.emit(f"{op}({result.expr}, {result.expr}, {bound.expr}, {lo.N});")
    return result


_SIZE_TAKERS = {"aten.native_layer_norm.default", "aten.expand.default"}  # read sizes as shapes, not values


def _sym_size(lo: Lowering, node, x, dim):
    """A size of a full-shaped input where the kernel knows it (reductions over all elements: e.g. the
    batch size "batchmean" divides by); elsewhere only an entry of a shape (layer_norm's, expand's)."""
    full = lo.task.inputs[0].shape
    if lo.split and node.args[0].meta.get("shape") == full and dim % len(full) < 8:
        return Val("scalar", f"static_cast<float>(dims_[{dim % len(full)}])")
    if any(str(user.target) in HANDLERS and str(user.target) not in _SIZE_TAKERS for user in node.users):
        raise UnsupportedFunction("it computes with a tensor's size, which the built-in generator supports in "
                                  "reductions over all elements only")
    return Val("size", "0")


def _hardsigmoid(lo: Lowering, node, x):
    result = lo.with_scalar("Muls", lo.tensor(x), Val("scalar", float_literal(1.0 / 6.0)))
    lo.emit(f"Adds({result.expr}, {result.expr}, 0.5f, {lo.N});")
    lo.emit(f"Maxs({result.expr}, {result.expr}, 0.0f, {lo.N});")
    lo.emit(f"Mins({result.expr}, {result.expr}, 1.0f, {lo.N});")
    return result


def _leaky_relu(lo: Lowering, node, x, slope=0.01):
    return lo.with_scalar("LeakyRelu", lo.tensor(x), lo.scalar(slope))


def _to_copy(lo: Lowering, node, x, dtype=None, **_):
    if x.kind == "mask":
        return _mask_to(lo, x, dtype)
    if dtype is None or dtype == torch.float32:
        return x
    if x.kind == "scalar":  # rounded through the narrow type like a tile (0.1 as half is 0.0999755859375)
        x = lo.splat(x)
    if dtype not in CTYPES:
        raise UnsupportedFunction(f"conversion to {dtype} is not supported by the built-in generator")
    # round through the narrower type, as torch does, then continue in float
    narrow, wide = lo.temp(), lo.temp()
    ctype = CTYPES[dtype]
    lo.emit(f"Cast({narrow.expr}.ReinterpretCast<{ctype}>(), {x.expr}, RoundMode::CAST_RINT, {lo.N});")
    lo.emit(f"Cast({wide.expr}, {narrow.expr}.ReinterpretCast<{ctype}>(), RoundMode::CAST_NONE, {lo.N});")
    lo.release(narrow)
    return wide


def _mask_to(lo: Lowering, mask: Val, dtype) -> Val:
    """A comparison converted: 1.0 / 0.0 in a float tile (exact in every float type), or the mask itself as bool."""
    if dtype in (None, torch.bool):
        return mask
    if dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise UnsupportedFunction(f"conversion of a comparison to {dtype} is not supported by the built-in generator")
    ones, out = lo.splat(Val("scalar", "1.0f")), lo.temp()
    _select_into(lo, out, mask, ones, Val("scalar", "0.0f"), consume_mask=False)
    lo.release(ones)
    return out


_CMP = {"gt": "GT", "lt": "LT", "ge": "GE", "le": "LE", "eq": "EQ", "ne": "NE"}


def _mask_of(lo: Lowering, mode: str, a: Val, b: Val) -> Val:
    """The Compare bit mask of ``a <mode> b`` (``b`` may be a scalar)."""
    a_tensor = lo.tensor(a)
    mask = lo.mask()
    counted = f"({lo.N} + 63) / 64 * 64"  # Compare works on whole 256-byte repeats
    if b.kind == "scalar":
        lo.emit(f"CompareScalar({mask.expr}, {a_tensor.expr}, {b.expr}, CMPMODE::{mode}, {counted});")
    else:
        lo.emit(f"Compare({mask.expr}, {a_tensor.expr}, {b.expr}, CMPMODE::{mode}, {counted});")
    if a_tensor is not a:
        lo.release(a_tensor)
    return mask


def _select_into(lo: Lowering, out: Val, mask: Val, a: Val, b: Val, consume_mask: bool = True) -> None:
    """out = mask ? a : b, per element; ``b`` may be a scalar."""
    mode = "VSEL_TENSOR_SCALAR_MODE" if b.kind == "scalar" else "VSEL_TENSOR_TENSOR_MODE"
    lo.emit(f"Select({out.expr}, {mask.expr}, {a.expr}, {b.expr}, SELMODE::{mode}, {lo.N});")
    if consume_mask:
        lo.release(mask)


def _compare(mode: str):
    def handler(lo: Lowering, node, a, b):
        return _mask_of(lo, mode, lo.scalar(a), lo.scalar(b))
    return handler


def _isnan(lo: Lowering, node, x):
    return _mask_of(lo, "NE", x, x)  # NaN is the one value unequal to itself


def _where(lo: Lowering, node, condition, a, b):
    if condition.kind != "mask":  # a bool tensor input, loaded as 0.0 / 1.0
        if condition.kind not in ("full", "scalar") or node.args[0].meta["val"].dtype != torch.bool:
            raise UnsupportedFunction("torch.where needs a comparison or a bool tensor as its condition in the "
                                      "built-in generator")
        condition = _mask_of(lo, "NE", condition, Val("scalar", "0.0f"))
    a, b = lo.tensor(lo.scalar(a)), lo.scalar(b)
    out = lo.temp()
    mode = "VSEL_TENSOR_SCALAR_MODE" if b.kind == "scalar" else "VSEL_TENSOR_TENSOR_MODE"
    lo.emit(f"Select({out.expr}, {condition.expr}, {a.expr}, {b.expr}, SELMODE::{mode}, {lo.N});")
    return out


def _scalar_tensor(lo: Lowering, node, value, **_):
    return lo.scalar(value)


def _full(lo: Lowering, node, size, value, **_):
    if any(s != 1 for s in size):
        raise UnsupportedFunction("torch.full of a non-scalar shape is not supported by the built-in generator")
    return lo.scalar(value)


def _binary_op(op: str):
    def handler(lo: Lowering, node, a, b):
        return lo.binary(op, lo.scalar(a), lo.scalar(b))
    return handler


# ---- row reductions (row-wise kernels only) ---------------------------------------------------------

_REDUCE_OPS = {"sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin"}


def _reduce_rows(lo: Lowering, op: str, x: Val) -> Val:
    """One value per row: ``op`` over the row's cols elements of a full tile."""
    if x.kind not in ("full", "scalar"):
        raise UnsupportedFunction("a reduction of a per-row value is not supported by the built-in generator yet")
    lo.kind = "full"
    source = lo.tensor(x)
    if lo.split:
        return _accumulate(lo, op, source)
    out, work = lo.temp("col"), lo.temp("full")
    lo.emit(f"for (uint32_t r = 0; r < n; ++r) {_REDUCE_OPS[op]}({out.expr}[r * COL_STRIDE], "
            f"{source.expr}[r * colsPad_], {work.expr}, cols_);")
    lo.release(work)
    lo.kind = "col"
    return out


_COMBINE = {"sum": "Add", "max": "Max", "min": "Min"}


def _accumulate(lo: Lowering, op: str, source: Val) -> Val:
    """Split mode: this tile's reduction folded into the block's accumulator for this reduction."""
    work = lo.temp("full")
    slot = len(lo.accumulators)
    lo.accumulators.append(op)
    lo.emit(f"{_REDUCE_OPS[op]}(part, {source.expr}, {work.expr}, count);")
    lo.emit(f"{_COMBINE[op]}(acc[{slot} * COL_STRIDE], acc[{slot} * COL_STRIDE], part, 1);")
    lo.release(work)
    lo.kind = "col"
    return Val("col", f"acc[{slot} * COL_STRIDE]")


def _check_dims(lo: Lowering, dims):
    if not lo.reduced(dims if dims is None or isinstance(dims, (list, tuple)) else [dims]):
        raise UnsupportedFunction(f"it reduces over dims {dims}; the built-in generator reduces trailing dims only")


def _sum(lo: Lowering, node, x, dims=None, keepdim=False, dtype=None):
    _check_dims(lo, dims)
    return _reduce_rows(lo, "sum", x)


def _mean(lo: Lowering, node, x, dims=None, keepdim=False, dtype=None):
    _check_dims(lo, dims)
    total = _reduce_rows(lo, "sum", x)
    lo.emit(f"Muls({total.expr}, {total.expr}, invCols_, colCount);")
    return total


def _amax(lo: Lowering, node, x, dims=(), keepdim=False):
    _check_dims(lo, dims)
    return _reduce_rows(lo, "max", x)


def _amin(lo: Lowering, node, x, dims=(), keepdim=False):
    _check_dims(lo, dims)
    return _reduce_rows(lo, "min", x)


def _softmax(lo: Lowering, node, x, dim, half_to_float=False, log=False):
    _check_dims(lo, [dim])
    lo.kind = "full"
    x = lo.tensor(x)
    lo.kind = "col"
    peak = _reduce_rows(lo, "max", x)
    lo.kind = "full"
    shifted = lo.binary("Sub", x, lo.broadcast_rows(peak))
    lo.release(peak)
    exps = lo.unary("Exp", shifted)
    lo.kind = "col"
    total = _reduce_rows(lo, "sum", exps)
    lo.kind = "full"
    if log:
        lo.release(exps)
        lo.emit(f"Ln({total.expr}, {total.expr}, colCount);")
        result = lo.binary("Sub", shifted, lo.broadcast_rows(total))
    else:
        result = lo.binary("Div", exps, lo.broadcast_rows(total))
        lo.release(exps)
    lo.release(shifted)
    lo.release(total)
    return result


def _log_softmax(lo: Lowering, node, x, dim, half_to_float=False):
    return _softmax(lo, node, x, dim, half_to_float, log=True)


def _layer_norm(lo: Lowering, node, x, normalized_shape, weight, bias, eps):
    """(y, mean, rstd) of native_layer_norm over the trailing dims; only y is a full tile."""
    centered, mean = _centered(lo, x)
    squares = lo.binary("Mul", centered, centered)
    lo.kind = "col"
    rstd = _reduce_rows(lo, "sum", squares)
    lo.release(squares)
    lo.emit(f"Muls({rstd.expr}, {rstd.expr}, invCols_, colCount);")
    lo.emit(f"Adds({rstd.expr}, {rstd.expr}, {float_literal(float(eps))}, colCount);")
    lo.emit(f"Sqrt({rstd.expr}, {rstd.expr}, colCount);")
    rstd = _reciprocal_of(lo, rstd, consume=True)
    lo.kind = "full"
    y = lo.binary("Mul", centered, lo.broadcast_rows(rstd))
    lo.release(centered)
    if weight is not None:
        lo.emit(f"Mul({y.expr}, {y.expr}, {lo.tensor(weight).expr}, count);")
    if bias is not None:
        lo.emit(f"Add({y.expr}, {y.expr}, {lo.tensor(bias).expr}, count);")
    return (y, mean, rstd)


def _getitem(lo: Lowering, node, values, index):
    if not isinstance(values, tuple):
        raise UnsupportedFunction("indexing a tensor is not supported by the built-in generator")
    return values[index]


def _extreme_dim(op: str):
    def handler(lo: Lowering, node, x, dim, keepdim=False):
        if any(user.args[1] == 1 and user.users for user in node.users):
            raise UnsupportedFunction("max/min with indices (argmax) is not supported by the built-in generator yet")
        _check_dims(lo, [dim])
        return (_reduce_rows(lo, op, x), None)
    return handler


def _prod(lo: Lowering, node, x, dim, keepdim=False, dtype=None):
    """The product of each row in the order torch's CPU kernel multiplies (ProdRows in rowwise.cpp).

    Products over- and underflow part-way, so the order decides where torch's result is inf or 0.
    """
    _check_dims(lo, [dim])
    if lo.split:
        raise UnsupportedFunction("a product over all elements is not supported by the built-in generator yet")
    _require_float32(node, "a product")
    if x.kind not in ("full", "scalar"):
        raise UnsupportedFunction("a product of a per-row value is not supported by the built-in generator yet")
    lo.kind = "full"
    source, out, work = lo.tensor(x), lo.temp("col"), lo.temp("full")
    lo.emit(f"ProdRows({out.expr}, {source.expr}, {work.expr}, n);")
    lo.release(work)
    lo.kind = "col"
    return out


def _require_float32(node, what: str) -> None:
    """Declines an op whose input is half or bfloat16: torch rounds those to the narrow type at every step."""
    dtype = node.args[0].meta["val"].dtype
    if dtype != torch.float32:
        raise UnsupportedFunction(f"{what} of {dtype} values is not supported by the built-in generator (torch "
                                  "computes it in that precision)")


# ---- scans along the row (row-wise kernels only): full-shaped results, one row at a time ----------------

def _row_op(lo: Lowering, node, x: Val, dims, helper: str) -> Val:
    """``helper(out, x, n)`` from rowwise.cpp over each of the tile's rows."""
    _check_dims(lo, dims)
    if lo.split:
        raise UnsupportedFunction(f"{node.target} over all elements is not supported by the built-in generator")
    if x.kind not in ("full", "scalar"):
        raise UnsupportedFunction(f"{node.target} of a per-row value or a comparison is not supported by the "
                                  "built-in generator")
    lo.kind = "full"
    source = lo.tensor(x)
    out = lo.temp("full")
    lo.emit(f"{helper}({out.expr}, {source.expr}, n);")
    if source is not x:
        lo.release(source)
    return out


def _cumsum(lo: Lowering, node, x, dim, dtype=None):
    """Running sums; torch sums float32 in double, so these carry the rounding error along (CumSumRows)."""
    return _row_op(lo, node, x, [dim], "CumSumRows")


def _cumprod(lo: Lowering, node, x, dim, dtype=None):
    """Running products; torch multiplies float32 in double, whose range CumProdRows keeps."""
    _require_float32(node, "a cumulative product")
    return _row_op(lo, node, x, [dim], "CumProdRows")


def _flip(lo: Lowering, node, x, dims):
    """Reversing the trailing dims together reverses each row of their elements."""
    return _row_op(lo, node, x, list(dims), "FlipRows")


def _centered(lo: Lowering, x: Val) -> tuple[Val, Val]:
    """(x - mean of its row, the row means)."""
    lo.kind = "full"
    x = lo.tensor(x)
    mean = _reduce_rows(lo, "sum", x)
    lo.emit(f"Muls({mean.expr}, {mean.expr}, invCols_, colCount);")
    lo.kind = "full"
    return lo.binary("Sub", x, lo.broadcast_rows(mean)), mean


def _scaled_root(lo: Lowering, magnitude: Val, divisor: str) -> Val:
    """sqrt(sum(magnitude ** 2) / divisor) per row, with the squares taken of magnitude / its row's largest value:
    PyTorch's variance is finite (double accumulation) where float32 squares overflow. ``magnitude`` must be
    non-negative; it is consumed."""
    lo.kind = "col"
    peak = _reduce_rows(lo, "max", magnitude)
    finfo = torch.finfo(torch.float32)  # an infinite peak divides as the largest finite one: inf stays inf, not NaN
    lo.emit(f"Maxs({peak.expr}, {peak.expr}, {float_literal(float(finfo.tiny))}, colCount);")
    lo.emit(f"Mins({peak.expr}, {peak.expr}, {float_literal(float(finfo.max))}, colCount);")
    lo.kind = "full"
    spread = lo.broadcast_rows(peak)
    scaled = lo.binary("Div", magnitude, spread)
    lo.release(spread)
    lo.release(magnitude)
    lo.emit(f"Mul({scaled.expr}, {scaled.expr}, {scaled.expr}, count);")
    lo.kind = "col"
    root = _reduce_rows(lo, "sum", scaled)
    lo.release(scaled)
    lo.emit(f"Muls({root.expr}, {root.expr}, 1.0f / {divisor}, colCount);")
    lo.emit(f"Sqrt({root.expr}, {root.expr}, colCount);")
    lo.emit(f"Mul({root.expr}, {root.expr}, {peak.expr}, colCount);")
    lo.release(peak)
    return root


def _var(lo: Lowering, node, x, dims=None, correction=1, keepdim=False):
    """The variance, scaled by the row's largest |x - mean|: PyTorch accumulates var in double, so squares must not
    overflow float32 where the variance does not. When the variance only feeds square roots (std), the root itself
    (finite where the variance overflows) is the value, and those roots pass it on."""
    _check_dims(lo, dims)
    centered, mean = _centered(lo, x)
    lo.release(mean)
    magnitude = lo.unary("Abs", centered)
    lo.release(centered)
    divisor = float(1 if correction is None else correction)
    root = _scaled_root(lo, magnitude, f"(static_cast<float>(cols_) - {float_literal(divisor)})")
    if node.users and all(str(user.target) == "aten.sqrt.default" for user in node.users):
        lo.given.update(node.users)
    else:
        lo.emit(f"Mul({root.expr}, {root.expr}, {root.expr}, colCount);")
    return root


def _vector_norm(lo: Lowering, node, x, ord=2, dims=None, keepdim=False, dtype=None):
    _check_dims(lo, dims)
    lo.kind = "full"
    x = lo.tensor(x)
    magnitude = lo.unary("Abs", x)
    p = float(ord)
    lo.kind = "col"
    if math.isinf(p):
        result = _reduce_rows(lo, "max" if p > 0 else "min", magnitude)
        lo.release(magnitude)
        return result
    if p not in (1.0, 2.0):
        raise UnsupportedFunction(f"vector norms of order {ord} are not supported by the built-in generator yet")
    squared = p == 2.0 and not _reduces_only_ones(node)  # PyTorch squares in float32 too; a norm of one is |x|
    if squared:
        lo.kind = "full"
        lo.emit(f"Mul({magnitude.expr}, {magnitude.expr}, {magnitude.expr}, count);")
        lo.kind = "col"
    result = _reduce_rows(lo, "sum", magnitude)
    if squared:
        lo.emit(f"Sqrt({result.expr}, {result.expr}, colCount);")
    lo.release(magnitude)
    return result


def _reduces_only_ones(node) -> bool:
    """Whether every dim a reduction node reduces has size 1 in the graph (size-1 dims are kept as 1 by capture)."""
    shape = node.args[0].meta.get("shape") if isinstance(node.args[0], torch.fx.Node) else None
    dims = node.args[2] if len(node.args) > 2 else node.kwargs.get("dim")
    if shape is None:
        return False
    rank = len(shape)
    reduced = range(rank) if not dims else [d % rank for d in (dims if isinstance(dims, (list, tuple)) else [dims])]
    return rank > 0 and all(shape[d] == 1 for d in reduced)


def log1p_of(lo: Lowering, x: Val) -> Val:
    """log(1 + x) to float32's relative precision for tiny x too: log(u) * x / (u - 1) with u = 1 + x rounded
    (Goldberg, "What every computer scientist should know about floating-point arithmetic", thm. 4); x itself where
    u rounds to 1, and inf at inf. Ln(1 + x) alone is 0 below 6e-8 and off by up to eps / x above."""
    x = lo.tensor(x)
    u = lo.with_scalar("Adds", x, Val("scalar", "1.0f"))
    d = lo.with_scalar("Adds", u, Val("scalar", "-1.0f"))
    result = lo.unary("Ln", u)
    ratio = lo.binary("Div", x, d)
    lo.emit(f"Mul({result.expr}, {result.expr}, {ratio.expr}, {lo.N});")
    lo.release(ratio)
    _select_into(lo, result, _mask_of(lo, "EQ", d, Val("scalar", "0.0f")), x, result)
    lo.release(d)
    _select_into(lo, result, _mask_of(lo, "EQ", u, Val("scalar", float_literal(math.inf))), u, result)
    lo.release(u)
    return result


def expm1_of(lo: Lowering, x: Val) -> Val:
    """exp(x) - 1 to float32's relative precision for small x too: (u - 1) * x / log(u) with u = exp(x) rounded
    (Kahan's), x where u rounds to 1; u - 1 itself for |x| >= 0.5 (where it is exact enough, and u may be subnormal
    or infinite)."""
    x = lo.tensor(x)
    u = lo.unary("Exp", x)
    result = lo.with_scalar("Adds", u, Val("scalar", "-1.0f"))
    corrected = lo.binary("Mul", result, x)
    log_u = lo.unary("Ln", u)
    lo.emit(f"Div({corrected.expr}, {corrected.expr}, {log_u.expr}, {lo.N});")
    lo.release(log_u)
    _select_into(lo, corrected, _mask_of(lo, "EQ", u, Val("scalar", "1.0f")), x, corrected)
    lo.release(u)
    magnitude = lo.unary("Abs", x)
    _select_into(lo, result, _mask_of(lo, "LT", magnitude, Val("scalar", "0.5f")), corrected, result)
    lo.release(magnitude)
    lo.release(corrected)
    return result


def _log1p(lo: Lowering, node, x):
    return log1p_of(lo, x)


def _expm1(lo: Lowering, node, x):
    return expm1_of(lo, x)


def _hardswish(lo: Lowering, node, x):
    x = lo.tensor(x)
    gate = _hardsigmoid(lo, node, x)
    lo.emit(f"Mul({gate.expr}, {gate.expr}, {x.expr}, {lo.N});")
    return gate


HANDLERS = {
    "aten.add.Tensor": _add, "aten.add.Scalar": _add,
    "aten.sub.Tensor": _sub, "aten.sub.Scalar": _sub, "aten.rsub.Scalar": _rsub,
    "aten.mul.Tensor": _mul, "aten.mul.Scalar": _mul,
    "aten.div.Tensor": _div, "aten.div.Scalar": _div, "aten.div.Tensor_mode": _div,
    "aten.pow.Tensor_Scalar": _pow,
    "aten.pow.Tensor_Tensor": _pow,
    "aten.pow.Scalar": _pow_tensor,
    "aten.neg.default": lambda lo, node, x: lo.with_scalar("Muls", lo.tensor(x), Val("scalar", "-1.0f")),
    "aten.abs.default": lambda lo, node, x: lo.unary("Abs", x),
    "aten.exp.default": lambda lo, node, x: lo.unary("Exp", x),
    "aten.log.default": lambda lo, node, x: lo.unary("Ln", x),
    "aten.sqrt.default": lambda lo, node, x: lo.unary("Sqrt", x),
    "aten.rsqrt.default": _rsqrt,
    "aten.reciprocal.default": _reciprocal,
    "aten.relu.default": lambda lo, node, x: lo.unary("Relu", x),
    "aten.leaky_relu.default": _leaky_relu,
    "aten.sigmoid.default": _sigmoid,
    "aten.tanh.default": _tanh,
    "aten.silu.default": _silu,
    "aten.gelu.default": _gelu,
    "aten.elu.default": _elu,
    "aten.softplus.default": _softplus,
    "aten.mish.default": _mish,
    "aten.hardsigmoid.default": _hardsigmoid,
    "aten.hardtanh.default": lambda lo, node, x, low=-1.0, high=1.0: _clamp(lo, node, x, low, high),
    "aten.clamp.default": _clamp,
    "aten.clamp.Tensor": _clamp_tensor,
    "aten.clone.default": lambda lo, node, x, **_: x,  # values are never written in place
    "aten.isnan.default": _isnan,
    "aten.clamp_min.default": lambda lo, node, x, low: _clamp(lo, node, x, low, None),
    "aten.clamp_max.default": lambda lo, node, x, high: _clamp(lo, node, x, None, high),
    "aten.maximum.default": _binary_op("Max"),
    "aten.minimum.default": _binary_op("Min"),
    "aten._to_copy.default": _to_copy,
    "aten.where.self": _where,
    "aten.scalar_tensor.default": _scalar_tensor,
    "aten.full.default": _full,
    "aten.sum.dim_IntList": _sum,
    "aten.mean.dim": _mean,
    "aten.amax.default": _amax,
    "aten.amin.default": _amin,
    "aten.max.dim": _extreme_dim("max"),
    "aten.min.dim": _extreme_dim("min"),
    "aten.sum.default": _sum,
    "aten.max.default": lambda lo, node, x: _amax(lo, node, x, None),
    "aten.min.default": lambda lo, node, x: _amin(lo, node, x, None),
    "aten.mean.default": _mean,
    "aten.prod.dim_int": _prod,
    "aten.cumsum.default": _cumsum,
    "aten.cumprod.default": _cumprod,
    "aten.flip.default": _flip,
    "aten.var.correction": _var,
    "aten.linalg_vector_norm.default": _vector_norm,
    "aten.log1p.default": _log1p, "aten.expm1.default": _expm1,
    "aten.expand.default": lambda lo, node, x, size: x,  # broadcasting is what a value's kind already does
    "aten.hardswish.default": _hardswish,
    "aten._softmax.default": _softmax,
    "aten._log_softmax.default": _log_softmax,
    "aten.native_layer_norm.default": _layer_norm,
    "getitem": _getitem,
    "aten.sym_size.int": _sym_size,
    **{f"aten.{name}.Tensor": _compare(mode) for name, mode in _CMP.items()},
    **{f"aten.{name}.Scalar": _compare(mode) for name, mode in _CMP.items()},
}
