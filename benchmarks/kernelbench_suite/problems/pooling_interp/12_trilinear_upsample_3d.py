import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Non-trainable 3-d upsampling in volumetric decoders: trilinear interpolation by 2 (align_corners False), and to
    an explicit size read from a skip connection's shape before concatenating with it.

    Where: Project-MONAI monai/networks/blocks/upsample.py `UpSample(mode="nontrainable", interp_mode="trilinear")`
    used in its 3-d U-Nets, and wolny/pytorch-3dunet's `InterpolateUpsampling`.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, skip: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (N, C, D, H, W).
            skip (torch.Tensor): (N, C2, D', H', W').

        Returns:
            tuple: x upsampled 2x, and cat(skip, x resized to skip's size) on the channels.
        """
        doubled = F.interpolate(x, scale_factor=2, mode="trilinear", align_corners=False)
        resized = F.interpolate(x, size=skip.shape[2:], mode="trilinear", align_corners=False)
        return doubled, torch.cat((skip, resized), dim=1)


CASES = [
    ((1, 32, 8, 8, 8), (1, 16, 16, 16, 16), torch.float32),
    ((2, 8, 4, 6, 5), (2, 8, 9, 12, 11), torch.float16),
    ((1, 4, 2, 2, 2), (1, 4, 4, 4, 4), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    x_shape, skip_shape, dtype = case
    return [torch.randn(x_shape, dtype=dtype), torch.randn(skip_shape, dtype=dtype)]


def get_init_inputs():
    return []
