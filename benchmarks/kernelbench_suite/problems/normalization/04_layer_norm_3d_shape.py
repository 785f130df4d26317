import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Layer normalization over the last three dimensions (features, dim1, dim2) of a 4-D tensor.
    """
    def __init__(self, normalized_shape: tuple):
        """
        Args:
            normalized_shape (tuple): Shape of the normalized trailing dimensions.
        """
        super(Model, self).__init__()
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, features, dim1, dim2).

        Returns:
            torch.Tensor: Layer-normalized output, same shape.
        """
        return self.ln(x)


batch_size = 8
features = 16
dim1 = 64
dim2 = 64


def get_inputs():
    x = torch.randn(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [(features, dim1, dim2)]
