import torch
import torch.nn as nn


class Model(nn.Module):
    """
    topk along the last dim with k given per call, largest or smallest, sorted: values and int64 indices (inputs
    without ties, so the indices are defined).

    Where: top-k sampling (HF `TopKLogitsWarper`: `torch.topk(scores, top_k)[0][..., -1, None]`), retrieval
    (`scores.topk(k)` in sentence-transformers `semantic_search`), and k-nearest neighbours (`dist.topk(k,
    largest=False)` in DGCNN/PointNet++ ports).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, k: int, largest: bool):
        """
        Args:
            x (torch.Tensor): (..., n), n >= k.
            k (int): how many.
            largest (bool): largest or smallest.

        Returns:
            tuple: (..., k) values and int64 indices.
        """
        return torch.topk(x, k, dim=-1, largest=largest, sorted=True)


CASES = [
    ((2, 32000), torch.float32, 50, True),
    ((4, 1024), torch.bfloat16, 1, True),
    ((2, 1024, 20), torch.float32, 16, False),  # kNN over points
    ((100,), torch.float16, 5, True),
    ((3, 4), torch.float32, 4, False),
    ((0, 10), torch.float32, 3, True),
]


def get_inputs(case=CASES[0]):
    shape, dtype, k, largest = case
    return [distinct_rows(shape, dtype), k, largest]


def distinct_rows(shape, dtype):
    """Rows holding a permutation of values that are distinct in the dtype: the integers 0..n-1 (exact in float32,
    and in float16 up to 2048), and for bfloat16 the integers 128..255 times powers of two (exact at any size)."""
    n = shape[-1]
    if dtype == torch.bfloat16:
        table = (torch.arange(n) % 128 + 128).double() * torch.pow(2.0, (torch.arange(n) // 128).double())
    else:
        table = torch.arange(n).double()
    return table.to(dtype)[torch.argsort(torch.rand(shape), dim=-1)]


def get_init_inputs():
    return []
