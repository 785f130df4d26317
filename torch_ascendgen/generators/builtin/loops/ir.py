"""The loop-level IR the general lowering works on: passes over index spaces, with loads through index expressions.

A ``Program`` is what a captured function computes, as PyTorch Inductor's graph lowering expresses it (inductor.py
translates it into these plain objects, so that nothing else here depends on Inductor's classes):

- ``buffers``: every tensor the kernel touches in global memory: the inputs, the outputs and the intermediate
  buffers (in the workspace), each with its dtype and its size in elements as a sympy expression of the size
  symbols ``s0``, ``s1``, ... (which the host reads from the inputs' dims: ``symbols``).
- ``passes``: loop nests in order. A pass iterates over ``ranges`` (index variables ``x0``, ``x1``, ...) and, for a
  reduction or a scan, over ``reduction_ranges`` (``r0``, ...); its ``nodes`` compute values from loads through
  index expressions (sympy expressions of the index variables, the size symbols and indirect variables ``t0``, ...
  that a loaded value defines) and end in stores.
- ``guards``: conditions on the sizes that the lowering assumed; the host declines shapes that break one.

Nodes are in SSA order; a node made inside ``masked(mask, body, other)`` carries that masked region's number, so
that its loads are made only where the mask holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy
import torch


@dataclass(eq=False)
class Node:
    """One value: ``op`` applied to ``args`` (Nodes, numbers, sympy expressions, dtypes, strings)."""

    id: int
    op: str
    args: tuple
    dtype: torch.dtype | None
    region: int = 0  # the masked region it was made in (0: none)

    def __repr__(self) -> str:
        return f"%{self.id}"


@dataclass(eq=False)
class Combine:
    """A generic scan's combine function, recorded: ``nodes`` compute ``results`` (the next state) from ``carry``
    (the state so far) and ``step`` (the values at the next scan index), placeholder Nodes of ops "carry" and
    "step" (``args``: their position). A scan node's args are ``(combine, *values)``; a plain running sum, maximum
    or minimum of one value is ``(kind, value)`` instead."""

    carry: tuple[Node, ...]
    step: tuple[Node, ...]
    nodes: tuple[Node, ...]
    results: tuple

    def __repr__(self) -> str:
        return f"combine({', '.join(n.op for n in self.nodes)})"


@dataclass(frozen=True)
class Buffer:
    """A tensor in global memory, contiguous; ``size`` in elements (a sympy expression of the size symbols)."""

    name: str  # "in0", "out1", "ws2"
    dtype: torch.dtype
    size: sympy.Expr
    role: str  # "input", "output" or "workspace"


@dataclass(frozen=True)
class Region:
    """A masked region: its nodes are computed where ``mask`` (a bool node of the enclosing region) holds."""

    number: int
    mask: Node
    parent: int


@dataclass
class Pass:
    """One loop nest: every index of ``ranges`` (and of ``reduction_ranges``) through ``nodes``."""

    name: str  # the buffer it writes (Inductor's name)
    kind: str  # "pointwise", "reduction" or "scan"
    ranges: tuple[sympy.Expr, ...]
    reduction_ranges: tuple[sympy.Expr, ...]
    nodes: list[Node] = field(default_factory=list)
    regions: dict[int, Region] = field(default_factory=dict)

    @property
    def index_vars(self) -> tuple[sympy.Symbol, ...]:
        return index_vars(len(self.ranges))

    @property
    def reduction_vars(self) -> tuple[sympy.Symbol, ...]:
        return reduction_vars(len(self.reduction_ranges))

    def stores(self) -> list[Node]:
        return [node for node in self.nodes if node.op in ("store", "store_add", "store_reduction")]


@dataclass
class Program:
    buffers: dict[str, Buffer]
    passes: list[Pass]
    symbols: dict[sympy.Symbol, tuple[int, int]]  # size symbol -> (input number, dim) it is read from
    guards: list[sympy.Basic] = field(default_factory=list)

    def inputs(self) -> list[Buffer]:
        return [b for b in self.buffers.values() if b.role == "input"]

    def outputs(self) -> list[Buffer]:
        return [b for b in self.buffers.values() if b.role == "output"]

    def workspaces(self) -> list[Buffer]:
        return [b for b in self.buffers.values() if b.role == "workspace"]


def index_vars(count: int) -> tuple[sympy.Symbol, ...]:
    return tuple(sympy.Symbol(f"x{i}", integer=True, nonnegative=True) for i in range(count))


def reduction_vars(count: int) -> tuple[sympy.Symbol, ...]:
    return tuple(sympy.Symbol(f"r{i}", integer=True, nonnegative=True) for i in range(count))


def size_symbol(number: int) -> sympy.Symbol:
    return sympy.Symbol(f"s{number}", integer=True, positive=True)


def indirect_symbol(number: int) -> sympy.Symbol:
    return sympy.Symbol(f"t{number}", integer=True)


_EFFECTS = ("store", "store_add", "store_reduction", "reduction", "scan", "indirect", "masked", "getitem")


def deduplicated(item: Pass) -> Pass:
    """The pass with repeated computations made once (Inductor's bodies load and recompute the same values many
    times): a node equal to an earlier one of its region (same op, operands, dtype) is replaced by it."""
    result = Pass(item.name, item.kind, item.ranges, item.reduction_ranges)
    mapping: dict[Node, Node] = {}
    seen: dict[tuple, Node] = {}
    for node in item.nodes:
        args = tuple(mapping.get(a, a) if isinstance(a, Node) else a for a in node.args)
        key = (node.op, tuple(_key(a) for a in args), node.dtype, node.region)
        if node.op not in _EFFECTS and key in seen:
            mapping[node] = seen[key]
            continue
        new = Node(len(result.nodes), node.op, args, node.dtype, node.region)
        if node.op not in _EFFECTS:
            seen[key] = new
        mapping[node] = new
        result.nodes.append(new)
    result.regions = {n: Region(r.number, mapping[r.mask], r.parent) for n, r in item.regions.items()}
    return result


def _key(arg):
    if isinstance(arg, Node):
        return ("node", id(arg))
    if isinstance(arg, float) and arg != arg:
        return ("nan",)
    return (type(arg).__name__, arg)


def text(program: Program) -> str:
    """A readable listing (for errors and tests)."""
    lines = [f"{b.name}: {b.role} {b.dtype} [{b.size}]" for b in program.buffers.values()]
    for item in program.passes:
        lines.append(f"pass {item.name} {item.kind} ranges={list(item.ranges)} "
                     f"reduction_ranges={list(item.reduction_ranges)}")
        for node in item.nodes:
            region = f" [in {node.region}]" if node.region else ""
            lines.append(f"  {node!r} = {node.op}{node.args} : {node.dtype}{region}")
    return "\n".join(lines)
