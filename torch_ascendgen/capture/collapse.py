"""Rank collapsing: one task for every rank of a computation that treats groups of contiguous dimensions alike.

A computation collapses when it provably does not depend on how its sizes are split into dimensions:

- **one group** (an elementwise chain, and reductions over all elements): every op is pointwise (its ``pointwise``
  tag), a cast, a scalar constant or a reduction over every element, and every tensor has the full (broadcast)
  shape or one element. The task is the 1-D computation: full tensors become ``[n]`` (``n`` their element count, 1
  too: rank 0 is the same kernel), one-element tensors ``[1]``, 0-dim ones stay 0-dim (type promotion tells them
  apart);
- **two groups** (reductions, softmax, norms over the trailing dimensions): as above, plus reductions over the same
  k trailing dimensions, and every tensor full, one element, or broadcast along whole groups (a weight over the
  trailing dimensions, a value per row). The task is the ``[rows, cols]`` computation, each reduction's dims
  rewritten to the last one.

Anything else (views, indexing, shape-dependent arguments other than the reduced size, guards on the sizes, sizes
that are not plain symbols) stays at its rank. The collapsed graph is traced from a replay of the captured one on
collapsed inputs, and accepted only after two checks: each node's shape as this module propagates it through the
groups is its traced shape, and the replay on fake tensors gives every node the collapsed shape and the dtype the
propagation says (so type promotion did not change).
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field

import torch
import torch.fx

# dims argument of the reductions that may collapse: (position, name, whether it is one dim rather than a list)
_REDUCTIONS = {
    "aten.sum.dim_IntList": (1, "dim", False), "aten.mean.dim": (1, "dim", False),
    "aten.amax.default": (1, "dim", False), "aten.amin.default": (1, "dim", False),
    "aten.var.correction": (1, "dim", False), "aten.var_mean.correction": (1, "dim", False),
    "aten.std.correction": (1, "dim", False), "aten.any.dims": (1, "dim", False),
    "aten.linalg_vector_norm.default": (2, "dim", False), "aten.prod.dim_int": (1, "dim", True),
    "aten.max.dim": (1, "dim", True), "aten.min.dim": (1, "dim", True), "aten.any.dim": (1, "dim", True),
    "aten.all.dim": (1, "dim", True),
}
_REDUCE_ALL = {"aten.sum.default", "aten.mean.default", "aten.prod.default", "aten.max.default",
               "aten.min.default", "aten.any.default", "aten.all.default"}
_ROW_OPS = {"aten._softmax.default", "aten._log_softmax.default", "aten.cumsum.default", "aten.cumprod.default"}
_KEEPDIM_POSITION = 2  # keepdim follows dim in every reduction above but linalg_vector_norm (3) and var (3)
_SIZE_FUNCTIONS = {operator.add, operator.sub, operator.mul, operator.floordiv, operator.truediv, operator.mod,
                   operator.pow, operator.neg, torch.sym_float, torch.sym_int, torch.sym_max, torch.sym_min,
                   torch.sym_sqrt}
_CHECK_SIZES = (7, 11)  # group sizes of the check (distinct primes: a mix-up shows)

Entries = tuple  # per position of the full shape: "F" (its size), 1, or None (absent)


class NotCollapsible(Exception):
    """The computation is not provably the same at every split of its groups (it stays at its rank)."""


@dataclass
class Plan:
    """How a task collapses: the full shape, its groups of positions, and every tensor node's entries."""

    graph: torch.fx.GraphModule
    full: tuple[int | str, ...]
    groups: tuple[tuple[int, ...], ...]
    entries: dict = field(repr=False)
    derived: set = field(default_factory=set, repr=False)  # nodes computed from the call's tensors (not constants)

    @property
    def one_group(self) -> bool:
        return len(self.groups) == 1

    def classes(self, entries: Entries, derived: bool = True) -> list[str]:
        """Per group of ``entries``: "F" (the group's full size), "1", or "-" (absent: dropped). Raises
        NotCollapsible for a group broadcast within itself. At rank 0 (one empty group) a tensor computed from the
        call's tensors is "F" (the task's one dimension) and a constant "-" (it stays 0-dim)."""
        result = []
        for group in self.groups:
            values = [entries[p] for p in group]
            ones = all(self.full[p] == 1 for p in group)
            if not group:
                result.append("F" if derived else "-")
            elif all(v is None for v in values):
                result.append("-")
            elif ones or all(v == "F" or (v in (None, 1) and self.full[p] == 1) for v, p in zip(values, group)):
                result.append("F")
            elif all(v in (None, 1) for v in values):  # leading absent positions broadcast as 1s do
                result.append("1")
            else:
                raise NotCollapsible(f"entries {entries} broadcast within a group of {self.groups}")
        return result

    def group_sizes(self) -> list[int | str]:
        """Each group's size as size text in the call's symbols (a product of its sizes), or 1."""
        result = []
        for group in self.groups:
            factors = [self.full[p] for p in group if self.full[p] != 1]
            result.append("*".join(factors) if factors else 1)
        return result

    def collapsed(self, node: torch.fx.Node, sizes: list, entries: Entries | None = None) -> tuple:
        """The shape of ``node`` (or its part with ``entries``) in the collapsed task, given each group's size."""
        shape = []
        entries = self.entries[node] if entries is None else entries
        for cls, size in zip(self.classes(entries, node in self.derived), sizes):
            if cls == "F":
                shape.append(size)
            elif cls == "1":
                shape.append(1)
        return tuple(shape)


