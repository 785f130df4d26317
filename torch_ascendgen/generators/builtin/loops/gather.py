"""Gathers on the vector unit: a load whose index does not move one element per lane, as one DataCopyPad of the
span of global memory its lanes touch and one UB Gather.

The index is split into a part every lane shares (an int64 scalar: the outer indices times their strides) and a part
that varies with the lanes, evaluated as an int32 tile with vector instructions: the lane index, small constant
multiples, floor divisions and moduli (through float, exact below 2**24), minima and maxima, and indices read from an
index tensor (range-checked). The tile's minimum and maximum over the lanes the load is made on give the span; when it
fits the span buffer, its elements are copied in and gathered by byte offsets, otherwise the kernel reads lane by lane
(the caller's fallback, kept in the same code). Anything else has no vector form here (None).
"""

from __future__ import annotations

import sympy
import torch

from torch_ascendgen.generators.builtin.loops.cexpr import cexpr
from torch_ascendgen.generators.builtin.loops.ir import Node
from torch_ascendgen.generators.builtin.loops.values import GM_TYPES, ints
from torch_ascendgen.generators.builtin.lowering import Val

SPAN_TILES = 2  # the span buffer holds this many tiles' elements (a slice with step 2 fits)
_GATHER_DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int16)
_MAX_COEFFICIENT = 16
# every value of an index tile stays below this (exact in float for its divisions and extremes): the kernel takes the
# lane-by-lane branch where the lanes times the expression's largest coefficient could pass it
EXACT_LIMIT = 1 << 23


def lane_limit(expr: sympy.Expr, moving: set) -> str:
    """C++: the lane index (v0 + TILE) below which ``expr``'s vector evaluation is exact."""
    largest = 1
    for term in sympy.preorder_traversal(expr):
        if isinstance(term, sympy.Mul) and term.free_symbols & moving:
            coefficient, _ = term.as_coeff_Mul()
            largest = max(largest, abs(int(coefficient)) if coefficient.is_Integer else _MAX_COEFFICIENT)
    return f"{EXACT_LIMIT // largest}"


def split_index(index: sympy.Expr, moving: set) -> tuple[sympy.Expr, sympy.Expr]:
    """(the terms no lane symbol is in, the rest)."""
    terms = sympy.Add.make_args(sympy.expand(index))
    shared = [t for t in terms if not (t.free_symbols & moving)]
    return sympy.Add(*shared), sympy.Add(*[t for t in terms if t not in shared])


