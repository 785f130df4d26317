import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Single square matrix multiplication: C = A @ B.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Args:
            A (torch.Tensor): Shape (N, N).
            B (torch.Tensor): Shape (N, N).

        Returns:
            torch.Tensor: A @ B, shape (N, N).
        """
        return torch.matmul(A, B)


N = 256


def get_inputs():
    A = torch.randn(N, N)
    B = torch.randn(N, N)
    return [A, B]


def get_init_inputs():
    return []