def plan(task) -> Plan | None:
    """How ``task`` (captured at its call's rank, symbolic, without guards) collapses, or None when it does not
    provably collapse or collapsing would not lower its rank."""
    graph = task.graph
    try:
        full = _full_shape(graph)
        reductions = [n for n in graph.graph.nodes if _name(n) in _REDUCTIONS or _name(n) in _ROW_OPS
                      or _name(n) == "aten.native_layer_norm.default"]
        trail = _trailing_count(reductions, full)
        groups = ((tuple(range(len(full))),) if trail == 0 else
                  (tuple(range(len(full) - trail)), tuple(range(len(full) - trail, len(full)))))
        if trail and len(full) - trail < 1:
            return None
        result = Plan(graph, full, groups, {})
        _propagate(result, task.argument_count)
    except NotCollapsible:
        return None
    if result.one_group and len(full) == 1 or not result.one_group and len(full) == 2:
        return None  # already the collapsed form
    return result


def _name(node: torch.fx.Node) -> str:
    return str(node.target) if node.op == "call_function" else ""


def _full_shape(graph: torch.fx.GraphModule) -> tuple:
    """The broadcast shape of every placeholder (right-aligned); every size 1 or a plain symbol."""
    shapes = [node.meta["shape"] for node in graph.graph.nodes if node.op == "placeholder"]
    rank = max(len(s) for s in shapes)
    full: list = [1] * rank
    for shape in shapes:
        for position, size in zip(range(rank - len(shape), rank), shape):
            if not (size == 1 or isinstance(size, str) and size.isidentifier()):
                raise NotCollapsible(f"size {size} is not 1 or a plain symbol")
            if size != 1:
                if full[position] not in (1, size):
                    raise NotCollapsible(f"sizes {full[position]} and {size} at one position")
                full[position] = size
    return tuple(full)


def _trailing_count(reductions: list[torch.fx.Node], full: tuple) -> int:
    """How many trailing positions the reductions reduce (0: none but reductions over everything)."""
    counts = set()
    for node in reductions:
        positions = _reduced_positions(node, len(full))
        if positions is None:
            continue  # over everything
        if positions != list(range(len(full) - len(positions), len(full))):
            raise NotCollapsible(f"{node.target} reduces positions {positions} of rank {len(full)}, not trailing")
        counts.add(len(positions))
    if len(counts) > 1:
        raise NotCollapsible(f"reductions over {sorted(counts)} trailing dimensions")
    return counts.pop() if counts else 0


def _reduced_positions(node: torch.fx.Node, rank: int) -> list[int] | None:
    """The full-shape positions ``node`` reduces, None for everything. Its input must have the full rank."""
    name = _name(node)
    source = node.args[0]
    own = len(source.meta["shape"])
    if name == "aten.native_layer_norm.default":
        dims = list(range(own - len(node.args[1]), own))
    else:
        position, argument, _ = _REDUCTIONS.get(name, (1, "dim", True))
        dims = _argument(node.args, node.kwargs, position, argument)
        if dims is None or dims == []:
            return None
        dims = [dims] if isinstance(dims, int) else list(dims)
        dims = sorted(d % own for d in dims)
    if own != rank:
        if len(dims) == own:
            return None
        raise NotCollapsible(f"{node.target} reduces a tensor of rank {own} inside a rank-{rank} computation")
    if len(dims) == rank and name not in _ROW_OPS:
        return None
    return dims


