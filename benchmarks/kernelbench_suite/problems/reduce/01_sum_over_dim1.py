import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a sum reduction over a specified dimension (keeping it).
    """
    def __init__(self, dim: int):
        """
        Args:
            dim (int): Dimension to reduce over.
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input tensor of shape (..., dim, ...).

        Returns:
            torch.Tensor: The sums, with the reduced dimension kept as size 1.
        """
        return torch.sum(x, dim=self.dim, keepdim=True)


batch_size = 16
dim1 = 128
dim2 = 256
reduce_dim = 1


def get_inputs():
    x = torch.randn(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [reduce_dim]
