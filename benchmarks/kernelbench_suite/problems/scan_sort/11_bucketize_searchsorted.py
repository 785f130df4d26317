import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Binning values by sorted boundaries: bucketize (left and right-closed) of numerical features, and
    searchsorted of token positions into cumulative sequence offsets (which request each token belongs to).

    Where: yandex-research/rtdl-num-embeddings (`torch.bucketize(x, bins)` for piecewise-linear encoding of
    numerical features) and varlen batch lookups (`torch.searchsorted(cu_seqlens, positions, right=True) - 1` in
    FlashInfer/vLLM-style metadata code).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, values: torch.Tensor, boundaries: torch.Tensor, cu_seqlens: torch.Tensor,
                positions: torch.Tensor):
        """
        Args:
            values (torch.Tensor): float32, any shape.
            boundaries (torch.Tensor): float32 (b,), ascending.
            cu_seqlens (torch.Tensor): int64 (requests + 1,), ascending from 0.
            positions (torch.Tensor): int64 (tokens,), in [0, cu_seqlens[-1]).

        Returns:
            tuple: int64 buckets (left), int64 buckets (right), int64 request index per token.
        """
        return (torch.bucketize(values, boundaries), torch.bucketize(values, boundaries, right=True),
                torch.searchsorted(cu_seqlens, positions, right=True) - 1)


CASES = [
    # values shape, boundaries, requests
    ((256, 8), 16, 8),
    ((1000,), 100, 1),
    ((), 4, 3),
    ((2, 3, 4), 1, 16),
    ((0, 5), 8, 2),
]


def get_inputs(case=CASES[0]):
    shape, n_bounds, requests = case
    values = torch.randn(shape).round(decimals=1)  # some values fall on boundaries
    boundaries = torch.sort(torch.randn(n_bounds).round(decimals=1)).values
    cu_seqlens = torch.cat([torch.zeros(1, dtype=torch.int64), torch.randint(1, 10, (requests,)).cumsum(0)])
    positions = torch.randint(0, int(cu_seqlens[-1]), (50,))
    return [values, boundaries, cu_seqlens, positions]


def get_init_inputs():
    return []
