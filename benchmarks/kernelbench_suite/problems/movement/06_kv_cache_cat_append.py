import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Appending new keys and values to a dynamic cache along the sequence dim with cat (the first step starts from an
    empty cache: a zero-length past).

    Where: HF transformers cache_utils.py `DynamicLayer.update` (`torch.cat([self.keys, key_states], dim=-2)`) and
    the `past_key_value` concatenation of older GPT-2/BLOOM code.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, past_key: torch.Tensor, past_value: torch.Tensor, key: torch.Tensor, value: torch.Tensor):
        """
        Args:
            past_key, past_value (torch.Tensor): (batch, kv_heads, past, head_dim).
            key, value (torch.Tensor): (batch, kv_heads, new, head_dim).

        Returns:
            tuple: (batch, kv_heads, past + new, head_dim) keys and values.
        """
        return torch.cat([past_key, key], dim=-2), torch.cat([past_value, value], dim=-2)


CASES = [
    # batch, kv_heads, past, new, head_dim, dtype
    (1, 8, 0, 16, 128, torch.bfloat16),  # prefill into an empty cache
    (2, 8, 31, 1, 128, torch.bfloat16),  # decode
    (4, 2, 10, 3, 64, torch.float16),
    (1, 1, 5, 5, 32, torch.float32),
    (0, 4, 3, 1, 64, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, heads, past, new, head_dim, dtype = case
    return [torch.randn(batch, heads, past, head_dim, dtype=dtype), torch.randn(batch, heads, past, head_dim,
            dtype=dtype), torch.randn(batch, heads, new, head_dim, dtype=dtype),
            torch.randn(batch, heads, new, head_dim, dtype=dtype)]


def get_init_inputs():
    return []
