import torch
import torch.nn as nn


class Model(nn.Module):
    """
    L2 normalization of queries and keys per head with an epsilon inside the square root, then an upcast to
    float32 and the query scaled by 1/sqrt(head_dim), as linear-attention kernels prepare their inputs.

    Where: HF transformers models/qwen3_next/modeling_qwen3_next.py `l2norm` and `torch_chunk_gated_delta_rule`
    (from flash-linear-attention's `l2norm`, used by gated delta net / DeltaNet layers).
    """
    def __init__(self, eps: float = 1e-6):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, query: torch.Tensor, key: torch.Tensor):
        """
        Args:
            query, key (torch.Tensor): (batch, seq, heads, head_dim).

        Returns:
            tuple: float32 normalized query (scaled) and key.
        """
        query = query * torch.rsqrt((query * query).sum(dim=-1, keepdim=True) + self.eps)
        key = key * torch.rsqrt((key * key).sum(dim=-1, keepdim=True) + self.eps)
        query, key = query.to(torch.float32), key.to(torch.float32)
        return query * (1 / (query.shape[-1] ** 0.5)), key


CASES = [
    ((1, 32, 4, 128), torch.bfloat16),
    ((2, 7, 8, 64), torch.float32),
    ((1, 1, 16, 128), torch.float16),
    ((3, 5, 1, 256), torch.float32),
    ((1, 0, 4, 128), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [1e-6]
