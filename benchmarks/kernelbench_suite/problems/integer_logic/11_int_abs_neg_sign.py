import torch
import torch.nn as nn


class Model(nn.Module):
    """
    abs, neg and sign of signed integers, and the sign times a float magnitude (sign-magnitude decoding), at every
    rank.

    Where: relative-distance code (`torch.abs(relative_position)` in T5/Swin position indices), and
    sign-magnitude quantization decoders (`torch.sign(q) * scale * 2 ** (abs(q) ...)` in log-quantizers).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, q: torch.Tensor, scale: torch.Tensor):
        """
        Args:
            q (torch.Tensor): signed integers.
            scale (torch.Tensor): float32 of q's shape.

        Returns:
            tuple: abs(q), -q, sign(q) (q's dtype) and sign(q) * scale (float32).
        """
        return torch.abs(q), torch.neg(q), torch.sign(q), torch.sign(q) * scale


CASES = [
    ((64, 64), torch.int32),
    ((7,), torch.int8),
    ((), torch.int64),
    ((2, 3, 4, 5), torch.int16),
    ((1, 2, 1, 3, 2, 1, 4), torch.int32),
    ((2, 1, 2, 1, 2, 1, 2, 1), torch.int64),
    ((0, 3), torch.int32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randint(-100, 100, shape, dtype=dtype), torch.rand(shape)]


def get_init_inputs():
    return []
