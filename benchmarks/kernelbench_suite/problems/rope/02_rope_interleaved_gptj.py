import torch
import torch.nn as nn


def rotate_every_two(x: torch.Tensor) -> torch.Tensor:
    x1 = x[:, :, :, ::2]
    x2 = x[:, :, :, 1::2]
    x = torch.stack((-x2, x1), dim=-1)
    return x.flatten(-2)


class Model(nn.Module):
    """
    Rotary position embedding on interleaved pairs (x[2i], x[2i+1]): the per-pair sin and cos of shape
    (batch, seq, head_dim / 2) are repeated twice along the last dim and broadcast over the heads; the
    rotation takes the even and odd elements with step slices and interleaves them back with stack/flatten.

    Where: HF transformers models/gptj/modeling_gptj.py `apply_rotary_pos_emb` and `rotate_every_two`
    (also CodeGen and GPT-JT).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, sin: torch.Tensor, cos: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (batch, seq, heads, head_dim).
            sin, cos (torch.Tensor): (batch, seq, head_dim // 2).

        Returns:
            torch.Tensor: the rotated x, same shape.
        """
        sin = torch.repeat_interleave(sin[:, :, None, :], 2, 3)
        cos = torch.repeat_interleave(cos[:, :, None, :], 2, 3)
        return (x * cos) + (rotate_every_two(x) * sin)


CASES = [
    # (batch, seq, heads, head_dim), dtype
    ((1, 16, 16, 64), torch.float32),
    ((2, 9, 4, 32), torch.float16),
    ((1, 1, 16, 64), torch.bfloat16),
    ((4, 3, 1, 2), torch.float32),
    ((0, 5, 4, 16), torch.float32),
    ((2, 7, 3, 128), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    (batch, seq, heads, head_dim), dtype = case
    x = torch.randn(batch, seq, heads, head_dim, dtype=dtype)
    angles = torch.rand(batch, seq, head_dim // 2) * 6.3
    return [x, angles.sin().to(dtype), angles.cos().to(dtype)]


def get_init_inputs():
    return []
