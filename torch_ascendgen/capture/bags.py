"""embedding_bag (sum and mean modes) as a gather of rows and a sum per bag, which the loop lowering takes.

ATen's ``_embedding_bag`` / ``_embedding_bag_forward_only`` have no decomposition, and Inductor runs them as library
calls. Each position's bag is found by a binary search of the offsets (torch.searchsorted), the rows gathered (times
``per_sample_weights``) are summed per bag in float32 (PyTorch's CPU kernel accumulates narrow types in float), and a
mean divides by the bag's size (an empty bag is zeros). The op's other three results are given as PyTorch's CPU
kernel gives them for these modes (offset2bag, bag_size, max_indices: empty, zeros and zeros for sum; the bag of each
position and the bag sizes twice for mean). Max mode and padding_idx are left to the op itself.
"""

from __future__ import annotations

import torch

aten = torch.ops.aten
_SUM, _MEAN = 0, 1


def _embedding_bag(weight: torch.Tensor, indices: torch.Tensor, offsets: torch.Tensor, scale_grad_by_freq=False,
                   mode: int = 0, sparse=False, per_sample_weights=None, include_last_offset=False,
                   padding_idx: int = -1):
    if mode not in (_SUM, _MEAN) or padding_idx >= 0 or indices.dim() != 1 or offsets.dim() != 1:
        return NotImplemented
    bags = offsets.shape[0] - 1 if include_last_offset else offsets.shape[0]
    positions = torch.arange(indices.shape[0], device=indices.device, dtype=offsets.dtype)
    bag_of = torch.searchsorted(offsets, positions, right=True) - 1
    rows = aten.embedding.default(weight, indices).to(torch.float32)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.to(torch.float32).unsqueeze(1)
    sums = torch.zeros(bags, weight.shape[1], dtype=torch.float32, device=weight.device)
    sums = sums.index_add(0, bag_of.clamp(min=0), rows)
    count = torch.full((1,), indices.shape[0], dtype=offsets.dtype, device=offsets.device)
    ends = offsets[1:] if include_last_offset else torch.cat([offsets[1:], count])
    sizes = (ends - offsets[:bags]).to(torch.int64)
    if mode == _MEAN:
        sums = sums / sizes.clamp(min=1).to(torch.float32).unsqueeze(1)
        bag_sizes = sizes
        return sums.to(weight.dtype), bag_of.to(torch.int64), bag_sizes, bag_sizes.clone()
    zeros = torch.zeros(bags, dtype=torch.int64, device=weight.device)
    return (sums.to(weight.dtype), torch.zeros(0, dtype=torch.int64, device=weight.device), zeros, zeros.clone())


def bag_decompositions() -> dict:
    """Capture's entries for embedding_bag's sum and mean modes."""
    return {aten._embedding_bag.default: _embedding_bag, aten._embedding_bag_forward_only.default: _embedding_bag}