def _argument(args, kwargs, position: int, name: str, default=None):
    return args[position] if position < len(args) else kwargs.get(name, default)


def _keepdim(node: torch.fx.Node) -> bool:
    name = _name(node)
    position = 3 if name in ("aten.linalg_vector_norm.default", "aten.var.correction", "aten.var_mean.correction",
                             "aten.std.correction") else _KEEPDIM_POSITION
    return bool(_argument(node.args, node.kwargs, position, "keepdim", False))


# ---- propagation: every tensor node's entries, checked against its traced shape -------------------------------


def _propagate(plan: Plan, count: int) -> None:
    rank = len(plan.full)
    for node in plan.graph.graph.nodes:
        if node.op == "placeholder":
            plan.entries[node] = _padded(node.meta["shape"], plan.full)
            if len(plan.derived) < count:
                plan.derived.add(node)
        elif node.op == "call_function":
            entries = _node_entries(plan, node, rank)
            if entries is not None:
                plan.entries[node] = entries
            if any(a in plan.derived for a in node.all_input_nodes):
                plan.derived.add(node)
        elif node.op == "output":
            continue
        if node in plan.entries and not isinstance(node.meta.get("val"), (tuple, list)):
            _require_shape(plan, node)


def _padded(shape: tuple, full: tuple) -> Entries:
    if len(shape) > len(full):
        raise NotCollapsible(f"shape {shape} has more dimensions than the computation's {full}")
    entries = [None] * (len(full) - len(shape))
    for size, full_size in zip(shape, full[len(full) - len(shape):]):
        if size == 1:
            entries.append(1)
        elif size == full_size:
            entries.append("F")
        else:
            raise NotCollapsible(f"size {size} where the computation has {full_size}")
    return tuple(entries)


def _require_shape(plan: Plan, node: torch.fx.Node) -> None:
    entries = plan.entries[node]
    realised = tuple(plan.full[p] if e == "F" else 1 for p, e in enumerate(entries) if e is not None)
    if realised != tuple(node.meta.get("shape", ())):
        raise NotCollapsible(f"{node} has shape {node.meta.get('shape')}, not {realised} as propagated")
    plan.classes(entries, node in plan.derived)  # a broadcast within a group is refused here


def _node_entries(plan: Plan, node: torch.fx.Node, rank: int):
    name = _name(node)
    if name == "aten.sym_size.int" or node.target in _SIZE_FUNCTIONS:
        return None
    if node.target is operator.getitem:
        return plan.entries[node.args[0]][node.args[1]]
    if name in ("aten.scalar_tensor.default", "aten.full.default"):
        shape = node.meta["shape"]
        if any(size != 1 for size in shape):
            raise NotCollapsible(f"{name} makes a tensor of shape {shape}")
        return _padded(shape, plan.full)
    if _pointwise(node):
        operands = [plan.entries[a] for a in node.all_input_nodes if a in plan.entries]
        return _broadcast(operands, rank)
    known = name in _ROW_OPS or name in _REDUCTIONS or name in _REDUCE_ALL or name == "aten.native_layer_norm.default"
    if not known or node.args[0] not in plan.entries:
        raise NotCollapsible(f"{node.target} is not an op rank collapsing knows")
    source = plan.entries[node.args[0]]
    if name in _ROW_OPS:
        return source
    if name == "aten.native_layer_norm.default":
        statistics = tuple(1 if p >= rank - len(node.args[1]) else e for p, e in enumerate(source))
        return (source, statistics, statistics)
    positions = _reduced_positions(node, rank) if name in _REDUCTIONS else None
    positions = [p for p, e in enumerate(source) if e is not None] if positions is None else positions
    kept = _keepdim(node) if name in _REDUCTIONS else False
    reduced = tuple((1 if kept else None) if p in positions else e for p, e in enumerate(source))
    if name in ("aten.var_mean.correction", "aten.max.dim", "aten.min.dim"):
        return (reduced, reduced)
    return reduced


