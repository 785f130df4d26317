import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a max reduction over a specified dimension.
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
            torch.Tensor: The maxima, with the reduced dimension removed.
        """
        return torch.max(x, dim=self.dim)[0]


batch_size = 16
dim1 = 64
dim2 = 512
reduce_dim = 2


def get_inputs():
    x = torch.randn(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [reduce_dim]
