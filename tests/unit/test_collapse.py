"""Rank collapsing: a computation that treats groups of contiguous dimensions alike is one task at every rank (an
elementwise chain is 1-D, a reduction over the trailing dimensions is [rows, cols]); anything not provably the
same at every split stays at its rank."""

import pytest
import torch
import torch.nn.functional as F

from torch_ascendgen.capture import capture

SHAPES = [(), (5,), (2, 3), (2, 3, 1), (2, 1, 3, 4), (2, 3, 1, 4, 5), (2, 3, 1, 4, 5, 2), (2, 3, 2, 1, 2, 2, 3),
          (2, 1, 2, 3, 2, 1, 2, 3)]


def gated(x, y):
    return F.gelu(x, approximate="tanh") * y + 1.5


def rms_norm(x, weight):
    return (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * weight


def test_an_elementwise_chain_is_one_1d_task_at_every_rank_0_to_8():
    tasks = [capture(gated, [torch.randn(shape), torch.randn(shape)]) for shape in SHAPES]
    assert len({t.key for t in tasks}) == 1
    assert all(t.inputs[0].shape == ("s0",) and t.outputs[0].shape == ("s0",) for t in tasks)
    for task, shape in zip(tasks, SHAPES):
        assert task.traced_shapes == ((max(1, torch.Size(shape).numel()),),) * 2
        assert len(task.call.inputs[0].shape) == len(shape)  # the call pattern stays at the call's rank


def test_one_element_and_0_dim_inputs_keep_their_kind_so_type_promotion_is_unchanged():
    half, scalar = torch.randn(4, 5).half(), torch.tensor(2.0)
    task = capture(lambda x, s: x * s, [half, scalar])
    assert [s.text() for s in task.inputs] == ["f16[s0]", "f32[]"] and task.outputs[0].dtype == torch.float16
    one = capture(lambda x, s: x * s, [half, torch.tensor([2.0])])
    assert [s.text() for s in one.inputs] == ["f16[s0]", "f32[1]"] and one.outputs[0].dtype == torch.float32
    zero_dim = capture(lambda x, s: x * s, [torch.tensor(1.0).half(), scalar])  # both 0-dim: both full
    assert [s.text() for s in zero_dim.inputs] == ["f16[s0]", "f32[s0]"] and zero_dim.outputs[0].dtype == torch.float32


@pytest.mark.parametrize("function, inputs, direct", [
    (rms_norm, [(2, 3, 64), (64,)], [(6, 64), (64,)]),
    (lambda x: F.softmax(x, -1), [(2, 3, 4, 64)], [(24, 64)]),
    (lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b), [(2, 3, 64), (64,), (64,)], [(6, 64), (64,), (64,)]),
    (lambda x: x.sum(-1), [(2, 3, 64)], [(6, 64)]),
    (lambda x: x.softmax(-1) / x.shape[-1], [(2, 3, 4)], [(6, 4)]),
    (lambda x, y: F.mse_loss(x, y), [(2, 3, 64), (2, 3, 64)], [(384,), (384,)]),
], ids=["rms_norm", "softmax", "layer_norm", "row_sum", "softmax_by_size", "mse"])
def test_reductions_over_trailing_dims_are_rows_and_columns_with_the_key_of_the_direct_capture(function, inputs,
                                                                                            direct):
    collapsed = capture(function, [torch.randn(s) for s in inputs])
    plain = capture(function, [torch.randn(s) for s in direct])
    assert collapsed.key == plain.key and collapsed.graph_text == plain.graph_text
    assert collapsed.call.collapsed and not plain.call.collapsed


@pytest.mark.parametrize("function, inputs, reason", [
    (lambda x, b: x + b, [(2, 3, 4), (3, 1)], "a per-channel bias broadcasts inside the leading group"),
    (lambda x: x / x.shape[-1], [(3, 4)], "a size of one dimension of a merged group"),
    (lambda x: x.reshape(x.shape[0], -1) * 2, [(2, 3, 4)], "a view"),
    (lambda x: x.sum(1), [(2, 3, 4)], "a reduction over a middle dimension"),
    (lambda x: x * 2 if x.shape[-1] % 2 == 0 else x, [(3, 4)], "a guard on one size"),
    (lambda x, i: x[i] * 2, [(5, 4), None], "indexing"),
    (lambda x, y: x * 2, [(2, 3), (4, 5)], "inputs of unrelated shapes"),
], ids=["bias", "size", "view", "middle", "guard", "index", "unrelated"])
def test_what_is_not_provably_the_same_at_every_split_stays_at_its_rank(function, inputs, reason):
    tensors = [torch.randn(s) if s is not None else torch.tensor([1, 3]) for s in inputs]
    task = capture(function, tensors)
    assert not task.call.collapsed, reason
    assert [tuple(map(str, s.shape)) for s in task.call.inputs] == [tuple(map(str, s.shape)) for s in
                                                                    task.inputs[: len(tensors)]]


def test_the_collapsed_graph_computes_what_the_function_does_at_other_sizes():
    x, w = torch.randn(3, 5, 16), torch.randn(16)
    task = capture(rms_norm, [x, w])
    for rows, cols in ((7, 33), (1, 5), (40, 3)):
        a, b = torch.randn(rows, cols), torch.randn(cols)
        outputs = task.graph(a, b)
        torch.testing.assert_close(outputs[0] if isinstance(outputs, (tuple, list)) else outputs, rms_norm(a, b))
    binding = task.call.binding([torch.randn(4, 2, 8), torch.randn(8)])
    assert task.call.task_shapes(binding) == [(8, 8), (8,)] and task.call.output_shapes(binding) == [(4, 2, 8)]
