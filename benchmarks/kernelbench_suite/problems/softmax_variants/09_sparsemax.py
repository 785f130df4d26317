import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Sparsemax over the last dim: the Euclidean projection onto the simplex, with sort (descending), cumsum, an
    arange of ranks made inside, a comparison giving the support, its size as a max, the threshold tau from a
    masked sum, and clamp(z - tau, min=0). Rows are shifted by their max first for stability.

    Where: deep-spin/entmax entmax/activations.py `SparsemaxFunction` / `_sparsemax_threshold_and_support`
    (Martins & Astudillo 2016), used in sparse attention and TabNet's attentive transformer.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (..., n).

        Returns:
            torch.Tensor: a sparse probability vector per row, same shape and dtype.
        """
        z = x - x.max(dim=-1, keepdim=True).values
        zs = torch.sort(z, dim=-1, descending=True).values
        n = z.shape[-1]
        rng = torch.arange(1, n + 1, dtype=z.dtype)
        bound = 1 + rng * zs
        is_gt = (bound > zs.cumsum(dim=-1)).to(z.dtype)
        k = (is_gt * rng).max(dim=-1, keepdim=True).values
        tau = ((zs * is_gt).sum(dim=-1, keepdim=True) - 1) / k
        return torch.clamp(z - tau, min=0)


CASES = [
    ((32, 100), torch.float32),
    ((2, 8, 16, 16), torch.float32),
    ((7,), torch.float32),
    ((4, 64), torch.bfloat16),
    ((3, 1), torch.float32),
    ((0, 10), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype) * 2]


def get_init_inputs():
    return []
