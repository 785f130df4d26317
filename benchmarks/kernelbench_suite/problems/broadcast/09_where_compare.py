import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Keeps x where it exceeds a per-column threshold and a scaled copy of it elsewhere.
    """
    def __init__(self, scale: float = 0.1):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor, threshold: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, dim).
            threshold (torch.Tensor): Thresholds of shape (dim,).

        Returns:
            torch.Tensor: torch.where(x > threshold, x, x * scale), shape (batch_size, dim).
        """
        return torch.where(x > threshold, x, x * self.scale)


batch_size = 64
dim = 4096
scale = 0.1


def get_inputs():
    x = torch.randn(batch_size, dim)
    threshold = torch.randn(dim) * 0.5
    return [x, threshold]


def get_init_inputs():
    return [scale]
