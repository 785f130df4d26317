import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Group normalization of an NCHW tensor (nn.GroupNorm with affine parameters).
    """
    def __init__(self, num_features: int, num_groups: int):
        """
        Args:
            num_features (int): Number of channels.
            num_groups (int): Number of channel groups normalized together.
        """
        super(Model, self).__init__()
        self.gn = nn.GroupNorm(num_groups=num_groups, num_channels=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, num_features, height, width).

        Returns:
            torch.Tensor: Group-normalized output, same shape.
        """
        return self.gn(x)


batch_size = 8
features = 64
num_groups = 8
height = 32
width = 32


def get_inputs():
    x = torch.randn(batch_size, features, height, width)
    return [x]


def get_init_inputs():
    return [features, num_groups]
