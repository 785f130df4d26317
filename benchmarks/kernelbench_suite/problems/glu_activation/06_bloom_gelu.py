import torch
import torch.nn as nn


class Model(nn.Module):
    """
    BLOOM's tanh GELU written with its own constants: x * 0.5 * (1 + tanh(0.79788456 * x * (1 + 0.044715 * x * x))).

    Where: HF transformers models/bloom/modeling_bloom.py `bloom_gelu_forward` (`BloomGelu` in inference mode).
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
        return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))


CASES = [
    ((2, 4, 4096), torch.bfloat16),
    ((7, 1024), torch.float16),
    ((64,), torch.float32),
    ((2, 3, 4, 5, 6), torch.float32),
    ((0, 16), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype) * 3]


def get_init_inputs():
    return []