def _pointwise(node: torch.fx.Node) -> bool:
    target = node.target
    tags = getattr(target, "tags", ())
    name = _name(node)
    if name == "aten._to_copy.default":
        return set(node.kwargs) <= {"dtype", "layout", "device", "pin_memory", "non_blocking"} \
            and node.kwargs.get("layout", torch.strided) == torch.strided
    if name == "aten.clone.default":
        return node.kwargs.get("memory_format") in (None, torch.contiguous_format, torch.preserve_format)
    return torch.Tag.pointwise in tags and torch.Tag.nondeterministic_seeded not in tags


def _broadcast(operands: list[Entries], rank: int) -> Entries:
    """Entries of a pointwise result: positions broadcast; an operand missing positions other than leading ones
    (a reduction without keepdim) combines only with operands of the same entries."""
    irregular = [e for e in operands if _gaps(e)]
    if irregular and any(e != irregular[0] for e in operands):
        raise NotCollapsible("a reduced tensor without keepdim broadcast against others")
    result = []
    for position in range(rank):
        values = {e[position] for e in operands}
        result.append("F" if "F" in values else 1 if 1 in values else None)
    return tuple(result)


def _gaps(entries: Entries) -> bool:
    """Whether an absent position follows a present one."""
    present = [e is not None for e in entries]
    return present != sorted(present)


# ---- the replay: the captured graph run on collapsed inputs ------------------------------------------------------


@dataclass(frozen=True)
class _Size:
    """A size read from a node (``sym_size``): its full-shape position and, when its group has that one position,
    its value in the collapsed task."""

    position: int
    value: object


