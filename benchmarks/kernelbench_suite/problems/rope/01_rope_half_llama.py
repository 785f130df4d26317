import torch
import torch.nn as nn


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    """
    Rotary position embedding in the half-rotation form on queries and keys: x * cos + rotate_half(x) * sin, with
    cos and sin of shape (batch, seq, head_dim) broadcast over the heads (unsqueezed at dim 1). Grouped-query
    attention: keys have fewer heads than queries.

    Where: HF transformers models/llama/modeling_llama.py `apply_rotary_pos_emb` and `rotate_half` (the same in
    Qwen2, Mistral, Phi-3 and most decoder-only models).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
        """
        Args:
            q (torch.Tensor): (batch, q_heads, seq, head_dim).
            k (torch.Tensor): (batch, kv_heads, seq, head_dim).
            cos, sin (torch.Tensor): (batch, seq, head_dim).

        Returns:
            tuple: the rotated q and k, same shapes.
        """
        cos = cos.unsqueeze(1)
        sin = sin.unsqueeze(1)
        return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


CASES = [
    # (batch, q_heads, kv_heads, seq, head_dim), dtype
    ((1, 8, 8, 16, 64), torch.float32),
    ((2, 8, 2, 5, 128), torch.float16),
    ((1, 32, 8, 1, 128), torch.bfloat16),  # one decode step
    ((3, 4, 4, 7, 32), torch.float32),
    ((1, 1, 1, 1, 2), torch.float32),
    ((0, 4, 4, 8, 64), torch.float16),  # an empty batch
    ((2, 16, 4, 0, 64), torch.bfloat16),  # no tokens
]


def get_inputs(case=CASES[0]):
    (batch, q_heads, kv_heads, seq, head_dim), dtype = case
    q = torch.randn(batch, q_heads, seq, head_dim, dtype=dtype)
    k = torch.randn(batch, kv_heads, seq, head_dim, dtype=dtype)
    angles = torch.rand(batch, seq, head_dim // 2) * 6.3
    angles = torch.cat((angles, angles), dim=-1)
    return [q, k, angles.cos().to(dtype), angles.sin().to(dtype)]


def get_init_inputs():
    return []
