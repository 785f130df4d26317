import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Rotary embedding the way the original LLaMA reference code writes it: the rotation as a complex product.
    The pair angles (seq, head_dim / 2) become unit complex numbers with torch.polar, queries and keys are upcast
    to float32 and viewed as complex pairs, multiplied, viewed back as real, flattened and cast back.

    Where: meta-llama/llama llama/model.py `precompute_freqs_cis`, `reshape_for_broadcast` and `apply_rotary_emb`.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, xq: torch.Tensor, xk: torch.Tensor, angles: torch.Tensor):
        """
        Args:
            xq (torch.Tensor): (batch, seq, heads, head_dim).
            xk (torch.Tensor): (batch, seq, kv_heads, head_dim).
            angles (torch.Tensor): float32 (seq, head_dim // 2), position times frequency.

        Returns:
            tuple: the rotated xq and xk, in their own dtypes.
        """
        freqs_cis = torch.polar(torch.ones_like(angles), angles)
        xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
        xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
        shape = [d if i == 1 or i == xq_.ndim - 1 else 1 for i, d in enumerate(xq_.shape)]
        freqs_cis = freqs_cis.view(*shape)
        xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
        xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
        return xq_out.type_as(xq), xk_out.type_as(xk)


CASES = [
    # (batch, seq, heads, kv_heads, head_dim), dtype
    ((1, 16, 8, 8, 64), torch.float32),
    ((2, 5, 8, 2, 128), torch.float16),
    ((1, 1, 32, 8, 128), torch.bfloat16),
    ((3, 7, 1, 1, 2), torch.float32),
]


def get_inputs(case=CASES[0]):
    (batch, seq, heads, kv_heads, head_dim), dtype = case
    freqs = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2).float() / head_dim))
    angles = torch.outer(torch.arange(seq).float(), freqs)
    return [torch.randn(batch, seq, heads, head_dim, dtype=dtype),
            torch.randn(batch, seq, kv_heads, head_dim, dtype=dtype), angles]


def get_init_inputs():
    return []
