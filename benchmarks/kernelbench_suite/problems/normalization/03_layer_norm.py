import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Layer normalization over the last dimension, with elementwise affine parameters.
    """
    def __init__(self, normalized_shape: int):
        """
        Args:
            normalized_shape (int): Size of the last dimension.
        """
        super(Model, self).__init__()
        self.ln = nn.LayerNorm(normalized_shape)
        with torch.no_grad():
            self.ln.weight.uniform_(0.5, 1.5)
            self.ln.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, normalized_shape).

        Returns:
            torch.Tensor: Layer-normalized output, same shape.
        """
        return self.ln(x)


batch_size = 256
normalized_shape = 2048


def get_inputs():
    x = torch.randn(batch_size, normalized_shape) * 2.0 + 1.0
    return [x]


def get_init_inputs():
    return [normalized_shape]
