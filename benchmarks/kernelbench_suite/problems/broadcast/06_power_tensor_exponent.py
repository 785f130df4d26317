import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Raises a positive matrix to per-column exponents: out = x ** exponent.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, exponent: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Positive base of shape (batch_size, dim).
            exponent (torch.Tensor): Exponents of shape (dim,).

        Returns:
            torch.Tensor: x ** exponent, shape (batch_size, dim).
        """
        return x ** exponent


batch_size = 32
dim = 4096


def get_inputs():
    x = torch.rand(batch_size, dim) + 0.05
    exponent = torch.rand(dim) * 2.0 + 0.25
    return [x, exponent]


def get_init_inputs():
    return []
