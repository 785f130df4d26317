"""Stages: a captured graph cut at its sorts, top-ks and histograms, so that each becomes its own kernel task.

A sort, top-k or histogram needs every value of its rows before it can give one result, and torch's order among
equal values needs the values exactly as they are: the built-in generator writes those ops as kernels of their
own (generators/builtin/sort.py), on a kernel input. A function that computes around them (MoE gating: a softmax,
its top-k, the weights renormalized) is cut into stages: the work before a sort, the sort, the work after it, in
the graph's order, each stage a GraphModule whose inputs are the function's tensors or earlier stages' results.
Dispatch gives each stage its kernel and runs them in turn (frontends/dispatch.py).

An op whose result's size depends on values (nonzero, bincount, ...: sized.py) is cut out the same way, and a graph
holding one is always run as stages: its size is known only once the stages before it have run.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import torch
import torch.fx
from torch.fx.passes.split_module import split_module

from torch_ascendgen.capture.sized import SIZED_OPS
from torch_ascendgen.errors import UnsupportedFunction

STAGE_OPS = frozenset({"aten.sort.default", "aten.sort.stable", "aten.topk.default", "aten.histc.default",
                       *SIZED_OPS})


@dataclass(frozen=True)
class Stages:
    """The graph as stages: ``top`` calls the ``modules`` (its submodules, by name) in order."""

    top: torch.fx.GraphModule
    names: tuple[str, ...]  # the submodules top calls, in order

    def module(self, name: str) -> torch.fx.GraphModule:
        return getattr(self.top, name)


def needs_stages(graph_module: torch.fx.GraphModule) -> bool:
    """Whether the graph holds a sort, top-k or histogram together with other work (a second one, or anything it is
    computed from or feeds); a graph that is one such op of an input is one kernel."""
    nodes = [n for n in graph_module.graph.nodes if n.op == "call_function"]
    ops = [n for n in nodes if str(n.target) in STAGE_OPS]
    if not ops:
        return False
    if any(str(n.target) in SIZED_OPS for n in ops):
        return True
    others = [n for n in nodes if n not in ops and not _is_result_of(n, ops)]
    return len(ops) > 1 or bool(others) or any(_source(op).op != "placeholder" for op in ops)


def split_stages(graph_module: torch.fx.GraphModule) -> Stages:
    """The graph cut before and after each sort, top-k and histogram (with the getitems of its results). Raises
    UnsupportedFunction when a stage would hand a later one something other than tensors (a size computed in the
    graph): stages take and give tensors only."""
    graph_module = _copy(graph_module)
    partition: dict[torch.fx.Node, int] = {}
    current = 0
    for node in graph_module.graph.nodes:
        if node.op != "call_function":
            continue
        if str(node.target) in STAGE_OPS:
            current += 1
            partition[node] = current
            current += 1
        elif _is_result_of(node, list(partition)) and partition[node.args[0]] % 2:
            partition[node] = partition[node.args[0]]
        else:
            partition[node] = current
    _localize_sizes(graph_module.graph, partition)
    crossing = [n for n in partition if any(u in partition and partition[u] != partition[n] for u in n.users)]
    if any(not _is_tensor(n) for n in crossing if not _is_result_of(n, list(partition))):
        raise UnsupportedFunction("it sorts (or takes a top-k or histogram) between computations that pass "
                                      "sizes computed in the graph from one to the other; the built-in generator "
                                      "cuts such functions into kernels that pass tensors only")
    top = split_module(graph_module, None, lambda node: partition[node], keep_original_order=True)
    return Stages(top, tuple(str(n.target) for n in top.graph.nodes if n.op == "call_module"))


def sized_node(module: torch.fx.GraphModule) -> torch.fx.Node | None:
    """The stage's data-dependent op (sized.py), None for a stage without one."""
    return next((n for n in module.graph.nodes if n.op == "call_function" and str(n.target) in SIZED_OPS), None)


def _copy(graph_module: torch.fx.GraphModule) -> torch.fx.GraphModule:
    graph = torch.fx.Graph()
    graph.output(graph.graph_copy(graph_module.graph, {}))
    return torch.fx.GraphModule(graph_module, graph)


def _localize_sizes(graph: torch.fx.Graph, partition: dict[torch.fx.Node, int]) -> None:
    """Sizes (sym_size and arithmetic on them) used in another stage than theirs are computed again there, from the
    tensors they come from, so that stages pass tensors only."""
    copies: dict[tuple[torch.fx.Node, int], torch.fx.Node] = {}

    def local(node: torch.fx.Node, where: int, before: torch.fx.Node) -> torch.fx.Node:
        if not isinstance(node, torch.fx.Node) or _is_tensor(node) or partition.get(node, where) == where:
            return node
        if (node, where) not in copies:
            with graph.inserting_before(before):
                copy = graph.node_copy(node, lambda arg: local(arg, where, before))
            partition[copy] = where
            copies[(node, where)] = copy
        return copies[(node, where)]

    for user in list(partition):
        for arg in user.all_input_nodes:
            if arg in partition and not _is_tensor(arg) and partition[arg] != partition[user]:
                user.replace_input_with(arg, local(arg, partition[user], user))


def _source(node: torch.fx.Node) -> torch.fx.Node:
    source = node.args[0]
    return source if isinstance(source, torch.fx.Node) else node


def _is_result_of(node: torch.fx.Node, ops: list[torch.fx.Node]) -> bool:
    return node.target is operator.getitem and node.args[0] in ops


def _is_tensor(node: torch.fx.Node) -> bool:
    return isinstance(node.meta.get("val"), torch.Tensor)
