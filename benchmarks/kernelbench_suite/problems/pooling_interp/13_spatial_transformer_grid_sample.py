import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    A spatial transformer's sampling: a sampling grid from per-sample 2x3 affine matrices (affine_grid with the
    input's size) and bilinear grid_sample with zero padding (points outside the image read zeros).

    Where: the PyTorch spatial transformer tutorial (intermediate/spatial_transformer_tutorial: `F.affine_grid(theta,
    x.size())`, `F.grid_sample(x, grid)`), also deformable DETR's reference `ms_deform_attn_core_pytorch`
    (grid_sample of value maps).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, theta: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, H, W).
            theta (torch.Tensor): (N, 2, 3) affine matrices, x's dtype.

        Returns:
            torch.Tensor: (N, C, H, W) resampled.
        """
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


CASES = [
    ((4, 1, 28, 28), torch.float32),  # the tutorial's MNIST
    ((2, 16, 32, 48), torch.float32),
    ((1, 3, 16, 16), torch.float16),
    ((2, 8, 5, 7), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    n = shape[0]
    theta = torch.eye(2, 3).repeat(n, 1, 1) + torch.randn(n, 2, 3) * 0.2
    return [torch.randn(shape, dtype=dtype), theta.to(dtype)]


def get_init_inputs():
    return []
