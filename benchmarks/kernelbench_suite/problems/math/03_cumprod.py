import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Cumulative product along a dimension.
    """
    def __init__(self, dim: int):
        """
        Args:
            dim (int): The dimension along which to accumulate.
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, *input_shape).

        Returns:
            torch.Tensor: The running products, same shape as x.
        """
        return torch.cumprod(x, dim=self.dim)


batch_size = 128
input_shape = (4000,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape) * 0.2 + 0.9]


def get_init_inputs():
    return [dim]
