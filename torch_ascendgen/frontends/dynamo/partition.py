"""Partitioning a core-ATen graph into regions the built-in generator may take.

Ops it lowers (elementwise, reductions, softmax, norms, losses) are grown greedily into regions along producer ->
consumer edges, as long as a region keeps one reduction domain and shapes the templates take (full, per-row,
whole-row, one-element), and never so that a region would both feed and depend on an eager op. A matrix product
(mm, bmm, addmm) the matmul kernel can take (generators/builtin/matmul.py: float operands, a row of at most
MAX_COLS elements, K at most MAX_K) starts a region of its own, with the views that lay out its operands and the
reshapes after it; the work after it then grows into that region as into any other (its epilogue), one product a
region, and only after the product: nothing in a region feeds a product's operands.
"""

from __future__ import annotations

import itertools
import operator

import torch
import torch.fx

from torch_ascendgen.generators.builtin.generator import lowered_ops
from torch_ascendgen.generators.builtin.matmul import MAX_COLS, MAX_K, PRODUCTS, RESHAPES, VIEWS
from torch_ascendgen.generators.builtin.ops import REDUCTIONS, reduced_dims

FREE_OPS = {"getitem", "aten.expand.default", "aten.clone.default"}  # no data moved in eager, no region op
_FLOAT_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
_LOWERED = lowered_ops()  # the ops a region may hold


def node_name(node: torch.fx.Node) -> str:
    return "getitem" if node.target is operator.getitem else str(node.target)


def fusible(node: torch.fx.Node) -> bool:
    """An op the built-in generator lowers, on float (or bool) tensors, with only tensors as node arguments."""
    if node.op != "call_function" or node_name(node) not in _LOWERED:
        return False
    values = node.meta.get("val")
    values = values if isinstance(values, (tuple, list)) else (values,)
    if not values or not all(isinstance(v, torch.Tensor) and (v.dtype in _FLOAT_DTYPES or v.dtype == torch.bool)
                             for v in values if v is not None):
        return False
    arguments = list(node.all_input_nodes)
    if node_name(node) == "getitem":
        return True
    for argument in arguments:
        value = argument.meta.get("val")
        if not isinstance(value, torch.Tensor) or value.dtype not in (*_FLOAT_DTYPES, torch.bool):
            return False
    return bool(arguments)


def partition(graph: torch.fx.GraphModule) -> list[list[torch.fx.Node]]:
    """The graph's regions: lists of nodes in graph order, grown greedily from producers to consumers."""
    order = {node: index for index, node in enumerate(graph.graph.nodes)}
    new_id = itertools.count()
    region_of: dict[torch.fx.Node, int] = {}
    regions: dict[int, list[torch.fx.Node]] = {}
    for node in graph.graph.nodes:
        seed = product_seed(node)
        if seed is not None and not any(n in region_of for n in seed):
            keep = next(new_id)
            region_of.update({n: keep for n in seed})
            regions[keep] = sorted(seed, key=order.__getitem__)
            continue
        if not fusible(node) or node in region_of:
            continue
        if node_name(node) == "getitem":
            source = node.args[0]
            if source in region_of:
                region_of[node] = region_of[source]
                regions[region_of[source]].append(node)
            continue
        producers = list(dict.fromkeys(region_of[a] for a in node.all_input_nodes if a in region_of))
        choices = ([producers] if len(producers) > 1 else []) + sorted(([p] for p in producers),
                                                                        key=lambda ids: -len(regions[ids[0]]))
        for ids in choices:
            merged = [n for i in ids for n in regions[i]] + [node]
            if _shapes_fit(merged) and not _creates_cycle(merged, order):
                keep = ids[0]
                for other in ids[1:]:
                    for n in regions.pop(other):
                        region_of[n] = keep
                regions[keep] = sorted(merged, key=order.__getitem__)
                region_of[node] = keep
                break
        else:
            if node_name(node) in FREE_OPS:
                continue  # a view or copy on its own is no region
            if _joins_without_product(node, producers, regions, region_of, order):
                continue
            region_of[node] = next(new_id)
            regions[region_of[node]] = [node]
    result = [nodes for nodes in regions.values() if any(node_name(n) != "getitem" for n in nodes)]
    return sorted([nodes for nodes in result if not _bare_product(nodes)], key=lambda nodes: order[nodes[0]])


