"""The vector code of a pass's nodes, for one work item: each node's value as a tile, a scalar or a bit mask.

Every value belongs to one of four classes, chosen by its dtype (and for int64 by whether it provably fits 32 bits,
see ``bounded_nodes``):

- ``F``: float16, bfloat16 and float32 values, computed in float32 tiles (rounded to the narrow type where the
  program converts to it, and when stored);
- ``I``: int8, uint8, int16, int32 and such int64 values, in int32 tiles, wrapped to their own width after every
  operation as PyTorch wraps them;
- ``W``: other int64 values, computed lane by lane on the scalar unit in int64 tiles;
- ``M``: bool values, as Compare bit masks (one bit per lane, ``MASK_BYTES`` per tile).

A value may also be a scalar (a C++ expression: a constant, an index expression of the item's outer indices, or a
value read once per item) when every lane has the same value; operations on scalars stay scalar where C++ computes
them exactly as PyTorch does (integer arithmetic, comparisons, + - * / of floats), and are splatted into a tile
otherwise. The float math reuses the built-in lowering's handlers (lowering.py).
"""

from __future__ import annotations

import sympy
import torch

from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin import lowering as flt
from torch_ascendgen.generators.builtin.loops.cexpr import cexpr, slope
from torch_ascendgen.generators.builtin.loops.ir import Node
from torch_ascendgen.generators.builtin.lowering import Lowering, Val, float_literal

FLOATS = (torch.float16, torch.bfloat16, torch.float32)
NARROW_INTS = (torch.int8, torch.uint8, torch.int16, torch.int32)
GM_TYPES = {torch.float32: "float", torch.float16: "half", torch.bfloat16: "bfloat16_t", torch.int8: "int8_t",
            torch.uint8: "uint8_t", torch.int16: "int16_t", torch.int32: "int32_t", torch.int64: "int64_t",
            torch.bool: "uint8_t"}
SCALAR_TYPES = {"F": "float", "I": "int32_t", "W": "int64_t", "M": "bool"}
_CMP = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}
_CMP_C = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
# Ops whose float16/bfloat16 result is already a value of that type (no rounding to repeat)
_EXACT_IN_NARROW = frozenset({"load", "constant", "to_dtype", "where", "masked", "index_expr", "neg", "abs",
                              "maximum", "minimum", "relu", "identity", "getitem", "reduction"})
_WRAP = {torch.int8: (0xFF, 0x80), torch.uint8: (0xFF, 0), torch.int16: (0xFFFF, 0x8000)}
# Float ops the built-in lowering writes out in basic instructions (x is a tile)
_FLOAT_UNARY = {
    "exp": lambda lo, x: lo.unary("Exp", x),
    "log": lambda lo, x: lo.unary("Ln", x),
    "sqrt": lambda lo, x: lo.unary("Sqrt", x),
    "rsqrt": lambda lo, x: flt._reciprocal_of(lo, lo.unary("Sqrt", x), consume=True),
    "reciprocal": lambda lo, x: flt._reciprocal_of(lo, x),
    "abs": lambda lo, x: lo.unary("Abs", x),
    "neg": lambda lo, x: lo.with_scalar("Muls", x, Val("scalar", "-1.0f")),
    "relu": lambda lo, x: lo.unary("Relu", x),
    "sigmoid": flt._sigmoid_of,
    "tanh": flt._tanh_of,
    "log1p": flt.log1p_of,
    "expm1": flt.expm1_of,
}
_LIBRARY_UNARY = {"sin": "Sin", "cos": "Cos", "tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan",
                  "sinh": "Sinh", "cosh": "Cosh", "erf": "Erf", "erfc": "Erfc", "floor": "Floor", "ceil": "Ceil",
                  "trunc": "Trunc", "log2": "Log2", "log10": "Log10"}


def value_class(dtype: torch.dtype, bounded: bool = False) -> str:
    if dtype in FLOATS:
        return "F"
    if dtype == torch.bool:
        return "M"
    if dtype in NARROW_INTS or (dtype == torch.int64 and bounded):
        return "I"
    if dtype == torch.int64:
        return "W"
    raise UnsupportedFunction(f"it computes with {dtype} values, which the vector unit does not have")


