import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Evaluates a cubic polynomial elementwise in Horner form: ((c3 * x + c2) * x + c1) * x + c0.
    """
    def __init__(self, c3: float, c2: float, c1: float, c0: float):
        super(Model, self).__init__()
        self.c3, self.c2, self.c1, self.c0 = c3, c2, c1, c0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of any shape.

        Returns:
            torch.Tensor: The polynomial at every element, same shape.
        """
        return ((self.c3 * x + self.c2) * x + self.c1) * x + self.c0


batch_size = 64
dim = 8192


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [0.5, -1.0, 2.0, 0.25]
