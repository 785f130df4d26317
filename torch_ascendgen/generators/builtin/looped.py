"""The looped plan: computations the row-wise template cannot hold, written as loops over chunks.

The computation's dimensions are grouped into [outer, reduce, inner] (csrc/templates/looped.cpp
explains the layout): a reduction over a middle dimension, rows longer than the UB, and inputs
that broadcast over whole groups of dimensions (a per-channel bias on NCHW, an outer product).
Composite ops (softmax, layer_norm, var, norms) are first written out as primitive reductions and
elementwise ops; each reduction level then becomes one pass over the unit's data, and a last pass
writes the full-size outputs. Values are "full" (one chunk per step), "col" (reduced: one chunk per
unit, or one element per row in the rows form) or "scalar".
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import torch
import torch.fx

from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.lowering import HANDLERS, Lowering, Val, float_literal, io_lines, widen
from torch_ascendgen.generators.builtin.ops import FOLDS

aten = torch.ops.aten

_FOLD_START = {"sum": "0.0f", "mean": "0.0f", "max": "(-1.0f / 0.0f)", "min": "(1.0f / 0.0f)"}
_FOLD_VECTOR = {"sum": "Add", "mean": "Add", "max": "Max", "min": "Min"}
_FOLD_REDUCE = {"sum": "ReduceSum", "mean": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin"}
_SIZE_READERS = {"aten.expand.default", "aten.view.default", "aten._unsafe_view.default", "aten.reshape.default"}
_VIEWS = {"aten.view.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.unsqueeze.default",
          "aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze.default"}


def divide_by_count(x, correction):
    """Graph marker for var's last step: x / (number of reduced elements - correction)."""
    raise NotImplementedError  # never called: the looped lowering emits it


# ---- composite ops written out --------------------------------------------------------------------------


def _reduced_shape(shape: tuple, dims: list[int], keepdim: bool) -> tuple:
    if keepdim:
        return tuple(1 if d in dims else s for d, s in enumerate(shape))
    return tuple(s for d, s in enumerate(shape) if d not in dims)


def _broadcast(*shapes: tuple) -> tuple:
    rank = max(len(s) for s in shapes)
    out = []
    for position in range(rank):
        sizes = [s[position - rank + len(s)] for s in shapes if position - rank + len(s) >= 0]
        present = [s for s in sizes if s != 1]
        out.append(present[0] if present else 1)
    return tuple(out)


def _dims(given, rank: int) -> list[int]:
    if rank == 0:  # a 0-dim tensor has no dim to reduce: layout_of refuses the reduction by name
        return []
    if given is None or (isinstance(given, (list, tuple)) and not given):
        return list(range(rank))
    return sorted({d % rank for d in (given if isinstance(given, (list, tuple)) else [given])})


class _Builder:
    def __init__(self, graph: torch.fx.Graph):
        self.graph = graph

    def op(self, target, *args, shape=None) -> torch.fx.Node:
        node = self.graph.call_function(target, args)
        if shape is None:
            shape = _broadcast(*(a.meta["shape"] for a in args if isinstance(a, torch.fx.Node)))
        node.meta["shape"] = tuple(shape)
        return node

    def reduce(self, target, x, dims: list[int], keepdim: bool) -> torch.fx.Node:
        return self.op(target, x, dims, keepdim, shape=_reduced_shape(x.meta["shape"], dims, keepdim))


def _softmax(b: _Builder, x, dim, half_to_float=False, log=False):
    dims = _dims(dim, len(x.meta["shape"]))
    peak = b.reduce(aten.amax.default, x, dims, True)
    shifted = b.op(aten.sub.Tensor, x, peak)
    exps = b.op(aten.exp.default, shifted)
    total = b.reduce(aten.sum.dim_IntList, exps, dims, True)
    if log:
        return b.op(aten.sub.Tensor, shifted, b.op(aten.log.default, total))
    return b.op(aten.div.Tensor, exps, total)


def _layer_norm(b: _Builder, x, normalized_shape, weight, bias, eps):
    rank = len(x.meta["shape"])
    dims = list(range(rank - len(normalized_shape), rank))
    mean = b.reduce(aten.mean.dim, x, dims, True)
    centered = b.op(aten.sub.Tensor, x, mean)
    variance = b.reduce(aten.mean.dim, b.op(aten.mul.Tensor, centered, centered), dims, True)
    rstd = b.op(aten.rsqrt.default, b.op(aten.add.Tensor, variance, float(eps)))
    y = b.op(aten.mul.Tensor, centered, rstd)
    if weight is not None:
        y = b.op(aten.mul.Tensor, y, weight)
    if bias is not None:
        y = b.op(aten.add.Tensor, y, bias)
    return (y, mean, rstd)


_TINY, _LARGEST = float(torch.finfo(torch.float32).tiny), float(torch.finfo(torch.float32).max)


