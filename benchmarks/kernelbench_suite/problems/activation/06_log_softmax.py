import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a LogSoftmax over a dimension.
    """
    def __init__(self, dim: int = 1):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input tensor of any shape.

        Returns:
            torch.Tensor: Output tensor of the same shape as x.
        """
        return torch.log_softmax(x, dim=self.dim)


batch_size = 16
dim = 4096


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [1]