class IndexTiles:
    """Evaluates the lane-varying part of index expressions as int32 tiles."""

    def __init__(self, writer):
        self.w = writer
        self.t = writer.tiles

    def tile(self, expr: sympy.Expr) -> Val | None:
        """``expr`` over the lanes (an int32 tile), or None when it has no vector form here."""
        try:
            return self._eval(expr)
        except _NoVectorForm:
            return None

    def _eval(self, expr) -> Val:
        t = self.t
        from torch.utils._sympy import functions as f

        w = self.w
        if expr == w.vector:
            out = t.temp()
            w.needs_lane_ints = True
            t.emit(f"Adds({ints(out)}, laneInts, static_cast<int32_t>(v0), count);")
            return out
        if expr in w.lane_indirect_symbols():
            return self._indirect(expr)
        if not expr.free_symbols & w.moving_symbols():
            raise _NoVectorForm()  # a shared part inside a non-additive expression: kept scalar by the caller
        if isinstance(expr, sympy.Add):
            parts = sympy.Add.make_args(expr)
            moving = [p for p in parts if p.free_symbols & w.moving_symbols()]
            shared = sympy.Add(*[p for p in parts if p not in moving])
            out = self._eval(moving[0])
            for part in moving[1:]:
                other = self._eval(part)
                t.emit(f"Add({ints(out)}, {ints(out)}, {ints(other)}, count);")
                t.release(other)
            if shared != 0:
                t.emit(f"Adds({ints(out)}, {ints(out)}, static_cast<int32_t>({cexpr(shared)}), count);")
            return out
        if isinstance(expr, sympy.Mul):
            coefficient, rest = expr.as_coeff_Mul()
            if not coefficient.is_Integer or abs(int(coefficient)) > _MAX_COEFFICIENT or coefficient == 1:
                raise _NoVectorForm()
            out = self._eval(rest)
            t.emit(f"Muls({ints(out)}, {ints(out)}, int32_t({int(coefficient)}), count);")
            return out
        if isinstance(expr, f.FloorDiv):
            return self._floor_div(self._eval(expr.args[0]), expr.args[1])
        if isinstance(expr, f.ModularIndexing):
            base, divisor, modulus = expr.args
            quotient = self._floor_div(self._eval(base), divisor) if divisor != 1 else self._eval(base)
            return self._modulus(quotient, modulus)
        if isinstance(expr, (f.PythonMod, f.Mod, sympy.Mod)):
            return self._modulus(self._eval(expr.args[0]), expr.args[1])
        if isinstance(expr, (f.Min, f.Max, sympy.Min, sympy.Max)):
            op = "Min" if isinstance(expr, (f.Min, sympy.Min)) else "Max"
            args = list(expr.args)
            out = self._eval(args[0]) if args[0].free_symbols & w.moving_symbols() else None
            for arg in args[1:] if out is not None else args:
                if out is None:
                    out = self._eval(arg)
                    continue
                if arg.free_symbols & w.moving_symbols():
                    other = self._eval(arg)
                    t.emit(f"{op}({ints(out)}, {ints(out)}, {ints(other)}, count);")
                    t.release(other)
                else:
                    t.emit(f"{op}s({ints(out)}, {ints(out)}, static_cast<int32_t>({cexpr(arg)}), count);")
            return out
        raise _NoVectorForm()

    def _floor_div(self, value: Val, divisor) -> Val:
        """floor(value / divisor) for a positive divisor the lanes share: the float quotient of two integers below
        2**24 floors to the exact one."""
        t = self.t
        as_float, quotient = t.temp(), t.temp()
        t.emit(f"Cast({as_float.expr}, {ints(value)}, RoundMode::CAST_NONE, count);")
        t.emit(f"Duplicate({quotient.expr}, static_cast<float>({cexpr(divisor)}), count);")
        t.emit(f"Div({as_float.expr}, {as_float.expr}, {quotient.expr}, count);")
        t.emit(f"Cast({ints(quotient)}, {as_float.expr}, RoundMode::CAST_FLOOR, count);")
        t.release(as_float)
        t.release(value)
        return quotient

    def _modulus(self, value: Val, modulus) -> Val:
        """value - modulus * floor(value / modulus): Python's modulus, as Inductor's ModularIndexing means it."""
        t = self.t
        copy = t.temp()
        t.emit(f"Adds({ints(copy)}, {ints(value)}, int32_t(0), count);")
        quotient = self._floor_div(copy, modulus)
        t.emit(f"Muls({ints(quotient)}, {ints(quotient)}, static_cast<int32_t>({cexpr(modulus)}), count);")
        t.emit(f"Sub({ints(value)}, {ints(value)}, {ints(quotient)}, count);")
        t.release(quotient)
        return value

    def _indirect(self, symbol) -> Val:
        """An index read from a tensor, per lane: wrapped when negative (if PyTorch wraps it) and checked against
        its range (the kernel stops on one out of it, as PyTorch raises)."""
        t, w = self.t, self.w
        node = w.indirect_node(symbol)
        value_node, size, _, wrap = node.args
        cls = w.values.cls(value_node)
        value = w.values.values[value_node]
        if cls not in ("I", "W") or value.kind == "scalar":
            raise _NoVectorForm()
        out = t.temp()
        if cls == "W":
            t.emit(f"Cast({ints(out)}, {value.expr}, RoundMode::CAST_NONE, count);")  # saturates: still out of range
        else:
            t.emit(f"Adds({ints(out)}, {ints(value)}, int32_t(0), count);")
        as_float = t.temp()
        t.emit(f"Cast({as_float.expr}, {ints(out)}, RoundMode::CAST_NONE, count);")
        size_text = f"static_cast<float>({cexpr(size)})"
        if wrap:
            mask = t.temp("mask")
            t.emit(f"CompareScalar({mask.expr}, {as_float.expr}, 0.0f, CMPMODE::LT, (count + 63) / 64 * 64);")
            shifted = t.temp()
            t.emit(f"Adds({shifted.expr}, {as_float.expr}, {size_text}, count);")
            t.emit(f"Select({as_float.expr}, {mask.expr}, {shifted.expr}, {as_float.expr}, "
                   "SELMODE::VSEL_TENSOR_TENSOR_MODE, count);")
            t.emit(f"Cast({ints(out)}, {as_float.expr}, RoundMode::CAST_RINT, count);")
            t.release(shifted)
            t.release(mask)
        guard = w.lane_guard_mask(node.region)
        low, high = _extremes(t, as_float, guard)
        t.emit(f"if ({low} < 0.0f || {high} >= {size_text}) Trap();")
        t.release(as_float)
        return out


