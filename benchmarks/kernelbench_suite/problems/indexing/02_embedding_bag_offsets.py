import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Pooled embedding bags from flat ids and bag offsets: the mean of each bag's rows, and the per-sample-weighted
    sum; bags may be empty (repeated offsets give zero rows).

    Where: facebookresearch/dlrm dlrm_s_pytorch.py (`nn.EmbeddingBag(..., mode="sum")` with offsets and
    per_sample_weights) and torchrec's sparse features; fastText-style `EmbeddingBag(mode="mean")` classifiers.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor, weight: torch.Tensor, per_sample: torch.Tensor):
        """
        Args:
            ids (torch.Tensor): int64 (n,), values < weight rows.
            offsets (torch.Tensor): int64 (bags,), non-decreasing, starting at 0.
            weight (torch.Tensor): (rows, dim).
            per_sample (torch.Tensor): (n,), weight's dtype.

        Returns:
            tuple: (bags, dim) means and (bags, dim) weighted sums.
        """
        mean = F.embedding_bag(ids, weight, offsets, mode="mean")
        weighted = F.embedding_bag(ids, weight, offsets, mode="sum", per_sample_weights=per_sample)
        return mean, weighted


CASES = [
    # ids, bags, rows, dim, dtype
    (200, 32, 1000, 64, torch.float32),
    (7, 3, 10, 16, torch.float16),
    (1, 1, 5, 128, torch.bfloat16),
    (50, 64, 100, 8, torch.float32),  # more bags than ids: empty bags
]


def get_inputs(case=CASES[0]):
    n, bags, rows, dim, dtype = case
    ids = torch.randint(0, rows, (n,))
    offsets = torch.sort(torch.randint(0, n, (bags,))).values
    offsets[0] = 0
    return [ids, offsets, torch.randn(rows, dim, dtype=dtype), torch.rand(n, dtype=dtype)]


def get_init_inputs():
    return []
