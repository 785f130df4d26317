"""A generic scan (cummax/cummin with their indices, logcumsumexp, cumprod, ...): the recorded combine function
(ir.Combine) evaluated step by step along the scan index on the scalar unit, carrying the state tuple.

The walk is in order, one scan index at a time: the first index takes its values as the state, every later one
combines the state so far with its values (``combine(state, values)``, Inductor's order: the state is the left,
earlier operand). That is how PyTorch's CPU kernels walk (``cummax``: ``x >= best`` keeps the last of equal values
and the last NaN, which the combine's tie rule gives; ``logcumsumexp``: ``log1p(exp(min - max)) + max``). Floats
are carried and combined in PyTorch's CPU accumulator type: double for float32, float for float16 and bfloat16 (exp,
log and log1p computed in double and rounded once); results are rounded to their dtype where stored or used.
Integers are int64, wrapped to their dtype after each op; bools are C++ bools.

Along the lanes ("inner" passes: the scan index moves with the lanes) the state lives in scalar variables of the
row; across the lanes ("outer" passes: every lane its own scan) in int64 tiles, one lane per scan (float state as
its double's bits).
"""

from __future__ import annotations

import torch

from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.loops.ir import Combine, Node
from torch_ascendgen.generators.builtin.loops.scalar_ops import scalar_expression
from torch_ascendgen.generators.builtin.loops.values import GM_TYPES, halves, ints

_DOUBLE_BINARY = {"add": "+", "sub": "-", "mul": "*", "truediv": "/"}
_DOUBLE_CALLS = {"exp": "ExpD", "log": "LogD", "log1p": "Log1pD", "abs": "AbsD", "maximum": "FMaxNaND",
                 "minimum": "FMinNaND"}
_BOOL_BITWISE = {"bitwise_and": "&&", "bitwise_or": "||", "bitwise_xor": "!=", "and_": "&&", "or_": "||",
                 "xor": "!="}


def generic_scan(writer, node: Node) -> tuple:
    """Lowers scan ``node`` (args ``(combine, *values)``) for the writer's work item; returns the tiles of its
    results (one per state component, in the class of its dtype)."""
    combine: Combine = node.args[0]
    values = node.args[1:]
    t, v = writer.tiles, writer.values
    n = node.id
    parts = [next((x for x in writer.item.nodes if x.op == "getitem" and x.args[0] is node and x.args[1] == i), None)
             for i in range(len(values))]
    classes = [v.cls(part) if part is not None else None for part in parts]
    real = _real_type(combine)
    statements, results = combine_text(combine, n)
    reads = [_to_state(v._lane_reader(value), value.dtype, real) for value in values]
    index = writer._reduction_index_text()
    first = (f"static_cast<int64_t>({index}) + static_cast<int64_t>(lane) == 0" if writer.mode == "inner"
             else f"static_cast<int64_t>({index}) == 0")
    types = [_state_type(value.dtype, real) for value in values]
    if writer.mode == "inner":  # the state of the row, in scalar variables declared with its other folds
        writer.folds.declared.extend(f"{ctype} carry{n}_{i} = {ctype}(0);" for i, ctype in enumerate(types))
        carried = [f"carry{n}_{i}" for i in range(len(values))]
        keep = [f"carry{n}_{i} = s{n}_{i};" for i in range(len(values))]
    else:  # the state of each lane's scan, in an int64 tile that lives through the walk
        tiles = [t.temp("wide") for _ in values]
        carried = [_from_bits(f"{tile.expr}.GetValue(lane)", ctype) for tile, ctype in zip(tiles, types)]
        keep = [f"{tile.expr}.SetValue(lane, {_to_bits(f's{n}_{i}', ctype)});"
                for i, (tile, ctype) in enumerate(zip(tiles, types))]
    outs, writes = [], []
    for i, (part, cls) in enumerate(zip(parts, classes)):
        if part is None:
            outs.append(None)
            continue
        out = t.temp("wide" if cls == "W" else "mask" if cls == "M" else "full")
        outs.append(out)
        writes.append(_write(out, cls, part.dtype, f"s{n}_{i}"))
        if cls == "M":
            t.emit(f"Duplicate({halves(out)}, uint16_t(0), MASK_BYTES / 2);")
    body = [f"const {ctype} b{n}_{i} = {read};" for i, (ctype, read) in enumerate(zip(types, reads))]
    body += [f"{ctype} s{n}_{i};" for i, ctype in enumerate(types)]
    body.append(f"if ({first}) {{ " + " ".join(f"s{n}_{i} = b{n}_{i};" for i in range(len(values))) + " } else { ")
    body += [f"const {ctype} a{n}_{i} = {text};" for i, (ctype, text) in enumerate(zip(types, carried))]
    body += statements
    body += [f"s{n}_{i} = {text};" for i, text in enumerate(results)]
    body.append("}")
    t.emit("VectorToScalar();")
    t.emit("for (uint32_t lane = 0; lane < count; ++lane) { " + " ".join(body + keep + writes) + " }")
    t.emit("ScalarToVector();")
    return tuple(outs)


def combine_text(combine: Combine, n: int) -> tuple[list[str], list[str]]:
    """C++ statements computing the combine's nodes from ``a{n}_i`` (state) and ``b{n}_i`` (values), and the C++
    text of each result."""
    names: dict[Node, str] = {}
    for i, placeholder in enumerate(combine.carry):
        names[placeholder] = f"a{n}_{i}"
    for i, placeholder in enumerate(combine.step):
        names[placeholder] = f"b{n}_{i}"
    statements, real = [], _real_type(combine)
    for node in combine.nodes:
        name = f"c{n}_{node.id}"
        statements.append(f"const {_state_type(node.dtype, real)} {name} = {_expression(node, names, real)};")
        names[node] = name
    results = []
    for result in combine.results:
        if not isinstance(result, Node) or result not in names:
            raise UnsupportedFunction("its scan's combine function returns something other than its ops' values")
        results.append(names[result])
    return statements, results


