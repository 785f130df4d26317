import torch
import torch.nn as nn


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    """
    Partial rotary embedding: only the first rotary_pct of each head's dims are rotated (half-rotation form), the
    rest pass through and are concatenated back. The rotary width is computed from the head size.

    Where: HF transformers models/gpt_neox/modeling_gpt_neox.py (`rotary_ndims = int(head_size * rotary_pct)`,
    `query_rot`/`query_pass`), also Phi-2 (`partial_rotary_factor`) and StableLM.
    """
    def __init__(self, rotary_pct: float = 0.25):
        super(Model, self).__init__()
        self.rotary_pct = rotary_pct

    def forward(self, query: torch.Tensor, key: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
        """
        Args:
            query, key (torch.Tensor): (batch, heads, seq, head_size).
            cos, sin (torch.Tensor): (batch, seq, rotary_ndims) with rotary_ndims = int(head_size * rotary_pct).

        Returns:
            tuple: query and key with their first rotary_ndims dims rotated.
        """
        rotary_ndims = int(query.shape[-1] * self.rotary_pct)
        query_rot, query_pass = query[..., :rotary_ndims], query[..., rotary_ndims:]
        key_rot, key_pass = key[..., :rotary_ndims], key[..., rotary_ndims:]
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        query_rot = query_rot * cos + rotate_half(query_rot) * sin
        key_rot = key_rot * cos + rotate_half(key_rot) * sin
        return torch.cat((query_rot, query_pass), dim=-1), torch.cat((key_rot, key_pass), dim=-1)


CASES = [
    # (batch, heads, seq, head_size), dtype
    ((1, 8, 16, 128), torch.float32),
    ((2, 4, 6, 64), torch.float16),
    ((1, 16, 1, 80), torch.bfloat16),  # Phi-2's head size: 20 rotary dims
    ((3, 2, 5, 8), torch.float32),
    ((1, 4, 0, 64), torch.float16),
]


def get_inputs(case=CASES[0]):
    (batch, heads, seq, head_size), dtype = case
    rotary_ndims = int(head_size * 0.25)
    angles = torch.rand(batch, seq, rotary_ndims // 2) * 6.3
    angles = torch.cat((angles, angles), dim=-1)
    return [torch.randn(batch, heads, seq, head_size, dtype=dtype), torch.randn(batch, heads, seq, head_size,
            dtype=dtype), angles.cos().to(dtype), angles.sin().to(dtype)]


def get_init_inputs():
    return [0.25]
