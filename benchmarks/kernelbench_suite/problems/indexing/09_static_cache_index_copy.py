import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Updating a static (preallocated) kv cache at the current cache positions along the sequence dim with
    index_copy (out of place: the function returns new caches), for prefill (many positions) and decode (one).

    Where: HF transformers cache_utils.py `StaticLayer.update` (`self.keys.index_copy_(2, cache_position,
    key_states)`), used by torch.compile'd generation.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, k_cache: torch.Tensor, v_cache: torch.Tensor, key_states: torch.Tensor,
                value_states: torch.Tensor, cache_position: torch.Tensor):
        """
        Args:
            k_cache, v_cache (torch.Tensor): (batch, kv_heads, max_len, head_dim).
            key_states, value_states (torch.Tensor): (batch, kv_heads, new, head_dim).
            cache_position (torch.Tensor): int64 (new,), distinct positions < max_len.

        Returns:
            tuple: the updated caches.
        """
        return k_cache.index_copy(2, cache_position, key_states), v_cache.index_copy(2, cache_position, value_states)


CASES = [
    # batch, kv_heads, max_len, new, start, head_dim, dtype
    (1, 8, 64, 16, 0, 64, torch.bfloat16),  # prefill
    (2, 8, 64, 1, 37, 64, torch.bfloat16),  # decode
    (1, 2, 32, 5, 20, 128, torch.float16),
    (3, 1, 8, 8, 0, 16, torch.float32),
    (1, 4, 16, 0, 0, 32, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, heads, max_len, new, start, head_dim, dtype = case
    caches = [torch.randn(batch, heads, max_len, head_dim, dtype=dtype) for _ in range(2)]
    states = [torch.randn(batch, heads, new, head_dim, dtype=dtype) for _ in range(2)]
    return [*caches, *states, torch.arange(start, start + new)]


def get_init_inputs():
    return []
