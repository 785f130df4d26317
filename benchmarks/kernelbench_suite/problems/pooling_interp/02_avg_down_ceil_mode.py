import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    ResNet-D's average-pool shortcut downsampling: a 2x2, stride-2 average pool with ceil_mode (odd sizes keep their
    last row and column, averaged over the values that exist: count_include_pad=False).

    Where: timm timm/models/resnet.py `downsample_avg` (`nn.AvgPool2d(2, avg_stride, ceil_mode=True,
    count_include_pad=False)`), used by ResNet-D, SE-ResNeXt-D and ResNeSt.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, H, W).

        Returns:
            torch.Tensor: (N, C, ceil(H / 2), ceil(W / 2)).
        """
        return F.avg_pool2d(x, 2, 2, ceil_mode=True, count_include_pad=False)


CASES = [
    ((1, 32, 56, 56), torch.float32),
    ((1, 64, 15, 15), torch.float16),
    ((4, 8, 7, 10), torch.bfloat16),
    ((1, 3, 1, 1), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