class Tiles(Lowering):
    """The scratch tiles and emitted lines of one pass (the built-in lowering's machinery: a float slot doubles as
    an int32 one; int64 tiles have a pool of their own)."""

    def __init__(self):  # noqa: D107 - no task or classifier: PassValues classifies
        self.lines: list[str] = []
        self.sections = {"full": self.lines, "col": self.lines}
        self.pools = {"full": [0, []], "col": [0, []], "mask": [0, []], "wide": [0, []], "acc": [0, []]}
        self.kind = "full"
        self.split = False
        self.reduced_dims = ()
        self.accumulators: list = []
        self.given: set = set()

    @property
    def N(self) -> str:
        return "count"

    def temp(self, kind: str | None = None) -> Val:
        kind = kind or "full"
        made, free = self.pools[kind]
        slot = free.pop() if free else made
        if slot == made:
            self.pools[kind][0] += 1
        expr = {"full": f"calc[{slot} * TILE]", "mask": f"masks[{slot} * MASK_BYTES]",
                "wide": f"wide[{slot} * TILE]", "acc": f"accs[{slot} * TILE]"}[kind]
        return Val("full" if kind == "acc" else kind, expr, -1 if kind == "acc" else slot)

    def emit(self, line: str) -> None:
        self.lines.append(line)


def ints(value: Val) -> str:
    """The int32 view of a 4-byte tile (the same UB as its float view)."""
    return f"{value.expr}.ReinterpretCast<int32_t>()"


def halves(value: Val) -> str:
    return f"{value.expr}.ReinterpretCast<uint16_t>()"


