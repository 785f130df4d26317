import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Divides a matrix by a vector broadcast over its rows: out = a / b.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        """
        Args:
            a (torch.Tensor): Numerator of shape (batch_size, dim).
            b (torch.Tensor): Denominator of shape (dim,), bounded away from zero.

        Returns:
            torch.Tensor: a / b, shape (batch_size, dim).
        """
        return a / b


batch_size = 64
dim = 8192


def get_inputs():
    a = torch.randn(batch_size, dim)
    b = torch.rand(dim) + 0.5
    return [a, b]


def get_init_inputs():
    return []