def _extremes(t, values: Val, guard: Val | None) -> tuple[str, str]:
    """C++ scalars holding the minimum and maximum of a float tile over the lanes ``guard`` keeps (all: None)."""
    low, high = t.temp(), t.temp()
    for target, fill, api in ((low, "3.0e38f", "ReduceMin"), (high, "-3.0e38f", "ReduceMax")):
        if guard is None:
            t.emit(f"Adds({target.expr}, {values.expr}, 0.0f, count);")
        else:
            t.emit(f"Select({target.expr}, {guard.expr}, {values.expr}, {fill}, SELMODE::VSEL_TENSOR_SCALAR_MODE, "
                   "count);")
        t.emit(f"{api}({target.expr}, {target.expr}, foldWork, count);")
    name = f"ext{id(values) % 100000}_{low.slot}"
    t.emit("VectorToScalar();")
    t.emit(f"const float {name}Low = {low.expr}.GetValue(0), {name}High = {high.expr}.GetValue(0);")
    t.emit("ScalarToVector();")
    t.release(low)
    t.release(high)
    return f"{name}Low", f"{name}High"


def vector_gather(writer, node: Node, fallback) -> Val | None:
    """The load ``node`` through a span copy and a Gather, with ``fallback(out)`` (lane by lane) in the branch the
    vector form cannot take (past the exact range, or a span larger than its buffer); None when the index has no
    vector form at all."""
    name, index = node.args
    if node.dtype not in _GATHER_DTYPES:
        return None
    t, w = writer.tiles, writer
    shared, moving = split_index(index, w.moving_symbols())
    if moving == 0:
        return None
    conditions = [f"v0 + TILE < {lane_limit(moving, w.moving_symbols())}"]
    for symbol in moving.free_symbols & w.lane_indirect_symbols():
        indirect = w.indirect_node(symbol)
        w.values.values[indirect.args[0]]  # the index values, read by both branches
        conditions.append(f"{cexpr(indirect.args[1])} < {EXACT_LIMIT}")
    guard = w.lane_guard_mask(node.region)
    out = t.temp()
    ctype = GM_TYPES[node.dtype]
    span = f"span{node.id}"
    start = len(t.lines)
    t.emit(f"if ({' && '.join(conditions)}) {{")
    relative = IndexTiles(w).tile(moving)
    if relative is None:
        del t.lines[start:]
        t.release(out)
        return None
    as_float = t.temp()
    t.emit(f"Cast({as_float.expr}, {ints(relative)}, RoundMode::CAST_NONE, count);")
    low, high = _extremes(t, as_float, guard)
    t.release(as_float)
    queue = w.span_queue(node.dtype)
    # no lane under the mask (low > high, the fills): no span (casting the fills to int64 is undefined)
    t.emit(f"const bool {span}Any = {low} <= {high};")
    t.emit(f"const int64_t {span}First = {span}Any ? static_cast<int64_t>({low}) : 0, {span}Count = {span}Any ? "
           f"static_cast<int64_t>({high}) - {span}First + 1 : 0;")
    t.emit(f"if ({span}Count > 0 && {span}Count <= {SPAN_TILES} * TILE) {{")
    t.emit(f"LocalTensor<{ctype}> {span} = {queue}.AllocTensor<{ctype}>();")
    t.emit(f"LoadLanes({span}, {w.gm_name(name)}, {cexpr(shared)} + {span}First, 0, "
           f"static_cast<uint32_t>({span}Count));")
    t.emit(f"{queue}.EnQue({span}); {span} = {queue}.DeQue<{ctype}>();")
    t.emit(f"Adds({ints(relative)}, {ints(relative)}, static_cast<int32_t>(-{span}First), count);")
    t.emit(f"Maxs({ints(relative)}, {ints(relative)}, int32_t(0), count);")  # lanes outside the mask: any element
    t.emit(f"Mins({ints(relative)}, {ints(relative)}, static_cast<int32_t>({span}Count - 1), count);")
    t.emit(f"Muls({ints(relative)}, {ints(relative)}, int32_t(sizeof({ctype})), count);")
    w.gathered(node, out, span, f"{relative.expr}.ReinterpretCast<uint32_t>()")
    t.emit(f"{queue}.FreeTensor({span});")
    t.emit("} else {")
    fallback(out)
    t.emit("}")
    t.emit("} else {")
    fallback(out)
    t.emit("}")
    t.release(relative)
    return out


