import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Adds a per-channel bias to an NCHW activation tensor: out = x + bias.view(1, C, 1, 1).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, channels, height, width).
            bias (torch.Tensor): Per-channel bias of shape (channels,).

        Returns:
            torch.Tensor: x with the bias of its channel added, same shape as x.
        """
        return x + bias.view(1, -1, 1, 1)


batch_size = 4
channels = 256
height = 32
width = 32


def get_inputs():
    x = torch.randn(batch_size, channels, height, width)
    bias = torch.randn(channels)
    return [x, bias]


def get_init_inputs():
    return []
