import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Matrix-scalar multiplication: C = A * s, with s a Python number given with the inputs.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, s: float) -> torch.Tensor:
        """
        Args:
            A (torch.Tensor): Input matrix of shape (M, N).
            s (float): Scalar multiplier.

        Returns:
            torch.Tensor: A * s, shape (M, N).
        """
        return A * s


M = 1024
N = 1024


def get_inputs():
    A = torch.randn(M, N)
    s = 3.14
    return [A, s]


def get_init_inputs():
    return []
