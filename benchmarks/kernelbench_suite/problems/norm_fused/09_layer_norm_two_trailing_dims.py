import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    LayerNorm over the last two dimensions (normalized_shape taken from the input), with an elementwise weight and
    bias of that shape: one mean and variance per leading index over a whole (rows, cols) plane.

    Where: `nn.LayerNorm` with a multi-dim normalized_shape, as in the torch.nn.LayerNorm documentation's image
    example (`nn.LayerNorm([C, H, W])`) and ports that normalize whole (time, frequency) planes.
    """
    def __init__(self, eps: float = 1e-5):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (..., rows, cols).
            weight, bias (torch.Tensor): (rows, cols).

        Returns:
            torch.Tensor: same shape as x.
        """
        return F.layer_norm(x, x.shape[-2:], weight, bias, self.eps)


CASES = [
    ((8, 16, 64), torch.float32),
    ((2, 4, 8, 32), torch.float16),
    ((12, 96), torch.bfloat16),
    ((3, 1, 1, 1, 7, 5), torch.float32),
    ((0, 4, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    plane = shape[-2:]
    weight = (1 + 0.1 * torch.randn(plane)).to(dtype)
    return [torch.randn(shape, dtype=dtype), weight, (0.1 * torch.randn(plane)).to(dtype)]


def get_init_inputs():
    return [1e-5]
