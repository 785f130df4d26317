import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    DeepNorm's post-LayerNorm residual: the residual branch is up-weighted by a constant alpha computed from the
    number of layers ((2N) ** 0.25) before the add and the LayerNorm.

    Where: microsoft/torchscale torchscale/architecture/encoder.py `EncoderLayer.residual_connection` with
    deepnorm (alpha = (2 * encoder_layers) ** 0.25), also GLM-130B's post-LN blocks.
    """
    def __init__(self, num_layers: int = 24, eps: float = 1e-5):
        super(Model, self).__init__()
        self.alpha = (2 * num_layers) ** 0.25
        self.eps = eps

    def forward(self, x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor):
        """
        Args:
            x (torch.Tensor): the sublayer output, (..., hidden).
            residual (torch.Tensor): (..., hidden).
            weight, bias (torch.Tensor): (hidden,).

        Returns:
            torch.Tensor: LayerNorm(residual * alpha + x).
        """
        return F.layer_norm(residual * self.alpha + x, x.shape[-1:], weight, bias, self.eps)


CASES = [
    ((4, 32, 512), torch.float32),
    ((2, 9, 1024), torch.float16),
    ((16, 768), torch.bfloat16),
    ((1, 1, 1, 64), torch.float32),
    ((0, 128), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    hidden = shape[-1]
    return [torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype),
            (1 + 0.1 * torch.randn(hidden)).to(dtype), (0.1 * torch.randn(hidden)).to(dtype)]


def get_init_inputs():
    return [24, 1e-5]