class Replay:
    """Runs the captured graph on collapsed inputs, each reduction's dims rewritten to the collapsed ones; traced by
    make_fx for the collapsed graph and run on fake tensors for the check. ``values``: node -> value."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.values: dict[torch.fx.Node, object] = {}

    def __call__(self, *inputs):
        values = self.values = {}
        feed = iter(inputs)
        groups: dict[int, object] = {}
        for node in self.plan.graph.graph.nodes:
            if node.op == "placeholder":
                values[node] = next(feed)
                self._same_group_sizes(node, groups)
            elif node.op == "call_function":
                values[node] = self._call(node)
            elif node.op == "output":
                return torch.fx.map_arg(node.args[0], lambda n: values[n])
        raise NotCollapsible("the graph has no output")

    def _same_group_sizes(self, node: torch.fx.Node, groups: dict[int, object]) -> None:
        """Every input's size of one group is one size, as in the call (where the group's sizes are the same
        symbols): an input the computation never combines with the others would otherwise get a symbol of its own."""
        sizes = iter(self.values[node].shape)
        for index, cls in enumerate(self.plan.classes(self.plan.entries[node], node in self.plan.derived)):
            if cls == "-":
                continue
            size = next(sizes)
            if cls == "F":
                first = groups.setdefault(index, size)
                if first is not size:
                    torch._check(size == first)

    def _call(self, node: torch.fx.Node):
        name = _name(node)
        args = list(torch.fx.map_arg(node.args, lambda n: self.values[n]))
        kwargs = dict(torch.fx.map_arg(node.kwargs, lambda n: self.values[n]))
        if name == "aten.sym_size.int":
            return self._size(node)
        if name in _REDUCTIONS or name in _ROW_OPS:
            self._rewrite_dims(node, args, kwargs)
        if name == "aten.native_layer_norm.default":
            self._rewrite_normalized_shape(node, args)
        args, kwargs = _plain(args), _plain(kwargs)
        return node.target(*args, **kwargs)

    def _size(self, node: torch.fx.Node) -> _Size:
        source, dim = node.args
        entries = self.plan.entries[source]
        present = [p for p, e in enumerate(entries) if e is not None]
        position = present[dim]
        index, group = self._group_of(source, entries, position)
        value = self.values[source].shape[index] if len(group) == 1 else None
        return _Size(position, value)

    def _group_of(self, source: torch.fx.Node, entries: Entries, position: int) -> tuple[int, tuple[int, ...]]:
        """The collapsed index of the group holding ``position`` in a node with ``entries``, and the group."""
        index = 0
        for cls, group in zip(self.plan.classes(entries, source in self.plan.derived), self.plan.groups):
            if position in group:
                return index, group
            index += cls != "-"
        raise NotCollapsible(f"position {position} is in no group")

    def _rewrite_dims(self, node: torch.fx.Node, args: list, kwargs: dict) -> None:
        """A reduction over the trailing group reduces the collapsed last dim; one over every dim, written with its
        dims, every collapsed dim; one written with no dims (over everything) stays as it is."""
        position, argument, single = _REDUCTIONS.get(_name(node), (1, "dim", True))
        dims = _argument(node.args, node.kwargs, position, argument)
        if dims is None or dims == []:
            return
        rank = len(self.values[node.args[0]].shape)
        if _reduced_positions(node, len(self.plan.full)) is None:
            if single and rank != 1:
                raise NotCollapsible(f"{node.target} over its one dim, which the collapsed task splits")
            new = 0 if single else list(range(rank))
        else:
            last = -1 if all(d < 0 for d in ([dims] if single else dims)) else rank - 1
            new = last if single else [last]
        _set(args, kwargs, position, argument, new)

    def _rewrite_normalized_shape(self, node: torch.fx.Node, args: list) -> None:
        trail = self.plan.groups[-1]
        given = args[1]
        positions = [s.position if isinstance(s, _Size) else None for s in given]
        if self.plan.one_group or positions != list(trail):
            raise NotCollapsible(f"layer_norm's normalized_shape {given} is not the trailing group {trail}")
        args[1] = [self.values[node.args[0]].shape[-1]]


def _set(args: list, kwargs: dict, position: int, name: str, value) -> None:
    if position < len(args):
        args[position] = value
    else:
        kwargs[name] = value


def _plain(value):
    """``value`` with every _Size replaced by its collapsed value (NotCollapsible when its group has several
    positions: a size of the call's own shape that the collapsed task does not have)."""
    if isinstance(value, _Size):
        if value.value is None:
            raise NotCollapsible(f"a size at position {value.position} is used, and its group has several")
        return value.value
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


# ---- the check and the collapsed inputs ---------------------------------------------------------------------------


def check(plan: Plan) -> None:
    """The replay on fake tensors, at group sizes that tell groups apart, gives every node the collapsed shape its
    entries say and its traced dtype; NotCollapsible otherwise."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    sizes = [1 if all(plan.full[p] == 1 for p in g) and not plan.one_group else _CHECK_SIZES[i]
             for i, g in enumerate(plan.groups)]
    replay = Replay(plan)
    placeholders = [n for n in plan.graph.graph.nodes if n.op == "placeholder"]
    with FakeTensorMode():  # shapes and dtypes only, on the devices the graph names
        replay(*[torch.empty(plan.collapsed(n, sizes), dtype=n.meta["val"].dtype) for n in placeholders])
    for node, value in replay.values.items():
        expected = plan.entries.get(node)
        if expected is None or isinstance(value, _Size):
            continue
        pairs = zip(value, expected) if isinstance(value, (tuple, list)) else [(value, expected)]
        originals = node.meta["val"] if isinstance(node.meta["val"], (tuple, list)) else [node.meta["val"]]
        for (got, entries), original in zip(pairs, originals):
            if not isinstance(got, torch.Tensor):
                continue
            expected_shape = plan.collapsed(node, sizes, entries)
            if tuple(got.shape) != expected_shape or got.dtype != original.dtype:
                raise NotCollapsible(f"{node} replays as {got.dtype}{list(got.shape)}, not "
                                     f"{original.dtype}{list(expected_shape)}")


def task_shapes(plan: Plan, count: int) -> tuple[tuple[int | str, ...], ...]:
    """The first ``count`` placeholders' (the call's tensors') shapes in the collapsed task, as size text over the
    call's symbols."""
    sizes = plan.group_sizes()
    placeholders = [n for n in plan.graph.graph.nodes if n.op == "placeholder"][:count]
    return tuple(plan.collapsed(n, sizes) for n in placeholders)


def example_sizes(plan: Plan, binding: dict[str, int]) -> list[int]:
    """Each group's size for tracing the collapsed graph: the call's, but at least 2 where the group is symbolic
    (a one-group computation of one element still gets a symbol: every rank shares its kernel)."""
    result = []
    for text in plan.group_sizes():
        value = math.prod(binding[s] for s in text.split("*")) if isinstance(text, str) else 1
        symbolic = isinstance(text, str) or plan.one_group
        result.append(max(2, value) if symbolic else value)
    return result
