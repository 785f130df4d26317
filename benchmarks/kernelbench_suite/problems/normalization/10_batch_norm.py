import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Batch normalization of an NCHW tensor (nn.BatchNorm2d, as constructed: in training mode).
    """
    def __init__(self, num_features: int):
        """
        Args:
            num_features (int): Number of channels.
        """
        super(Model, self).__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, num_features, height, width).

        Returns:
            torch.Tensor: Batch-normalized output, same shape.
        """
        return self.bn(x)


batch_size = 16
features = 32
height = 32
width = 32


def get_inputs():
    x = torch.randn(batch_size, features, height, width)
    return [x]


def get_init_inputs():
    return [features]