def _bare_product(nodes: list[torch.fx.Node]) -> bool:
    """A region that is a matrix product and views alone: nothing to fuse into it, eager's own kernel runs it."""
    epilogue, start = epilogue_of(nodes)
    return start is not None and all(node_name(n) in FREE_OPS for n in epilogue)


def _joins_without_product(node: torch.fx.Node, producers: list[int], regions: dict, region_of: dict,
                           order: dict) -> bool:
    """Whether ``node``, which fits no producer's region, joins the epilogue of a producer's matrix product once the
    product leaves it (a loss reduced over all elements after a Linear: the whole loss one kernel, the product
    eager, as the matmul kernel's epilogue reduces rows only). Done in place when it does."""
    for rid in producers:
        epilogue, start = epilogue_of(regions[rid])
        merged = [*epilogue, node]
        if start is None or not _shapes_fit(merged) or _creates_cycle(merged, order):
            continue
        for dropped in set(regions[rid]) - set(epilogue):
            del region_of[dropped]
        regions[rid] = sorted(merged, key=order.__getitem__)
        region_of[node] = rid
        return True
    return False


def product_seed(node: torch.fx.Node) -> list[torch.fx.Node] | None:
    """A matrix product the matmul kernel can take, with the views between it and its operands' sources (each read
    by the next step alone) and the reshapes it alone goes through after it; None for any other node."""
    if node.op != "call_function" or node_name(node) not in PRODUCTS or node.kwargs:
        return None
    value = node.meta.get("val")
    operands = node.args[1:3] if node_name(node) == "aten.addmm.default" else node.args[:2]
    if not isinstance(value, torch.Tensor) or value.dtype not in _FLOAT_DTYPES or len(operands) != 2:
        return None
    first = operands[0].meta.get("val") if isinstance(operands[0], torch.fx.Node) else None
    if not isinstance(first, torch.Tensor) or _hint(value.shape[-1]) > MAX_COLS or _hint(first.shape[-1]) > MAX_K:
        return None
    chain: list[torch.fx.Node] = []
    for operand in operands:
        while (isinstance(operand, torch.fx.Node) and operand.op == "call_function"
               and node_name(operand) in VIEWS and len(operand.users) == 1):
            chain.append(operand)
            operand = operand.args[0]
    after = [node]
    while len(after[-1].users) == 1:
        user = next(iter(after[-1].users))
        if user.op != "call_function" or node_name(user) not in RESHAPES:
            break
        after.append(user)
    return [*chain, *after]


def epilogue_of(nodes: list[torch.fx.Node]) -> tuple[list[torch.fx.Node], torch.fx.Node | None]:
    """A region's nodes after its matrix product (its epilogue), and the product as the epilogue reads it (after
    its reshapes); (nodes, None) for a region without a product."""
    products = [n for n in nodes if n.op == "call_function" and node_name(n) in PRODUCTS]
    if not products:
        return nodes, None
    seed = product_seed(products[0]) or [products[0]]
    start = seed[-1]
    taken = set(seed)
    return [n for n in nodes if n not in taken], start


def _hint(size) -> int:
    from torch.fx.experimental.symbolic_shapes import optimization_hint

    return optimization_hint(size, fallback=8) if isinstance(size, torch.SymInt) else int(size)


def _creates_cycle(nodes: list[torch.fx.Node], order: dict) -> bool:
    """Whether some node outside ``nodes`` depends on one of them and feeds another (the region could then not
    run as one call)."""
    members = set(nodes)
    last = max(order[n] for n in nodes)
    stack = [u for n in nodes for u in n.users if u not in members and order[u] < last]
    seen: set[torch.fx.Node] = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for user in node.users:
            if user in members:
                return True
            if order[user] < last:
                stack.append(user)
    return False


