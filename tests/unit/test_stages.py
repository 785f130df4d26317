"""Cutting a captured graph at its sorts, top-ks and histograms (capture/stages.py): the stages run in turn give the
graph's own results, sizes are computed again where used, and graphs that are one kernel are left whole."""

import pytest
import torch

from torch_ascendgen.capture import capture
from torch_ascendgen.capture.stages import needs_stages, split_stages

pytestmark = pytest.mark.unit


def gating(logits):
    weights = torch.softmax(logits, dim=-1, dtype=torch.float)
    top, ids = torch.topk(weights, 2, sorted=False)
    return (top / top.sum(-1, keepdim=True)).to(logits.dtype), ids


def grouped(scores):  # a size computed in the graph (the group width) used after the first top-k
    groups = scores.view(scores.shape[0], 4, -1).amax(-1)
    chosen = torch.topk(groups, 2)[1]
    mask = torch.zeros_like(groups).scatter(1, chosen, 1.0)
    keep = mask.unsqueeze(-1).expand(-1, 4, scores.shape[1] // 4).reshape(scores.shape[0], -1)
    return torch.topk(scores.masked_fill(keep == 0, 0.0), 3)


@pytest.mark.parametrize(("function", "example", "stage_count"), [
    (gating, torch.randn(8, 16), 3),
    (grouped, torch.randn(5, 32), 4),
    (lambda x: (torch.sort(x)[0], torch.argsort(x * 2)), torch.randn(3, 9), 3),
])
def test_the_stages_run_in_turn_give_the_graphs_results(function, example, stage_count):
    task = capture(function, [example])
    assert needs_stages(task.graph)
    stages = split_stages(task.graph)
    assert len(stages.names) == stage_count
    for name in stages.names:  # every stage takes and gives tensors only
        module = stages.module(name)
        for node in module.graph.nodes:
            if node.op == "placeholder":
                assert isinstance(node.meta.get("val"), torch.Tensor), (name, node)
    other = torch.randn(7, example.shape[1]) if example.dim() == 2 else example
    for x in (example, other):
        got, expected = stages.top(x), task.graph(x)
        for g, e in zip(torch.utils._pytree.tree_leaves(got), torch.utils._pytree.tree_leaves(expected)):
            assert torch.equal(g, e)


@pytest.mark.parametrize("function", [lambda x: torch.topk(x, 2), lambda x: torch.sort(x, stable=True)[1],
                                      lambda x: torch.softmax(x, -1)])
def test_a_sort_of_an_input_alone_or_no_sort_is_one_kernel(function):
    assert not needs_stages(capture(function, [torch.randn(4, 8)]).graph)
