"""One node's value at one lane as a C++ expression on the scalar unit, with PyTorch's semantics exactly.

The lane-by-lane path the vector code falls back to (values.py): int64 arithmetic, integer division, gathers through
computed indices. Only operations C++ computes exactly as PyTorch does on the CPU are written here (integer
arithmetic with two's complement wrap-around, floor division and Python's modulus, comparisons, float + - * /,
floor, ceil, trunc, round and abs, conversions with x86's out-of-range results); anything else raises
UnsupportedFunction.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.loops.cexpr import cexpr
from torch_ascendgen.generators.builtin.loops.ir import Node

_C_TYPES = {torch.float32: "float", torch.float16: "float", torch.bfloat16: "float", torch.int8: "int8_t",
            torch.uint8: "uint8_t", torch.int16: "int16_t", torch.int32: "int32_t", torch.int64: "int64_t",
            torch.bool: "bool"}
_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def scalar_expression(node: Node, read: Callable[[Node], str], writer) -> str:
    """``node`` at lane ``lane``; ``read(operand)`` gives an operand's value there."""
    args = [read(a) if isinstance(a, Node) else _literal(a) for a in node.args]
    op = node.op
    dtype = node.dtype
    integer = dtype is not None and not dtype.is_floating_point and dtype != torch.bool
    if op == "index_expr":
        return f"static_cast<{_C_TYPES[dtype]}>({cexpr(writer.at_lane(node.args[0]))})"
    if op == "to_dtype":
        return _convert(args[0], node.args[0].dtype, node.args[1])
    if op in _COMPARE:
        return f"({args[0]} {_COMPARE[op]} {args[1]})"
    if op in ("logical_and", "and_"):
        return f"(({args[0]}) && ({args[1]}))"
    if op in ("logical_or", "or_"):
        return f"(({args[0]}) || ({args[1]}))"
    if op in ("logical_not", "not_"):
        return f"(!({args[0]}))"
    if op in ("logical_xor", "xor") and dtype == torch.bool:
        return f"((({args[0]}) != 0) != (({args[1]}) != 0))"
    if op == "where":
        return f"(({args[0]}) ? ({args[1]}) : ({args[2]}))"
    if op == "isnan":
        return f"(({args[0]}) != ({args[0]}))"
    if integer:
        return _integer(op, args, dtype)
    if dtype is not None and dtype.is_floating_point:
        return _float(op, args)
    raise UnsupportedFunction(f"the loop lowering has no lane-by-lane form of ops.{op} for {dtype}")


