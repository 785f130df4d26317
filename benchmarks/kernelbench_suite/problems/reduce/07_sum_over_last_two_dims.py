import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that sums each (dim1, dim2) slice of a 3-D tensor.
    """
    def __init__(self, dim: int):
        """
        Args:
            dim (int): The first of the two dimensions to reduce over (the other is dim + 1).
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input tensor of shape (..., dim, ...).

        Returns:
            torch.Tensor: One sum per batch element, shape (batch_size,).
        """
        return torch.sum(x, dim=(self.dim, self.dim + 1))


batch_size = 32
dim1 = 64
dim2 = 256
reduce_dim = 1


def get_inputs():
    x = torch.randn(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [reduce_dim]
