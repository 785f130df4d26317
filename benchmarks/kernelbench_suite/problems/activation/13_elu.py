import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs an ELU activation with a configurable alpha.
    """
    def __init__(self, alpha: float = 1.0):
        super(Model, self).__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input tensor of any shape.

        Returns:
            torch.Tensor: Output tensor of the same shape as x.
        """
        return torch.nn.functional.elu(x, alpha=self.alpha)


batch_size = 16
dim = 16384
alpha = 1.5


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [alpha]