def _scaled_root(b: _Builder, magnitude, dims: list[int], keepdim: bool, correction: float):
    """sqrt(sum(magnitude ** 2) / (count - correction)) over ``dims``, with the squares taken of magnitude / its
    largest value: PyTorch's variance is finite (double accumulation) where float32 squares overflow."""
    def largest(keep: bool) -> torch.fx.Node:
        peak = b.reduce(aten.amax.default, magnitude, dims, keep)
        return b.op(aten.clamp.default, peak, _TINY, _LARGEST, shape=peak.meta["shape"])  # inf divides as max
    scaled = b.op(aten.div.Tensor, magnitude, largest(True))
    total = b.reduce(aten.sum.dim_IntList, b.op(aten.mul.Tensor, scaled, scaled), dims, keepdim)
    total = b.op(divide_by_count, total, correction, shape=total.meta["shape"])
    return b.op(aten.mul.Tensor, b.op(aten.sqrt.default, total), largest(keepdim))


def _var(b: _Builder, x, dims=None, correction=None, keepdim=False):
    """(variance, standard deviation), scaled by the largest |x - mean| (see _scaled_root): the root stays finite
    where the variance overflows."""
    dims = _dims(dims, len(x.meta["shape"]))
    centered = b.op(aten.sub.Tensor, x, b.reduce(aten.mean.dim, x, dims, True))
    root = _scaled_root(b, b.op(aten.abs.default, centered), dims, keepdim,
                        float(1 if correction is None else correction))
    return (b.op(aten.mul.Tensor, root, root), root)


def _vector_norm(b: _Builder, x, ord=2, dims=None, keepdim=False, dtype=None):
    dims = _dims(dims, len(x.meta["shape"]))
    p = float(ord)
    magnitude = b.op(aten.abs.default, x)
    if p == 2.0 and any(x.meta["shape"][d] != 1 for d in dims):  # PyTorch squares in float32 too
        total = b.reduce(aten.sum.dim_IntList, b.op(aten.mul.Tensor, x, x), dims, keepdim)
        return b.op(aten.sqrt.default, total)
    if p in (1.0, 2.0):  # the norm of one element is |x| in PyTorch: its square may overflow
        return b.reduce(aten.sum.dim_IntList, magnitude, dims, keepdim)
    if p in (float("inf"), float("-inf")):
        return b.reduce(aten.amax.default if p > 0 else aten.amin.default, magnitude, dims, keepdim)
    raise UnsupportedFunction(f"vector norms of order {ord} are not supported by the built-in generator yet")


def _extreme(target):
    def expand(b: _Builder, x, dim, keepdim=False):
        return (b.reduce(target, x, _dims(dim, len(x.meta["shape"])), keepdim), None)
    return expand


_EXPANSIONS = {
    "aten._softmax.default": _softmax,
    "aten._log_softmax.default": lambda b, x, dim, half_to_float=False: _softmax(b, x, dim, log=True),
    "aten.native_layer_norm.default": _layer_norm,
    "aten.var.correction": _var,
    "aten.linalg_vector_norm.default": _vector_norm,
    "aten.max.dim": _extreme(aten.amax.default),
    "aten.min.dim": _extreme(aten.amin.default),
}


def primitive_graph(graph: torch.fx.GraphModule) -> torch.fx.Graph:
    """``graph`` with composite ops written out; every tensor node keeps a ``meta["shape"]``."""
    new = torch.fx.Graph()
    builder = _Builder(new)
    env: dict[torch.fx.Node, object] = {}
    roots: dict[torch.fx.Node, torch.fx.Node] = {}

    def mapped(arg):
        return torch.fx.node.map_arg(arg, lambda n: env[n])

    for node in graph.graph.nodes:
        target = str(node.target)
        if node.op == "call_function" and node.target is operator.getitem:
            parts = env[node.args[0]]
            if isinstance(parts, tuple):
                if parts[node.args[1]] is None and node.users:
                    raise UnsupportedFunction("it uses the indices of max/min (argmax), which the built-in "
                                              "generator does not produce yet")
                env[node] = parts[node.args[1]]
                continue
        if node.op == "call_function" and target in _EXPANSIONS:
            env[node] = _EXPANSIONS[target](builder, *mapped(node.args), **mapped(node.kwargs))
            if target == "aten.var.correction":
                roots[node] = env[node][1]  # sqrt(var) is the scaled root: it stays finite where var overflows
                env[node] = env[node][0]
            continue
        if target == "aten.sqrt.default" and node.args[0] in roots:
            env[node] = roots[node.args[0]]
            continue
        copy = new.node_copy(node, lambda n: env[n])
        copy.meta = dict(node.meta)
        env[node] = copy
    return new


# ---- grouping dimensions ---------------------------------------------------------------------------------


