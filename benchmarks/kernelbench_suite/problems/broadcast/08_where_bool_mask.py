import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Selects between two tensors with a boolean mask that broadcasts over the batch and last dims.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, mask: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """
        Args:
            mask (torch.Tensor): Boolean mask of shape (1, seq_len, 1).
            x (torch.Tensor): Values where mask is True, shape (batch_size, seq_len, dim).
            y (torch.Tensor): Values where mask is False, shape (batch_size, seq_len, dim).

        Returns:
            torch.Tensor: torch.where(mask, x, y), shape (batch_size, seq_len, dim).
        """
        return torch.where(mask, x, y)


batch_size = 16
seq_len = 256
dim = 64


def get_inputs():
    mask = torch.rand(1, seq_len, 1) > 0.5
    x = torch.randn(batch_size, seq_len, dim)
    y = torch.randn(batch_size, seq_len, dim)
    return [mask, x, y]


def get_init_inputs():
    return []
