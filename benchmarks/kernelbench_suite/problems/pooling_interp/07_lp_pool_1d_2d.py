import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Power-average (Lp) pooling: (sum of x^p over the window) ** (1/p), with p = 2 over 2x2 windows and p = 3 over
    windows of 4 steps of a sequence.

    Where: `nn.LPPool2d` / `nn.LPPool1d` (torch/nn/functional.py `lp_pool2d`), the L2 pooling of Sermanet et al.
    2012 (house-number CNNs) and of ports of Torch7 models that used `SpatialLPPooling`.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, image: torch.Tensor, sequence: torch.Tensor):
        """
        Args:
            image (torch.Tensor): (N, C, H, W).
            sequence (torch.Tensor): (N, C, L).

        Returns:
            tuple: L2-pooled image (N, C, H/2, W/2) and L3-pooled sequence (N, C, L/4).
        """
        return F.lp_pool2d(image, 2, 2), F.lp_pool1d(sequence, 3, 4)


CASES = [
    ((2, 32, 16, 16), (2, 40, 100), torch.float32),
    ((1, 8, 8, 8), (1, 8, 64), torch.bfloat16),
    ((4, 3, 5, 7), (4, 3, 9), torch.float16),
]


def get_inputs(case=CASES[0]):
    image_shape, sequence_shape, dtype = case
    return [torch.rand(image_shape, dtype=dtype) + 0.1, torch.rand(sequence_shape, dtype=dtype) + 0.1]


def get_init_inputs():
    return []
