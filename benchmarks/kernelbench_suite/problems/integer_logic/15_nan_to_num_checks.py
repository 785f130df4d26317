import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Non-finite value handling: bool maps of NaN and infinity, a per-row all-finite flag, and nan_to_num replacing NaN
    and the infinities by given values.

    Where: training-loop and metric guards (`torch.isfinite(loss).all()`, `torch.nan_to_num(x, nan=0.0,
    posinf=..., neginf=...)` in torchmetrics and in sampling code that sanitizes logits).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (..., n), floating.

        Returns:
            tuple: bool isnan(x), bool isinf(x), bool all-finite per row (...,), nan_to_num(x) in x's dtype.
        """
        finite_rows = torch.isfinite(x).all(dim=-1)
        return torch.isnan(x), torch.isinf(x), finite_rows, torch.nan_to_num(x, nan=0.0, posinf=1e4, neginf=-1e4)


CASES = [
    ((16, 128), torch.float32),
    ((4, 9), torch.float16),
    ((3, 5, 7), torch.bfloat16),
    ((1,), torch.float32),
    ((2, 1, 2, 1, 2, 1, 2, 4), torch.float32),
    ((0, 8), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    x = torch.randn(shape, dtype=dtype)
    flat = x.view(-1)
    if flat.numel() >= 3:
        flat[::5] = float("nan")
        flat[1::7] = float("inf")
        flat[2::11] = float("-inf")
    return [x]


def get_init_inputs():
    return []
