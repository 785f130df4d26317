"""Functions whose output sizes depend on their inputs' values (nonzero, boolean-mask indexing, bincount,
repeat_interleave by counts, unique_consecutive) through @ascend_kernel (strict): each data-dependent op runs as its
size kernel and then its kernel given that size, between the kernels of the rest, equal to torch for every call
(other counts, a count of 1, a count of 0, empty inputs), and torch's own error for values torch refuses."""

from __future__ import annotations

import pytest
import torch

from torch_ascendgen import ascend_kernel


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("data_dependent_kernels")


def unpad(hidden, mask):
    """flash-attention's unpad_input: the rows of real tokens, their flat indices and the cumulative lengths."""
    lengths = mask.sum(dim=-1, dtype=torch.int32)
    indices = torch.nonzero(mask.flatten(), as_tuple=False).flatten()
    cumulative = torch.nn.functional.pad(torch.cumsum(lengths, dim=0, dtype=torch.int32), (1, 0))
    return hidden.reshape(-1, hidden.shape[-1])[indices], indices, cumulative


def expert_counts(ids, weights):
    counts = torch.bincount(ids, minlength=6)
    return counts, torch.bincount(ids, weights=weights, minlength=6), counts.float().mean() - counts


def request_ids(lengths):
    return torch.repeat_interleave(torch.arange(lengths.shape[0]), lengths) * 10


def collapse(scores):
    best = torch.argmax(scores, dim=-1)
    labels = torch.unique_consecutive(best)
    return labels[labels != 0]


def masked_rows(x, keep):
    return x[keep] * 2


def _mask(batch, seq, lengths):
    return (torch.arange(seq)[None] < torch.tensor(lengths)[:, None]).long()


CALLS = {
    unpad: [(torch.randn(3, 9, 16), _mask(3, 9, [4, 9, 1])), (torch.randn(2, 5, 16), _mask(2, 5, [1, 0])),
            (torch.randn(4, 9, 16), _mask(4, 9, [0, 0, 0, 0])), (torch.randn(0, 9, 16), _mask(0, 9, []))],
    expert_counts: [(torch.randint(0, 6, (50,)), torch.rand(50)), (torch.randint(0, 9, (7,)), torch.rand(7)),
                    (torch.tensor([3]), torch.rand(1)), (torch.zeros(0, dtype=torch.int64), torch.rand(0))],
    request_ids: [(torch.randint(1, 5, (6,)),), (torch.tensor([0, 3, 0]),), (torch.tensor([1]),),
                  (torch.zeros(4, dtype=torch.int64),)],
    collapse: [(torch.randn(40, 5),), (torch.randn(1, 5),), (torch.randn(30, 3).half(),)],
    masked_rows: [(torch.randn(6, 7), torch.tensor([True, False, True, True, False, True])),
                  (torch.randn(3, 7), torch.tensor([False, True, False])),
                  (torch.randn(3, 7), torch.tensor([False, False, False]))],
}


@pytest.mark.parametrize("function", list(CALLS), ids=lambda f: f.__name__)
def test_every_call_is_a_kernel_equal_to_torch(cache_dir, function):
    fast = ascend_kernel(function, strict=True, variants=1, cache_dir=cache_dir, progress=False)
    for args in CALLS[function]:
        got, expected = fast(*args), function(*args)
        got, expected = (got, expected) if isinstance(got, tuple) else ((got,), (expected,))
        for g, e in zip(got, expected, strict=True):
            assert g.dtype == e.dtype and g.shape == e.shape, (args, g, e)
            torch.testing.assert_close(g, e)
        assert fast.route(*args)[0] == "kernel", args
    assert fast.kernels()


def test_values_torch_refuses_raise_torchs_error(cache_dir):
    def counts(ids):
        return torch.bincount(ids) + 1

    fast = ascend_kernel(counts, cache_dir=cache_dir, progress=False)
    assert torch.equal(fast(torch.tensor([0, 2, 2])), counts(torch.tensor([0, 2, 2])))
    with pytest.raises(RuntimeError, match="non-negative"):
        fast(torch.tensor([0, -2, 2]))


def test_without_stages_a_data_dependent_function_is_refused_with_the_reason(cache_dir):
    from torch_ascendgen.errors import UnsupportedFunction
    from torch_ascendgen.frontends.dispatch import Kernels
    from torch_ascendgen.records import Options
    from torch_ascendgen.targets.target import resolve_target

    kernels = Kernels("request_ids", Options(cache_dir=cache_dir, progress=False, target="sim"))
    target = resolve_target("sim", None, {torch.device("cpu")})
    with pytest.raises(UnsupportedFunction, match="depends on the values"):
        kernels.prepare(request_ids, [torch.tensor([2, 1, 3])], target)
