import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    DiT's adaptive LayerNorm modulation: the conditioning projection split into shift, scale and gate (chunk), the
    tokens LayerNorm-ed without affine (per token), modulated per sample (x * (1 + scale) + shift, broadcast over
    the tokens), and the gated residual added.

    Where: facebookresearch/DiT models.py `modulate` and `DiTBlock.forward` (adaLN-Zero), also diffusers'
    `AdaLayerNormZero` (PixArt, SD3, Flux).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, c: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (batch, tokens, hidden), the residual stream.
            c (torch.Tensor): (batch, 3 * hidden), the conditioning projection.
            y (torch.Tensor): (batch, tokens, hidden), a sublayer output.

        Returns:
            torch.Tensor: x + gate * (y applied to the modulated norm), (batch, tokens, hidden).
        """
        shift, scale, gate = c.chunk(3, dim=1)
        normed = F.layer_norm(x, x.shape[-1:], eps=1e-6)
        modulated = normed * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)
        return x + gate.unsqueeze(1) * (modulated * y)


CASES = [
    ((2, 256, 384), torch.float32),  # DiT-S/2 at 256: 256 tokens
    ((1, 64, 1152), torch.bfloat16),
    ((4, 16, 64), torch.float16),
    ((1, 1, 8), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    batch, _, hidden = shape
    return [torch.randn(shape, dtype=dtype), torch.randn(batch, 3 * hidden, dtype=dtype),
            torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
