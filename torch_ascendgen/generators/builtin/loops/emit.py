"""A loop-level Program -> one AscendC kernel source (csrc/templates/loops.cpp with its regions filled).

Each pass becomes a method ``PassN()`` with a TPipe of its own. Its work items are split evenly over the blocks:

- a pointwise pass: an item is one index of the outer ranges and one chunk of ``TILE`` consecutive indices of the
  last range (the vector variable, one per lane);
- a reduction whose loads move contiguously along the last reduction range ("inner"): an item is one output element,
  its reduction walked in chunks along the lanes, folded lane-wise and then across the lanes;
- any other reduction ("outer"): an item is a chunk of the last output range, folded lane-wise over every reduction
  index.

Loads move with the lanes by one element per lane (DataCopyPad into the lanes, even under a mask that holds on an
interval of lanes), not at all (read once, as a scalar), or otherwise (lane by lane through the index expression).
Passes that read or overwrite what an earlier pass wrote start after a SyncAll.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy
import torch

from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.loops.cexpr import cexpr, slope
from torch_ascendgen.generators.builtin.loops.gather import SPAN_TILES, float_index_value, index_value, vector_gather
from torch_ascendgen.generators.builtin.loops.ir import Node, Pass, Program, deduplicated
from torch_ascendgen.generators.builtin.loops.scalar_ops import scalar_expression
from torch_ascendgen.generators.builtin.loops.scans import generic_scan
from torch_ascendgen.generators.builtin.loops.values import (
    FLOATS,
    GM_TYPES,
    SCALAR_TYPES,
    PassValues,
    Tiles,
    halves,
    ints,
)
from torch_ascendgen.generators.builtin.lowering import Val
from torch_ascendgen.generators.builtin.templates import fill_template

MAX_TILE = 8192
GROUP = 64  # rows an inner reduction's work item walks, their results stored together
_IDENTITY = {"sum": "0.0f", "max": "(-1.0f / 0.0f)", "min": "(1.0f / 0.0f)", "any": "0.0f"}
_REDUCE = {"sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin", "any": "ReduceMax"}
_EFFECTS = ("store", "store_add", "store_reduction", "reduction", "scan")
_STORES = ("store", "store_add", "store_reduction")
# loads read in place from their queue until the body ends; later ones are copied out at once (the VECIN queues of
# a pass hold at most eight tensors at a time)
_IN_PLACE_LOADS = 6
_CLASS_NAMES = {"F": "float", "I": "int32", "W": "int64", "M": "bool"}  # values.py's value classes, for messages
# What SetAtomicAdd adds on Atlas A2/A3 (SetAtomicAdd.md)
_ATOMIC_DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int16, torch.int8)
_FOLD_TILES = 4  # float tiles a reduction's folds use besides its accumulators (two, a work area, two masks)


class _Folds:
    """What the reductions of a pass add: accumulators set before the walk, lines per walk (phase 0; phase 1 for a
    variance's second walk), lines after each walk, and the parts of each reduction's result."""

    def __init__(self):
        self.init: list[str] = []
        self.lines: dict[int, list[str]] = {0: []}
        self.finals: dict[int, list[str]] = {0: [], 1: []}
        self.declared: list[str] = []
        self.parts: dict = {}

    def phase(self, number: int) -> list[str]:
        return self.lines.setdefault(number, [])

    def phases(self) -> int:
        return max(self.lines) + 1


@dataclass
class PassCode:
    """One pass's method and what its UB needs per lane (to size TILE)."""

    method: str
    bytes_per_lane: float
    fixed_bytes: int


def emit_program(program: Program, budget: int, buffers: int) -> str:
    """The kernel source; ``budget``: UB bytes a pass may use; ``buffers``: buffers per queue (1 or 2)."""
    for buffer in program.buffers.values():
        if buffer.dtype not in GM_TYPES:
            raise UnsupportedFunction(f"it computes with {buffer.dtype} values, which the vector unit does not have")
    writers = [PassWriter(program, item, number, buffers) for number, item in enumerate(program.passes)]
    codes = [writer.code() for writer in writers]
    tiles = [_tile_for(code, budget) for code in codes]
    methods = [code.method.replace("@TILE@", str(tile)) for code, tile in zip(codes, tiles)]
    for writer, tile in zip(writers, tiles):
        writer.tile = tile
    return fill_template("loops", _regions(program, writers, methods, buffers))


def ub_fits(program: Program, budget: int, buffers: int) -> bool:
    try:
        emit_program(program, budget, buffers)
    except UnsupportedFunction:
        return False
    return True


def _tile_for(code: PassCode, budget: int) -> int:
    room = budget - code.fixed_bytes
    tile = int(room / max(code.bytes_per_lane, 1.0)) // 256 * 256
    if tile < 256:
        raise UnsupportedFunction(f"a pass needs {code.bytes_per_lane:.0f} bytes of UB per lane, too many for a tile "
                                  "of 256 lanes")
    return min(tile, MAX_TILE)


def _regions(program: Program, writers: list, methods: list[str], buffers: int) -> dict[str, str]:
    inputs, outputs = program.inputs(), program.outputs()
    names = [b.name for b in (*inputs, *outputs)]
    config = [f"constexpr int32_t BUFFER_NUM = {buffers};",
              f"constexpr int32_t SYMBOLS = {max(1, len(program.symbols))};",
              f"constexpr int32_t WORKSPACES = {max(1, len(program.workspaces()))};",
              "constexpr uint32_t TILE = 256;  // each pass sizes its own tiles"]
    init, members = [], []
    for buffer in program.buffers.values():
        ctype = GM_TYPES[buffer.dtype]
        members.append(f"GlobalTensor<{ctype}> {_gm(buffer.name)};")
        if buffer.role == "workspace":
            number = program.workspaces().index(buffer)
            init.append(f"{_gm(buffer.name)}.SetGlobalBuffer((__gm__ {ctype}*)(workspace + t.ws[{number}]));")
        else:
            init.append(f"{_gm(buffer.name)}.SetGlobalBuffer((__gm__ {ctype}*){buffer.name});")
    process = []
    for writer in writers:
        if writer.needs_sync:
            process.append("SyncAll();")
        process.append(f"Pass{writer.number}();")
    params = ", ".join(f"GM_ADDR {n}" for n in names) + ","
    return {
        "config": "\n".join(config), "init_params": params, "init": "\n".join(init),
        "process": "\n".join(process), "passes": "\n\n".join(methods), "members": "\n".join(members),
        "tiling": _tiling(program, writers), "entry_params": params, "entry_args": ", ".join(names) + ",",
    }


def _gm(name: str) -> str:
    return f"gm_{name}_"


def _tiling(program: Program, writers: list) -> str:
    inputs, outputs = program.inputs(), program.outputs()
    lines = [f"if (tensorCount != {len(inputs) + len(outputs)}) return 0;"]
    offsets = {}
    running = 0
    for number in range(len(inputs)):
        offsets[number] = running
        lines.append(f"const int32_t rank{number} = ranks[{number}];")
        running_text = " + ".join(["0"] + [f"ranks[{i}]" for i in range(number)])
        lines.append(f"const int64_t* dims{number} = dims + ({running_text});")
    for symbol, (number, dim) in sorted(program.symbols.items(), key=lambda kv: int(kv[0].name[1:])):
        lines.append(f"if (rank{number} <= {dim}) return 0;")
        lines.append(f"const int64_t {symbol.name} = dims{number}[{dim}];")
        lines.append(f"if ({symbol.name} <= 0 || {symbol.name} > 0x7FFFFFFF) return 0;")
        lines.append(f"tiling->sym[{int(symbol.name[1:])}] = {symbol.name};")
    for guard in program.guards:
        lines.append(f"if (!{_host(cexpr(guard))}) return 0;")
    for buffer in program.buffers.values():  # indices are computed in int32 where they move with the lanes
        lines.append(f"if (static_cast<int64_t>({_host(cexpr(buffer.size))}) > 0x7FFFFFFFLL) return 0;")
    lines.append("uint64_t wsBytes = 0;")
    for number, buffer in enumerate(program.workspaces()):
        size = _host(cexpr(buffer.size))
        lines.append(f"tiling->ws[{number}] = wsBytes;")
        lines.append(f"wsBytes += (static_cast<uint64_t>({size}) * {buffer.dtype.itemsize} + 31) / 32 * 32;")
    lines.append("*workspaceBytes = wsBytes;")
    lines.append("int64_t work = 0;")
    for writer in writers:
        lines.append(f"work = HostMax(work, {writer.items_host()});")
    return "\n".join(lines)


def _host(text: str) -> str:
    return (text.replace("FloorDivI", "HostFloorDiv").replace("ModI", "HostMod").replace("MaxI", "HostMax")
            .replace("MinI", "HostMin").replace("CeilDivI", "HostCeilDiv").replace("AbsI", "HostAbs"))


# how an exact integer fold combines the value so far with the next (C++ over int64_t)
_EXACT_INT_FOLDS = {
    "sum": lambda a, b: f"static_cast<int64_t>(static_cast<uint64_t>({a}) + static_cast<uint64_t>({b}))",
    "max": lambda a, b: f"({b} > {a} ? {b} : {a})",
    "min": lambda a, b: f"({b} < {a} ? {b} : {a})",
}


class PassWriter:
    """One pass -> its C++ method."""

    def __init__(self, program: Program, item: Pass, number: int, buffers: int):
        self.program = program
        self.item = item = deduplicated(item)
        self.number = number
        self.buffers = buffers
        self.mode = _mode(item)
        self.needs_sync = _needs_sync(program, number)
        self.bounded = _bounded_nodes(item)
        self.lane_varying = set()
        self.vector: sympy.Symbol | None = None
        self.outer: list[tuple[sympy.Symbol, sympy.Expr]] = []
        self.loops: list[tuple[sympy.Symbol, sympy.Expr]] = []  # reduction indices walked in scalar loops
        self.needs_lane_ints = False
        self.needs_lane_floats = False
        self.patterns: dict[int, str] = {}
        self._place_vector()

    # -- the index space
    def _place_vector(self) -> None:
        item = self.item
        xs, rs = list(zip(item.index_vars, item.ranges)), list(zip(item.reduction_vars, item.reduction_ranges))
        if self.mode == "pointwise":
            if xs:
                self.vector, self.length = xs[-1]
                self.outer = xs[:-1]
            else:
                self.vector, self.length = None, sympy.Integer(1)
        elif self.mode == "inner":
            self.vector, self.length = rs[-1]
            self.outer = xs[:-1]
            self.group = xs[-1] if xs else None  # rows walked one after another in an item, results staged
            self.loops = rs[:-1]
        else:  # outer
            self.vector, self.length = xs[-1]
            self.outer = xs[:-1]
            self.loops = rs

    def items_host(self) -> str:
        """The host's C++ for how many work items this pass has (its tile is chosen by then)."""
        parts = [cexpr(size) for _, size in self.outer]
        if self.mode != "inner" and self.vector is not None:  # an outer walk may split its lanes finer
            parts.append(f"CeilDivI({cexpr(self.length)}, {self.tile if self.mode == 'pointwise' else 64})")
        if self.mode == "inner" and self.group is not None:
            parts.append(cexpr(self.group[1]))  # a row per block at most: blocks share rows evenly
        return _host(" * ".join(parts) or "int64_t(1)")

    def varies(self, expr) -> bool:
        symbols = getattr(expr, "free_symbols", set())
        return (self.vector is not None and self.vector in symbols) or any(
            s in self.lane_symbols for s in symbols)

    @property
    def lane_symbols(self) -> set:
        return {self._indirect_symbol(n) for n in self.lane_varying if n.op == "indirect"}

    def lane_slope(self, expr):
        if any(s in self.lane_symbols for s in expr.free_symbols):
            return None
        return slope(expr, self.vector) if self.vector is not None else sympy.Integer(0)

    def at_lane_zero(self, expr):
        return expr.subs(self.vector, sympy.Symbol("v0", integer=True)) if self.vector is not None else expr

    def at_lane(self, expr):
        if self.vector is None:
            return expr
        return expr.subs(self.vector, sympy.Symbol("v0", integer=True) + sympy.Symbol("lane", integer=True))

    def small(self, node: Node) -> bool:
        """Whether an int node's values provably fit 16 bits (float holds them, and sums of many, exactly)."""
        if node.dtype in (torch.int8, torch.uint8, torch.int16, torch.bool):
            return True
        if node.op == "to_dtype" and isinstance(node.args[0], Node):
            return self.small(node.args[0])
        if node.op == "constant":
            return abs(int(node.args[0])) < (1 << 15)
        if node.op in ("where", "masked"):
            parts = [a for a in node.args[1:] if isinstance(a, Node)] if node.op == "where" else [node.args[2]]
            return all(self.small(a) for a in parts) and (node.op == "where" or abs(int(node.args[3])) < (1 << 15))
        return False

    def pattern(self, value: int) -> str:
        """A uint16 tile holding (value, 0) pairs: ANDs an int32 tile's low half with value, clears its high half."""
        if value not in self.patterns:
            self.patterns[value] = f"pattern{len(self.patterns)}"
        return self.patterns[value]

    def _indirect_symbol(self, node: Node) -> sympy.Symbol:
        return self.indirect_names[node]

    # -- code
    def code(self) -> PassCode:
        item = self.item
        self.indirect_names = {}
        for node in item.nodes:
            if node.op == "indirect":
                self.indirect_names[node] = sympy.Symbol(f"t{len(self.indirect_names)}", integer=True)
        self._classify()
        self.tiles = Tiles()
        self.values = PassValues(self.tiles, self)
        self.loads: list[tuple[Node, str]] = []  # (node, queue name) of tile loads
        self.stores: list[tuple[Node, str]] = []
        self.dequeued: list[tuple[str, str]] = []
        self.inline_stores: set[Node] = set()
        self.defined: set[Node] = set()  # indirect nodes already defined
        self.uses = _uses(item)  # readers left per node (masks of regions are read by every load in them: kept)
        self.holders: dict[str, int] = {}  # nodes holding each value (one tile may be several nodes' value)
        self.keep: set[str] = set()  # values read again after the body (a variance's second walk)
        self.spans: list[tuple[torch.dtype, str]] = []  # span buffers of gathers
        self.row_stores: set[Node] = set()  # stores of an inner reduction's rowResults
        self.copy_in: list[str] = []  # scalar statements and tile loads of an item's (or chunk's) body
        self.after: list[str] = []  # after the chunk loop of a reduction: its results and their stores
        self.folds = _Folds()
        self.scalar_lines = self.copy_in
        self.tiles_body = self.tiles.lines
        for node in item.nodes:  # what has an effect; the values it needs are lowered when first asked for
            if node.op not in _EFFECTS:
                continue
            self.lower(node)
            if node.op == "reduction" and self.item.kind == "reduction":  # what follows uses its result: after
                self.scalar_lines = self.after
                self.tiles.lines = self.after
        return PassCode(self._assemble(), self._bytes_per_lane(), 1024)

    def _classify(self) -> None:
        """Which nodes move with the lanes."""
        for node in self.item.nodes:
            operands = [a for a in node.args if isinstance(a, Node)]
            moving = any(a in self.lane_varying for a in operands)
            if node.op in ("load", *_STORES):
                moving = moving or self.varies(node.args[1]) or self._indirect_lanes(node.args[1])
            elif node.op == "index_expr":
                moving = self.varies(node.args[0])
            elif node.op == "masked":
                moving = True
            elif node.op == "reduction":
                moving = self.mode == "outer"
            elif node.op == "scan":
                moving = True
            if node.region and node.op != "masked":
                moving = moving or node.region in self._lane_regions()
            if moving:
                self.lane_varying.add(node)

    def _lane_regions(self) -> set[int]:
        """Masked regions whose mask moves with the lanes (or whose enclosing region's does)."""
        moving: set[int] = set()
        for number in sorted(self.item.regions):
            region = self.item.regions[number]
            if region.mask in self.lane_varying or region.parent in moving:
                moving.add(number)
        return moving

    def _indirect_lanes(self, expr) -> bool:
        names = {self.indirect_names[n]: n for n in self.indirect_names}
        return any(names[s] in self.lane_varying for s in expr.free_symbols if s in names)

    # -- lowering each node
    def lower(self, node: Node) -> None:
        self._lower_node(node)
        self._retire_operands(node)

    def _retire_operands(self, node: Node) -> None:
        """Gives back the scratch of ``node``'s operands that nothing else will read (shared values counted)."""
        for operand in {a for a in node.args if isinstance(a, Node)}:
            self.uses[operand] -= 1
            if self.uses[operand] > 0 or operand not in self.values.values:
                continue
            value = dict.__getitem__(self.values.values, operand)
            self.holders[value.expr] = self.holders.get(value.expr, 1) - 1
            if self.holders[value.expr] <= 0 and value.expr not in self.keep:
                self.tiles.release(value)

    def hold(self, value: Val) -> None:
        self.holders[value.expr] = self.holders.get(value.expr, 0) + 1

    def _lower_node(self, node: Node) -> None:
        v = self.values
        copy_in = self.scalar_lines
        if node.op in ("load", *_STORES):
            self._ensure_indirects(node.args[1])
        if node.op == "index_expr":
            self._ensure_indirects(node.args[0])
        if node.op == "store_add" and self.program.buffers[node.args[0]].dtype not in _ATOMIC_DTYPES:
            raise UnsupportedFunction(f"it accumulates {self.program.buffers[node.args[0]].dtype} values into a "
                                      "tensor (scatter_add, index_add): the NPU's atomic add does not take them")
        if node in self.lane_varying:
            if node.op == "load":
                v.values[node] = self._tile_load(node, self.copy_in)
            elif node.op in ("store", "store_add"):
                self._tile_store(node)
            elif node.op == "masked":
                v.values[node] = self._masked(node)
            elif node.op == "indirect":
                return  # read lane by lane where a load uses it
            elif node.op in ("reduction", "store_reduction", "getitem"):
                self._reduction_node(node)
            elif node.op == "scan":
                self._scan(node)
            else:
                v.lower(node)
            return
        # the same in every lane: a scalar
        if node.op == "load":
            name = f"u{node.id}"
            ctype = SCALAR_TYPES[v.cls(node)] if node.dtype != torch.bool else "bool"
            guard = self._region_guard(node.region)
            read = f"{_gm(node.args[0])}.GetValue({cexpr(node.args[1])})"
            if node.dtype == torch.bool:
                read = f"({read} != 0)"
            text = f"const {ctype} {name} = {guard + ' ? ' if guard else ''}static_cast<{ctype}>({read})" \
                   f"{' : ' + ctype + '(0)' if guard else ''};"
            copy_in.append(text)
            v.values[node] = Val("scalar", name)
        elif node.op == "indirect":
            value, size, _, wrap = node.args
            symbol = self.indirect_names[node]
            copy_in.append(f"const int64_t {symbol} = CheckedIndex(static_cast<int64_t>("
                           f"{self._scalar_text(value)}), {cexpr(size)}, {'true' if wrap else 'false'});")
        elif node.op in ("store", "store_add"):
            self._scalar_store(node)
        elif node.op in ("reduction", "store_reduction", "getitem"):
            self._reduction_node(node)
        else:
            try:
                text = scalar_expression(node, self._scalar_text, self)
            except UnsupportedFunction:
                v.lower(node)  # a float function of a scalar: on a tile
                return
            name = f"u{node.id}"
            ctype = SCALAR_TYPES[v.cls(node)]
            copy_in.append(f"const {ctype} {name} = {text};")
            v.values[node] = Val("scalar", name)

    def _ensure_indirects(self, index) -> None:
        """The indirect indices ``index`` uses, defined first (they are read from values)."""
        for node, symbol in self.indirect_names.items():
            if symbol in getattr(index, "free_symbols", ()) and node not in self.defined:
                self.defined.add(node)
                self.lower(node)

    def _scalar_text(self, node: Node) -> str:
        value = self.values.values[node]
        if value.kind != "scalar":
            raise UnsupportedFunction(f"value {node} is needed as a scalar but is a tile")
        return value.expr

    def _region_guard(self, region: int) -> str:
        """The C++ condition under which a scalar in masked region ``region`` may be read (its masks hold)."""
        conditions = []
        while region:
            mask = self.item.regions[region].mask
            conditions.append(f"({self._scalar_text(mask)})")
            region = self.item.regions[region].parent
        return " && ".join(conditions)

    # -- loads and stores
    def _tile_load(self, node: Node, copy_in: list[str]) -> Val:
        name, index = node.args
        step = self.lane_slope(index)
        if step == 1:
            interval = self._region_lanes(node.region)
            if interval is not None:
                return self._contiguous_load(node, copy_in, interval)
        return self._gather(node)

    def _contiguous_load(self, node: Node, copy_in: list[str], interval: tuple[str, str]) -> Val:
        name, index = node.args
        queue = f"qLoad{len(self.loads)}"
        self.loads.append((node, queue))
        ctype = GM_TYPES[node.dtype]
        first, last = interval
        offset = cexpr(self.at_lane_zero(index))
        lines = [
            f"{{ LocalTensor<{ctype}> tile = {queue}.AllocTensor<{ctype}>();",
            f"  const uint32_t a = {first}, b = {last};",
            f"  if (b > a) LoadLanes(tile, {_gm(name)}, {offset} + a, a, b - a);",
            f"  {queue}.EnQue(tile); }}",
        ]
        if len(self.loads) <= _IN_PLACE_LOADS:
            copy_in += lines  # issued before the body: the copies overlap the previous item's work
        else:
            for line in lines:  # past the queues' eight tensors: loaded where it is read, and freed at once
                self.tiles.emit(line)
        return self._converted(node, queue)

    def _converted(self, node: Node, queue: str) -> Val:
        """The dequeued tile in the node's class (int8 ... int16 widened to int32, bool as a mask)."""
        t, v = self.tiles, self.values
        ctype = GM_TYPES[node.dtype]
        local = f"in{node.id}"
        t.emit(f"LocalTensor<{ctype}> {local} = {queue}.DeQue<{ctype}>();")
        cls = v.cls(node)
        if (node.dtype == torch.float32 or node.dtype == torch.int32) and len(self.dequeued) < _IN_PLACE_LOADS:
            self.dequeued.append((queue, local))  # read in place: freed at the end of the body
            return Val("full", local if node.dtype == torch.float32 else f"{local}.ReinterpretCast<float>()")
        if node.dtype == torch.float32 or node.dtype == torch.int32:  # a 3x3 window's ninth load: copied, freed
            out = t.temp()
            t.emit(f"DataCopy({out.expr}, {local}.ReinterpretCast<float>(), (count + 7) / 8 * 8);")
            t.emit(f"{queue}.FreeTensor({local});")
            return out
        out = t.temp("wide" if cls == "W" else "mask" if cls == "M" else "full")
        self._widen(node, local, out, cls)
        t.emit(f"{queue}.FreeTensor({local});")  # converted: the queue's buffer is free again at once
        return out

    def _widen(self, node: Node, local: str, out: Val, cls: str) -> None:
        t = self.tiles
        if cls == "W":
            t.emit(f"DataCopy({out.expr}, {local}, (count + 3) / 4 * 4);")
            return
        if node.dtype in (torch.float16, torch.bfloat16):
            t.emit(f"Cast({out.expr}, {local}, RoundMode::CAST_NONE, count);")
        elif node.dtype in (torch.int8, torch.uint8, torch.bool):
            step = t.temp()
            t.emit(f"Cast({step.expr}.ReinterpretCast<half>(), {local}, RoundMode::CAST_NONE, count);")
            if cls == "M":
                t.emit(f"CompareScalar({out.expr}, {step.expr}.ReinterpretCast<half>(), static_cast<half>(0.0f), "
                       "CMPMODE::NE, (count + 127) / 128 * 128);")
            else:
                t.emit(f"Cast({ints(out)}, {step.expr}.ReinterpretCast<half>(), RoundMode::CAST_RINT, count);")
            t.release(step)
        elif node.dtype == torch.int16:
            t.emit(f"Cast({out.expr}, {local}, RoundMode::CAST_NONE, count);")
            t.emit(f"Cast({ints(out)}, {out.expr}, RoundMode::CAST_RINT, count);")
        else:
            raise UnsupportedFunction(f"loading {node.dtype}")

    def _gather(self, node: Node) -> Val:
        """A load whose index is not one element per lane: a span copy and a Gather where the index has a vector
        form (gather.py), lane by lane otherwise (exact for every index expression)."""
        t, v = self.tiles, self.values
        cls = v.cls(node)
        if cls in ("F", "I"):
            gathered = vector_gather(self, node, lambda out: self._lanewise_load(node, out))
            if gathered is not None:
                return self._widened(node, gathered)
        out = t.temp("wide" if cls == "W" else "mask" if cls == "M" else "full")
        self._lanewise_load(node, out)
        return out

    def _lanewise_load(self, node: Node, out: Val) -> None:
        name, index = node.args
        t, v = self.tiles, self.values
        cls = v.cls(node)
        setup = self._lane_indirects(index)
        guard = self._lane_guard(node.region)  # its masks are computed before the scalar unit reads them
        t.emit("VectorToScalar();")
        read = f"{_gm(name)}.GetValue({cexpr(self.at_lane(index))})"
        if cls == "M":
            t.emit(f"Duplicate({halves(out)}, uint16_t(0), MASK_BYTES / 2);")
            t.emit("VectorToScalar();")
            t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {{ {setup}if ({guard or 'true'} && {read} != 0) "
                   f"{out.expr}.SetValue(lane >> 3, static_cast<uint8_t>({out.expr}.GetValue(lane >> 3) | "
                   "(1u << (lane & 7)))); }")
        else:
            view = {"F": out.expr, "I": ints(out), "W": out.expr}[cls]
            ctype = SCALAR_TYPES[cls]
            value = f"static_cast<{ctype}>({read})"
            if guard:
                value = f"(({guard}) ? {value} : {ctype}(0))"
            t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {{ {setup}{view}.SetValue(lane, {value}); }}")
        t.emit("ScalarToVector();")

    def _widened(self, node: Node, value: Val) -> Val:
        return value

    def float_index_value(self, expr) -> Val | None:
        return float_index_value(self, expr)

    def index_value(self, expr, fallback) -> Val | None:
        """An index expression's values over the lanes by vector instructions (gather.py), or None."""
        return index_value(self, expr, fallback)

    # -- what gather.py asks of the pass
    def moving_symbols(self) -> set:
        return ({self.vector} if self.vector is not None else set()) | self.lane_indirect_symbols()

    def lane_indirect_symbols(self) -> set:
        return {symbol for node, symbol in self.indirect_names.items() if node in self.lane_varying}

    def indirect_node(self, symbol) -> Node:
        return next(node for node, name in self.indirect_names.items() if name == symbol)

    def gm_name(self, name: str) -> str:
        return _gm(name)

    def lane_guard_mask(self, region: int) -> Val | None:
        """The lanes where masked region ``region`` (and the regions around it) holds, as a mask; None: all."""
        if not region:
            return None
        interval = self._region_lanes(region)
        if interval is not None:
            return self.lane_mask_between(*interval)
        mask = self.values.values[self.item.regions[region].mask]
        outer = self.lane_guard_mask(self.item.regions[region].parent)
        mask = self.values.tile(mask, "M")
        if outer is None:
            return mask
        both = self.tiles.temp("mask")
        self.tiles.emit(f"And({halves(both)}, {halves(mask)}, {halves(outer)}, MASK_BYTES / 2);")
        return both

    def span_queue(self, dtype: torch.dtype) -> str:
        queue = f"qSpan{len(self.spans)}"
        self.spans.append((dtype, queue))
        return queue

    def gathered(self, node: Node, out: Val, span: str, offsets: str) -> None:
        """Gather the span's elements at byte ``offsets`` into ``out`` (float32 / int32 lanes of the node's class)."""
        t = self.tiles
        if node.dtype in (torch.float32, torch.int32):
            view = out.expr if node.dtype == torch.float32 else ints(out)
            t.emit(f"Gather({view}, {span}, {offsets}, 0u, count);")
            return
        narrow = t.temp()
        ctype = GM_TYPES[node.dtype]
        t.emit(f"Gather({narrow.expr}.ReinterpretCast<{ctype}>(), {span}, {offsets}, 0u, count);")
        if node.dtype == torch.int16:
            t.emit(f"Cast({out.expr}, {narrow.expr}.ReinterpretCast<int16_t>(), RoundMode::CAST_NONE, count);")
            t.emit(f"Cast({ints(out)}, {out.expr}, RoundMode::CAST_RINT, count);")
        else:
            t.emit(f"Cast({out.expr}, {narrow.expr}.ReinterpretCast<{ctype}>(), RoundMode::CAST_NONE, count);")
        t.release(narrow)

    def lane_indirects(self, index) -> str:
        return self._lane_indirects(index)

    def _lane_indirects(self, index) -> str:
        """C++ statements defining the lane-varying indirect indices ``index`` uses, at lane ``lane``."""
        statements = []
        for node, symbol in self.indirect_names.items():
            if symbol in index.free_symbols and node in self.lane_varying:
                value, size, _, wrap = node.args
                reader = self.values._lane_reader(value)
                statements.append(f"const int64_t {symbol} = CheckedIndex(static_cast<int64_t>({reader}), "
                                  f"{cexpr(self.at_lane(size))}, {'true' if wrap else 'false'}); ")
        return "".join(statements)

    def _lane_guard(self, region: int) -> str:
        conditions = []
        while region:
            mask = self.item.regions[region].mask
            value = self.values.values[mask]
            if value.kind == "scalar":
                conditions.append(f"({value.expr})")
            else:
                conditions.append(f"((({value.expr}.GetValue(lane >> 3)) >> (lane & 7)) & 1)")
            region = self.item.regions[region].parent
        return " && ".join(conditions)

    def _region_lanes(self, region: int) -> tuple[str, str] | None:
        """The lanes [a, b) where region ``region``'s masks all hold, when that is an interval; None otherwise."""
        first, last = "0u", "count"
        while region:
            bounds = self._interval(self.item.regions[region].mask)
            if bounds is None:
                return None
            first, last = f"MaxU({first}, {bounds[0]})", f"MinU({last}, {bounds[1]})"
            region = self.item.regions[region].parent
        return first, last

    def _interval(self, node: Node) -> tuple[str, str] | None:
        """Lanes [a, b) (C++, clamped to [0, count]) where bool ``node`` holds, if an interval."""
        if node not in self.lane_varying:
            text = self._scalar_text(node)
            return "0u", f"(({text}) ? count : 0u)"
        if node.op in ("and_", "logical_and"):
            parts = [self._interval(a) for a in node.args]
            if None in parts:
                return None
            return f"MaxU({parts[0][0]}, {parts[1][0]})", f"MinU({parts[0][1]}, {parts[1][1]})"
        if node.op not in ("ge", "gt", "lt", "le", "eq"):
            return None
        a, b = (self._affine(x) for x in node.args[:2])
        if a is None or b is None:
            return None
        difference = sympy.expand(a - b)  # node holds where difference OP 0
        step = slope(difference, self.vector)
        if step not in (1, -1):
            return None
        rest = sympy.expand(difference - step * self.vector)
        op = node.op
        if step == -1:  # -v + rest OP 0  <=>  v OP' rest
            op = {"ge": "le", "gt": "lt", "lt": "gt", "le": "ge", "eq": "eq"}[op]
            point = rest
        else:
            point = -rest
        v0 = sympy.Symbol("v0", integer=True)
        lower = {"ge": point, "gt": point + 1, "eq": point}.get(op)
        upper = {"lt": point, "le": point + 1, "eq": point + 1}.get(op)
        first = f"LaneBound({cexpr(sympy.expand(lower - v0))}, count)" if lower is not None else "0u"
        last = f"LaneBound({cexpr(sympy.expand(upper - v0))}, count)" if upper is not None else "count"
        return first, last

    def _affine(self, node) -> sympy.Expr | None:
        if isinstance(node, (int,)) and not isinstance(node, bool):
            return sympy.Integer(node)
        if not isinstance(node, Node):
            return None
        if node.op == "index_expr":
            expr = node.args[0]
            return expr if self.lane_slope(expr) is not None else None
        if node.op == "constant" and isinstance(node.args[0], int) and not isinstance(node.args[0], bool):
            return sympy.Integer(node.args[0])
        if node.op == "to_dtype" and node.dtype in (torch.int32, torch.int64):
            return self._affine(node.args[0])
        return None

    def _masked(self, node: Node) -> Val:
        """``value`` where the region's masks hold, ``other`` elsewhere (the loads inside were made only there)."""
        _, region, value_node, other = node.args
        v, t = self.values, self.tiles
        cls = v.cls(node)
        value = v.of_class(v.values[value_node], v.cls(value_node), cls)
        guard = self.lane_guard_mask(region)
        if guard is None:
            return value
        if cls == "M":
            out = t.temp("mask")
            if other:
                t.emit(f"Not({halves(out)}, {halves(guard)}, MASK_BYTES / 2);")
                t.emit(f"Or({halves(out)}, {halves(out)}, {halves(value)}, MASK_BYTES / 2);")
            else:
                t.emit(f"And({halves(out)}, {halves(guard)}, {halves(value)}, MASK_BYTES / 2);")
            return out
        if cls == "W":
            out = t.temp("wide")
            t.emit("VectorToScalar();")
            t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {out.expr}.SetValue(lane, "
                   f"((({guard.expr}.GetValue(lane >> 3)) >> (lane & 7)) & 1) ? {value.expr}.GetValue(lane) : "
                   f"int64_t({int(other)}LL));")
            t.emit("ScalarToVector();")
            return out
        return self._select(value, guard, Val("scalar", _other_text(other, node.dtype)), cls)

    def _select(self, value: Val, condition: Val, other: Val, cls: str) -> Val:
        t = self.tiles
        out = t.temp()
        if condition.kind == "scalar":
            t.emit(f"if ({condition.expr}) {{ Adds({ints(out)}, {ints(value)}, int32_t(0), count); }} else {{ "
                   f"Duplicate({out.expr if cls == 'F' else ints(out)}, static_cast<{SCALAR_TYPES[cls]}>("
                   f"{other.expr}), count); }}")
            return out
        if cls == "F":
            t.emit(f"Select({out.expr}, {condition.expr}, {value.expr}, static_cast<float>({other.expr}), "
                   "SELMODE::VSEL_TENSOR_SCALAR_MODE, count);")
        else:
            fill = t.temp()
            t.emit(f"Duplicate({ints(fill)}, static_cast<int32_t>({other.expr}), count);")
            t.emit(f"Select({out.expr}, {condition.expr}, {value.expr}, {fill.expr}, "
                   "SELMODE::VSEL_TENSOR_TENSOR_MODE, count);")
            t.release(fill)
        return out

    def lane_mask(self, node: Node) -> Val | None:
        """A bool node that holds on an interval of lanes, as a mask from the lane indices (exact); else None."""
        interval = self._interval(node) if node in self.lane_varying else None
        if interval is None:
            return None
        return self.lane_mask_between(*interval)

    def lane_mask_between(self, first: str, last: str) -> Val:
        t = self.tiles
        self.needs_lane_floats = True
        mask, upper = t.temp("mask"), t.temp("mask")
        t.emit(f"CompareScalar({mask.expr}, laneFloats, static_cast<float>({first}), CMPMODE::GE, "
               "(count + 63) / 64 * 64);")
        t.emit(f"CompareScalar({upper.expr}, laneFloats, static_cast<float>({last}), CMPMODE::LT, "
               "(count + 63) / 64 * 64);")
        t.emit(f"And({halves(mask)}, {halves(mask)}, {halves(upper)}, MASK_BYTES / 2);")
        t.release(upper)
        return mask

    def _tile_store(self, node: Node) -> None:
        name, index, value_node = node.args
        t, v = self.tiles, self.values
        buffer = self.program.buffers[name]
        value = v.tile(v.values[value_node], v.cls(value_node))
        if self.lane_slope(index) != 1:
            self._lane_store(node, value)
            return
        queue = f"qStore{len(self.stores)}"
        self.stores.append((node, queue))
        ctype = GM_TYPES[buffer.dtype]
        local = f"out{node.id}"
        t.emit(f"LocalTensor<{ctype}> {local} = {queue}.AllocTensor<{ctype}>();")
        for line in _narrowing(local, value, v.cls(value_node), buffer.dtype, t):
            t.emit(line)
        t.emit(f"{queue}.EnQue({local});")
        if self.item.kind == "scan":  # a scan stores every step of its walk
            self.inline_stores.add(node)
            t.emit(f"{{ LocalTensor<{ctype}> tile = {queue}.DeQue<{ctype}>(); StoreLanes({_gm(name)}, "
                   f"{cexpr(self.at_lane_zero(index))}, tile, count); {queue}.FreeTensor(tile); }}")  # no atomics

    def _lane_store(self, node: Node, value: Val) -> None:
        name, index, value_node = node.args
        t, v = self.tiles, self.values
        buffer = self.program.buffers[name]
        reader = v._lane_reader(value_node) if v.values[value_node].kind != "scalar" else v.values[value_node].expr
        ctype = GM_TYPES[buffer.dtype]
        setup = self._lane_indirects(index)
        stored = _scalar_store_value(reader, v.cls(value_node), buffer.dtype)
        t.emit("VectorToScalar();")
        # one element at a time through UB (an atomic add for store_add): a scalar SetValue would write back its
        # whole 64-byte cache line over a neighbouring core's elements
        t.emit(_atomic(node, f"for (uint32_t lane = 0; lane < count; ++lane) {{ {setup}OneToGm(one.ReinterpretCast"
                             f"<{ctype}>(), {_gm(name)}, {cexpr(self.at_lane(index))}, static_cast<{ctype}>("
                             f"{stored})); }}", ctype))

    def _scalar_store(self, node: Node) -> None:
        """A store of one value per item (per row of an inner reduction): staged in UB and copied out with the
        item's other rows when the rows' results are consecutive, else copied out alone (scalar GM writes of
        neighbouring cores would share a cache line)."""
        name, index, value_node = node.args
        buffer = self.program.buffers[name]
        value = self.values.values[value_node]
        if value.kind == "rows":
            self._row_store(node)
            return
        ctype = GM_TYPES[buffer.dtype]
        cls = self.values.cls(value_node)
        text = value.expr if value.kind == "scalar" else (
            f"{ints(value)}.GetValue(0)" if cls == "I" else f"{value.expr}.GetValue(0)")
        if value.kind != "scalar":
            self.tiles.emit("VectorToScalar();")
        stored = f"static_cast<{ctype}>({_scalar_store_value(text, cls, buffer.dtype)})"
        group = getattr(self, "group", None)
        if self.mode == "inner" and group is not None and slope(index, group[0]) == 1:
            queue = f"qStore{len(self.stores)}"
            self.stores.append((node, queue))
            self.tiles.emit(f"stage{node.id}.SetValue(static_cast<uint32_t>(g), {stored});")
            return
        self.tiles.emit(_atomic(node, f"OneToGm(one.ReinterpretCast<{ctype}>(), {_gm(name)}, {cexpr(index)}, "
                                      f"{stored});", ctype))

    # -- reductions
    def _reduction_node(self, node: Node) -> None:
        v = self.values
        if node.op == "getitem":
            v.values[node] = self.folds.parts[node.args[0]][node.args[1]]
        elif node.op == "store_reduction":
            if node in self.lane_varying:
                self._tile_store(node)
            else:
                self._scalar_store(node)
        else:
            self._fold(node)

    def _fold(self, node: Node) -> None:
        """A reduction: accumulator tiles set before the walk, folded per chunk (or per reduction index), and for an
        inner reduction folded across the lanes after it."""
        kind, value_node = node.args
        t, v, f = self.tiles, self.values, self.folds
        number = len(f.parts)
        if kind in ("argmax", "argmin") and v.cls(value_node) in ("I", "W") and not self.small(value_node):
            v.values[node] = f.parts[node] = self._exact_arg_fold(kind, value_node, number)
            return
        if kind in _EXACT_INT_FOLDS and v.cls(value_node) in ("I", "W") and not self.small(value_node):
            v.values[node] = f.parts[node] = self._exact_int_fold(kind, value_node, node, number)
            return
        value = self._fold_operand(value_node, kind)
        if kind in ("sum", "max", "min", "any"):
            acc = self._accumulator(f"{_IDENTITY[kind]}")
            self.tiles.emit(self._fold_line(kind, acc, value))
            result = self._across(kind, acc, number, node) if self.mode == "inner" else self._lanes_of(acc, node)
            f.parts[node] = result
            v.values[node] = result
        elif kind in ("argmax", "argmin"):
            v.values[node] = f.parts[node] = self._arg_fold(kind, value, number)
        elif kind == "welford_reduce":
            f.parts[node] = self._welford(value, number)
        else:
            raise UnsupportedFunction(f"a {kind} reduction is not lowered yet")
        if value.kind != "scalar" and value is not v.values.get(value_node):
            t.release(value)

    def _lanes_of(self, acc: Val, node: Node) -> Val:
        """An outer reduction's float accumulator as the value class of its result, after the walk: rounded to a
        half type, a bit mask for bools (any, all), int32 lanes for integers (sums of bools and small integers)."""
        cls = self.values.cls(node)
        if node.dtype in (torch.float16, torch.bfloat16):
            return self.values._round_float(acc, node.dtype)
        if cls == "M":
            mask = self.tiles.temp("mask")
            self.folds.finals[0].append(
                f"CompareScalar({mask.expr}, {acc.expr}, 0.0f, CMPMODE::NE, (TILE + 63) / 64 * 64);")
            return mask
        if cls in ("I", "W"):
            out = self.tiles.temp()
            self.folds.finals[0].append(f"Cast({ints(out)}, {acc.expr}, RoundMode::CAST_RINT, TILE);")
            if cls == "I":
                return out
            wide = self.tiles.temp("wide")  # an int64 count: exact in float below 2 ** 24 as the sum itself
            self.folds.finals[0].append(f"Cast({wide.expr}, {ints(out)}, RoundMode::CAST_NONE, TILE);")
            return wide
        return acc

    def _fold_operand(self, node: Node, kind: str) -> Val:
        """The value a reduction folds, as a float tile (sums of bools and small integers are exact in float)."""
        t, v = self.tiles, self.values
        cls = v.cls(node)
        value = v.tile(v.values[node], cls)
        if cls == "F":
            return value
        if cls == "M":
            out = t.temp()
            t.emit(f"Duplicate({out.expr}, 0.0f, count);")
            t.emit(f"Select({out.expr}, {value.expr}, onesF, {out.expr}, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);")
            return out
        if cls == "I" and self.small(node) and kind in ("sum", "max", "min", "any", "argmax", "argmin"):
            out = t.temp()
            t.emit(f"Cast({out.expr}, {ints(value)}, RoundMode::CAST_RINT, count);")
            return out
        raise UnsupportedFunction(f"a {kind} reduction of {node.dtype} values (not exact in float) is not lowered "
                                  "yet")

    def _accumulator(self, identity: str) -> Val:
        acc = self.tiles.temp("acc")  # a slot of its own: it lives through the whole walk
        if identity == "0.0f" or identity.startswith("int"):
            self.folds.init.append(f"Duplicate({acc.expr}.ReinterpretCast<int32_t>(), int32_t(0), TILE);")
        else:
            self.folds.init.append(f"Duplicate({acc.expr}, {identity}, TILE);")
        return acc

    def _fold_line(self, kind: str, acc: Val, value: Val) -> str:
        if kind == "sum":
            return f"Add({acc.expr}, {acc.expr}, {value.expr}, count);"
        op = "Max" if kind in ("max", "any") else "Min"
        # NaN wins, as PyTorch's max and min propagate it: lanes where value is NaN take it
        return (f"{op}(foldTmp, {acc.expr}, {value.expr}, count); "
                f"Compare(foldMask, {value.expr}, {value.expr}, CMPMODE::NE, (count + 63) / 64 * 64); "
                f"Select({acc.expr}, foldMask, {value.expr}, foldTmp, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);")

    def _across(self, kind: str, acc: Val, number: int, node: Node) -> Val:
        """An inner reduction's accumulator folded across its lanes into a scalar (NaN if any lane is NaN); where
        the row's result is only stored, and next to the next row's, into the row's slot of a UB tile instead (no
        scalar read: the next row's copy overlaps this row's work)."""
        if self._stored_by_rows(node):
            return self._across_into_row(kind, acc, node)
        name = f"red{number}"
        api = _REDUCE[kind]
        self.folds.finals[0].append(
            f"{api}(foldTmp, {acc.expr}, foldWork, accLanes); "
            f"Compare(foldMask, {acc.expr}, {acc.expr}, CMPMODE::NE, (accLanes + 63) / 64 * 64); "
            f"VectorToScalar(); {name} = foldTmp.GetValue(0); "
            f"if ({'AnyBit(foldMask, accLanes)' if kind != 'sum' else 'false'}) {name} = 0.0f / 0.0f; "
            "ScalarToVector();")
        self.folds.declared.append(f"float {name} = 0.0f;")
        text = name
        if node.dtype in (torch.float16, torch.bfloat16):  # eager's reduction of half values gives one of them
            text = f"RoundTo<{GM_TYPES[node.dtype]}>({name})"
        elif node.dtype not in FLOATS:
            text = f"static_cast<{SCALAR_TYPES[self.values.cls(node)]}>({name})"
        return Val("scalar", text)

    def _stored_by_rows(self, node: Node) -> bool:
        group = getattr(self, "group", None)
        users = [n for n in self.item.nodes if node in n.args]
        return (group is not None and bool(users) and all(
            u.op == "store_reduction" and u.args[2] is node and slope(u.args[1], group[0]) == 1 for u in users))

    def _across_into_row(self, kind: str, acc: Val, node: Node) -> Val:
        """rowResults[g * 8] = the row's result (a 32-byte slot each): NaN if any lane is NaN, which the sum of the
        NaN lanes (0 elsewhere) adds."""
        slot = "rowResults[g * 8]"
        lines = [f"{_REDUCE[kind]}({slot}, {acc.expr}, foldWork, accLanes);"]
        if kind != "sum":
            lines += [f"Compare(foldMask, {acc.expr}, {acc.expr}, CMPMODE::NE, (accLanes + 63) / 64 * 64);",
                      f"Select(foldTmp, foldMask, {acc.expr}, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, accLanes);",
                      "ReduceSum(foldTmp2, foldTmp, foldWork, accLanes);",
                      f"Add({slot}, {slot}, foldTmp2, 1);"]
        self.folds.finals[0].append(" ".join(lines))
        return Val("rows", "rowResults")

    def _row_store(self, node: Node) -> None:
        """A store of the rows' results (rowResults): gathered into consecutive lanes after the group, converted
        to the buffer's dtype and copied out together."""
        queue = f"qStore{len(self.stores)}"
        self.stores.append((node, queue))
        self.row_stores.add(node)

    def _row_store_lines(self, node: Node, queue: str) -> list[str]:
        name, index, value_node = node.args
        dtype = self.program.buffers[name].dtype
        ctype = GM_TYPES[dtype]
        var = self.group[0]
        first = cexpr(index.subs(var, sympy.Symbol("g0", integer=True)))
        lines = ["Muls(rowOffsets.ReinterpretCast<int32_t>(), laneInts, int32_t(32), groupCount);",
                 "Gather(rowGathered, rowResults, rowOffsets, 0u, groupCount);",
                 f"LocalTensor<{ctype}> stage{node.id} = {queue}.AllocTensor<{ctype}>();"]
        count = "groupCount"
        if dtype == torch.float32:
            lines.append(f"DataCopy(stage{node.id}, rowGathered, (groupCount + 7) / 8 * 8);")
        elif dtype in (torch.float16, torch.bfloat16):
            lines.append(f"Cast(stage{node.id}, rowGathered, RoundMode::CAST_RINT, {count});")
        elif dtype == torch.bool:
            lines += [f"CompareScalar(foldMask, rowGathered, 0.0f, CMPMODE::NE, ({count} + 63) / 64 * 64);",
                      f"Duplicate(foldTmp.ReinterpretCast<half>(), static_cast<half>(1.0f), {count});",
                      f"Select(foldTmp.ReinterpretCast<half>(), foldMask, foldTmp.ReinterpretCast<half>(), "
                      f"static_cast<half>(0.0f), SELMODE::VSEL_TENSOR_SCALAR_MODE, {count});",
                      f"Cast(stage{node.id}, foldTmp.ReinterpretCast<half>(), RoundMode::CAST_NONE, {count});"]
        elif dtype in (torch.int64, torch.int32):  # sums of bools and small integers: exact in float
            lines.append(f"Cast(foldTmp.ReinterpretCast<int32_t>(), rowGathered, RoundMode::CAST_RINT, {count});")
            lines.append(f"Cast(stage{node.id}, foldTmp.ReinterpretCast<int32_t>(), RoundMode::CAST_NONE, {count});"
                         if dtype == torch.int64 else
                         f"DataCopy(stage{node.id}, foldTmp.ReinterpretCast<int32_t>(), ({count} + 7) / 8 * 8);")
        else:
            raise UnsupportedFunction(f"storing a reduction's rows as {dtype}")
        lines += [f"{queue}.EnQue(stage{node.id}); stage{node.id} = {queue}.DeQue<{ctype}>();",
                  f"StoreLanes({_gm(name)}, {first}, stage{node.id}, groupCount);",
                  f"{queue}.FreeTensor(stage{node.id});"]
        return lines

    def _arg_fold(self, kind: str, value: Val, number: int) -> Val:
        """argmax/argmin: the best value and its first index per lane (NaN is the largest and the smallest, as
        PyTorch ranks it), then across the lanes the best value's smallest index."""
        f = self.folds
        best = self._accumulator("(-1.0f / 0.0f)" if kind == "argmax" else "(1.0f / 0.0f)")
        where = self._accumulator("-1.0f")
        self.needs_lane_floats = True
        beats = "GT" if kind == "argmax" else "LT"
        index = self._reduction_index_text()
        indices = (f"Adds(foldTmp, laneFloats, static_cast<float>({index}), count); " if self.mode == "inner"
                   else f"Duplicate(foldTmp, static_cast<float>({index}), count); ")
        self.tiles.emit(
            indices +
            f"Compare(foldMask, {value.expr}, {best.expr}, CMPMODE::{beats}, (count + 63) / 64 * 64); "
            f"Compare(foldMask2, {value.expr}, {value.expr}, CMPMODE::NE, (count + 63) / 64 * 64); "
            f"Or(foldMask.ReinterpretCast<uint16_t>(), foldMask.ReinterpretCast<uint16_t>(), "
            f"foldMask2.ReinterpretCast<uint16_t>(), MASK_BYTES / 2); "
            f"Compare(foldMask2, {best.expr}, {best.expr}, CMPMODE::EQ, (count + 63) / 64 * 64); "
            f"And(foldMask.ReinterpretCast<uint16_t>(), foldMask.ReinterpretCast<uint16_t>(), "
            f"foldMask2.ReinterpretCast<uint16_t>(), MASK_BYTES / 2); "  # a NaN already held stays
            f"Select({best.expr}, foldMask, {value.expr}, {best.expr}, SELMODE::VSEL_TENSOR_TENSOR_MODE, count); "
            f"Select({where.expr}, foldMask, foldTmp, {where.expr}, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);")
        if self.mode != "inner":
            out = self.tiles.temp()
            f.finals[0].append(f"Cast({ints(out)}, {where.expr}, RoundMode::CAST_RINT, TILE);")
            return out
        name = f"red{number}"
        api = "ReduceMax" if kind == "argmax" else "ReduceMin"
        f.declared.append(f"int64_t {name} = 0;")
        f.finals[0].append(
            f"Compare(foldMask, {best.expr}, {best.expr}, CMPMODE::NE, (accLanes + 63) / 64 * 64); "
            f"Duplicate(foldTmp, 16777216.0f, TILE); "
            f"Select(foldTmp, foldMask, {where.expr}, foldTmp, SELMODE::VSEL_TENSOR_TENSOR_MODE, accLanes); "
            f"ReduceMin(foldTmp2, foldTmp, foldWork, accLanes); VectorToScalar(); "
            f"float nanAt = foldTmp2.GetValue(0); ScalarToVector(); "
            f"if (nanAt < 16777216.0f) {{ {name} = static_cast<int64_t>(nanAt); }} else {{ "
            f"{api}(foldTmp2, {best.expr}, foldWork, accLanes); VectorToScalar(); float peak = foldTmp2.GetValue(0); "
            f"ScalarToVector(); CompareScalar(foldMask, {best.expr}, peak, CMPMODE::EQ, (accLanes + 63) / 64 * 64); "
            f"Duplicate(foldTmp, 16777216.0f, TILE); "
            f"Select(foldTmp, foldMask, {where.expr}, foldTmp, SELMODE::VSEL_TENSOR_TENSOR_MODE, accLanes); "
            f"ReduceMin(foldTmp2, foldTmp, foldWork, accLanes); VectorToScalar(); "
            f"{name} = static_cast<int64_t>(foldTmp2.GetValue(0)); ScalarToVector(); }}")
        self.reduction_limit = True
        return Val("scalar", name)

    def _lane_read(self, value_node: Node) -> str:
        """An integer value at ``lane`` of the chunk, as int64 text for the scalar unit."""
        value = self.values.values[value_node]
        if value.kind == "scalar":
            return f"static_cast<int64_t>({value.expr})"
        tile = ints(value) if self.values.cls(value_node) == "I" else value.expr
        return f"static_cast<int64_t>({tile}.GetValue(lane))"

    def _exact_int_fold(self, kind: str, value_node: Node, node: Node, number: int) -> Val:
        """A sum, max or min of integers too wide for float (int32, int64), on the scalar unit and exact. Sums run
        in 64-bit unsigned arithmetic (two's complement wrap-around, as eager's int64 sum wraps) and are cast to the
        result's type (which wraps as eager's int32 sum does). The fold restarts where the reduction index is 0."""
        t, f = self.tiles, self.folds
        read, index = self._lane_read(value_node), self._reduction_index_text()
        out_cls = self.values.cls(node)
        if self.mode == "inner":  # the lanes are consecutive reduction indices: one running value per row
            name = f"red{number}"
            f.declared.append(f"int64_t {name} = 0;")
            t.emit("VectorToScalar();")
            t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {{ const int64_t x = {read}; "
                   f"{name} = static_cast<int64_t>({index}) + lane == 0 ? x : {_EXACT_INT_FOLDS[kind](name, 'x')}; }}")
            t.emit("ScalarToVector();")
            return Val("scalar", f"static_cast<{SCALAR_TYPES[out_cls]}>({name})")
        acc = t.temp("wide")  # never given back: it lives through the walk
        t.emit("VectorToScalar();")
        t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {{ const int64_t x = {read}; "
               f"const int64_t before = {acc.expr}.GetValue(lane); "
               f"{acc.expr}.SetValue(lane, static_cast<int64_t>({index}) == 0 ? x : "
               f"{_EXACT_INT_FOLDS[kind]('before', 'x')}); }}")
        t.emit("ScalarToVector();")
        if out_cls == "W":
            return acc
        out = t.temp()
        f.finals[0].append(f"VectorToScalar(); for (uint32_t lane = 0; lane < TILE; ++lane) "
                           f"{ints(out)}.SetValue(lane, static_cast<int32_t>({acc.expr}.GetValue(lane))); "
                           "ScalarToVector();")
        return out

    def _exact_arg_fold(self, kind: str, value_node: Node, number: int) -> Val:
        """argmax/argmin of integers too wide for float (int32, int64), on the scalar unit and exact: the walk goes
        through the reduction indices in increasing order and a value replaces the best so far only when strictly
        better (ties keep the first index); the first index always takes its value."""
        t, v, f = self.tiles, self.values, self.folds
        value = v.values[value_node]
        cls = v.cls(value_node)
        beats = ">" if kind == "argmax" else "<"
        index = self._reduction_index_text()
        if value.kind == "scalar":
            read = f"static_cast<int64_t>({value.expr})"
        else:
            read = f"static_cast<int64_t>({ints(value) if cls == 'I' else value.expr}.GetValue(lane))"
        if self.mode == "inner":  # the lanes are consecutive reduction indices: one running best per row
            best, name = f"best{number}", f"red{number}"
            f.declared += [f"int64_t {best} = 0;", f"int64_t {name} = 0;"]
            t.emit("VectorToScalar();")
            t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {{ const int64_t x = {read}; "
                   f"const int64_t at = static_cast<int64_t>({index}) + lane; "
                   f"if (at == 0 || x {beats} {best}) {{ {best} = x; {name} = at; }} }}")
            t.emit("ScalarToVector();")
            return Val("scalar", name)
        # an outer reduction: every lane is its own output, all at the same reduction index
        best = t.temp("wide")  # never given back: it lives through the walk
        where = self._accumulator("0.0f")
        t.emit("VectorToScalar();")
        t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {{ const int64_t x = {read}; "
               f"if (static_cast<int64_t>({index}) == 0 || x {beats} {best.expr}.GetValue(lane)) {{ "
               f"{best.expr}.SetValue(lane, x); {ints(where)}.SetValue(lane, static_cast<int32_t>({index})); }} }}")
        t.emit("ScalarToVector();")
        return where

    def _scan(self, node: Node) -> None:
        """A running combination along the scan index (walked in order, one step per index): sums of floats carry
        their rounding error (TwoSum), as PyTorch's double accumulator does; maximum/minimum propagate NaN."""
        kind, value_node = node.args[0], node.args[1]
        t, v, f = self.tiles, self.values, self.folds
        if not isinstance(kind, str):  # a combine function of several ops (cummax, logcumsumexp): step by step
            f.parts[node] = generic_scan(self, node)
            v.values[node] = next(out for out in f.parts[node] if out is not None)
            return
        cls = v.cls(value_node)
        value = v.tile(v.values[value_node], cls)
        if self.mode == "inner":
            out = self._inner_scan(node, kind, value, cls, self.small(value_node))
            f.parts[node] = (out,)
            v.values[node] = out
            return
        if kind == "add" and cls == "F":
            total, error = self._accumulator("0.0f"), self._accumulator("0.0f")
            out, part = t.temp(), t.temp()
            t.emit(f"Add({out.expr}, {total.expr}, {value.expr}, count);")  # s = a + b
            t.emit(f"Sub({part.expr}, {out.expr}, {total.expr}, count);")  # bb = s - a
            t.emit(f"Sub(foldTmp, {out.expr}, {part.expr}, count);")  # s - bb
            t.emit(f"Sub(foldTmp, {total.expr}, foldTmp, count);")  # a - (s - bb)
            t.emit(f"Sub({part.expr}, {value.expr}, {part.expr}, count);")  # b - bb
            t.emit(f"Add(foldTmp, foldTmp, {part.expr}, count);")
            t.emit(f"Abs({part.expr}, {out.expr}, count);")  # an infinite or NaN sum carries no error
            t.emit(f"CompareScalar(foldMask, {part.expr}, (1.0f / 0.0f), CMPMODE::LT, (count + 63) / 64 * 64);")
            t.emit("Select(foldTmp, foldMask, foldTmp, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);")
            t.emit(f"Add({error.expr}, {error.expr}, foldTmp, count);")
            t.emit(f"Adds({total.expr}, {out.expr}, 0.0f, count);")
            t.emit(f"Add({out.expr}, {out.expr}, {error.expr}, count);")  # the running sum, rounded once
            t.release(part)
        elif kind in ("maximum", "minimum") and cls == "F":
            acc = self._accumulator("(-1.0f / 0.0f)" if kind == "maximum" else "(1.0f / 0.0f)")
            t.emit(self._fold_line("max" if kind == "maximum" else "min", acc, value))
            out = t.temp()
            t.emit(f"Adds({out.expr}, {acc.expr}, 0.0f, count);")
        elif kind == "add" and cls == "I" and self.small(value_node):  # running sums of small ints fit int32
            acc = self._accumulator("0.0f")
            t.emit(f"Add({ints(acc)}, {ints(acc)}, {ints(value)}, count);")
            out = t.temp()
            t.emit(f"Adds({ints(out)}, {ints(acc)}, int32_t(0), count);")
            self.bounded.update(n for n in self.item.nodes if n is node or (n.op == "getitem" and n.args[0] is node))
        elif kind == "add" and cls in ("I", "W"):  # integer running sums, lane by lane, wrapping as eager's
            wide = v.cls(node) == "W"
            acc, out = t.temp("wide"), t.temp("wide" if wide else "")  # acc lives through the walk
            f.init.append(f"Duplicate({acc.expr}.ReinterpretCast<int32_t>(), int32_t(0), 2 * TILE);")
            lane_value = f"{ints(value)}.GetValue(lane)" if cls == "I" else f"{value.expr}.GetValue(lane)"
            put = f"{out.expr}.SetValue(lane, s);" if wide else f"{ints(out)}.SetValue(lane, static_cast<int32_t>(s));"
            t.emit("VectorToScalar();")
            t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {{ const int64_t s = static_cast<int64_t>("
                   f"static_cast<uint64_t>({acc.expr}.GetValue(lane)) + static_cast<uint64_t>({lane_value})); "
                   f"{acc.expr}.SetValue(lane, s); {put} }}")
            t.emit("ScalarToVector();")
        else:
            raise UnsupportedFunction(f"a scan with {kind} of {value_node.dtype} values is not lowered yet")
        f.parts[node] = (out,)
        v.values[node] = out

    def _inner_scan(self, node: Node, kind: str, value: Val, cls: str, small: bool) -> Val:
        """A scan along the lanes: a running value carried from lane to lane (and chunk to chunk) on the scalar
        unit, in PyTorch's accumulator type (double for float32 sums, not a float pair that keeps what double
        rounds away when a huge term cancels; int64)."""
        t = self.tiles
        n = node.id
        out = t.temp()
        if cls == "F" and kind == "add":  # PyTorch's accumulator: double for float32, float for narrower types
            carry = "double" if node.dtype == torch.float32 else "float"
            self.folds.declared.append(f"{carry} carry{n} = 0;")
            step = (f"{{ carry{n} += static_cast<{carry}>({value.expr}.GetValue(lane)); "
                    f"{out.expr}.SetValue(lane, static_cast<float>(carry{n})); }}")
        elif cls == "F" and kind in ("maximum", "minimum"):
            better = ">" if kind == "maximum" else "<"
            start = "(-1.0f / 0.0f)" if kind == "maximum" else "(1.0f / 0.0f)"
            self.folds.declared.append(f"float carry{n} = {start};")
            step = (f"{{ const float x = {value.expr}.GetValue(lane); "
                    f"if (x != x || (carry{n} == carry{n} && x {better} carry{n})) carry{n} = x; "
                    f"{out.expr}.SetValue(lane, carry{n}); }}")
        elif cls == "I" and kind == "add" and small:
            self.folds.declared.append(f"int64_t carry{n} = 0;")
            step = (f"{{ carry{n} += {ints(value)}.GetValue(lane); "
                    f"{ints(out)}.SetValue(lane, static_cast<int32_t>(carry{n})); }}")
            self.bounded.update(x for x in self.item.nodes if x is node or (x.op == "getitem" and x.args[0] is node))
        elif cls in ("I", "W") and kind == "add":  # an integer running sum, wrapping as eager's
            wide = self.values.cls(node) == "W"
            if wide:
                t.release(out)
                out = t.temp("wide")
            lane_value = f"{ints(value)}.GetValue(lane)" if cls == "I" else f"{value.expr}.GetValue(lane)"
            put = (f"{out.expr}.SetValue(lane, carry{n});" if wide
                   else f"{ints(out)}.SetValue(lane, static_cast<int32_t>(carry{n}));")
            self.folds.declared.append(f"int64_t carry{n} = 0;")
            step = (f"{{ carry{n} = static_cast<int64_t>(static_cast<uint64_t>(carry{n}) + static_cast<uint64_t>("
                    f"{lane_value})); {put} }}")
        else:
            raise UnsupportedFunction(f"a scan with {kind} of {_CLASS_NAMES[cls]} values along the innermost "
                                      "dimension is not lowered yet")
        t.emit("VectorToScalar();")
        t.emit(f"for (uint32_t lane = 0; lane < count; ++lane) {step}")
        t.emit("ScalarToVector();")
        return out

    def _reduction_index_text(self) -> str:
        """The flattened reduction index of lane 0 (C++): the outer reduction loops' indices and the chunk's start."""
        if self.mode != "inner":  # every lane is at the same reduction index
            index = sympy.Integer(0)
            for var, size in self.loops:
                index = index * size + var
            return cexpr(index)
        index = sympy.Integer(0)
        for var, size in self.loops:
            index = index * size + var
        return cexpr(index * self.length + sympy.Symbol("v0", integer=True))

    def _welford(self, value: Val, number: int) -> tuple[Val, Val, Val]:
        """(mean, m2, weight) of a variance: the sum, then the sum of squared deviations from the mean (two walks)."""
        f = self.folds
        total = self._accumulator("0.0f")
        squares = self._accumulator("0.0f")
        weight = 1
        for _, size in self.loops:
            weight = weight * size
        weight = cexpr(weight * self.length) if self.mode == "inner" else cexpr(weight)
        self.tiles.emit(f"Add({total.expr}, {total.expr}, {value.expr}, count);")
        self.keep.add(value.expr)  # the second walk folds it again at the end of its body
        mean, m2 = f"mean{number}", f"m2_{number}"
        if self.mode == "inner":
            f.declared += [f"float {mean} = 0.0f;", f"float {m2} = 0.0f;"]
            f.finals[0].append(f"ReduceSum(foldTmp, {total.expr}, foldWork, accLanes); VectorToScalar(); "
                               f"{mean} = foldTmp.GetValue(0) / static_cast<float>({weight}); ScalarToVector();")
            f.phase(1).append(f"Adds(foldTmp, {value.expr}, -{mean}, count); Mul(foldTmp, foldTmp, foldTmp, count); "
                              f"Add({squares.expr}, {squares.expr}, foldTmp, count);")
            f.finals[1].append(f"ReduceSum(foldTmp, {squares.expr}, foldWork, accLanes); VectorToScalar(); "
                               f"{m2} = foldTmp.GetValue(0); ScalarToVector();")
            return (Val("scalar", mean), Val("scalar", m2), Val("scalar", f"static_cast<float>({weight})"))
        f.finals[0].append(f"Muls({total.expr}, {total.expr}, 1.0f / static_cast<float>({weight}), TILE);")
        f.phase(1).append(f"Sub(foldTmp, {value.expr}, {total.expr}, count); Mul(foldTmp, foldTmp, foldTmp, count); "
                          f"Add({squares.expr}, {squares.expr}, foldTmp, count);")
        weights = self._accumulator(f"static_cast<float>({weight})")
        return (total, squares, weights)

    # -- assembly
    def _assemble(self) -> str:
        """The method: the pass's UB (queues, scratch, and only the helper tiles its loop uses), then the loop."""
        loop = self._item_loop()
        used = "\n".join(loop)
        lines = [f"__aicore__ inline void Pass{self.number}()", "{",
                 "    constexpr uint32_t TILE = @TILE@;", "    constexpr uint32_t MASK_BYTES = TILE / 8;"]
        lines += [f"    const int64_t {symbol.name} = t_.sym[{int(symbol.name[1:])}];"
                  for symbol in sorted(self.program.symbols, key=lambda s: int(s.name[1:])) if symbol.name in used]
        lines.append("    TPipe pipe;")
        buffers = []
        for node, queue in self.loads:
            buffers.append(("TQue<QuePosition::VECIN, 1>", queue, f"BUFFER_NUM, TILE * sizeof({GM_TYPES[node.dtype]})"))
        for dtype, queue in self.spans:
            size = f"1, {SPAN_TILES} * TILE * sizeof({GM_TYPES[dtype]})"
            buffers.append(("TQue<QuePosition::VECIN, 1>", queue, size))
        for node, queue in self.stores:
            ctype = GM_TYPES[self.program.buffers[node.args[0]].dtype]
            size = f"{GROUP}" if self.mode == "inner" and node not in self.inline_stores else "TILE"
            buffers.append(("TQue<QuePosition::VECOUT, 1>", queue, f"BUFFER_NUM, {size} * sizeof({ctype})"))
        views = []
        for name, (kind, size, view) in self._scratch().items():
            if re.search(rf"\b{name}\b", used) or any(re.search(rf"\b{v}\b", used) for v, _ in view):
                buffers.append(("TBuf<QuePosition::VECCALC>", f"{name}Buf", size))
                views.append(f"LocalTensor<{kind}> {name} = {name}Buf.Get<{kind}>();")
                views += [line for v, line in view if re.search(rf"\b{v}\b", used)]
        lines += [f"    {kind} {name};" for kind, name, _ in buffers]
        lines += [f"    pipe.InitBuffer({name}, {size});" for _, name, size in buffers]
        lines += ["    " + line for line in views]
        self.helper_bytes_per_lane = self._helper_bytes(used)
        lines += ["    PipeBarrier<PIPE_V>();", *loop, "}"]
        return "\n".join(lines)

    def _scratch(self) -> dict:
        """name -> (element type, InitBuffer size, [(view, its lines)]) of every scratch buffer a pass may use."""
        t = self.tiles
        helper = [("laneFloats", "LocalTensor<float> laneFloats = helper[0]; CreateVecIndex(laneFloats, 0.0f, TILE);"),
                  ("laneInts", "LocalTensor<int32_t> laneInts = helper[TILE].ReinterpretCast<int32_t>(); "
                               "CreateVecIndex(laneInts, int32_t(0), TILE);"),
                  ("onesF", "LocalTensor<float> onesF = helper[2 * TILE]; Duplicate(onesF, 1.0f, TILE);"),
                  ("minusOnesF", "LocalTensor<float> minusOnesF = helper[3 * TILE]; "
                                 "Duplicate(minusOnesF, -1.0f, TILE);")]
        for number, (value, name) in enumerate(self.patterns.items()):
            helper.append((name, f"LocalTensor<uint16_t> {name} = helper[{4 + number} * TILE]"
                                 f".ReinterpretCast<uint16_t>(); Duplicate(helper[{4 + number} * TILE]"
                                 f".ReinterpretCast<int32_t>(), int32_t({value}), TILE);"))
        fold = [("foldTmp", "LocalTensor<float> foldTmp = fold[0];"),
                ("foldTmp2", "LocalTensor<float> foldTmp2 = fold[TILE];"),
                ("foldWork", "LocalTensor<float> foldWork = fold[2 * TILE];"),
                ("foldMask", "LocalTensor<uint8_t> foldMask = fold[3 * TILE].ReinterpretCast<uint8_t>();"),
                ("foldMask2",
                 "LocalTensor<uint8_t> foldMask2 = fold[3 * TILE + TILE / 32].ReinterpretCast<uint8_t>();")]
        return {
            "calc": ("float", f"{max(t.slots('full'), 1)} * TILE * 4", []),
            "accs": ("float", f"{max(t.slots('acc'), 1)} * TILE * 4", []),
            "wide": ("int64_t", f"{max(t.slots('wide'), 1)} * TILE * 8", []),
            "masks": ("uint8_t", f"{max(t.slots('mask'), 1)} * MASK_BYTES", []),
            "helper": ("float", f"{4 + len(self.patterns)} * TILE * 4", helper),
            "fold": ("float", f"{_FOLD_TILES} * TILE * 4", fold),
            "one": ("uint8_t", "32", []),
            "rows": ("float", f"{GROUP} * 8 * 4 + {GROUP} * 4 + {GROUP} * 4",
                     [("rowResults", "LocalTensor<float> rowResults = rows[0];"),
                      ("rowGathered", f"LocalTensor<float> rowGathered = rows[{GROUP} * 8];"),
                      ("rowOffsets", f"LocalTensor<uint32_t> rowOffsets = rows[{GROUP} * 9]"
                                     ".ReinterpretCast<uint32_t>();")]),
        }

    def _helper_bytes(self, used: str) -> float:
        total = 0.0
        if any(re.search(rf"\b{n}\b", used) for n in ("laneFloats", "laneInts", "onesF", "minusOnesF",
                                                         *self.patterns.values())):
            total += (4 + len(self.patterns)) * 4
        if "fold" in used:
            total += _FOLD_TILES * 4
        return total

    def _chunk_body(self, phase: int) -> list[str]:
        """One chunk's (or reduction index's) loads, computation and folds."""
        body = [*self.copy_in, *self._body_lines(), *self.folds.phase(phase)]
        body += [f"{queue}.FreeTensor({local});" for queue, local in self.dequeued]
        return body

    def _body_lines(self) -> list[str]:
        return self.body_lines if hasattr(self, "body_lines") else []

    def _item_loop(self) -> list[str]:
        self.body_lines = self.tiles_body
        group = self.group if self.mode == "inner" else None
        lines = [f"    const int64_t length = {cexpr(self.length)};", "    int64_t step = TILE;"]
        if self.mode == "outer":  # each item walks every reduction index: narrower chunks keep every core busy
            outer = " * ".join([cexpr(size) for _, size in self.outer] or ["int64_t(1)"])
            lines.append(f"    while (step > 64 && ({outer}) * CeilDivI(length, step) < GetBlockNum()) "
                         "step = MaxI(64, step / 2 / 64 * 64);")
        lines.append("    const int64_t chunks = CeilDivI(length, step);")
        sizes = [cexpr(size) for _, size in self.outer]
        if self.mode != "inner":
            sizes.append("chunks")
        elif group is not None:
            rows = " * ".join([cexpr(size) for _, size in self.outer] + [cexpr(group[1])])
            lines += [f"    const int64_t groupSize = MinI({GROUP}, CeilDivI({rows}, GetBlockNum()));",
                      f"    const int64_t groups = CeilDivI({cexpr(group[1])}, groupSize);"]
            sizes.append("groups")
        lines += [f"    const int64_t items = {' * '.join(sizes) or 'int64_t(1)'};", "    int64_t begin, end;",
                  "    Share(items, begin, end);", "    for (int64_t item = begin; item < end; ++item) {",
                  "        int64_t rest = item;"]
        if self.mode != "inner":
            lines += ["        const int64_t chunk = rest % chunks;", "        rest /= chunks;"]
        elif group is not None:
            lines += ["        const int64_t groupChunk = rest % groups;", "        rest /= groups;"]
        for var, size in reversed(self.outer):
            lines += [f"        const int64_t {var.name} = rest % {cexpr(size)};", f"        rest /= {cexpr(size)};"]
        lines.append("        (void)rest;")
        if self.mode != "inner":
            lines += ["        const int64_t v0 = chunk * step;",
                      "        const uint32_t count = static_cast<uint32_t>(MinI(step, length - v0));"]
        if self.mode == "pointwise":
            lines += ["        " + line for line in self._chunk_body(0)]
        elif self.mode == "outer":
            lines += ["        " + line for line in self._reduction_body()]
        else:
            lines += ["        " + line for line in self._grouped_rows(group)]
        for node, queue in self.stores:
            if self.mode == "inner" or node in self.inline_stores:
                continue  # stored already: the staged rows by _grouped_rows, a scan's steps in its walk
            name, index, _ = node.args
            ctype = GM_TYPES[self.program.buffers[name].dtype]
            store = f"StoreLanes({_gm(name)}, {cexpr(self.at_lane_zero(index))}, tile, count);"
            lines += [f"        {{ LocalTensor<{ctype}> tile = {queue}.DeQue<{ctype}>();",
                      f"          {_atomic(node, store, ctype)}", f"          {queue}.FreeTensor(tile); }}"]
        lines.append("    }")
        return lines

    def _reduction_body(self) -> list[str]:
        lines = [*self.folds.declared, "const uint32_t accLanes = static_cast<uint32_t>(MinI(TILE, length));",
                 *self.folds.init]
        for phase in range(self.folds.phases()):
            lines += self._walk(phase)
            lines += self.folds.finals[phase]
        return lines + self.after

    def _grouped_rows(self, group) -> list[str]:
        """An inner reduction's item: up to GROUP rows one after another, their results staged in UB tiles and
        stored together."""
        if group is None:
            return self._reduction_body()
        var, size = group
        lines = ["const int64_t g0 = groupChunk * groupSize;",
                 f"const uint32_t groupCount = static_cast<uint32_t>(MinI(groupSize, {cexpr(size)} - g0));"]
        staged = [(node, queue) for node, queue in self.stores
                  if node not in self.inline_stores and node not in self.row_stores]
        for node, queue in staged:
            ctype = GM_TYPES[self.program.buffers[node.args[0]].dtype]
            lines.append(f"LocalTensor<{ctype}> stage{node.id} = {queue}.AllocTensor<{ctype}>();")
        lines.append("for (uint32_t g = 0; g < groupCount; ++g) {")
        lines.append(f"    const int64_t {var.name} = g0 + g;")
        lines += ["    " + line for line in self._reduction_body()]
        lines.append("}")
        for node, queue in staged:
            name, index, _ = node.args
            first = cexpr(index.subs(var, sympy.Symbol("g0", integer=True)))
            lines += ["ScalarToMte3();", f"StoreLanes({_gm(name)}, {first}, stage{node.id}, groupCount);",
                      f"{queue}.FreeTensor(stage{node.id});"]
        for node, queue in self.stores:
            if node in self.row_stores:
                lines += self._row_store_lines(node, queue)
        return lines

    def _walk(self, phase: int) -> list[str]:
        """The loops over the reduction: scalar loops over its outer indices, and for an inner reduction the chunks
        of its last range along the lanes."""
        lines, depth = [], ""
        for var, size in self.loops:
            lines.append(f"{depth}for (int64_t {var.name} = 0; {var.name} < {cexpr(size)}; ++{var.name}) {{")
            depth += "    "
        if self.mode == "inner":
            lines += [f"{depth}for (int64_t chunk = 0; chunk < chunks; ++chunk) {{",
                      f"{depth}    const int64_t v0 = chunk * TILE;",
                      f"{depth}    const uint32_t count = static_cast<uint32_t>(MinI(TILE, length - v0));"]
            depth += "    "
        lines += [depth + line for line in self._chunk_body(phase)]
        closing = len(self.loops) + (1 if self.mode == "inner" else 0)
        for level in range(closing):
            lines.append("    " * (closing - level - 1) + "}")
        return lines

    def _bytes_per_lane(self) -> float:
        t = self.tiles
        total = 0.0
        for node, _ in self.loads:
            total += self.buffers * GM_TYPES_SIZE[node.dtype]
        for node, _ in self.stores:
            total += self.buffers * self.program.buffers[node.args[0]].dtype.itemsize
        for dtype, _ in self.spans:
            total += SPAN_TILES * dtype.itemsize
        total += (t.slots("full") + t.slots("acc")) * 4 + t.slots("wide") * 8 + t.slots("mask") / 8
        return total + self.helper_bytes_per_lane


GM_TYPES_SIZE = {dtype: dtype.itemsize for dtype in GM_TYPES}


def _other_text(other, dtype: torch.dtype) -> str:
    if dtype in FLOATS:
        value = float(other)
        if value != value:
            return "(0.0f / 0.0f)"
        if value in (float("inf"), float("-inf")):
            return "(1.0f / 0.0f)" if value > 0 else "(-1.0f / 0.0f)"
        return repr(value) + "f" if ("." in repr(value) or "e" in repr(value)) else f"{value}.0f"
    return f"int64_t({int(other)})"


def _narrowing(local: str, value: Val, cls: str, dtype: torch.dtype, t: Tiles) -> list[str]:
    """The lines that write a value of class ``cls`` into the output tile ``local`` of GM dtype ``dtype`` (values of
    narrow int dtypes are already wrapped to their range, so the saturating Casts keep them)."""
    if cls == "F":
        if dtype == torch.float32:
            return [f"DataCopy({local}, {value.expr}, (count + 7) / 8 * 8);"]
        return [f"Cast({local}, {value.expr}, RoundMode::CAST_RINT, count);"]
    if cls == "I":
        if dtype == torch.int32:
            return [f"DataCopy({local}, {ints(value)}, (count + 7) / 8 * 8);"]
        if dtype in (torch.int64, torch.int16):
            return [f"Cast({local}, {ints(value)}, RoundMode::CAST_NONE, count);"]
        if dtype in (torch.int8, torch.uint8):  # through float and half: exact for values of 8 bits
            wide, narrow = t.temp(), t.temp()
            t.release(wide)
            t.release(narrow)
            return [f"Cast({wide.expr}, {ints(value)}, RoundMode::CAST_NONE, count);",
                    f"Cast({narrow.expr}.ReinterpretCast<half>(), {wide.expr}, RoundMode::CAST_NONE, count);",
                    f"Cast({local}, {narrow.expr}.ReinterpretCast<half>(), RoundMode::CAST_NONE, count);"]
    if cls == "W" and dtype == torch.int64:
        return [f"DataCopy({local}, {value.expr}, (count + 3) / 4 * 4);"]
    if cls == "M" and dtype == torch.bool:
        step = t.temp()
        t.release(step)
        half = f"{step.expr}.ReinterpretCast<half>()"
        return [f"Duplicate({half}, static_cast<half>(1.0f), count);",
                f"Select({half}, {value.expr}, {half}, static_cast<half>(0.0f), SELMODE::VSEL_TENSOR_SCALAR_MODE, "
                "count);",
                f"Cast({local}, {half}, RoundMode::CAST_NONE, count);"]
    raise UnsupportedFunction(f"storing a {cls} value as {dtype}")


def _atomic(node: Node, store: str, ctype: str) -> str:
    """``store`` as an atomic add into global memory when the node accumulates (scatter_add, index_add)."""
    if node.op != "store_add":
        return store
    return f"SetAtomicAdd<{ctype}>(); {store} SetAtomicNone();"


def _scalar_store_value(text: str, cls: str, dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return f"(({text}) ? 1 : 0)"
    if dtype in (torch.float16, torch.bfloat16):
        return f"static_cast<float>({text})"
    return text


def _mode(item: Pass) -> str:
    if item.kind == "pointwise":
        return "pointwise"
    last = item.reduction_vars[-1]
    if item.kind == "scan":
        if not item.ranges or any(slope(n.args[1], last) == 1 for n in item.nodes if n.op == "load"):
            return "inner"
        return "outer"
    loads = [n for n in item.nodes if n.op == "load"]
    if any(slope(n.args[1], last) == 1 for n in loads) or not item.ranges:
        return "inner"
    return "outer"


def _uses(item: Pass) -> dict[Node, int]:
    uses = {node: 0 for node in item.nodes}
    for node in item.nodes:
        for operand in {a for a in node.args if isinstance(a, Node)}:
            uses[operand] += 1
    for region in item.regions.values():
        uses[region.mask] += 1 << 30
    for node in item.nodes:  # an indirect index is read where the loads using it are made, after it
        if node.op == "indirect":
            uses[node.args[0]] += 1 << 30
    return uses


def _needs_sync(program: Program, number: int) -> bool:
    """Whether pass ``number`` touches a buffer an earlier pass wrote (or writes one an earlier pass read)."""
    def buffers(item: Pass, ops: tuple[str, ...]) -> set[str]:
        return {n.args[0] for n in item.nodes if n.op in ops}

    current = program.passes[number]
    touched = buffers(current, ("load", *_STORES))
    written = buffers(current, _STORES)
    for earlier in program.passes[:number]:
        if touched & buffers(earlier, _STORES) or written & buffers(earlier, ("load",)):
            return True
    return False


def _bounded_nodes(item: Pass) -> set[Node]:
    """int64 nodes whose values provably fit int32: index expressions, widened narrow ints, argmax/argmin."""
    bounded: set[Node] = set()
    for node in item.nodes:
        if node.dtype != torch.int64:
            continue
        if node.op == "index_expr":
            bounded.add(node)
        elif node.op == "constant" and abs(int(node.args[0])) < (1 << 31):
            bounded.add(node)
        elif node.op == "to_dtype" and isinstance(node.args[0], Node) and (
                node.args[0].dtype in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.bool)
                or node.args[0] in bounded):
            bounded.add(node)
        elif node.op == "reduction" and node.args[0] in ("argmax", "argmin"):
            bounded.add(node)
    return bounded
