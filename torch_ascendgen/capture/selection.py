"""Order statistics as a sort and a pick: ``torch.median`` (with a dim, or of everything) and ``torch.kthvalue``.

PyTorch's CPU kernels select with std::nth_element over each row, NaN ranked above every number; the value they
give is the sorted row's element at the rank asked for (the lower median, (n - 1) // 2), which a sort gives. For
median, a row holding NaN gives NaN and the index of its first NaN. Indices among equal values are nth_element's
choice, which no sort reproduces: values are exact on ties, indices may differ there (verification refuses the
kernel where they do). The sort becomes a stage of its own (stages.py), the built-in sort kernel.
"""

from __future__ import annotations

import torch

aten = torch.ops.aten


def _median_dim(x: torch.Tensor, dim: int = 0, keepdim: bool = False):
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)
    dim = dim % x.dim()
    values, indices = torch.sort(x, dim=dim, stable=True)
    middle = (x.shape[dim] - 1) // 2
    value, index = values.narrow(dim, middle, 1), indices.narrow(dim, middle, 1)
    if x.is_floating_point():
        nan = torch.isnan(x)
        has_nan = nan.any(dim=dim, keepdim=True)
        value = torch.where(has_nan, torch.full_like(value, float("nan")), value)
        index = torch.where(has_nan, nan.to(torch.uint8).argmax(dim=dim, keepdim=True), index)
    if not keepdim:
        value, index = value.squeeze(dim), index.squeeze(dim)
    return value, index


def _median(x: torch.Tensor):
    return _median_dim(x.reshape(-1), 0)[0]


def _kthvalue(x: torch.Tensor, k: int, dim: int = -1, keepdim: bool = False):
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)
    dim = dim % x.dim()
    values, indices = torch.sort(x, dim=dim, stable=True)
    value, index = values.narrow(dim, k - 1, 1), indices.narrow(dim, k - 1, 1)
    if not keepdim:
        value, index = value.squeeze(dim), index.squeeze(dim)
    return value, index


def selection_decompositions() -> dict:
    """Capture's entries: median (with and without a dim) and kthvalue as a stable sort and a pick."""
    return {aten.median.dim: _median_dim, aten.median.default: _median, aten.kthvalue.default: _kthvalue}
