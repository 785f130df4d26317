import torch
import torch.nn as nn


class Model(nn.Module):
    """
    RMS normalization over the feature (channel) dimension of a (batch, features, height, width) tensor.
    """
    def __init__(self, num_features: int, eps: float = 1e-5):
        """
        Args:
            num_features (int): Number of features (dimension 1 of the input).
            eps (float): Added to the mean square before the square root.
        """
        super(Model, self).__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, num_features, height, width).

        Returns:
            torch.Tensor: x divided by its root mean square over dimension 1, same shape.
        """
        rms = torch.sqrt(torch.mean(x * x, dim=1, keepdim=True) + self.eps)
        return x / rms


batch_size = 8
features = 64
height = 32
width = 32


def get_inputs():
    x = torch.randn(batch_size, features, height, width)
    return [x]


def get_init_inputs():
    return [features]