def _literal(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"int64_t({value}LL)"
    if isinstance(value, float):
        return repr(value) + ("" if "." in repr(value) or "e" in repr(value) else ".0")
    return str(value)


def _integer(op: str, args: list[str], dtype: torch.dtype) -> str:
    wrap = f"WrapInt<{_C_TYPES[dtype]}>"
    u = [f"static_cast<uint64_t>(static_cast<int64_t>({a}))" for a in args]
    table = {
        "add": lambda: f"{wrap}(static_cast<int64_t>({u[0]} + {u[1]}))",
        "sub": lambda: f"{wrap}(static_cast<int64_t>({u[0]} - {u[1]}))",
        "mul": lambda: f"{wrap}(static_cast<int64_t>({u[0]} * {u[1]}))",
        "neg": lambda: f"{wrap}(static_cast<int64_t>(uint64_t(0) - {u[0]}))",
        "abs": lambda: f"{wrap}(({args[0]}) < 0 ? static_cast<int64_t>(uint64_t(0) - {u[0]}) : int64_t({args[0]}))",
        "maximum": lambda: f"MaxI({args[0]}, {args[1]})",
        "minimum": lambda: f"MinI({args[0]}, {args[1]})",
        "floordiv": lambda: f"{wrap}(CheckedFloorDiv({args[0]}, {args[1]}))",
        "truncdiv": lambda: f"{wrap}(CheckedTruncDiv({args[0]}, {args[1]}))",
        "remainder": lambda: f"{wrap}(CheckedMod({args[0]}, {args[1]}))",
        "mod": lambda: f"{wrap}(CheckedTruncMod({args[0]}, {args[1]}))",  # Inductor's mod is C's %
        "sign": lambda: f"{wrap}(int64_t(({args[0]}) > 0) - int64_t(({args[0]}) < 0))",
        "bitwise_and": lambda: f"{wrap}(int64_t({args[0]}) & int64_t({args[1]}))",
        "bitwise_or": lambda: f"{wrap}(int64_t({args[0]}) | int64_t({args[1]}))",
        "bitwise_xor": lambda: f"{wrap}(int64_t({args[0]}) ^ int64_t({args[1]}))",
        "bitwise_not": lambda: f"{wrap}(~int64_t({args[0]}))",
        "bitwise_left_shift": lambda: f"{wrap}(ShiftLeftI({args[0]}, {args[1]}))",
        "bitwise_right_shift": lambda: f"{wrap}(ShiftRightI({args[0]}, {args[1]}))",
        "identity": lambda: args[0],
    }
    table["and_"], table["or_"], table["xor"] = table["bitwise_and"], table["bitwise_or"], table["bitwise_xor"]
    if op not in table:
        raise UnsupportedFunction(f"the loop lowering has no integer form of ops.{op}")
    return table[op]()


def _float(op: str, args: list[str]) -> str:
    table = {
        "add": lambda: f"(static_cast<float>({args[0]}) + static_cast<float>({args[1]}))",
        "sub": lambda: f"(static_cast<float>({args[0]}) - static_cast<float>({args[1]}))",
        "mul": lambda: f"(static_cast<float>({args[0]}) * static_cast<float>({args[1]}))",
        "truediv": lambda: f"(static_cast<float>({args[0]}) / static_cast<float>({args[1]}))",
        "neg": lambda: f"(-static_cast<float>({args[0]}))",
        "maximum": lambda: f"FMaxNaN({args[0]}, {args[1]})",
        "minimum": lambda: f"FMinNaN({args[0]}, {args[1]})",
        "fmod": lambda: f"FmodF({args[0]}, {args[1]})",  # exact, as C's fmod (PyTorch's) is
        # rounding to integers: exact (a source index of interpolation or quantile, computed once per item)
        "floor": lambda: f"FloorF({args[0]})",
        "ceil": lambda: f"CeilF({args[0]})",
        "trunc": lambda: f"TruncF({args[0]})",
        "round": lambda: f"RoundF({args[0]})",
        "abs": lambda: f"(({args[0]}) <= 0.0f ? 0.0f - ({args[0]}) : ({args[0]}))",
        "identity": lambda: args[0],
    }
    if op not in table:
        raise UnsupportedFunction(f"the loop lowering has no lane-by-lane form of ops.{op} on floats")
    return table[op]()


def _convert(value: str, source: torch.dtype, target: torch.dtype) -> str:
    if target not in _C_TYPES or (source is not None and source not in _C_TYPES):
        raise UnsupportedFunction(f"the loop lowering has no lane-by-lane conversion from {source} to {target}")
    if target == torch.bool:
        return f"(({value}) != 0)"
    if target == torch.float32:
        return f"static_cast<float>({value})"
    if target.is_floating_point:
        return f"RoundTo<{_narrow(target)}>(static_cast<float>({value}))"
    if source is not None and source.is_floating_point:
        bits = 64 if target == torch.int64 else 32
        return f"WrapInt<{_C_TYPES[target]}>(FloatToInt{bits}(static_cast<float>({value})))"
    return f"WrapInt<{_C_TYPES[target]}>(static_cast<int64_t>({value}))"


def _narrow(dtype: torch.dtype) -> str:
    return {torch.float16: "half", torch.bfloat16: "bfloat16_t"}[dtype]
