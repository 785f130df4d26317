import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Truncating division and fmod (C semantics: the remainder takes the dividend's sign) on integers and floats, as
    ports of C/NumPy code compute them.

    Where: ports of C/CUDA and NumPy code whose integer division truncates (`torch.div(a, b,
    rounding_mode="trunc")`, the semantics torch.div documents for C-style division) and `torch.fmod` (NumPy's
    `np.fmod`), e.g. angle wrapping in pose and rotation code.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor):
        """
        Args:
            a, b (torch.Tensor): same shape and dtype, b non-zero.

        Returns:
            tuple: torch.div(a, b, rounding_mode="trunc") and torch.fmod(a, b).
        """
        return torch.div(a, b, rounding_mode="trunc"), torch.fmod(a, b)


CASES = [
    ((1000,), torch.int64),
    ((16, 16), torch.int32),
    ((4, 8), torch.float32),
    ((), torch.int32),
    ((2, 3, 4), torch.int16),
    ((0, 3), torch.int64),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    if dtype.is_floating_point:
        return [torch.randn(shape, dtype=dtype) * 100, (torch.rand(shape) * 5 + 0.5).to(dtype)]
    a = torch.randint(-5000, 5000, shape, dtype=dtype)
    b = torch.randint(1, 50, shape, dtype=dtype) * (torch.randint(0, 2, shape, dtype=dtype) * 2 - 1)
    return [a, b]


def get_init_inputs():
    return []
