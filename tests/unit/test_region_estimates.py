"""The torch.compile backend's per-shape rule: a region's kernel runs at a shape only where its estimate is not
slower than eager's there (issue 15, item 6), eager's estimate taken at that shape."""

from types import SimpleNamespace

import torch
from torch.fx.experimental.proxy_tensor import make_fx

from torch_ascendgen.frontends.dynamo.region import _slower_than_eager, eager_ns, eager_ns_at
from torch_ascendgen.targets.target import sim_target


def region():
    return make_fx(lambda x, y: torch.relu(x * y + 1.0))(torch.randn(4, 8), torch.randn(4, 8))


def test_eager_at_the_traced_shapes_is_the_graph_estimate():
    graph, target = region(), sim_target("Ascend910B2")
    traced = sum(eager_ns(node, target) for node in graph.graph.nodes)
    assert eager_ns_at(graph, [torch.randn(4, 8), torch.randn(4, 8)], target) == traced


def test_eager_grows_with_the_shape_and_the_graph_keeps_its_metadata():
    graph, target = region(), sim_target("Ascend910B2")
    before = [tuple(n.meta["val"].shape) for n in graph.graph.nodes if "val" in n.meta]
    small = eager_ns_at(graph, [torch.randn(4, 8), torch.randn(4, 8)], target)
    big = eager_ns_at(graph, [torch.randn(512, 1024), torch.randn(512, 1024)], target)
    assert big > small
    assert [tuple(n.meta["val"].shape) for n in graph.graph.nodes if "val" in n.meta] == before


def _compiled(estimate):
    target = SimpleNamespace(kernel_ns=lambda runner, meta, tensors: estimate)
    return SimpleNamespace(target=target, runner=None, entry=SimpleNamespace(meta={}))


def test_a_kernel_slower_than_eager_at_a_shape_is_refused_there():
    graph, target = region(), sim_target("Ascend910B2")
    tensors = [torch.randn(4, 8), torch.randn(4, 8)]
    eager = eager_ns_at(graph, tensors, target)
    assert _slower_than_eager(_compiled(eager * 0.5), graph, tensors, target) == ""
    assert _slower_than_eager(_compiled(eager), graph, tensors, target) == ""  # not slower: it runs
    reason = _slower_than_eager(_compiled(eager * 1.5), graph, tensors, target)
    assert "not faster than eager" in reason
    assert "no estimate" in _slower_than_eager(_compiled(None), graph, tensors, target)
