import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Adds a bias vector to every row of a (batch, features) matrix: out = x + bias.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, features).
            bias (torch.Tensor): Bias of shape (features,).

        Returns:
            torch.Tensor: x + bias, shape (batch_size, features).
        """
        return x + bias


batch_size = 128
features = 4096


def get_inputs():
    x = torch.randn(batch_size, features)
    bias = torch.randn(features)
    return [x, bias]


def get_init_inputs():
    return []