@dataclass
class Layout:
    """The computation's dimensions and how the looped kernel sees them."""

    full: tuple  # sizes of the computation's dimensions (ints or symbol names)
    group_reduce: int  # dims [0, group_reduce) are outer
    group_inner: int  # dims [group_reduce, group_inner) are the reduce group, the rest inner
    maps: dict = field(default_factory=dict)  # node -> per dim of the node: the full dim it is, or None

    @property
    def rows(self) -> bool:
        return self.group_inner == len(self.full)

    def group_of(self, dim: int) -> str:
        return "o" if dim < self.group_reduce else ("r" if dim < self.group_inner else "i")

    def groups(self, node: torch.fx.Node) -> frozenset:
        """The groups a node's value spans."""
        return frozenset(self.group_of(d) for d in self.maps[node] if d is not None)


def _folds(graph: torch.fx.Graph) -> list[torch.fx.Node]:
    return [n for n in graph.nodes if n.op == "call_function" and str(n.target) in FOLDS]


def layout_of(graph: torch.fx.Graph) -> Layout:
    folds = _folds(graph)
    outputs = [n for n in torch.utils._pytree.tree_leaves(next(iter(graph.find_nodes(op="output"))).args[0])]
    if folds:
        full = tuple(folds[0].args[0].meta["shape"])
        reduced = set()
        for node in folds:
            shape = node.args[0].meta["shape"]
            dims = _dims(node.args[1] if len(node.args) > 1 else None, len(shape))
            if len(shape) != len(full):
                raise UnsupportedFunction("its reductions read tensors of different ranks")
            reduced.add(tuple(dims))
        if len(reduced) != 1:
            raise UnsupportedFunction("its reductions are over different dimensions; the built-in generator "
                                      "folds one set of dimensions per kernel")
        dims = list(reduced.pop())
        if not dims:
            raise UnsupportedFunction("it reduces a 0-dim tensor inside a larger computation")
        if dims != list(range(dims[0], dims[-1] + 1)):
            raise UnsupportedFunction(f"it reduces over dims {dims}, which are not adjacent")
        layout = Layout(full, dims[0], dims[-1] + 1)
        _map_dims(graph, layout)
    else:
        layout = Layout(_broadcast(*(n.meta["shape"] for n in graph.nodes if "shape" in n.meta)), 0, 0)
        _map_dims(graph, layout)
        layout.group_reduce, layout.group_inner = _coalesced_groups(graph, layout)
    for node in layout.maps:
        _check_spans(layout, node)
    for node in outputs:
        _check_output(layout, node)
    return layout


def _coalesced_groups(graph: torch.fx.Graph, layout: Layout) -> tuple[int, int]:
    """Without reductions: adjacent dims that every input spans alike merge; three groups at most."""
    full = layout.full
    placeholders = list(graph.find_nodes(op="placeholder"))

    def pattern(dim: int) -> tuple:
        return tuple(dim in layout.maps[n] for n in placeholders)

    spanned = [d for d in range(len(full)) if full[d] != 1]
    starts = [d for k, d in enumerate(spanned) if k == 0 or pattern(d) != pattern(spanned[k - 1])]
    if len(starts) > 3:
        raise UnsupportedFunction("its inputs broadcast in more than three different ways across dimensions")
    if len(starts) == 3:
        return starts[1], starts[2]
    if len(starts) == 2:
        return starts[1], starts[1]
    return 0, 0


def _map_dims(graph: torch.fx.Graph, layout: Layout) -> None:
    for node in graph.nodes:
        if "shape" not in node.meta:
            continue
        shape = node.meta["shape"]
        target = str(node.target)
        if node.op == "placeholder":
            mapping = _placeholder_map(node, layout)
        elif target in FOLDS:
            source = layout.maps[node.args[0]]
            dims = _dims(node.args[1] if len(node.args) > 1 else None, len(source))
            keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
            mapping = [None if j in dims else d for j, d in enumerate(source) if keepdim or j not in dims]
        elif target in _VIEWS:
            mapping = _view_map(layout.maps[node.args[0]], node.args[0].meta["shape"], shape)
        else:
            mapping = _elementwise_map(node, layout)
        for j, d in enumerate(mapping):
            if d is not None and (shape[j] != layout.full[d] or (j and mapping[j - 1] is not None and
                                                                  mapping[j - 1] >= d)):
                raise UnsupportedFunction(f"a value of shape {list(shape)} does not line up with the computation's "
                                          f"dimensions {list(layout.full)}")
        layout.maps[node] = mapping


def _placeholder_map(node: torch.fx.Node, layout: Layout) -> list:
    """Right-aligned to the computation, or as its views place it (a [C] bias viewed as [1, C, 1, 1])."""
    shape, rank = node.meta["shape"], len(layout.full)
    if len(shape) > rank:
        raise UnsupportedFunction(f"an input of rank {len(shape)} meets a computation of rank {rank} (a reduction "
                                  "to fewer dimensions combined with larger inputs)")
    aligned = [rank - len(shape) + j if s != 1 else None for j, s in enumerate(shape)]
    if all(d is None or shape[j] == layout.full[d] for j, d in enumerate(aligned)):
        return aligned
    views = [user for user in node.users if str(user.target) in _VIEWS and len(user.meta["shape"]) == rank]
    if not views or len(views) != len(node.users):
        return aligned
    placed = [d for d, s in enumerate(views[0].meta["shape"]) if s != 1]
    if len(placed) != sum(1 for s in shape if s != 1):
        return aligned
    dims = iter(placed)
    return [next(dims) if s != 1 else None for s in shape]


