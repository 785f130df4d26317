import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Local response normalization across channels: each value divided by (k + alpha / n * sum of squares over a
    window of n neighbouring channels) ** beta, for 3-d and 4-d inputs.

    Where: the LRN layers of AlexNet (Krizhevsky et al. 2012: size 5, alpha 1e-4, beta 0.75, k 2) and the original
    GoogLeNet, as PyTorch ports of those Caffe models write them (`nn.LocalResponseNorm`, torch/nn/functional.py
    `local_response_norm`).
    """
    def __init__(self, size: int = 5, alpha: float = 1e-4, beta: float = 0.75, k: float = 2.0):
        super(Model, self).__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, *), at least 3 dims.

        Returns:
            torch.Tensor: same shape.
        """
        return F.local_response_norm(x, self.size, self.alpha, self.beta, self.k)


CASES = [
    ((2, 96, 27, 27), torch.float32),
    ((1, 64, 56), torch.float32),
    ((4, 3, 8, 8), torch.float32),  # no half-precision LRN on the CPU (its avg_pool3d)
    ((1, 16, 4, 4, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype) * 10]


def get_init_inputs():
    return [5, 1e-4, 0.75, 2.0]
