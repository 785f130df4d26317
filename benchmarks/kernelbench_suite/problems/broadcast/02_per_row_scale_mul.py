import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Elementwise multiplication with broadcasting: each row of a matrix is scaled by its own factor.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        """
        Args:
            a (torch.Tensor): Input of shape (rows, cols).
            b (torch.Tensor): Per-row factors of shape (rows, 1).

        Returns:
            torch.Tensor: a * b, shape (rows, cols).
        """
        return a * b


rows = 256
cols = 2048


def get_inputs():
    a = torch.randn(rows, cols)
    b = torch.randn(rows, 1)
    return [a, b]


def get_init_inputs():
    return []
