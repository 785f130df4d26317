"""torch.sort, torch.topk and torch.histc through @ascend_kernel (strict): a verified kernel from the built-in
generator, equal to torch bit for bit (indices included, ties in torch's order), returned as torch returns it."""

from __future__ import annotations

import pytest
import torch

from torch_ascendgen import ascend_kernel
from torch_ascendgen.errors import UnsupportedFunction


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("sorting_kernels")


def moe_gate(logits):
    return torch.topk(logits, 2, dim=-1)


def top_p_sort(logits):
    return torch.sort(logits, dim=-1, descending=True)


def length_buckets(lengths):
    return torch.sort(lengths, dim=0, descending=True, stable=True)  # along a dim that is not the last


def calibration_histogram(x):
    return torch.histc(x, bins=16, min=-3.0, max=3.0)


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.view({2: torch.int16, 4: torch.int32}[t.element_size()]) if t.is_floating_point() else t


@pytest.mark.parametrize(("function", "dtype", "shape"), [
    (moe_gate, torch.float32, (64, 64)),
    (moe_gate, torch.bfloat16, (64, 64)),
    (top_p_sort, torch.float16, (8, 1000)),
    (length_buckets, torch.float32, (100, 3)),
    (calibration_histogram, torch.float32, (128, 256)),
])
def test_the_decorated_function_is_a_verified_kernel_equal_to_torch(cache_dir, function, dtype, shape):
    fast = ascend_kernel(function, strict=True, variants=1, cache_dir=cache_dir, progress=False)
    x = torch.randint(-8, 8, shape).to(dtype)  # many equal values: torch's tie order
    got, expected = fast(x), function(x)
    assert type(got) is type(expected)  # torch.return_types.topk / .sort, or a tensor
    pairs = zip(got, expected) if isinstance(got, tuple) else [(got, expected)]
    for g, e in pairs:
        assert torch.equal(_bits(g), _bits(e))
    (kernel,) = fast.kernels()
    assert kernel.entry.meta["winner"]["ok"]


def test_a_top_k_of_a_computed_value_runs_as_stages_in_torchs_tie_order(cache_dir):
    def scaled_top(x):
        return torch.topk(x * 2 + 1, 3)

    fast = ascend_kernel(scaled_top, strict=True, cache_dir=cache_dir, progress=False)
    x = torch.randint(-4, 4, (32, 40)).float()  # ties everywhere
    got, expected = fast(x), scaled_top(x)
    assert torch.equal(got.values, expected.values) and torch.equal(got.indices, expected.indices)
    assert len(fast.kernels()) == 2  # the scaling, then the top-k


def test_a_stage_the_generator_cannot_do_refuses_the_function_with_its_reason(cache_dir):
    fast = ascend_kernel(lambda x: torch.histc(x * 3, 10), strict=True, cache_dir=cache_dir, progress=False)
    with pytest.raises(UnsupportedFunction, match="min == max"):
        fast(torch.randn(4, 8))
