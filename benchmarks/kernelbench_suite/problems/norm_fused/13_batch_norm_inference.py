import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    BatchNorm at inference: running mean and variance per channel (dim 1) with weight and bias, over inputs of rank
    2 to 5.

    Where: torchvision models (ResNet, MobileNet: `nn.BatchNorm2d` in eval), BatchNorm1d in tabular and speech
    models, BatchNorm3d in video networks; `F.batch_norm(..., training=False)`.
    """
    def __init__(self, eps: float = 1e-5):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor, running_mean: torch.Tensor, running_var: torch.Tensor, weight: torch.Tensor,
                bias: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, *).
            running_mean, running_var, weight, bias (torch.Tensor): (C,).

        Returns:
            torch.Tensor: same shape as x.
        """
        return F.batch_norm(x, running_mean, running_var, weight, bias, training=False, eps=self.eps)


CASES = [
    ((4, 64, 16, 16), torch.float32),
    ((8, 32), torch.float32),  # BatchNorm1d on features
    ((2, 40, 100), torch.float32),  # BatchNorm1d on sequences
    ((1, 16, 4, 8, 8), torch.float32),  # BatchNorm3d
    ((2, 32, 7, 7), torch.bfloat16),
    ((1, 3, 1, 1), torch.float16),
    ((0, 8, 4, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    channels = shape[1]
    return [torch.randn(shape, dtype=dtype), (0.1 * torch.randn(channels)).to(dtype),
            (0.5 + torch.rand(channels)).to(dtype), (1 + 0.1 * torch.randn(channels)).to(dtype),
            (0.1 * torch.randn(channels)).to(dtype)]


def get_init_inputs():
    return [1e-5]
