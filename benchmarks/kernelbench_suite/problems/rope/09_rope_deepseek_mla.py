import torch
import torch.nn as nn


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    """
    DeepSeek-V2's rotary embedding for multi-head latent attention: cos/sin rows are picked from full tables by
    position ids (advanced indexing), the rope part of q (per head) and of k (one head shared by all) is first
    de-interleaved with a view/transpose/reshape, then rotated in the half form.

    Where: DeepSeek-V2 modeling_deepseek.py `apply_rotary_pos_emb` (HF hub deepseek-ai/DeepSeek-V2, also
    DeepSeek-V3's remote code).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                position_ids: torch.Tensor):
        """
        Args:
            q (torch.Tensor): (batch, heads, seq, rope_dim).
            k (torch.Tensor): (batch, 1, seq, rope_dim).
            cos, sin (torch.Tensor): (max_positions, rope_dim).
            position_ids (torch.Tensor): int64 (batch, seq).

        Returns:
            tuple: the rotated q and k.
        """
        cos = cos[position_ids].unsqueeze(1)
        sin = sin[position_ids].unsqueeze(1)
        b, h, s, d = q.shape
        q = q.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d)
        b, h, s, d = k.shape
        k = k.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d)
        return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


CASES = [
    # (batch, heads, seq), dtype; rope_dim 64
    ((1, 16, 8), torch.float32),
    ((2, 4, 3), torch.bfloat16),
    ((1, 128, 1), torch.float16),
    ((2, 1, 1), torch.float32),
    ((1, 8, 0), torch.float32),
]


def get_inputs(case=CASES[0]):
    (batch, heads, seq), dtype = case
    max_positions, rope_dim = 64, 64
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, rope_dim, 2).float() / rope_dim))
    freqs = torch.outer(torch.arange(max_positions).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    position_ids = torch.randint(0, max_positions, (batch, seq))
    return [torch.randn(batch, heads, seq, rope_dim, dtype=dtype), torch.randn(batch, 1, seq, rope_dim, dtype=dtype),
            emb.cos().to(dtype), emb.sin().to(dtype), position_ids]


def get_init_inputs():
    return []
