import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Squared ReLU: relu(x) ** 2, the MLP activation of Primer and Nemotron, at any rank.

    Where: HF transformers activations.py `ReLUSquaredActivation` (Nemotron, Primer-style configs) and
    Megatron-LM's `squared_relu`.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any shape.

        Returns:
            torch.Tensor: same shape and dtype.
        """
        return torch.square(F.relu(x))


CASES = [
    ((8, 16384), torch.bfloat16),
    ((3, 17, 96), torch.float32),
    ((5,), torch.float16),
    ((2, 1, 3, 4, 1, 6), torch.bfloat16),
    ((), torch.float32),
    ((1, 1, 1, 1, 1, 1, 1, 7), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype) * 4]


def get_init_inputs():
    return []