def _view_map(source: list, source_shape: tuple, shape: tuple) -> list:
    kept = [(s, d) for s, d in zip(source_shape, source) if s != 1]
    if [s for s, _ in kept] != [s for s in shape if s != 1]:
        raise UnsupportedFunction("it reshapes a tensor in a way other than adding or removing size-1 dimensions")
    dims = iter(d for _, d in kept)
    return [next(dims) if s != 1 else None for s in shape]


def _elementwise_map(node: torch.fx.Node, layout: Layout) -> list:
    shape = node.meta["shape"]
    mapping: list = [None] * len(shape)
    for arg in node.all_input_nodes:
        if arg not in layout.maps:
            continue
        source = layout.maps[arg]
        for j, d in enumerate(source):
            position = len(shape) - len(source) + j
            if d is None or position < 0:
                continue
            if mapping[position] not in (None, d):
                raise UnsupportedFunction("it combines values whose dimensions do not line up after a reduction "
                                          "without keepdim")
            mapping[position] = d
    return mapping


def _check_spans(layout: Layout, node: torch.fx.Node) -> None:
    """A value must span each group wholly or not at all (its elements are then addressed by group)."""
    mapped = {d for d in layout.maps[node] if d is not None}
    for group in layout.groups(node):
        wanted = {d for d in range(len(layout.full)) if layout.group_of(d) == group and layout.full[d] != 1}
        if not wanted <= mapped:
            raise UnsupportedFunction(f"a value of shape {list(node.meta['shape'])} is broadcast over part of a "
                                      "group of dimensions the built-in generator walks together")


def _check_output(layout: Layout, node) -> None:
    if not isinstance(node, torch.fx.Node):
        raise UnsupportedFunction("it returns a constant")
    spans = layout.groups(node)
    wanted = {layout.group_of(d) for d in range(len(layout.full)) if layout.full[d] != 1}
    if spans != wanted and spans != wanted - {"r"}:
        raise UnsupportedFunction(f"output of shape {list(node.meta['shape'])} is neither the computation's full "
                                  "shape nor its reduced shape")


def level(layout: Layout, node: torch.fx.Node) -> str:
    spans = layout.groups(node)
    if not spans:
        return "scalar"
    return "full" if "r" in spans else "col"


# ---- the plan ------------------------------------------------------------------------------------------


@dataclass
class LoopedPlan:
    graph: torch.fx.Graph  # with composite ops written out
    layout: Layout
    input_modes: tuple[str, ...]  # per input: "step", "unit", "scalar_step", "scalar_unit" or "scalar"
    stages: dict  # node -> reduction level it depends on (a fold's own level included)

    @property
    def passes(self) -> int:
        return max((self.stages[n] for n in _folds(self.graph)), default=0)


def plan_looped(task: KernelTask) -> LoopedPlan:
    """How ``task`` maps onto the looped template; raises UnsupportedFunction with the reason."""
    graph = primitive_graph(task.graph)
    for node in (n for n in graph.nodes if n.op == "call_function"):
        known = str(node.target) in HANDLERS or str(node.target) in FOLDS or str(node.target) in _VIEWS
        if not (known or node.target in (divide_by_count, operator.getitem)):
            raise UnsupportedFunction(f"the built-in generator does not know {node.target}")
    layout = layout_of(graph)
    placeholders = list(graph.find_nodes(op="placeholder"))
    modes = tuple(_input_mode(layout, node) for node in placeholders)
    for spec, mode in zip(task.inputs, modes):
        if spec.dtype == torch.bool and mode == "unit":
            raise UnsupportedFunction("a bool input broadcast over the reduced dimensions is not supported yet")
    for node in graph.nodes:
        if node.op == "call_function" and "shape" not in node.meta and str(node.target) == "aten.sym_size.int":
            if any(str(user.target) not in _SIZE_READERS for user in node.users):
                raise UnsupportedFunction("it computes with a tensor's size, which the looped kernel does not do yet")
    stages: dict = {}
    for node in graph.nodes:
        inputs = [stages[a] for a in node.all_input_nodes if a in stages]
        if node.op in ("placeholder", "call_function"):
            stages[node] = max(inputs, default=0) + (1 if str(node.target) in FOLDS else 0)
    return LoopedPlan(graph, layout, modes, stages)


def _input_mode(layout: Layout, node: torch.fx.Node) -> str:
    spans = layout.groups(node)
    if "r" in spans:
        return "step" if layout.rows or "i" in spans else "scalar_step"
    if "i" in spans:
        return "unit"
    return "scalar_unit" if "o" in spans else "scalar"


