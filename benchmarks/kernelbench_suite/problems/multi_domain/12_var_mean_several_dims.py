import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Statistics over a given set of dims: var_mean with a correction (0 or 1) and keepdim, and the standard deviation
    over the same dims, for dataset normalization constants and feature statistics at any rank.

    Where: torchvision-style dataset statistics (`images.mean(dim=(0, 2, 3))`, `images.std(dim=(0, 2, 3))` before
    `transforms.Normalize`), and style statistics of AdaIN (`feat.var(dim=(2, 3)) + eps`, naoto0804/pytorch-AdaIN
    function.py `calc_mean_std`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, dims: tuple, correction: int):
        """
        Args:
            x (torch.Tensor): any rank >= 1.
            dims (tuple): the reduced dims.
            correction (int): 0 (biased) or 1 (unbiased).

        Returns:
            tuple: variance and mean (kept dims), and the std (dims removed).
        """
        var, mean = torch.var_mean(x, dim=dims, correction=correction, keepdim=True)
        return var, mean, torch.std(x, dim=dims, correction=correction)


CASES = [
    # shape, dims, correction, dtype
    ((16, 3, 32, 32), (0, 2, 3), 1, torch.float32),
    ((2, 512, 8, 8), (2, 3), 0, torch.float32),  # AdaIN
    ((4, 100, 16), (1,), 1, torch.bfloat16),
    ((1000,), (0,), 1, torch.float32),
    ((2, 3, 4, 5, 6), (1, 3), 0, torch.float16),
    ((2, 1, 2, 1, 2, 1, 2, 3), (0, 2, 7), 1, torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dims, correction, dtype = case
    return [(torch.randn(shape) * 2 + 3).to(dtype), dims, correction]


def get_init_inputs():
    return []
