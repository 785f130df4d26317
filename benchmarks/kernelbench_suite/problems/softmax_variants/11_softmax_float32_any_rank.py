import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Attention softmax with a float32 upcast and a cast back, called on score tensors of every rank the model
    families use: (batch * heads, q, k) in BART-era code, (batch, heads, q, k) in Llama, 5-d grouped layouts
    (batch, kv_heads, groups, q, k), and beyond in ports that keep extra axes.

    Where: HF transformers `eager_attention_forward` (`nn.functional.softmax(attn_weights, dim=-1,
    dtype=torch.float32).to(query.dtype)`) in models/llama, models/bart and the grouped-query code paths.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, attn_weights: torch.Tensor) -> torch.Tensor:
        """
        Args:
            attn_weights (torch.Tensor): (..., keys).

        Returns:
            torch.Tensor: same shape and dtype.
        """
        return nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(attn_weights.dtype)


CASES = [
    ((37,), torch.float32),
    ((16, 33), torch.bfloat16),
    ((24, 16, 16), torch.float16),
    ((2, 8, 16, 16), torch.bfloat16),
    ((1, 4, 2, 8, 64), torch.float16),
    ((2, 1, 2, 2, 3, 5), torch.float32),
    ((1, 2, 1, 2, 1, 2, 9), torch.bfloat16),
    ((2, 1, 2, 1, 2, 1, 2, 17), torch.float32),
    ((2, 8, 0, 16), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype) * 5]


def get_init_inputs():
    return []
