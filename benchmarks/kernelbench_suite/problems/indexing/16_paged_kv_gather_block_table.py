import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Reading one sequence set's keys out of a paged cache: the block table (int32 block ids per sequence) indexes
    the cache's first dim, the blocks are viewed as one sequence per row (a view with a computed length) and cut to
    the longest context.

    Where: vLLM's paged-attention torch references (tests/kernels/attention: `ref_paged_attn`, `k =
    key_cache[block_indices].view(-1, num_kv_heads, head_size)[:kv_len]`) and FlashInfer's paged-KV tests.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, key_cache: torch.Tensor, block_table: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        """
        Args:
            key_cache (torch.Tensor): (blocks, block_size, kv_heads, head_dim).
            block_table (torch.Tensor): int32 (seqs, max_blocks), block ids.
            context (torch.Tensor): (kv_len,), only its size is used (kv_len <= max_blocks * block_size).

        Returns:
            torch.Tensor: (seqs, kv_len, kv_heads, head_dim).
        """
        seqs, max_blocks = block_table.shape
        _, block_size, heads, head_dim = key_cache.shape
        keys = key_cache[block_table.long()].view(seqs, max_blocks * block_size, heads, head_dim)
        return keys[:, : context.shape[0]]


CASES = [
    # blocks, block_size, kv_heads, head_dim, seqs, max_blocks, kv_len, dtype
    (16, 16, 4, 64, 4, 4, 60, torch.bfloat16),
    (16, 16, 2, 128, 1, 1, 1, torch.float16),
    (10, 8, 1, 32, 3, 5, 40, torch.float32),
]


def get_inputs(case=CASES[0]):
    blocks, block_size, heads, head_dim, seqs, max_blocks, kv_len, dtype = case
    table = torch.randint(0, blocks, (seqs, max_blocks), dtype=torch.int32)
    return [torch.randn(blocks, block_size, heads, head_dim, dtype=dtype), table, torch.zeros(kv_len)]


def get_init_inputs():
    return []
