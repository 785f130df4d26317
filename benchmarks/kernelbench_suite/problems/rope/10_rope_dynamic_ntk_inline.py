import torch
import torch.nn as nn


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    """
    Rotary embedding with dynamic NTK scaling, tables built inside the function: when the sequence is longer than
    the trained context, the base grows with (factor * seq / max_positions - (factor - 1)) ** (dim / (dim - 2));
    inverse frequencies from arange, angles as an outer product with arange(seq), then the half rotation.
    Python arithmetic on the sizes decides the base.

    Where: HF transformers modeling_rope_utils.py `_compute_dynamic_ntk_parameters` with the older
    `LlamaDynamicNTKScalingRotaryEmbedding._set_cos_sin_cache` (tables built from arange per call).
    """
    def __init__(self, base: float = 10000.0, max_positions: int = 16, factor: float = 2.0):
        super(Model, self).__init__()
        self.base = base
        self.max_positions = max_positions
        self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (batch, heads, seq, head_dim).

        Returns:
            torch.Tensor: x rotated by its positions 0..seq-1, same shape and dtype.
        """
        seq_len, dim = x.shape[-2], x.shape[-1]
        base = self.base
        if seq_len > self.max_positions:
            base = base * ((self.factor * seq_len / self.max_positions) - (self.factor - 1)) ** (dim / (dim - 2))
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        t = torch.arange(seq_len, dtype=torch.float32)
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
        return x * cos + rotate_half(x) * sin


CASES = [
    # (batch, heads, seq, head_dim), dtype
    ((1, 4, 8, 64), torch.float32),  # within the trained context
    ((1, 4, 40, 64), torch.float32),  # scaled base
    ((2, 2, 17, 32), torch.float16),
    ((1, 8, 1, 128), torch.bfloat16),
    ((4, 1, 3, 16), torch.float32),
    ((1, 2, 0, 64), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [10000.0, 16, 2.0]


