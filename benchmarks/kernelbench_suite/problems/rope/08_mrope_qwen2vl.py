import torch
import torch.nn as nn


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    """
    Multimodal rotary embedding: cos and sin come in three position streams (temporal, height, width); the head
    dim is split into sections (mrope_section, twice over for the two halves) and section i takes its values from
    stream i % 3, the pieces concatenated back, then the usual half-rotation on queries and keys.

    Where: HF transformers models/qwen2_vl/modeling_qwen2_vl.py `apply_multimodal_rotary_pos_emb` (also Qwen2.5-VL).
    """
    def __init__(self, mrope_section=(16, 24, 24)):
        super(Model, self).__init__()
        self.mrope_section = list(mrope_section)

    def forward(self, q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
        """
        Args:
            q (torch.Tensor): (batch, heads, seq, 128).
            k (torch.Tensor): (batch, kv_heads, seq, 128).
            cos, sin (torch.Tensor): (3, batch, seq, 128).

        Returns:
            tuple: the rotated q and k.
        """
        mrope_section = self.mrope_section * 2
        cos = torch.cat([m[i % 3] for i, m in enumerate(cos.split(mrope_section, dim=-1))], dim=-1).unsqueeze(1)
        sin = torch.cat([m[i % 3] for i, m in enumerate(sin.split(mrope_section, dim=-1))], dim=-1).unsqueeze(1)
        return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


CASES = [
    # (batch, heads, kv_heads, seq), dtype
    ((1, 4, 2, 16), torch.float32),
    ((2, 2, 1, 5), torch.bfloat16),
    ((1, 8, 2, 1), torch.float16),
    ((1, 1, 1, 0), torch.float32),
]


def get_inputs(case=CASES[0]):
    (batch, heads, kv_heads, seq), dtype = case
    angles = torch.rand(3, batch, seq, 64) * 6.3
    angles = torch.cat((angles, angles), dim=-1)
    return [torch.randn(batch, heads, seq, 128, dtype=dtype), torch.randn(batch, kv_heads, seq, 128, dtype=dtype),
            angles.cos().to(dtype), angles.sin().to(dtype)]


def get_init_inputs():
    return [(16, 24, 24)]
