import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Adaptive average pooling to a fixed output size: to 1x1 (a classifier's global pool) and to 7x7 from sizes that
    do not divide evenly (windows of varying size and overlap), batched and unbatched.

    Where: torchvision models/resnet.py (`nn.AdaptiveAvgPool2d((1, 1))`) and models/vgg.py
    (`nn.AdaptiveAvgPool2d((7, 7))`), and the Pyramid Pooling Module of PSPNet (bins 1, 2, 3, 6).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (N, C, H, W) or (C, H, W).

        Returns:
            tuple: (..., C, 1, 1), (..., C, 7, 7) and (..., C, 3, 3) averages.
        """
        return F.adaptive_avg_pool2d(x, 1), F.adaptive_avg_pool2d(x, (7, 7)), F.adaptive_avg_pool2d(x, 3)


CASES = [
    ((2, 512, 7, 7), torch.float32),
    ((1, 64, 20, 30), torch.float16),
    ((4, 32, 13, 13), torch.bfloat16),
    ((16, 5, 9), torch.float32),
    ((1, 3, 1, 1), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