def collapsed_acyclic(graph: torch.fx.GraphModule, regions: list[list[torch.fx.Node]]) -> bool:
    """Whether the graph stays acyclic with each region collapsed into one node (Kahn's algorithm)."""
    group = {node: ("region", index) for index, nodes in enumerate(regions) for node in nodes}
    edges: dict = {}
    indegree: dict = {}
    for node in graph.graph.nodes:
        source = group.get(node, node)
        indegree.setdefault(source, 0)
        for user in node.users:
            sink = group.get(user, user)
            if sink != source and sink not in edges.setdefault(source, set()):
                edges[source].add(sink)
                indegree[sink] = indegree.get(sink, 0) + 1
    ready = [vertex for vertex, count in indegree.items() if count == 0]
    visited = 0
    while ready:
        vertex = ready.pop()
        visited += 1
        for sink in edges.get(vertex, ()):
            indegree[sink] -= 1
            if indegree[sink] == 0:
                ready.append(sink)
    return visited == len(indegree)


def _shape(value) -> tuple[str, ...]:
    return tuple(str(size) for size in value.shape)


def _ones(shape: tuple[str, ...]) -> bool:
    return all(size == "1" for size in shape)


def _reduction_domain(node: torch.fx.Node) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The shape a reduction reads and the dims it reduces."""
    full = _shape(node.args[0].meta["val"])
    return full, reduced_dims(node, len(full))


def _shapes_fit(nodes: list[torch.fx.Node]) -> bool:
    """Whether a region keeps shapes the templates take: one reduction domain; every value and input full, per row
    (the reduced dims kept as 1, or dropped), a whole row broadcast, or one element. In a region with a matrix
    product this holds for its epilogue, the product (as the epilogue reads it) among the values; its domain, if it
    reduces, is the product's rows."""
    if sum(1 for n in nodes if n.op == "call_function" and node_name(n) in PRODUCTS) > 1:
        return False
    nodes, start = epilogue_of(nodes)
    members = set(nodes) | ({start} if start is not None else set())
    reductions = [n for n in nodes if node_name(n) in REDUCTIONS]
    domains = {_reduction_domain(n) for n in reductions}
    if len(domains) > 1 or start is not None and any(dims != (len(full) - 1,) for full, dims in domains):
        return False
    values = [n.meta["val"] for n in (*nodes, *([start] if start is not None else []))
              if isinstance(n.meta.get("val"), torch.Tensor)]
    inputs = [a.meta["val"] for n in nodes for a in n.all_input_nodes if a not in members]
    if domains:
        (full, dims), = domains
        kept = tuple("1" if i in dims else s for i, s in enumerate(full))
        dropped = tuple(s for i, s in enumerate(full) if i not in dims)
        per_row = {kept, dropped}
    else:
        full = max((_shape(v) for v in values), key=len)
        per_row = set()
    for value in values:
        shape = _shape(value)
        if shape != full and shape not in per_row and not _ones(shape):
            return False
    for value in inputs:
        shape = _shape(value)
        if shape == full or shape in per_row or _ones(shape):
            continue
        if len(shape) <= len(full) and shape == full[len(full) - len(shape):]:
            continue  # a whole row (or trailing block) broadcast over the leading dims
        return False
    return True


def without_broadcast_sources(nodes: list[torch.fx.Node]) -> list[list[torch.fx.Node]]:
    """The region's connected parts once the ops that start it from a broadcast input (a bias, a row) are taken
    out: what the built-in generator is likelier to take (a loss reduced over all elements, say)."""
    members = set(nodes)
    values = [n.meta["val"] for n in nodes if isinstance(n.meta.get("val"), torch.Tensor)]
    full = max((_shape(v) for v in values), key=len, default=())
    dropped = set()
    for node in nodes:
        external = [a for a in node.all_input_nodes if a not in members]
        if len(external) == len(node.all_input_nodes) and any(
                _shape(a.meta["val"]) != full and not _ones(_shape(a.meta["val"])) for a in external):
            dropped.add(node)
    if not dropped:
        return []
    kept = [n for n in nodes if n not in dropped]
    parts: list[list[torch.fx.Node]] = []
    seen: set[torch.fx.Node] = set()
    order = {node: index for index, node in enumerate(nodes[0].graph.nodes)}
    for node in kept:
        if node in seen:
            continue
        component, stack = [], [node]
        while stack:
            current = stack.pop()
            if current in seen or current not in members or current in dropped:
                continue
            seen.add(current)
            component.append(current)
            stack += [*current.all_input_nodes, *current.users]
        component.sort(key=order.__getitem__)
        if any(node_name(n) not in FREE_OPS for n in component) and not _creates_cycle(component, order):
            parts.append(component)
    return parts
