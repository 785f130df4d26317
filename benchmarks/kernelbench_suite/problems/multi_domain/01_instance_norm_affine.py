import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Instance normalization with a per-channel weight and bias: statistics per (sample, channel) over all spatial
    positions, for 1-d, 2-d and 3-d inputs.

    Where: fast neural style transfer (pytorch/examples fast_neural_style/neural_style/transformer_net.py
    `torch.nn.InstanceNorm2d(channels, affine=True)`), CycleGAN's `InstanceNorm2d`, and 3-d medical U-Nets (nnU-Net's
    `InstanceNorm3d(affine=True)`).
    """
    def __init__(self, eps: float = 1e-5):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, *spatial), at least one spatial dim.
            weight, bias (torch.Tensor): (C,).

        Returns:
            torch.Tensor: same shape as x.
        """
        return F.instance_norm(x, weight=weight, bias=bias, eps=self.eps)


CASES = [
    ((2, 32, 32, 32), torch.float32),
    ((1, 64, 32, 32), torch.float32),
    ((2, 32, 100), torch.float32),  # 1-d
    ((1, 8, 8, 16, 16), torch.float32),  # 3-d
    ((2, 16, 8, 8), torch.bfloat16),
    ((3, 4, 1, 5), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    channels = shape[1]
    return [torch.randn(shape, dtype=dtype) * 2 + 1, (1 + 0.1 * torch.randn(channels)).to(dtype),
            (0.1 * torch.randn(channels)).to(dtype)]


def get_init_inputs():
    return [1e-5]
