import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Elementwise maximum of two tensors that broadcast against each other in different dims.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        """
        Args:
            a (torch.Tensor): Input of shape (batch_size, 1, dim).
            b (torch.Tensor): Input of shape (1, rows, 1).

        Returns:
            torch.Tensor: torch.maximum(a, b), shape (batch_size, rows, dim).
        """
        return torch.maximum(a, b)


batch_size = 8
rows = 128
dim = 512


def get_inputs():
    a = torch.randn(batch_size, 1, dim)
    b = torch.randn(1, rows, 1)
    return [a, b]


def get_init_inputs():
    return []