def _expression(node: Node, names: dict[Node, str], real: str) -> str:
    op, dtype = node.op, node.dtype
    args = [names[a] if isinstance(a, Node) else a for a in node.args]
    operand_types = [a.dtype for a in node.args if isinstance(a, Node)]
    if op == "constant":
        return _constant(node.args[0], dtype)
    if op == "to_dtype":
        return _convert(args[0], node.args[0].dtype, node.args[1])
    if dtype is not None and dtype.is_floating_point and op != "where":
        if op in _DOUBLE_BINARY:
            return f"(static_cast<{real}>({args[0]}) {_DOUBLE_BINARY[op]} static_cast<{real}>({args[1]}))"
        if op == "neg":
            return f"(-static_cast<{real}>({args[0]}))"
        if op in _DOUBLE_CALLS:  # in double, rounded once to float where the state is float
            return f"static_cast<{real}>({_DOUBLE_CALLS[op]}({', '.join(f'static_cast<double>({a})' for a in args)}))"
        if op == "identity":
            return args[0]
        raise UnsupportedFunction(f"its scan combines with ops.{op} of floats, which the loop lowering has no "
                                  "scalar form of")
    if op == "isinf":
        return f"IsInfD(static_cast<double>({args[0]}))"
    if dtype == torch.bool and op in _BOOL_BITWISE:
        return f"(({args[0]}) {_BOOL_BITWISE[op]} ({args[1]}))"
    if dtype == torch.bool and op == "bitwise_not":
        return f"(!({args[0]}))"
    if op in ("maximum", "minimum") and dtype == torch.bool:
        return f"(({args[0]}) {'||' if op == 'maximum' else '&&'} ({args[1]}))"
    if any(d is not None and d.is_floating_point for d in operand_types) and op not in (
            "eq", "ne", "lt", "le", "gt", "ge", "isnan", "where"):
        raise UnsupportedFunction(f"its scan combines floats with ops.{op}, which the loop lowering has no scalar "
                                  "form of")
    return scalar_expression(node, lambda a: names[a], None)


def _constant(value, dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "true" if value else "false"
    if dtype.is_floating_point:
        value = float(value)
        if value != value:
            return "(0.0 / 0.0)"
        if value in (float("inf"), float("-inf")):
            return "(1.0 / 0.0)" if value > 0 else "(-1.0 / 0.0)"
        return f"{value!r}" if ("." in repr(value) or "e" in repr(value)) else f"{value!r}.0"
    return f"int64_t({int(value)}LL)"


def _convert(text: str, source: torch.dtype, target: torch.dtype) -> str:
    if target == torch.bool:
        return f"(({text}) != 0)"
    if target == torch.float64:
        return f"static_cast<double>({text})"
    if target == torch.float32:
        return f"static_cast<double>(static_cast<float>({text}))"
    if target in (torch.float16, torch.bfloat16):
        narrow = "half" if target == torch.float16 else "bfloat16_t"
        return f"static_cast<double>(RoundTo<{narrow}>(static_cast<float>({text})))"
    if source is not None and source.is_floating_point:
        raise UnsupportedFunction("its scan converts floats to integers in its combine function, which the loop "
                                  "lowering does not do")
    return f"WrapInt<{GM_TYPES[target]}>(static_cast<int64_t>({text}))"


def _real_type(combine: Combine) -> str:
    """PyTorch's accumulator type of the scan's floats on the CPU: double for float32, float for narrower types."""
    wide = any(p.dtype in (torch.float32, torch.float64) for p in combine.carry)
    return "double" if wide else "float"


def _state_type(dtype: torch.dtype, real: str) -> str:
    if dtype is not None and dtype.is_floating_point:
        return real
    if dtype == torch.bool:
        return "bool"
    if dtype in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64):
        return "int64_t"
    raise UnsupportedFunction(f"a scan of {dtype} values is not lowered yet")


def _to_state(text: str, dtype: torch.dtype, real: str) -> str:
    """A value read at the lane (a float tile's float, an int32 or int64 lane, a mask bit) in its state type."""
    ctype = _state_type(dtype, real)
    return f"(({text}) != 0)" if ctype == "bool" else f"static_cast<{ctype}>({text})"


def _from_bits(text: str, ctype: str) -> str:
    return {"double": f"BitsToDouble({text})", "float": f"static_cast<float>(BitsToDouble({text}))",
            "bool": f"(({text}) != 0)", "int64_t": text}[ctype]


def _to_bits(text: str, ctype: str) -> str:
    return {"double": f"DoubleToBits({text})", "float": f"DoubleToBits(static_cast<double>({text}))",
            "bool": f"int64_t({text} ? 1 : 0)", "int64_t": text}[ctype]


def _write(out, cls: str, dtype: torch.dtype, state: str) -> str:
    """The statement putting the lane's state into its result tile (floats rounded to their dtype, as eager stores
    them)."""
    if cls == "F":
        value = f"static_cast<float>({state})"
        if dtype in (torch.float16, torch.bfloat16):
            value = f"RoundTo<{GM_TYPES[dtype]}>({value})"
        return f"{out.expr}.SetValue(lane, {value});"
    if cls == "I":
        return f"{ints(out)}.SetValue(lane, static_cast<int32_t>({state}));"
    if cls == "W":
        return f"{out.expr}.SetValue(lane, static_cast<int64_t>({state}));"
    return (f"if ({state}) {out.expr}.SetValue(lane >> 3, static_cast<uint8_t>({out.expr}.GetValue(lane >> 3) | "
            "(1u << (lane & 7))));")
