import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Writing new tokens' keys and values into a paged cache: each token's slot gives a block (slot // block_size) and
    an offset (slot % block_size), and index_put with those two index tensors writes the (heads, head_dim) rows into
    copies of the caches (slots are unique). Tokens with slot -1 (padding) are skipped first with a bool mask.

    Where: vLLM's `reshape_and_cache_flash` (its torch reference in tests/kernels/attention/test_cache.py:
    `block_indices = slot_mapping // block_size`, `cloned_key_cache[block_indices, block_offsets] = key`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor, value_cache: torch.Tensor,
                slot_mapping: torch.Tensor):
        """
        Args:
            key, value (torch.Tensor): (tokens, kv_heads, head_dim).
            key_cache, value_cache (torch.Tensor): (blocks, block_size, kv_heads, head_dim).
            slot_mapping (torch.Tensor): int64 (tokens,), unique slots or -1.

        Returns:
            tuple: the updated key and value caches.
        """
        block_size = key_cache.shape[1]
        valid = slot_mapping >= 0
        slots = slot_mapping[valid]
        block_idx = torch.div(slots, block_size, rounding_mode="floor")
        block_offset = slots % block_size
        key_cache = torch.index_put(key_cache, (block_idx, block_offset), key[valid])
        value_cache = torch.index_put(value_cache, (block_idx, block_offset), value[valid])
        return key_cache, value_cache


CASES = [
    # tokens, blocks, block_size, kv_heads, head_dim, dtype
    (16, 8, 16, 8, 64, torch.bfloat16),
    (1, 4, 16, 2, 128, torch.float16),
    (40, 10, 8, 1, 32, torch.float32),
    (0, 2, 16, 4, 64, torch.float32),
]


def get_inputs(case=CASES[0]):
    tokens, blocks, block_size, heads, head_dim, dtype = case
    slots = torch.randperm(blocks * block_size)[:tokens]
    if tokens > 2:
        slots[-1] = -1
    return [torch.randn(tokens, heads, head_dim, dtype=dtype), torch.randn(tokens, heads, head_dim, dtype=dtype),
            torch.randn(blocks, block_size, heads, head_dim, dtype=dtype),
            torch.randn(blocks, block_size, heads, head_dim, dtype=dtype), slots]


def get_init_inputs():
    return []
