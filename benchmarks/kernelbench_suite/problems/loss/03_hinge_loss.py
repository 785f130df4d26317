import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Hinge loss for binary classification with targets in {-1, +1}.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))


batch_size = 4096


def get_inputs():
    return [torch.randn(batch_size, 1), torch.randint(0, 2, (batch_size, 1)).float() * 2 - 1]


def get_init_inputs():
    return []
