import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    The FPN top-down path's nearest upsampling to the lateral map's size (read from its shape, which may not be
    exactly twice as large), added to the lateral features; and a plain 2x nearest upsampling of 1-d/3-d maps.

    Where: torchvision torchvision/ops/feature_pyramid_network.py `FeaturePyramidNetwork.forward`
    (`F.interpolate(last_inner, size=feat_shape, mode="nearest")`), UNet decoders' `nn.Upsample(scale_factor=2)`.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, top: torch.Tensor, lateral: torch.Tensor):
        """
        Args:
            top (torch.Tensor): (N, C, *spatial), the coarser map.
            lateral (torch.Tensor): (N, C, *spatial'), the finer map.

        Returns:
            tuple: lateral + top upsampled to lateral's size, and top upsampled 2x.
        """
        upsampled = F.interpolate(top, size=lateral.shape[2:], mode="nearest")
        return lateral + upsampled, F.interpolate(top, scale_factor=2.0, mode="nearest")


CASES = [
    ((2, 128, 7, 7), (2, 128, 14, 14), torch.float32),
    ((1, 64, 13, 17), (1, 64, 25, 34), torch.float16),  # odd input sizes: not exactly 2x
    ((2, 64, 50), (2, 64, 100), torch.bfloat16),  # 1-d
    ((1, 16, 4, 4, 4), (1, 16, 8, 8, 8), torch.float32),  # 3-d
    ((1, 1, 1, 1), (1, 1, 3, 2), torch.float32),
]


def get_inputs(case=CASES[0]):
    top_shape, lateral_shape, dtype = case
    return [torch.randn(top_shape, dtype=dtype), torch.randn(lateral_shape, dtype=dtype)]


def get_init_inputs():
    return []
