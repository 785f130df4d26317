import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Space-to-depth with step-2 slices: the four phase-shifted subsamplings of an image (x[..., ::2, ::2],
    x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]) concatenated along the channels.

    Where: ultralytics/yolov5 models/common.py `Focus.forward` (also YOLOX's `Focus` and the `SpaceToDepth` of
    timm's TResNet).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, H, W) or (C, H, W), H and W even.

        Returns:
            torch.Tensor: (..., 4C, H/2, W/2).
        """
        return torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], -3)


CASES = [
    ((1, 3, 64, 64), torch.float32),
    ((2, 32, 16, 16), torch.float16),
    ((3, 8, 8), torch.bfloat16),
    ((1, 1, 2, 2), torch.float32),
    ((0, 3, 4, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
