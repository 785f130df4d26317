import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Bitwise and, or, xor and not on integer and bool tensors, with a tensor and with Python int constants (flag
    words and bit masks).

    Where: the bit packing of low-bit weights (torchao torchao/dtypes/uintx/bitpacking.py: `&`, `|`, shifts on
    uint8), and flag words in ported C code (`flags & mask`, `flags | bit`, `~mask`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor):
        """
        Args:
            a, b (torch.Tensor): same shape, an integer dtype or bool.

        Returns:
            tuple: a & b, a | b, a ^ b, ~a, (a & 6) | (b ^ 1) (ints) or a & ~b (bool).
        """
        if a.dtype == torch.bool:
            return a & b, a | b, a ^ b, ~a, a & ~b
        return a & b, a | b, a ^ b, ~a, (a & 6) | (b ^ 1)


CASES = [
    ((64, 64), torch.int32),
    ((1000,), torch.int64),
    ((), torch.int16),
    ((3, 7, 5), torch.int8),
    ((16, 16), torch.uint8),
    ((4, 9), torch.bool),
    ((2, 1, 3, 2, 1, 4), torch.int16),
    ((1, 2, 1, 2, 1, 2, 1, 3), torch.int64),
    ((0, 5), torch.int32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    if dtype == torch.bool:
        return [torch.rand(shape) > 0.5, torch.rand(shape) > 0.5]
    info = torch.iinfo(dtype)
    low, high = max(info.min, -2**20), min(info.max, 2**20)
    return [torch.randint(low, high, shape, dtype=dtype), torch.randint(low, high, shape, dtype=dtype)]


def get_init_inputs():
    return []