def _flags(layout: Layout, node: torch.fx.Node) -> str:
    spans = layout.groups(node)
    return ", ".join("true" if group in spans else "false" for group in "ori")


def ub_bytes(task: KernelTask, plan: LoopedPlan, lowering: Lowering, tile: int, buffers: int) -> int:
    """UB the kernel's InitBuffer calls take, as emit_looped lays them out."""
    col_tile = 8 if plan.layout.rows else tile
    total = 4 * tile * max(1, lowering.slots("full")) + 4 * col_tile * max(1, lowering.slots("col"))
    total += max(1, lowering.slots("mask")) * tile // 8
    for spec, mode in zip(task.inputs, plan.input_modes):
        size = spec.dtype.itemsize
        total += {"step": buffers * tile * size, "unit": tile * (size + 4)}.get(mode, 0)
    for spec, node in zip(task.outputs, _output_nodes(plan.graph)):
        full = level(plan.layout, node) == "full"
        total += spec.dtype.itemsize * (buffers * tile if full else col_tile)
    return total


def _output_nodes(graph: torch.fx.Graph) -> list[torch.fx.Node]:
    return list(torch.utils._pytree.tree_leaves(next(iter(graph.find_nodes(op="output"))).args[0]))


# ---- lowering, pass by pass -----------------------------------------------------------------------------


class LoopLowering(Lowering):
    """Lowering with the looped kernel's value kinds: a reduced ("col") value used in full-size work
    is the same chunk in the columns form and a scalar copy of it in the rows form."""

    def __init__(self, task: KernelTask, plan: LoopedPlan):
        layout = plan.layout
        super().__init__(task, lambda node: "full" if level(layout, node) == "full" else "col", {})
        self.plan = plan
        self.rows = layout.rows
        self.scalar_copies: dict[str, str] = {}

    def broadcast_rows(self, column: Val) -> Val:
        if not self.rows:
            return Val("full", column.expr)
        if column.expr not in self.scalar_copies:
            raise UnsupportedFunction("internal: a reduced value is used before it is final")
        return Val("scalar", self.scalar_copies[column.expr])

    def full_tile(self, value: Val) -> Val:
        if value.kind == "col":
            value = self.broadcast_rows(value)
        return self.splat(value) if value.kind == "scalar" else value

    # -- sections
    def lower_nodes(self, nodes: list[torch.fx.Node], sinks: list[torch.fx.Node] = (), pinned: list[Val] = ()) -> None:
        """Lowers ``nodes`` in order; full-size values die after their last use (``sinks`` use theirs at the
        end, ``pinned`` values are released by the caller)."""
        last_use = {}
        for position, node in enumerate(nodes):
            for used in node.all_input_nodes:
                last_use[used] = position
        for node in sinks:
            last_use[node] = len(nodes)
        holders = {value.expr: 1 for value in pinned}
        for position, node in enumerate(nodes):
            self.values[node] = value = self._lower_one(node)
            if value.kind == "full":
                holders[value.expr] = holders.get(value.expr, 0) + 1
            for used in node.all_input_nodes:
                if last_use.get(used) == position:
                    self._drop(used, holders)
            if node not in last_use:
                self._drop(node, holders)
        self._pending = (holders, sinks)

    def drop_sinks(self) -> None:
        holders, sinks = self._pending
        for node in dict.fromkeys(sinks):
            self._drop(node, holders)

    def _drop(self, node: torch.fx.Node, holders: dict[str, int]) -> None:
        value = self.values.get(node)
        if node.op == "placeholder" or not isinstance(value, Val) or value.kind != "full" or value.expr not in holders:
            return  # an input's chunk is released by the step loop that loaded it
        holders[value.expr] -= 1
        if holders[value.expr] == 0:
            self.release(value)

    def _lower_one(self, node: torch.fx.Node) -> Val:
        if str(node.target) in _VIEWS:
            return self.values[node.args[0]]
        if node.target is divide_by_count:
            self.kind = "col"
            out = self.temp("col")
            self.emit(f"Muls({out.expr}, {self.values[node.args[0]].expr}, 1.0f / (reduceCount_ - "
                      f"{float_literal(node.args[1])}), colCount);")
            return out
        value = self._lower(node)
        if not isinstance(value, Val):
            raise UnsupportedFunction(f"{node.target} has several results, which the looped kernel cannot hold")
        return value

    def scalar_copies_of(self, nodes: list[torch.fx.Node]) -> None:
        """Rows form: reduced values computed just now, copied to scalars for the full-size work after."""
        if not self.rows:
            return
        columns = [self.values[n] for n in nodes if isinstance(self.values.get(n), Val)]
        columns = [v for v in columns if v.kind == "col" and v.slot >= 0 and v.expr not in self.scalar_copies]
        if not columns:
            return
        self.emit("VectorToScalar();")
        for value in columns:
            name = f"rs{len(self.scalar_copies)}"
            self.scalar_copies[value.expr] = name
            self.emit(f"float {name} = colCalc.GetValue({value.slot} * COL_TILE);")
        self.emit("ScalarToVector();")


