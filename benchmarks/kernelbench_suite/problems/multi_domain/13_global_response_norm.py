import torch
import torch.nn as nn


class Model(nn.Module):
    """
    ConvNeXt-V2's Global Response Normalization on channels-last maps: each channel's L2 norm over the spatial dims,
    divided by the mean of those norms over the channels, the input scaled by it, with learned gamma and beta and a
    residual. A reduction over space followed by one over channels.

    Where: facebookresearch/ConvNeXt-V2 models/utils.py `GRN.forward` (also HF transformers models/convnextv2
    `ConvNextV2GRN`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, H, W, C).
            gamma, beta (torch.Tensor): (1, 1, 1, C).

        Returns:
            torch.Tensor: same shape as x.
        """
        gx = torch.norm(x, p=2, dim=(1, 2), keepdim=True)
        nx = gx / (gx.mean(dim=-1, keepdim=True) + 1e-6)
        return gamma * (x * nx) + beta + x


CASES = [
    ((1, 28, 28, 96), torch.float32),
    ((1, 7, 7, 768), torch.float32),
    ((4, 14, 14, 32), torch.bfloat16),
    ((1, 1, 1, 8), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    channels = shape[-1]
    return [torch.randn(shape, dtype=dtype), (0.1 * torch.randn(1, 1, 1, channels)).to(dtype),
            (0.1 * torch.randn(1, 1, 1, channels)).to(dtype)]


def get_init_inputs():
    return []
