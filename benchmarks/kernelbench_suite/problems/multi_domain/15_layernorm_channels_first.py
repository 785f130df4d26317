import torch
import torch.nn as nn


class Model(nn.Module):
    """
    ConvNeXt's LayerNorm for channels-first maps: mean and biased variance over dim 1 (the channels) at every
    spatial position, normalized, and a per-channel weight and bias broadcast as weight[:, None, None].

    Where: facebookresearch/ConvNeXt models/convnext.py `LayerNorm.forward` (data_format "channels_first"), also HF
    transformers models/convnext `ConvNextLayerNorm` and SAM's `LayerNorm2d`.
    """
    def __init__(self, eps: float = 1e-6):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, H, W).
            weight, bias (torch.Tensor): (C,).

        Returns:
            torch.Tensor: same shape.
        """
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return weight[:, None, None] * x + bias[:, None, None]


CASES = [
    ((1, 96, 28, 28), torch.float32),
    ((1, 256, 16, 16), torch.float32),  # SAM's neck channels
    ((4, 32, 7, 9), torch.bfloat16),
    ((1, 3, 1, 1), torch.float16),
    ((0, 8, 4, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    channels = shape[1]
    return [torch.randn(shape, dtype=dtype), (1 + 0.1 * torch.randn(channels)).to(dtype),
            (0.1 * torch.randn(channels)).to(dtype)]


def get_init_inputs():
    return [1e-6]
