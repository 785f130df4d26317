import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Weight normalization: the weight is g * v / ||v||, the norm taken per output channel over every other dim (the
    dims computed from the rank: linear, conv1d and conv2d weights).

    Where: `torch.nn.utils.parametrizations.weight_norm` (torch._weight_norm with dim=0) as used on every conv of
    HiFi-GAN / BigVGAN vocoders (HF transformers models/speecht5 `SpeechT5HifiGan`, jik876/hifi-gan models.py) and
    wav2vec2's positional conv.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, v: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        """
        Args:
            v (torch.Tensor): (out, ...), the direction.
            g (torch.Tensor): (out, 1, ...), the magnitude, v's rank.

        Returns:
            torch.Tensor: the weight, v's shape.
        """
        dims = tuple(range(1, v.dim()))
        return v * (g / torch.linalg.vector_norm(v, dim=dims, keepdim=True))


CASES = [
    ((128, 64, 7), torch.float32),  # conv1d, HiFi-GAN
    ((256, 128), torch.float32),  # linear
    ((64, 32, 3, 3), torch.float32),  # conv2d
    ((128, 1, 16), torch.bfloat16),
    ((1, 1), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    g_shape = (shape[0],) + (1,) * (len(shape) - 1)
    return [torch.randn(shape, dtype=dtype), (torch.rand(g_shape) + 0.5).to(dtype)]


def get_init_inputs():
    return []
