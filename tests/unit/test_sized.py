"""capture/sized.py: each data-dependent op's size form and its form given that size are, run by eager torch, the op
itself (what the kernels made from them are verified against is torch's op, so a wrong form cannot pass there
either; here a wrong form is caught without building anything)."""

from __future__ import annotations

import pytest
import torch

from torch_ascendgen.capture import capture
from torch_ascendgen.capture.sized import SIZED_OPS, sized_op
from torch_ascendgen.capture.stages import needs_stages, sized_node, split_stages

NAN = float("nan")


def _node(function, *tensors):
    task = capture(function, list(tensors))
    assert task.data_dependent
    return next(n for n in task.graph.graph.nodes if n.op == "call_function" and str(n.target) in SIZED_OPS)


def _through_forms(function, *tensors):
    """The op's result computed as the stage does: the size, then the op given a carrier of that length."""
    op = sized_op(_node(function, *tensors))
    args = [t for t in tensors if t is not None]
    length, lowest = (int(v) for v in op.size(*args).tolist())
    assert lowest >= 0
    return op.given(*args, torch.empty(length, dtype=torch.uint8))


def _same(got, expected, exact: bool = True):
    got, expected = (got, expected) if isinstance(got, tuple) else ((got,), (expected,))
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        tolerance = {"rtol": 0, "atol": 0} if exact else {}
        torch.testing.assert_close(g, e, equal_nan=True, **tolerance)


@pytest.mark.parametrize("seed", range(6))
def test_nonzero_of_any_rank(seed):
    generator = torch.Generator().manual_seed(seed)
    shape = [int(s) for s in torch.randint(1, 5, (1 + seed % 4,), generator=generator)]
    x = (torch.rand(shape, generator=generator) < 0.4).float() * torch.randn(shape, generator=generator)
    _same(_through_forms(torch.nonzero, x), torch.nonzero(x))


@pytest.mark.parametrize("weights", [None, torch.float32, torch.float64])
def test_bincount_with_minlength_and_weights(weights):
    ids = torch.tensor([3, 0, 3, 9, 1, 3])
    w = torch.rand(6, dtype=weights) if weights is not None else None
    function = (lambda x: torch.bincount(x, minlength=4)) if w is None else \
        (lambda x, v: torch.bincount(x, weights=v, minlength=12))
    args = (ids,) if w is None else (ids, w)
    _same(_through_forms(function, *args), function(*args), exact=w is None)  # weights: summed in another order


def test_repeat_interleave_by_counts_with_zero_counts():
    counts = torch.tensor([2, 0, 3, 0, 1])
    _same(_through_forms(lambda c: torch.repeat_interleave(c), counts), torch.repeat_interleave(counts))


@pytest.mark.parametrize("values", [[1, 1, 2, 2, 2, 1, 3], [NAN, NAN, 1.0, 1.0, -0.0, 0.0], [7]])
def test_unique_consecutive_with_inverse_and_counts(values):
    x = torch.tensor(values)

    def function(t):
        return torch.unique_consecutive(t, return_inverse=True, return_counts=True)

    _same(_through_forms(function, x), function(x))


def test_a_size_check_refuses_what_torch_refuses():
    op = sized_op(_node(lambda x: torch.bincount(x), torch.tensor([1, 2])))
    assert int(op.size(torch.tensor([1, -4, 2]))[1]) < 0  # the stage runs torch's op, which raises


def test_a_boolean_mask_index_is_traced_through_nonzero_and_staged():
    task = capture(lambda x, m: x[m] + 1, [torch.randn(4, 3), torch.tensor([True, False, True, True])])
    ops = [str(n.target) for n in task.graph.graph.nodes if n.op == "call_function"]
    assert "aten.nonzero.default" in ops and task.data_dependent and needs_stages(task.graph)
    stages = split_stages(task.graph)
    assert sum(sized_node(stages.module(name)) is not None for name in stages.names) == 1
