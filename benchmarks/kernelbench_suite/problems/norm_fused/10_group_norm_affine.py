import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    GroupNorm with a per-channel weight and bias on (N, C, *) inputs of any spatial rank: statistics per sample and
    group of channels, over the group's channels and all spatial positions.

    Where: diffusers src/diffusers/models/resnet.py `ResnetBlock2D` (`nn.GroupNorm(32, C)`), also the 1-d/3-d
    UNets (`UNet1DModel`, `UNet3DConditionModel`) and detectron2's GN heads.
    """
    def __init__(self, num_groups: int = 8, eps: float = 1e-6):
        super(Model, self).__init__()
        self.num_groups = num_groups
        self.eps = eps

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, *spatial), C a multiple of 8.
            weight, bias (torch.Tensor): (C,).

        Returns:
            torch.Tensor: same shape as x.
        """
        return F.group_norm(x, self.num_groups, weight, bias, self.eps)


CASES = [
    ((2, 64, 16, 16), torch.float32),
    ((1, 32, 8, 8), torch.float16),
    ((2, 128, 4, 4), torch.bfloat16),
    ((4, 32, 100), torch.float32),  # 1-d
    ((1, 16, 4, 8, 8), torch.float32),  # video (3-d)
    ((3, 8), torch.float32),  # no spatial dims
    ((2, 8, 1, 1), torch.float16),
    ((0, 32, 4, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    channels = shape[1]
    return [torch.randn(shape, dtype=dtype), (1 + 0.1 * torch.randn(channels)).to(dtype),
            (0.1 * torch.randn(channels)).to(dtype)]


def get_init_inputs():
    return [8, 1e-6]
