"""Decompositions the loop lowering uses instead of Inductor's own: the variance from scaled deviations.

Inductor lowers var/var_mean (and so layer_norm, group_norm, instance norm) to a Welford reduction whose sum of
squared deviations is a float32 value: where the deviations are past ~1e18 it overflows although the variance, which
PyTorch accumulates in double, does not. Here the deviations are divided by their largest magnitude first and the
scale multiplied back into the root, so the variance is infinite only where PyTorch's is; std is that root itself.
"""

from __future__ import annotations

import torch

aten = torch.ops.aten


def _reduced(x: torch.Tensor, dim) -> list[int]:
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(x.dim()))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted({d % max(x.dim(), 1) for d in dims})


def _scaled_root(x: torch.Tensor, dim, correction, keepdim: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """(std, mean) over ``dim`` in float32 (float64 stays float64), keepdim'd as asked. The deviations are taken of
    x / max|x|, so that neither they nor their squares overflow where PyTorch's double accumulator does not."""
    work = x if x.dtype in (torch.float32, torch.float64) else x.to(torch.float32)
    dims = _reduced(x, dim)
    count = 1
    for d in dims:
        count = count * x.shape[d]
    correction = 1 if correction is None else correction
    mean = (work / count).sum(dims, keepdim=True)  # a sum of huge values would overflow where their mean does not
    scale = work.abs().amax(dims, keepdim=True)
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # all zeros: zero deviations, not 0 / 0
    scaled = work / scale
    centered = scaled - (scaled / count).sum(dims, keepdim=True)
    squares = (centered * centered).sum(dims, keepdim=True)
    root = scale * torch.sqrt(squares / (count - correction))
    if not keepdim:
        root, mean = root.squeeze(dims), mean.squeeze(dims)
    return root, mean


def _var_mean(x, dim=None, *, correction=None, keepdim=False):
    root, mean = _scaled_root(x, dim, correction, keepdim)
    return (root * root).to(x.dtype), mean.to(x.dtype)


def _var(x, dim=None, *, correction=None, keepdim=False):
    root, _ = _scaled_root(x, dim, correction, keepdim)
    return (root * root).to(x.dtype)


def _std(x, dim=None, *, correction=None, keepdim=False):
    root, _ = _scaled_root(x, dim, correction, keepdim)
    return root.to(x.dtype)


def variance_decompositions() -> dict:
    """The table entries that replace Inductor's for float inputs (integer ones keep Inductor's)."""
    return {aten.var_mean.correction: _float_only(_var_mean, aten.var_mean.correction),
            aten.var.correction: _float_only(_var, aten.var.correction),
            aten.std.correction: _float_only(_std, aten.std.correction)}


def _float_only(decomposition, op):
    def run(x, *args, **kwargs):
        if not x.is_floating_point():
            return NotImplemented
        return decomposition(x, *args, **kwargs)

    return run


def roots_of_variances(graph_module: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """A copy of the graph with sqrt(var(x)) as std(x): capture's decompositions write std that way, and the square
    of a standard deviation past ~1.8e19 overflows float32 where the deviation itself does not."""
    graph = torch.fx.Graph()
    mapping: dict = {}
    output = graph.graph_copy(graph_module.graph, mapping)
    graph.output(output)
    for node in list(graph.nodes):
        source = node.args[0] if node.op == "call_function" and node.args else None
        if (node.target is aten.sqrt.default and isinstance(source, torch.fx.Node)
                and source.target is aten.var.correction and len(source.users) == 1):
            with graph.inserting_before(node):
                std = graph.call_function(aten.std.correction, source.args, dict(source.kwargs))
            std.meta = dict(node.meta)
            node.replace_all_uses_with(std)
            graph.erase_node(node)
            graph.erase_node(source)
    return torch.fx.GraphModule(graph_module, graph)