def index_value(writer, expr: sympy.Expr, fallback) -> Val | None:
    """An index expression's values over the lanes as an int32 tile, by vector instructions where they are exact
    (``fallback(out)``, lane by lane, elsewhere); None when it has no vector form at all."""
    t, w = writer.tiles, writer
    shared, moving = split_index(expr, w.moving_symbols())
    if moving == 0 or moving.free_symbols & w.lane_indirect_symbols():
        return None
    out = t.temp()
    start = len(t.lines)
    t.emit(f"if (v0 + TILE < {lane_limit(moving, w.moving_symbols())}) {{")
    relative = IndexTiles(w).tile(moving)
    if relative is None:
        del t.lines[start:]
        t.release(out)
        return None
    t.emit(f"Adds({ints(out)}, {ints(relative)}, static_cast<int32_t>({cexpr(shared)}), count);")
    t.emit("} else {")
    fallback(out)
    t.emit("}")
    t.release(relative)
    return out


def float_index_value(writer, expr: sympy.Expr) -> Val | None:
    """A float-valued index expression (rotary frequencies: theta ** (2 * i / d), interpolation scales) as a float
    tile: its integer parts through IndexTiles, the float arithmetic by vector instructions (a power as
    exp(b * ln a)); None when some part has no vector form."""
    t = writer.tiles
    start = len(t.lines)
    try:
        return _FloatTiles(writer).eval(expr)
    except _NoVectorForm:
        del t.lines[start:]
        return None


class _FloatTiles:
    def __init__(self, writer):
        self.w = writer
        self.t = writer.tiles

    def eval(self, expr) -> Val:
        from torch.utils._sympy import functions as f

        t = self.t
        floats = (f.ToFloat, f.FloatTrueDiv, f.FloatPow, f.OpaqueUnaryFn_exp, f.OpaqueUnaryFn_log,
                  f.OpaqueUnaryFn_sqrt)
        if expr.is_Number or not (expr.free_symbols & self.w.moving_symbols() or any(
                isinstance(term, floats) for term in sympy.preorder_traversal(expr))):
            out = t.temp()
            t.emit(f"Duplicate({out.expr}, static_cast<float>({cexpr(expr)}), count);")
            return out
        if isinstance(expr, f.ToFloat) and not expr.args[0].free_symbols & self.w.moving_symbols():
            out = t.temp()
            t.emit(f"Duplicate({out.expr}, static_cast<float>({cexpr(expr.args[0])}), count);")
            return out
        if isinstance(expr, f.IntTrueDiv):
            return self.eval(f.FloatTrueDiv(f.ToFloat(expr.args[0]), f.ToFloat(expr.args[1])))
        if isinstance(expr, f.ToFloat):
            integer = IndexTiles(self.w).tile(expr.args[0])
            if integer is None:
                raise _NoVectorForm()
            t.emit(f"Cast({integer.expr}, {ints(integer)}, RoundMode::CAST_RINT, count);")
            return integer
        if isinstance(expr, (sympy.Add, sympy.Mul)):
            op = "Add" if isinstance(expr, sympy.Add) else "Mul"
            parts = [self.eval(arg) for arg in expr.args]
            for part in parts[1:]:
                t.emit(f"{op}({parts[0].expr}, {parts[0].expr}, {part.expr}, count);")
                t.release(part)
            return parts[0]
        if isinstance(expr, f.FloatTrueDiv):
            a, b = self.eval(expr.args[0]), self.eval(expr.args[1])
            t.emit(f"Div({a.expr}, {a.expr}, {b.expr}, count);")
            t.release(b)
            return a
        if isinstance(expr, f.FloatPow):
            base, exponent = self.eval(expr.args[0]), self.eval(expr.args[1])
            t.emit(f"Ln({base.expr}, {base.expr}, count);")
            t.emit(f"Mul({base.expr}, {base.expr}, {exponent.expr}, count);")
            t.emit(f"Exp({base.expr}, {base.expr}, count);")
            t.release(exponent)
            return base
        unary = {f.OpaqueUnaryFn_exp: "Exp", f.OpaqueUnaryFn_log: "Ln", f.OpaqueUnaryFn_sqrt: "Sqrt"}
        if type(expr) in unary:
            value = self.eval(expr.args[0])
            t.emit(f"{unary[type(expr)]}({value.expr}, {value.expr}, count);")
            return value
        raise _NoVectorForm()


class _NoVectorForm(Exception):
    pass
