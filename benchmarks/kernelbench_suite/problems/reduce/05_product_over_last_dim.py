import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a product reduction over a specified dimension.
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
            torch.Tensor: The products, with the reduced dimension removed.
        """
        return torch.prod(x, dim=self.dim)


batch_size = 256
dim = 64
reduce_dim = 1


def get_inputs():
    x = torch.rand(batch_size, dim) + 0.5
    return [x]


def get_init_inputs():
    return [reduce_dim]