# ---- emitting -------------------------------------------------------------------------------------------


def emit_looped(task: KernelTask, plan: LoopedPlan, tile: int, buffers: int) -> tuple[str, LoopLowering]:
    """The kernel source for one variant, and the lowering (its scratch counts size the UB)."""
    from torch_ascendgen.generators.builtin.templates import fill_template

    layout, graph = plan.layout, plan.graph
    lo = LoopLowering(task, plan)
    placeholders = list(graph.find_nodes(op="placeholder"))
    outputs = _output_nodes(graph)
    lo.lines.extend(_unit_inputs(lo, placeholders, plan.input_modes))
    for node in graph.nodes:
        if node.op == "call_function" and node not in layout.maps:
            lo.values[node] = Val("size", "0")  # a size read only by views and expands, which ignore it
    col_nodes = [n for n in layout.maps if n.op == "call_function" and level(layout, n) != "full"
                 and str(n.target) not in FOLDS]
    _col_section(lo, [n for n in col_nodes if plan.stages[n] == 0])
    for p in range(plan.passes):
        folds = [n for n in _folds(graph) if plan.stages[n] == p + 1]
        _step_loop(lo, plan, placeholders, folds, [])
        _col_section(lo, [n for n in col_nodes if plan.stages[n] == p + 1])
    full_outputs = [(i, n) for i, n in enumerate(outputs) if level(layout, n) == "full"]
    if full_outputs:
        _step_loop(lo, plan, placeholders, [], full_outputs)
    for i, node in enumerate(outputs):
        if level(layout, node) != "full":
            _store_reduced(lo, task, layout, i, node)
    types, params, args = io_lines(task)
    source = fill_template("looped", {
        "config": "\n".join(_config(task, plan, lo, tile, buffers, types)),
        "init_params": params, "init": "\n".join(_init(task, plan, outputs)),
        "unit": "\n".join(lo.lines), "members": "\n".join(_members(task, plan)),
        "entry_params": params, "entry_args": args,
    })
    return source, lo


def _unit_inputs(lo: LoopLowering, placeholders: list, modes: tuple[str, ...]) -> list[str]:
    """Inputs read once per unit: reduced-shape chunks and per-unit scalars."""
    lines = []
    for i, (node, mode) in enumerate(zip(placeholders, modes)):
        flags = _flags(lo.plan.layout, node)
        if mode == "unit":
            lines += [f"LocalTensor<float> unit{i} = unitBuf{i}_.Get<float>();",
                      f"LoadUnit(qIn{i}_, gmIn{i}_, unit{i}, At({flags}, 0), len_);"]
            lo.values[node] = Val("col", f"unit{i}")
        elif mode == "scalar_unit":
            lines.append(f"float u{i} = static_cast<float>(gmIn{i}_.GetValue(At({flags}, 0)));")
            lo.values[node] = Val("scalar", f"u{i}")
        elif mode == "scalar":
            lo.values[node] = Val("scalar", f"scalar{i}_")
    return lines


def _col_section(lo: LoopLowering, nodes: list[torch.fx.Node]) -> None:
    if nodes:
        lo.kind = "col"
        lo.lower_nodes(nodes)
        lo.scalar_copies_of(nodes)


def _needed(targets: list[torch.fx.Node], layout: Layout) -> set:
    """Full-size nodes the targets need, recomputed in this pass (reduced values are already there)."""
    needed, stack = set(), list(targets)
    while stack:
        node = stack.pop()
        for used in node.all_input_nodes:
            full = used in layout.maps and level(layout, used) == "full"
            if used not in needed and used.op == "call_function" and full:
                needed.add(used)
                stack.append(used)
            elif used.op == "placeholder":
                needed.add(used)
    return needed


def _step_loop(lo: LoopLowering, plan: LoopedPlan, placeholders: list, folds: list, outputs: list) -> None:
    """One pass over the reduced dimension, a chunk per step: folds ``folds`` into accumulators and stores
    ``outputs`` (index, node) chunk by chunk."""
    targets = folds + [node for _, node in outputs]
    needed = _needed(targets, plan.layout) | {n for n in targets if level(plan.layout, n) == "full"}
    accumulators, lanes = _start_folds(lo, folds)
    lo.emit("for (uint32_t r = 0; r < reduce_; r += Step()) {")
    lo.emit("uint32_t count = Count(r);")
    frees = _load_step_inputs(lo, plan, placeholders, needed)
    step_inputs = [n for n in placeholders if n in needed and lo.values[n].kind == "full"]
    body = [n for n in plan.graph.nodes if n in needed and n.op == "call_function"]
    lo.kind = "full"
    lo.lower_nodes(body, sinks=[n.args[0] for n in folds] + [n for _, n in outputs],
                   pinned=[lo.values[n] for n in step_inputs])
    for fold in folds:
        _fold(lo, fold, lanes.get(fold, accumulators[fold]))
    for index, node in outputs:
        _store_full(lo, index, node)
    lo.drop_sinks()
    for node in step_inputs:
        lo.release(lo.values[node])
    for line in frees:
        lo.emit(line)
    lo.emit("}")
    _finish_folds(lo, folds, accumulators, lanes)


