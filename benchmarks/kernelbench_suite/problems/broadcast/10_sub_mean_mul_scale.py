import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Centres each column with a given mean vector and multiplies by a one-element scale tensor.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, mean: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, dim).
            mean (torch.Tensor): Column means of shape (dim,).
            scale (torch.Tensor): A one-element tensor of shape (1,).

        Returns:
            torch.Tensor: (x - mean) * scale, shape (batch_size, dim).
        """
        return (x - mean) * scale


batch_size = 128
dim = 2048


def get_inputs():
    x = torch.randn(batch_size, dim)
    mean = torch.randn(dim)
    scale = torch.rand(1) + 0.5
    return [x, mean, scale]


def get_init_inputs():
    return []
