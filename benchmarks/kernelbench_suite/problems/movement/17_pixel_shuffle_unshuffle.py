import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Sub-pixel convolution's rearrangements: pixel_shuffle (C * r^2, H, W) -> (C, H * r, W * r) and pixel_unshuffle
    back, on batched and unbatched inputs (any leading dims).

    Where: ESPCN/Real-ESRGAN upsamplers (`nn.PixelShuffle(2)` in xinntao/Real-ESRGAN and basicsr archs), diffusers'
    `PixArt`/`SD upscaler` blocks, and `F.pixel_unshuffle` in Real-ESRGAN's x2 model input.
    """
    def __init__(self, upscale_factor: int = 2):
        super(Model, self).__init__()
        self.upscale_factor = upscale_factor

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (..., C * r^2, H, W).

        Returns:
            tuple: pixel_shuffle(x) and pixel_unshuffle of that (equal to x).
        """
        up = F.pixel_shuffle(x, self.upscale_factor)
        return up, F.pixel_unshuffle(up, self.upscale_factor)


CASES = [
    ((1, 64, 32, 32), torch.float32),
    ((2, 12, 16, 16), torch.float16),
    ((4, 8, 9), torch.bfloat16),
    ((2, 3, 8, 4, 4), torch.float32),
    ((0, 4, 2, 2), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [2]