def _start_folds(lo: LoopLowering, folds: list) -> tuple[dict, dict]:
    """Per fold, an accumulator set to the fold's start value; in the rows form also a chunk of lanes, one partial
    result per lane, reduced once after the loop."""
    accumulators, lanes = {}, {}
    for fold in folds:
        start = _FOLD_START[FOLDS[str(fold.target)]]
        accumulators[fold] = lo.temp("col")
        if lo.rows:
            lanes[fold] = lo.temp("full")
            lo.emit(f"Duplicate({lanes[fold].expr}, {start}, chunk_);")
        else:
            lo.emit(f"Duplicate({accumulators[fold].expr}, {start}, colCount);")
    return accumulators, lanes


def _load_step_inputs(lo: LoopLowering, plan: LoopedPlan, placeholders: list, needed: set) -> list[str]:
    """Reads this step's chunk (or scalar) of each input the pass needs; returns the lines that free the chunks."""
    lo.kind = "full"  # widening the inputs below works on whole chunks
    frees = []
    for i, (node, mode) in enumerate(zip(placeholders, plan.input_modes)):
        if node not in needed:
            continue
        flags = _flags(plan.layout, node)
        if mode == "step":
            lo.emit(f"Load(qIn{i}_, gmIn{i}_, At({flags}, r), count);")
            lo.emit(f"LocalTensor<In{i}> in{i} = qIn{i}_.DeQue<In{i}>();")
            frees.append(f"qIn{i}_.FreeTensor(in{i});")
            lo.values[node] = _widened(lo, i, lo.task.inputs[i].dtype)
        elif mode == "scalar_step":
            lo.emit(f"float s{i} = static_cast<float>(gmIn{i}_.GetValue(At({flags}, r)));")
            lo.values[node] = Val("scalar", f"s{i}")
    return frees


def _finish_folds(lo: LoopLowering, folds: list, accumulators: dict, lanes: dict) -> None:
    """After the loop: reduces each fold's lanes into its accumulator, scales means, and makes the folds' values."""
    for fold, lane in lanes.items():
        work = lo.temp("full")
        lo.emit(f"{_FOLD_REDUCE[FOLDS[str(fold.target)]]}({accumulators[fold].expr}, {lane.expr}, {work.expr}, "
                "reduce_ < chunk_ ? reduce_ : chunk_);")
        lo.release(work)
        lo.release(lane)
    for fold, acc in accumulators.items():
        if FOLDS[str(fold.target)] == "mean":
            lo.emit(f"Muls({acc.expr}, {acc.expr}, invReduce_, colCount);")
        lo.values[fold] = acc
    lo.scalar_copies_of(folds)


def _widened(lo: LoopLowering, i: int, dtype: torch.dtype) -> Val:
    if dtype == torch.float32:
        return Val("full", f"in{i}")
    wide = lo.temp("full")
    widen(lo, wide, f"in{i}", dtype)
    return wide


def _fold(lo: LoopLowering, fold: torch.fx.Node, acc: Val) -> None:
    op = FOLDS[str(fold.target)]
    lo.kind = "full"
    source = lo.values[fold.args[0]]
    tile = lo.full_tile(source)
    lo.emit(f"{_FOLD_VECTOR[op]}({acc.expr}, {acc.expr}, {tile.expr}, count);")
    if tile is not source and tile.slot >= 0 and tile.kind == "full" and tile.expr != source.expr:
        lo.release(tile)


def _store_full(lo: LoopLowering, index: int, node: torch.fx.Node) -> None:
    lo.kind = "full"
    value = lo.values[node]
    tile = lo.full_tile(value)
    flags = _flags(lo.plan.layout, node)
    lo.emit(f"LocalTensor<Out{index}> out{index} = qOut{index}_.AllocTensor<Out{index}>();")
    lo.emit(_convert(f"out{index}", tile.expr, lo.task.outputs[index].dtype, "count"))
    lo.emit(f"qOut{index}_.EnQue(out{index});")
    lo.emit(f"Store(qOut{index}_, gmOut{index}_, At({flags}, r), count);")
    if tile is not value and tile.slot >= 0 and tile.expr != value.expr:
        lo.release(tile)


def _store_reduced(lo: LoopLowering, task: KernelTask, layout: Layout, index: int, node: torch.fx.Node) -> None:
    lo.kind = "col"
    value = lo.values[node]
    if value.kind == "scalar":
        value = lo.splat(value)
    flags = _flags(layout, node)
    lo.emit(f"LocalTensor<Out{index}> red{index} = qOut{index}_.AllocTensor<Out{index}>();")
    lo.emit(_convert(f"red{index}", value.expr, task.outputs[index].dtype, "colCount"))
    lo.emit(f"qOut{index}_.EnQue(red{index});")
    lo.emit(f"Store(qOut{index}_, gmOut{index}_, At({flags}, 0), colCount);")


