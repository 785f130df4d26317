import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Mamba-2's segment sums: each value repeated along a new last dim of size T, masked below the diagonal, cumsum
    over the second-to-last dim, the upper triangle set to -inf with a second tril mask, exp; the masks are made
    inside the function from the size.

    Where: state-spaces/mamba mamba_ssm/modules/ssd_minimal.py `segsum` and `ssd_minimal_discrete` (`L =
    torch.exp(segsum(A))`), also HF transformers models/mamba2 `segment_sum`.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (..., T), the per-step log decays of a chunk (negative).

        Returns:
            torch.Tensor: (..., T, T), exp of the segment sums, zero above the diagonal.
        """
        T = x.size(-1)
        x = x[..., None].expand(*x.shape, T)
        mask = torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)
        x = x.masked_fill(~mask, 0)
        x_segsum = torch.cumsum(x, dim=-2)
        mask = torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=0)
        x_segsum = x_segsum.masked_fill(~mask, -torch.inf)
        return torch.exp(x_segsum)


CASES = [
    ((1, 8, 4, 64), torch.float32),  # (batch, heads, chunks, chunk_size)
    ((2, 24, 16), torch.float32),
    ((1, 1, 1, 1), torch.float32),
    ((2, 4, 2, 32), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [(-torch.rand(shape) * 0.2).to(dtype)]


def get_init_inputs():
    return []
