import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Float coordinates to integer pixel indices for a manual bilinear lookup: the normalized coordinates scaled to
    the image size (taken from the shape), floor and ceil cast to int64 and clamped to [0, size - 1], the
    fractional weights, and round/trunc casts of the same coordinates.

    Where: PyTorch ports of the TensorFlow spatial-transformer sampler (kevinzakka/spatial-transformer-network
    `bilinear_sampler`: floor corners cast to int, clipped to [0, W - 1]), written with `torch.floor(x).long()` and
    `clamp`.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, coords: torch.Tensor, image: torch.Tensor):
        """
        Args:
            coords (torch.Tensor): (..., 2) normalized x, y in [-1, 1] (a little outside too).
            image (torch.Tensor): (..., H, W), only its size is used.

        Returns:
            tuple: int64 x0, x1, y0, y1, the float weights wx, wy, and int32 round(x), trunc(y).
        """
        height, width = image.shape[-2], image.shape[-1]
        x = (coords[..., 0] + 1) * (width - 1) / 2
        y = (coords[..., 1] + 1) * (height - 1) / 2
        x0 = torch.floor(x).long().clamp(0, width - 1)
        x1 = torch.ceil(x).long().clamp(0, width - 1)
        y0 = torch.floor(y).long().clamp(0, height - 1)
        y1 = torch.ceil(y).long().clamp(0, height - 1)
        wx = x - torch.floor(x)
        wy = y - torch.floor(y)
        return x0, x1, y0, y1, wx, wy, torch.round(x).to(torch.int32), torch.trunc(y).to(torch.int32)


CASES = [
    # coordinate shape, image shape, dtype
    ((2, 64, 64, 2), (2, 3, 48, 80), torch.float32),
    ((100, 2), (32, 32), torch.float32),
    ((1, 8, 2), (1, 1, 7, 5), torch.float16),
    ((2,), (1, 1), torch.float32),
    ((0, 2), (4, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    coord_shape, image_shape, dtype = case
    return [(torch.rand(coord_shape) * 2.2 - 1.1).to(dtype), torch.zeros(image_shape, dtype=dtype)]


def get_init_inputs():
    return []
