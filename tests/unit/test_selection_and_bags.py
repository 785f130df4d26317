"""capture/selection.py and bags.py: median and kthvalue written as a stable sort and a pick give torch's values
and indices (rows without ties; NaN rows give NaN and the first NaN's index), and capture traces them to a sort;
embedding_bag as a gather and sums per bag, with the op's other results as torch gives them."""

import pytest
import torch

from torch_ascendgen.capture import capture
from torch_ascendgen.capture.selection import _kthvalue, _median, _median_dim

NAN = float("nan")


def _same(got, expected):
    torch.testing.assert_close(got, expected, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("seed", range(5))
def test_median_and_kthvalue_are_torchs(seed):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(6, 9, generator=generator)
    x[1, 3] = x[1, 6] = x[4, 0] = NAN
    for dim, keepdim in ((-1, False), (0, True)):
        values, indices = _median_dim(x, dim, keepdim)
        expected = torch.median(x, dim, keepdim)
        _same(values, expected.values)
        assert torch.equal(indices, expected.indices)
    values, indices = _kthvalue(x, 4, 0)
    _same(values, torch.kthvalue(x, 4, 0).values)
    assert torch.equal(indices, torch.kthvalue(x, 4, 0).indices)
    _same(_median(x), torch.median(x))
    integers = torch.randperm(40, generator=generator).reshape(5, 8)
    assert torch.equal(_median_dim(integers, 1)[0], torch.median(integers, 1).values)


def test_capture_writes_them_as_a_sort():
    task = capture(lambda x: (torch.median(x, -1), torch.kthvalue(x, 2).values), [torch.randn(4, 7)])
    ops = [str(n.target) for n in task.graph.graph.nodes if n.op == "call_function"]
    assert "aten.sort.stable" in ops and not any("median" in op or "kthvalue" in op for op in ops)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_as_gathers_and_sums_is_torchs(mode):
    from torch_ascendgen.capture.bags import _embedding_bag

    generator = torch.Generator().manual_seed(3)
    for _ in range(20):
        n, bags = int(torch.randint(1, 30, (), generator=generator)), int(torch.randint(1, 10, (), generator=generator))
        ids, weight = torch.randint(0, 12, (n,), generator=generator), torch.randn(12, 5, generator=generator)
        offsets = torch.sort(torch.randint(0, n, (bags,), generator=generator)).values
        offsets[0] = 0  # empty bags where offsets repeat
        weights = torch.rand(n, generator=generator) if mode == "sum" else None
        code = {"sum": 0, "mean": 1}[mode]
        expected = torch.ops.aten._embedding_bag(weight, ids, offsets, False, code, False, weights, False, -1)
        got = _embedding_bag(weight, ids, offsets, False, code, False, weights, False, -1)
        torch.testing.assert_close(got[0], expected[0])
        for g, e in zip(got[1:], expected[1:], strict=True):
            assert torch.equal(g, e)
