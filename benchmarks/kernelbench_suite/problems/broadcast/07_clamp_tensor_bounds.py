import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Clamps a matrix between per-column lower and upper bounds given as tensors.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, low: torch.Tensor, high: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, dim).
            low (torch.Tensor): Lower bounds of shape (dim,).
            high (torch.Tensor): Upper bounds of shape (dim,), high >= low.

        Returns:
            torch.Tensor: torch.clamp(x, min=low, max=high), shape (batch_size, dim).
        """
        return torch.clamp(x, min=low, max=high)


batch_size = 128
dim = 2048


def get_inputs():
    x = torch.randn(batch_size, dim) * 3.0
    low = -torch.rand(dim) - 0.5
    high = torch.rand(dim) + 0.5
    return [x, low, high]


def get_init_inputs():
    return []