def _convert(dst: str, src: str, dtype: torch.dtype, count: str) -> str:
    if dtype == torch.float32:
        return f"Muls({dst}, {src}, 1.0f, {count});"
    return f"Cast({dst}, {src}, RoundMode::CAST_RINT, {count});"


def _config(task: KernelTask, plan: LoopedPlan, lo: LoopLowering, tile: int, buffers: int,
            types: list[str]) -> list[str]:
    layout = plan.layout
    lines = [f"constexpr bool ROWS = {'true' if layout.rows else 'false'};", f"constexpr uint32_t TILE = {tile};",
             f"constexpr int32_t BUFFER_NUM = {buffers};",
             f"constexpr uint32_t TEMPS = {max(1, lo.slots('full'))};",
             f"constexpr uint32_t COL_TEMPS = {max(1, lo.slots('col'))};",
             f"constexpr uint32_t MASKS = {max(1, lo.slots('mask'))};",
             "constexpr uint32_t MASK_BYTES = TILE / 8;", "using ComputeT = float;"]
    lines += types
    lines += [f"constexpr int32_t FULL_RANK = {len(layout.full)};",
              f"constexpr int32_t GROUP_REDUCE = {layout.group_reduce};",
              f"constexpr int32_t GROUP_INNER = {layout.group_inner};"]
    return lines + _full_dims_function(task, plan)


def _full_dims_function(task: KernelTask, plan: LoopedPlan) -> list[str]:
    """C++ that reads each dimension's size from a tensor that spans it (inputs first, then outputs)."""
    layout = plan.layout
    tensors = [*plan.graph.find_nodes(op="placeholder"), *_output_nodes(plan.graph)]
    ranks = [len(node.meta["shape"]) for node in tensors]
    lines = ["inline bool FullDims(int32_t tensorCount, const int32_t* ranks, const int64_t* dims, int64_t* full)",
             "{", f"    if (tensorCount != {len(tensors)}) return false;"]
    lines += [f"    if (ranks[{t}] != {rank}) return false;" for t, rank in enumerate(ranks)]
    for d, size in enumerate(layout.full):
        if isinstance(size, int):
            lines.append(f"    full[{d}] = {size};")
            continue
        source = next(((t, j) for t, node in enumerate(tensors) for j, m in enumerate(layout.maps[node]) if m == d),
                      None)
        if source is None:
            raise UnsupportedFunction(f"no input or output spans dimension {d} of the computation")
        t, j = source
        lines.append(f"    full[{d}] = dims[{sum(ranks[:t]) + j}];")
    lines += ["    (void)dims;", "    return true;", "}"]
    return lines


def _init(task: KernelTask, plan: LoopedPlan, outputs: list) -> list[str]:
    lines = []
    for i, mode in enumerate(plan.input_modes):
        if mode == "scalar":
            lines.append(f"{{ GlobalTensor<In{i}> g; g.SetGlobalBuffer((__gm__ In{i}*)in{i}, 1); "
                         f"scalar{i}_ = static_cast<float>(g.GetValue(0)); }}")
            continue
        lines.append(f"gmIn{i}_.SetGlobalBuffer((__gm__ In{i}*)in{i});")
        if mode == "step":
            lines.append(f"pipe_.InitBuffer(qIn{i}_, BUFFER_NUM, TILE * sizeof(In{i}));")
        elif mode == "unit":
            lines += [f"pipe_.InitBuffer(qIn{i}_, 1, TILE * sizeof(In{i}));",
                      f"pipe_.InitBuffer(unitBuf{i}_, TILE * sizeof(float));"]
    for i, node in enumerate(outputs):
        size = "TILE" if level(plan.layout, node) == "full" else "COL_TILE"
        buffers = "BUFFER_NUM" if size == "TILE" else "1"
        lines += [f"gmOut{i}_.SetGlobalBuffer((__gm__ Out{i}*)out{i});",
                  f"pipe_.InitBuffer(qOut{i}_, {buffers}, {size} * sizeof(Out{i}));"]
    return lines


def _members(task: KernelTask, plan: LoopedPlan) -> list[str]:
    lines = []
    for i, mode in enumerate(plan.input_modes):
        if mode == "scalar":
            lines.append(f"float scalar{i}_ = 0.0f;")
            continue
        lines.append(f"GlobalTensor<In{i}> gmIn{i}_;")
        if mode in ("step", "unit"):
            lines.append(f"TQue<QuePosition::VECIN, 1> qIn{i}_;")
        if mode == "unit":
            lines.append(f"TBuf<QuePosition::VECCALC> unitBuf{i}_;")
    for i in range(len(task.outputs)):
        lines += [f"TQue<QuePosition::VECOUT, 1> qOut{i}_;", f"GlobalTensor<Out{i}> gmOut{i}_;"]
    return lines
