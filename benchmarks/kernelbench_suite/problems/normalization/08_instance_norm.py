import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Instance normalization of an NCHW tensor (nn.InstanceNorm2d, no affine parameters).
    """
    def __init__(self, num_features: int):
        """
        Args:
            num_features (int): Number of channels.
        """
        super(Model, self).__init__()
        self.inorm = nn.InstanceNorm2d(num_features=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, num_features, height, width).

        Returns:
            torch.Tensor: Each (height, width) plane normalized to zero mean and unit variance.
        """
        return self.inorm(x)


batch_size = 8
features = 32
height = 64
width = 64


def get_inputs():
    x = torch.randn(batch_size, features, height, width)
    return [x]


def get_init_inputs():
    return [features]
