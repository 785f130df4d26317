import torch
import torch.nn as nn


class Model(nn.Module):
    """
    RMSNorm over the hidden dimension with a learned scale, as in LLaMA-style transformers.
    """
    def __init__(self, hidden_size: int, eps: float = 1e-6):
        """
        Args:
            hidden_size (int): Size of the last dimension.
            eps (float): Added to the mean square before the reciprocal square root.
        """
        super(Model, self).__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size) + 0.1 * torch.randn(hidden_size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, seq_len, hidden_size).

        Returns:
            torch.Tensor: The normalized and scaled input, same shape.
        """
        variance = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(variance + self.eps) * self.weight


batch_size = 4
seq_len = 64
hidden_size = 4096
eps = 1e-6


def get_inputs():
    x = torch.randn(batch_size, seq_len, hidden_size)
    return [x]


def get_init_inputs():
    return [hidden_size, eps]