class PassValues:
    """Lowers a pass's value nodes for one work item.

    ``lane_index(expr)`` gives the C++ value of an index expression at lane ``lane`` (for lane-by-lane code);
    ``varies(expr)`` whether an index expression moves with the lanes; ``load(node)`` the Val of a load node
    (made by the pass writer, which knows the memory).
    """

    def __init__(self, tiles: Tiles, writer):
        self.t = tiles
        self.w = writer
        self.values: dict[Node, Val] = _Lowered(writer)
        self.classes: dict[Node, str] = {}

    # -- classes and operands
    def cls(self, node: Node) -> str:
        if node not in self.classes:
            self.classes[node] = value_class(node.dtype, node in self.w.bounded)
        return self.classes[node]

    def operand(self, arg) -> Val:
        if isinstance(arg, Node):
            return self.values[arg]
        if isinstance(arg, bool):
            return Val("scalar", "true" if arg else "false")
        if isinstance(arg, int):
            return Val("scalar", f"int64_t({arg})")
        if isinstance(arg, float):
            return Val("scalar", float_literal(arg))
        raise UnsupportedFunction(f"the loop lowering cannot use {arg!r} as a value")

    def tile(self, value: Val, cls: str) -> Val:
        """``value`` as a tile of class ``cls`` (a scalar is splatted into a new one)."""
        if value.kind != "scalar":
            return value
        if cls == "F":
            out = self.t.temp()
            self.t.emit(f"Duplicate({out.expr}, static_cast<float>({value.expr}), count);")
        elif cls == "I":
            out = self.t.temp()
            self.t.emit(f"Duplicate({ints(out)}, static_cast<int32_t>({value.expr}), count);")
        elif cls == "W":
            out = self.t.temp("wide")
            self.t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {out.expr}.SetValue(lane, "
                        f"static_cast<int64_t>({value.expr}));")
            self.t.emit("ScalarToVector();")
        else:
            out = self.t.temp("mask")
            self.t.emit(f"Duplicate({halves(out)}, static_cast<uint16_t>(({value.expr}) ? 0xFFFF : 0), "
                        "MASK_BYTES / 2);")
        return out

    def of_class(self, value: Val, src: str, cls: str) -> Val:
        """``value`` (of class ``src``) as a tile of class ``cls``: an int64 node whose values fit int32 (class I)
        used where an int64 tile (class W) is wanted is widened."""
        if value.kind != "scalar" and src == "I" and cls == "W":
            out = self.t.temp("wide")
            self.t.emit(f"Cast({out.expr}, {ints(value)}, RoundMode::CAST_NONE, count);")
            return out
        return self.tile(value, cls)

    def release(self, value: Val, keep: Val | None = None) -> None:
        if value is not keep:
            self.t.release(value)

    # -- the walk
    def lower(self, node: Node) -> Val:
        handler = getattr(self, f"_op_{node.op}", None) or self._generic
        try:
            value = handler(node)
        except _Lanewise:
            value = self._lanewise(node)
        if node.dtype in (torch.float16, torch.bfloat16) and node.op not in _EXACT_IN_NARROW:
            value = self._round_float(value, node.dtype)  # eager rounds every half-precision op's result
        self.values[node] = value
        return value

    def _generic(self, node: Node) -> Val:
        args = [self.operand(a) for a in node.args if isinstance(a, (Node, int, float, bool))]
        cls = self.cls(node)
        arg_classes = [self.cls(a) for a in node.args if isinstance(a, Node)]
        if cls == "F" and all(c == "F" for c in arg_classes):
            return self._float_op(node, args)
        if cls == "M" or node.op in _CMP:
            return self._bool_op(node, args)
        if cls == "I" and all(c in ("I", "M") for c in arg_classes):
            return self._int_op(node, args)
        return self._lanewise(node)

    def _op_device_assert_async(self, node: Node) -> Val:
        """A check Inductor asks for (an index inside its tensor, one_hot's classes): the kernel stops, as PyTorch
        raises, where the condition is false in any lane."""
        condition = node.args[0]
        value = self.operand(condition)
        if value.kind == "scalar":
            self.t.emit(f"if (!({value.expr})) Trap();")
            return Val("scalar", "true")
        if node.region:
            raise UnsupportedFunction("a device assertion inside a masked region")
        mask = self.tile(self._as_mask(condition, value), "M")
        failed = self.t.temp("mask")
        self.t.emit(f"Not({halves(failed)}, {halves(mask)}, MASK_BYTES / 2);")
        self.t.emit(f"VectorToScalar(); if (AnyBit({failed.expr}, count)) Trap(); ScalarToVector();")
        self.t.release(failed)
        return Val("scalar", "true")

    # -- constants and conversions
    def _op_constant(self, node: Node) -> Val:
        value = node.args[0]
        if node.dtype in FLOATS:
            return Val("scalar", float_literal(float(value)))
        if node.dtype == torch.bool:
            return Val("scalar", "true" if value else "false")
        return Val("scalar", f"int64_t({int(value)}LL)")

    def _op_index_expr(self, node: Node) -> Val:
        expr = node.args[0]
        if node.dtype in FLOATS and _float_valued(expr):  # float arithmetic of indices: evaluated on a tile
            out = self.w.float_index_value(expr)
            if out is None:
                raise UnsupportedFunction(f"a float index expression {expr} has no vector form here")
            return out
        if not self.w.varies(expr):
            text = cexpr(expr)
            return Val("scalar", f"static_cast<float>({text})" if node.dtype in FLOATS else text)
        step = self.w.lane_slope(expr)
        if step is None and self.cls(node) != "W":
            out = self.w.index_value(expr, lambda target: self._lanewise(node, target, as_int=True))
            if out is not None:
                if node.dtype in FLOATS:
                    self.t.emit(f"Cast({out.expr}, {ints(out)}, RoundMode::CAST_RINT, count);")
                return out
        if step is None or self.cls(node) == "W":
            return self._lanewise(node)
        out = self.t.temp()
        base = cexpr(self.w.at_lane_zero(expr))
        self.w.needs_lane_ints = True
        self.t.emit(f"Muls({ints(out)}, laneInts, static_cast<int32_t>({cexpr(step)}), count);")
        self.t.emit(f"Adds({ints(out)}, {ints(out)}, static_cast<int32_t>({base}), count);")
        if node.dtype in FLOATS:
            self.t.emit(f"Cast({out.expr}, {ints(out)}, RoundMode::CAST_RINT, count);")
        return out

    def _op_to_dtype(self, node: Node) -> Val:
        source, dtype = node.args[0], node.args[1]
        value = self.values[source]
        src, dst = self.cls(source), self.cls(node)
        if value.kind == "scalar" and src != "W" and dst != "W":
            return Val("scalar", self._scalar_cast(value.expr, source.dtype, dtype))
        if src == dst == "F":
            return self._round_float(value, dtype)
        if src == dst == "I":
            return self._wrap(self._copy_int(value), dtype)
        if src == "F" and dst == "I":
            return self._wrap(self._truncated(self.tile(value, "F")), dtype)
        if src == "I" and dst == "F":
            out = self.t.temp()
            self.t.emit(f"Cast({out.expr}, {ints(value)}, RoundMode::CAST_RINT, count);")
            return self._round_float(out, dtype) if dtype != torch.float32 else out
        if src == "M" and dst in ("F", "I"):
            out = self.t.temp()
            self.t.emit(f"Duplicate({out.expr}, 0.0f, count);")
            self.t.emit(f"Select({out.expr}, {value.expr}, {self._ones().expr}, {out.expr}, "
                        "SELMODE::VSEL_TENSOR_TENSOR_MODE, count);")
            if dst == "I":
                self.t.emit(f"Cast({ints(out)}, {out.expr}, RoundMode::CAST_RINT, count);")
            return out
        if dst == "M" and src in ("F", "I"):
            tile = self.tile(value, src)
            source_tile = tile
            if src == "I":
                source_tile = self.t.temp()
                self.t.emit(f"Cast({source_tile.expr}, {ints(tile)}, RoundMode::CAST_RINT, count);")
            mask = self.t.temp("mask")
            self.t.emit(f"CompareScalar({mask.expr}, {source_tile.expr}, 0.0f, CMPMODE::NE, "
                        f"{compare_count()});")
            if source_tile is not tile:
                self.t.release(source_tile)
            return mask
        if src == "I" and dst == "W":
            out = self.t.temp("wide")
            self.t.emit(f"Cast({out.expr}, {ints(self.tile(value, 'I'))}, RoundMode::CAST_NONE, count);")
            return out
        return self._lanewise(node)

    def _truncated(self, value: Val) -> Val:
        """float -> int32 toward zero, with x86's result for NaN and out-of-range values (INT32_MIN, whose bits are
        those of -0.0f), as PyTorch gives on the CPU."""
        out = self.t.temp()
        self.t.emit(f"Cast({ints(out)}, {value.expr}, RoundMode::CAST_TRUNC, count);")
        magnitude = self.t.unary("Abs", value)
        inside = flt._mask_of(self.t, "LT", magnitude, Val("scalar", "2147483648.0f"))
        self.t.release(magnitude)
        flt._select_into(self.t, out, inside, out, Val("scalar", "-0.0f"))
        return out

    def _ones(self) -> Val:
        return Val("full", "onesF")

    def _scalar_cast(self, text: str, src: torch.dtype, dst: torch.dtype) -> str:
        if dst == torch.bool:
            return f"(({text}) != 0)"
        if dst in FLOATS:
            return f"static_cast<float>({text})"
        if src in FLOATS:
            return f"WrapInt<{GM_TYPES[dst]}>(static_cast<int64_t>({text}))"
        return f"WrapInt<{GM_TYPES[dst]}>(static_cast<int64_t>({text}))"

    def _round_float(self, value: Val, dtype: torch.dtype) -> Val:
        """value rounded to ``dtype``'s precision (float16/bfloat16), still in a float tile."""
        if dtype == torch.float32:
            return value
        if value.kind == "scalar":
            narrow = {torch.float16: "half", torch.bfloat16: "bfloat16_t"}[dtype]
            return Val("scalar", f"RoundTo<{narrow}>(static_cast<float>({value.expr}))")
        narrow = {torch.float16: "half", torch.bfloat16: "bfloat16_t"}[dtype]
        step, out = self.t.temp(), self.t.temp()
        self.t.emit(f"Cast({step.expr}.ReinterpretCast<{narrow}>(), {value.expr}, RoundMode::CAST_RINT, count);")
        self.t.emit(f"Cast({out.expr}, {step.expr}.ReinterpretCast<{narrow}>(), RoundMode::CAST_NONE, count);")
        self.t.release(step)
        return out

    def _copy_int(self, value: Val) -> Val:
        if value.kind == "scalar":
            return self.tile(value, "I")
        out = self.t.temp()
        self.t.emit(f"Adds({ints(out)}, {ints(value)}, int32_t(0), count);")
        return out

    def _wrap(self, value: Val, dtype: torch.dtype) -> Val:
        """An int32 tile wrapped in place to ``dtype``'s range, as two's complement arithmetic of that width
        wraps: (v & mask) - 2 * (v & sign)."""
        if dtype not in _WRAP:
            return value
        mask, sign = _WRAP[dtype]
        pattern = self.w.pattern(mask)
        self.t.emit(f"And({halves(value)}, {halves(value)}, {pattern}, count * 2);")
        if sign:
            high = self.t.temp()
            self.t.emit(f"And({halves(high)}, {halves(value)}, {self.w.pattern(sign)}, count * 2);")
            self.t.emit(f"Muls({ints(high)}, {ints(high)}, int32_t(2), count);")
            self.t.emit(f"Sub({ints(value)}, {ints(value)}, {ints(high)}, count);")
            self.t.release(high)
        return value

    # -- float arithmetic
    def _float_op(self, node: Node, args: list[Val]) -> Val:
        op = node.op
        args = [Val("scalar", f"static_cast<float>({a.expr})") if a.kind == "scalar" else a for a in args]
        lo = self.t
        if op in ("add", "sub", "mul", "truediv", "maximum", "minimum") and all(a.kind == "scalar" for a in args):
            a, b = args
            text = {"add": f"({a.expr} + {b.expr})", "sub": f"({a.expr} - {b.expr})",
                    "mul": f"({a.expr} * {b.expr})", "truediv": f"({a.expr} / {b.expr})",
                    "maximum": f"FMaxNaN({a.expr}, {b.expr})", "minimum": f"FMinNaN({a.expr}, {b.expr})"}[op]
            return Val("scalar", text)
        if op == "add":
            return flt._add_scaled(lo, args[0], args[1], 1.0)
        if op == "sub":
            return flt._add_scaled(lo, args[0], args[1], -1.0)
        if op == "mul":
            return flt._mul(lo, None, args[0], args[1])
        if op == "truediv":
            return flt._div(lo, None, args[0], args[1])
        if op in ("maximum", "minimum"):
            return self._nan_extreme(op, args[0], args[1])
        if op in _FLOAT_UNARY:
            return _FLOAT_UNARY[op](lo, lo.tensor(args[0]))
        if op in _LIBRARY_UNARY:
            return lo.unary(_LIBRARY_UNARY[op], args[0])
        if op == "pow":
            return flt._pow(lo, None, args[0], args[1] if args[1].kind != "scalar" or not _literal(args[1]) else
                            _literal(args[1]))
        if op == "where":
            return self._where(node)
        if op == "round":
            return self._round_half_even(args[0])
        if op == "sign":
            return self._sign(args[0])
        if op == "square":
            x = lo.tensor(args[0])
            return lo.binary("Mul", x, x)
        if op == "identity":
            return args[0]
        return self._lanewise(node)

    def _nan_extreme(self, op: str, a: Val, b: Val) -> Val:
        """maximum/minimum propagating NaN as PyTorch does (the vector Max/Min may not)."""
        lo = self.t
        x, y = lo.tensor(a), lo.tensor(b)
        out = lo.binary("Max" if op == "maximum" else "Min", x, y)
        for operand in (x, y):
            nan = flt._mask_of(lo, "NE", operand, operand)
            flt._select_into(lo, out, nan, operand, out)
        for value, original in ((x, a), (y, b)):
            if value is not original:
                lo.release(value)
        return out

    def _round_half_even(self, x: Val) -> Val:
        """torch.round: half to even. CAST_RINT to int32 is exact below 2**31; larger floats are integers already."""
        lo = self.t
        x = lo.tensor(x)
        rounded = lo.temp()
        lo.emit(f"Cast({ints(rounded)}, {x.expr}, RoundMode::CAST_RINT, count);")
        lo.emit(f"Cast({rounded.expr}, {ints(rounded)}, RoundMode::CAST_NONE, count);")
        magnitude = lo.unary("Abs", x)
        small = flt._mask_of(lo, "LT", magnitude, Val("scalar", "8388608.0f"))
        lo.release(magnitude)
        flt._select_into(lo, rounded, small, rounded, x)
        return rounded

    def _sign(self, x: Val) -> Val:
        lo = self.t
        x = lo.tensor(x)
        out = lo.temp()
        lo.emit(f"Duplicate({out.expr}, 0.0f, count);")
        positive = flt._mask_of(lo, "GT", x, Val("scalar", "0.0f"))
        flt._select_into(lo, out, positive, self._ones(), out)
        negative = flt._mask_of(lo, "LT", x, Val("scalar", "0.0f"))
        flt._select_into(lo, out, negative, Val("full", "minusOnesF"), out)
        nan = flt._mask_of(lo, "NE", x, x)
        flt._select_into(lo, out, nan, x, out)
        return out

    # -- where and bools
    def _op_where(self, node: Node) -> Val:
        return self._where(node)

    def _where(self, node: Node) -> Val:
        condition, a, b = (self.operand(x) for x in node.args)
        cls = self.cls(node)
        if condition.kind == "scalar":
            if a.kind == "scalar" and b.kind == "scalar":
                return Val("scalar", f"(({condition.expr}) ? ({a.expr}) : ({b.expr}))")
            a, b = self.tile(a, cls), self.tile(b, cls)
            out = self.t.temp("mask" if cls == "M" else "wide" if cls == "W" else "full")
            if cls == "W":  # copied lane by lane on the scalar unit: after the vector writes, before the next ones
                self.t.emit("VectorToScalar();")
            self.t.emit(f"if ({condition.expr}) {self._copy_line(out, a, cls)} else {self._copy_line(out, b, cls)}")
            if cls == "W":
                self.t.emit("ScalarToVector();")
            return out
        if cls == "W":
            return self._lanewise(node)
        if cls == "M":
            a, b = self.tile(a, "M"), self.tile(b, "M")
            out, other = self.t.temp("mask"), self.t.temp("mask")
            count = "MASK_BYTES / 2"
            self.t.emit(f"And({halves(out)}, {halves(condition)}, {halves(a)}, {count});")
            self.t.emit(f"Not({halves(other)}, {halves(condition)}, {count});")
            self.t.emit(f"And({halves(other)}, {halves(other)}, {halves(b)}, {count});")
            self.t.emit(f"Or({halves(out)}, {halves(out)}, {halves(other)}, {count});")
            self.t.release(other)
            return out
        out = self.t.temp()
        view = "" if cls == "F" else ".ReinterpretCast<float>()"
        a_tile = self.tile(a, cls)
        if b.kind == "scalar" and cls == "F":
            self.t.emit(f"Select({out.expr}, {condition.expr}, {a_tile.expr}, static_cast<float>({b.expr}), "
                        "SELMODE::VSEL_TENSOR_SCALAR_MODE, count);")
        else:
            b_tile = self.tile(b, cls)
            self.t.emit(f"Select({out.expr}{view}, {condition.expr}, {a_tile.expr}{view}, {b_tile.expr}{view}, "
                        "SELMODE::VSEL_TENSOR_TENSOR_MODE, count);")
        return out

    def _copy_line(self, out: Val, source: Val, cls: str) -> str:
        if cls == "M":
            return f"{{ Adds({halves(out)}.ReinterpretCast<int16_t>(), {halves(source)}.ReinterpretCast<int16_t>(), " \
                   "int16_t(0), MASK_BYTES / 2); }"
        if cls == "W":
            return f"{{ for (uint32_t lane = 0; lane < count; ++lane) {out.expr}.SetValue(lane, " \
                   f"{source.expr}.GetValue(lane)); }}"
        return f"{{ Adds({ints(out)}, {ints(source)}, int32_t(0), count); }}"

    def _bool_op(self, node: Node, args: list[Val]) -> Val:
        op = node.op
        operands = [a for a in node.args if isinstance(a, Node)]
        if all(a.kind == "scalar" for a in args):
            return Val("scalar", self._scalar_bool(op, args))
        interval = self.w.lane_mask(node)
        if interval is not None:
            return interval
        if op in _CMP:
            return self._compare(op, operands, args)
        if op in ("logical_and", "and_", "logical_or", "or_", "logical_xor", "xor", "bitwise_and", "bitwise_or",
                  "bitwise_xor"):
            a, b = self.tile(self._as_mask(operands[0], args[0]), "M"), self.tile(self._as_mask(operands[1], args[1]),
                                                                                  "M")
            out = self.t.temp("mask")
            kind = op.replace("logical_", "").replace("bitwise_", "").rstrip("_")
            count = "MASK_BYTES / 2"
            if kind == "xor":
                other = self.t.temp("mask")
                self.t.emit(f"Or({halves(out)}, {halves(a)}, {halves(b)}, {count});")
                self.t.emit(f"And({halves(other)}, {halves(a)}, {halves(b)}, {count});")
                self.t.emit(f"Not({halves(other)}, {halves(other)}, {count});")
                self.t.emit(f"And({halves(out)}, {halves(out)}, {halves(other)}, {count});")
                self.t.release(other)
            else:
                self.t.emit(f"{'And' if kind == 'and' else 'Or'}({halves(out)}, {halves(a)}, {halves(b)}, {count});")
            return out
        if op in ("logical_not", "not_", "bitwise_not"):
            a = self.tile(self._as_mask(operands[0], args[0]), "M")
            out = self.t.temp("mask")
            self.t.emit(f"Not({halves(out)}, {halves(a)}, MASK_BYTES / 2);")
            return out
        if op == "isnan":
            x = self.t.tensor(args[0])
            return flt._mask_of(self.t, "NE", x, x)
        if op == "isinf":
            magnitude = self.t.unary("Abs", args[0])
            mask = flt._mask_of(self.t, "EQ", magnitude, Val("scalar", "(1.0f / 0.0f)"))
            self.t.release(magnitude)
            return mask
        if op == "signbit":
            return self._lanewise(node)
        return self._lanewise(node)

    def _as_mask(self, node: Node, value: Val) -> Val:
        if self.cls(node) == "M" or value.kind == "scalar":
            return value if self.cls(node) == "M" else Val("scalar", f"(({value.expr}) != 0)")
        raise UnsupportedFunction(f"a logical op of a {node.dtype} tile")

    def _scalar_bool(self, op: str, args: list[Val]) -> str:
        if op in _CMP_C:
            return f"(({args[0].expr}) {_CMP_C[op]} ({args[1].expr}))"
        if op in ("logical_and", "and_", "bitwise_and"):
            return f"(({args[0].expr}) && ({args[1].expr}))"
        if op in ("logical_or", "or_", "bitwise_or"):
            return f"(({args[0].expr}) || ({args[1].expr}))"
        if op in ("logical_xor", "xor", "bitwise_xor"):
            return f"((({args[0].expr}) != 0) != (({args[1].expr}) != 0))"
        if op in ("logical_not", "not_", "bitwise_not"):
            return f"(!({args[0].expr}))"
        if op == "isnan":
            return f"(({args[0].expr}) != ({args[0].expr}))"
        if op == "isinf":
            return f"IsInfF({args[0].expr})"
        if op == "signbit":
            return f"SignBitF({args[0].expr})"
        raise UnsupportedFunction(f"the loop lowering does not know ops.{op} on scalars")

    def _compare(self, op: str, operands: list[Node], args: list[Val]) -> Val:
        classes = {self.cls(n) for n in operands}
        if classes == {"F"}:
            a, b = args
            if a.kind == "scalar":  # scalar OP tile == tile OP' scalar
                op = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}.get(op, op)
                a, b = b, a
            b = Val("scalar", f"static_cast<float>({b.expr})") if b.kind == "scalar" else b
            return flt._mask_of(self.t, _CMP[op], a, b)
        if classes <= {"I"} and all(self.w.small(n) for n in operands):
            converted = []
            for value in args:
                if value.kind == "scalar":
                    converted.append(Val("scalar", f"static_cast<float>({value.expr})"))
                else:
                    tile = self.t.temp()
                    self.t.emit(f"Cast({tile.expr}, {ints(value)}, RoundMode::CAST_RINT, count);")
                    converted.append(tile)
            a, b = converted
            if a.kind == "scalar":
                op = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}.get(op, op)
                a, b = b, a
            mask = flt._mask_of(self.t, _CMP[op], a, b)
            for tile in converted:
                if tile.kind != "scalar":
                    self.t.release(tile)
            return mask
        if classes == {"M"}:
            a, b = (self.tile(v, "M") for v in args)
            out = self.t.temp("mask")
            if op in ("eq", "ne"):
                other = self.t.temp("mask")
                self.t.emit(f"Or({halves(out)}, {halves(a)}, {halves(b)}, MASK_BYTES / 2);")
                self.t.emit(f"And({halves(other)}, {halves(a)}, {halves(b)}, MASK_BYTES / 2);")
                self.t.emit(f"Not({halves(other)}, {halves(other)}, MASK_BYTES / 2);")
                self.t.emit(f"And({halves(out)}, {halves(out)}, {halves(other)}, MASK_BYTES / 2);")  # a xor b
                if op == "eq":
                    self.t.emit(f"Not({halves(out)}, {halves(out)}, MASK_BYTES / 2);")
                self.t.release(other)
                return out
        raise _Lanewise()

    # -- integer arithmetic (int32 tiles)
    def _int_op(self, node: Node, args: list[Val]) -> Val:
        op = node.op
        if all(a.kind == "scalar" for a in args) and op in _SCALAR_INT:
            return Val("scalar", f"WrapInt<{GM_TYPES[_storage_int(node.dtype)]}>({_SCALAR_INT[op](*args)})")
        simple = {"add": "Add", "sub": "Sub", "mul": "Mul", "maximum": "Max", "minimum": "Min"}
        if op in simple:
            a, b = args
            if a.kind == "scalar" and op in ("add", "mul", "maximum", "minimum"):
                a, b = b, a
            out = self.t.temp()
            if b.kind == "scalar" and op != "sub":
                scalar_op = {"add": "Adds", "mul": "Muls", "maximum": "Maxs", "minimum": "Mins"}[op]
                self.t.emit(f"{scalar_op}({ints(out)}, {ints(a)}, static_cast<int32_t>({b.expr}), count);")
            else:
                a_tile, b_tile = self.tile(a, "I"), self.tile(b, "I")
                self.t.emit(f"{simple[op]}({ints(out)}, {ints(a_tile)}, {ints(b_tile)}, count);")
            return self._wrap(out, node.dtype)
        if op == "neg":
            out = self.t.temp()
            self.t.emit(f"Muls({ints(out)}, {ints(self.tile(args[0], 'I'))}, int32_t(-1), count);")
            return self._wrap(out, node.dtype)
        if op == "abs":
            x = self.tile(args[0], "I")
            out = self.t.temp()
            self.t.emit(f"Muls({ints(out)}, {ints(x)}, int32_t(-1), count);")
            self.t.emit(f"Max({ints(out)}, {ints(out)}, {ints(x)}, count);")
            return self._wrap(out, node.dtype)
        if op in ("bitwise_and", "bitwise_or", "bitwise_xor", "and_", "or_", "xor"):
            a, b = self.tile(args[0], "I"), self.tile(args[1], "I")
            out = self.t.temp()
            kind = op.replace("bitwise_", "").rstrip("_")
            if kind == "xor":
                other = self.t.temp()
                self.t.emit(f"Or({halves(out)}, {halves(a)}, {halves(b)}, count * 2);")
                self.t.emit(f"And({halves(other)}, {halves(a)}, {halves(b)}, count * 2);")
                self.t.emit(f"Not({halves(other)}, {halves(other)}, count * 2);")
                self.t.emit(f"And({halves(out)}, {halves(out)}, {halves(other)}, count * 2);")
                self.t.release(other)
            else:
                self.t.emit(f"{'And' if kind == 'and' else 'Or'}({halves(out)}, {halves(a)}, {halves(b)}, count * 2);")
            return out
        if op == "bitwise_not":
            a = self.tile(args[0], "I")
            out = self.t.temp()
            self.t.emit(f"Not({halves(out)}, {halves(a)}, count * 2);")
            return self._wrap(out, node.dtype)
        if op == "where":
            return self._where(node)
        if op == "identity":
            return args[0]
        return self._lanewise(node)

    # -- lane by lane on the scalar unit: exact for every op and dtype, slow
    def _lanewise(self, node: Node, out: Val | None = None, as_int: bool = False) -> Val:
        """``node`` lane by lane on the scalar unit (into ``out`` if given; ``as_int``: int32 lanes whatever the
        node's class)."""
        from torch_ascendgen.generators.builtin.loops.scalar_ops import scalar_expression

        operands = [a for a in node.args if isinstance(a, Node)]
        readers = {}
        for operand in operands:
            readers[operand] = self._lane_reader(operand)
        cls = "I" if as_int else self.cls(node)
        text = scalar_expression(node, lambda a: readers[a] if isinstance(a, Node) else None, self.w)
        setup = self.w.lane_indirects(node.args[0]) if node.op == "index_expr" else ""
        out = out or self.t.temp("wide" if cls == "W" else "mask" if cls == "M" else "full")
        self.t.emit("VectorToScalar();")
        if cls == "M":
            self.t.emit(f"Duplicate({halves(out)}, uint16_t(0), MASK_BYTES / 2);")
            self.t.emit("VectorToScalar();")
            self.t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {{ {setup}if ({text}) "
                        f"{out.expr}.SetValue(lane >> 3, static_cast<uint8_t>({out.expr}.GetValue(lane >> 3) | "
                        "(1u << (lane & 7)))); }")
        else:
            view = {"F": out.expr, "I": ints(out), "W": out.expr}[cls]
            ctype = SCALAR_TYPES[cls]
            self.t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {{ {setup}{view}.SetValue(lane, "
                        f"static_cast<{ctype}>({text})); }}")
        self.t.emit("ScalarToVector();")
        return out

    def _lane_reader(self, operand: Node) -> str:
        value = self.values[operand]
        if value.kind == "scalar":
            return f"({value.expr})"
        cls = self.cls(operand)
        if cls == "M":
            return f"((({value.expr}.GetValue(lane >> 3)) >> (lane & 7)) & 1)"
        if cls == "I":
            return f"{ints(value)}.GetValue(lane)"
        return f"{value.expr}.GetValue(lane)"


class _Lowered(dict):
    """Node -> Val, lowering a node the first time its value is asked for: a node nothing uses is never lowered
    (an index expression that only bounds a mask, say)."""

    def __init__(self, writer):
        super().__init__()
        self.writer = writer

    def __missing__(self, node: Node) -> Val:
        self.writer.lower(node)
        return dict.__getitem__(self, node)

    def __setitem__(self, node: Node, value: Val) -> None:
        if node not in self:
            self.writer.hold(value)
        super().__setitem__(node, value)


class _Lanewise(Exception):
    """Raised inside a handler that finds no vector form: the node is computed lane by lane."""


_SCALAR_INT = {
    "add": lambda a, b: f"(int64_t({a.expr}) + int64_t({b.expr}))",
    "sub": lambda a, b: f"(int64_t({a.expr}) - int64_t({b.expr}))",
    "mul": lambda a, b: f"(int64_t({a.expr}) * int64_t({b.expr}))",
    "maximum": lambda a, b: f"MaxI({a.expr}, {b.expr})",
    "minimum": lambda a, b: f"MinI({a.expr}, {b.expr})",
    # divisions checked: a zero divisor stops the kernel (PyTorch raises) instead of the process
    "floordiv": lambda a, b: f"CheckedFloorDiv({a.expr}, {b.expr})",
    "remainder": lambda a, b: f"CheckedMod({a.expr}, {b.expr})",
    "mod": lambda a, b: f"CheckedTruncMod({a.expr}, {b.expr})",  # Inductor's mod is C's %
    "truncdiv": lambda a, b: f"CheckedTruncDiv({a.expr}, {b.expr})",
    "neg": lambda a: f"(-int64_t({a.expr}))",
}


def _float_valued(expr) -> bool:
    """Whether a sympy index expression computes in floats (ToFloat, FloatPow, ...), not only with integers."""
    from torch.utils._sympy import functions as f

    floats = (f.ToFloat, f.FloatTrueDiv, f.IntTrueDiv, f.FloatPow, f.OpaqueUnaryFn_exp, f.OpaqueUnaryFn_log,
              f.OpaqueUnaryFn_sqrt)
    return any(isinstance(term, floats) for term in sympy.preorder_traversal(expr))


def _storage_int(dtype: torch.dtype) -> torch.dtype:
    return dtype if dtype in NARROW_INTS else torch.int32


def _literal(value: Val):
    return flt.literal_value(value)


__all__ = ["Tiles", "PassValues", "value_class", "GM_TYPES", "SCALAR_TYPES", "FLOATS", "ints", "halves",
           "_Lanewise", "compare_count", "slope"]


def compare_count(count: str = "count") -> str:
    return f"(({count}) + 63) / 64 * 64"
