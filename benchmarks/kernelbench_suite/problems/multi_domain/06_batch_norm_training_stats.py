import torch
import torch.nn as nn


class Model(nn.Module):
    """
    BatchNorm's training step written functionally: per-channel mean and biased variance over the batch and all
    spatial dims (the reduction dims computed from the rank), the normalized output with weight and bias, and the
    new running mean and variance (momentum update with the unbiased variance) returned as new tensors.

    Where: torch/nn/modules/batchnorm.py `_BatchNorm.forward` in training mode (batch statistics, running averages
    with `momentum` and the unbiased variance), written out functionally as stateless training code does.
    """
    def __init__(self, momentum: float = 0.1, eps: float = 1e-5):
        super(Model, self).__init__()
        self.momentum = momentum
        self.eps = eps

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, running_mean: torch.Tensor,
                running_var: torch.Tensor):
        """
        Args:
            x (torch.Tensor): float32 (N, C, *).
            weight, bias, running_mean, running_var (torch.Tensor): float32 (C,).

        Returns:
            tuple: the normalized x, the new running mean and the new running variance.
        """
        dims = [0] + list(range(2, x.dim()))
        shape = [1, x.shape[1]] + [1] * (x.dim() - 2)
        count = x.numel() // x.shape[1]
        mean = x.mean(dim=dims)
        var = x.var(dim=dims, unbiased=False)
        y = (x - mean.view(shape)) / torch.sqrt(var.view(shape) + self.eps) * weight.view(shape) + bias.view(shape)
        new_mean = (1 - self.momentum) * running_mean + self.momentum * mean
        new_var = (1 - self.momentum) * running_var + self.momentum * var * count / max(count - 1, 1)
        return y, new_mean, new_var


CASES = [
    (8, 32, 16, 16),
    (256, 128),
    (8, 40, 100),
    (2, 16, 4, 8, 8),
    (1, 3, 2, 2),
]


def get_inputs(case=CASES[0]):
    channels = case[1]
    return [torch.randn(case) * 3 + 1, 1 + 0.1 * torch.randn(channels), 0.1 * torch.randn(channels),
            torch.zeros(channels), torch.ones(channels)]


def get_init_inputs():
    return [0.1, 1e-5]
