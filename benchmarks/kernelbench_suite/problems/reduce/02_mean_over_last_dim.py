import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a mean reduction over a specified dimension.
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
            torch.Tensor: The means, with the reduced dimension removed.
        """
        return torch.mean(x, dim=self.dim)


batch_size = 32
dim = 8192
reduce_dim = -1


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [reduce_dim]
