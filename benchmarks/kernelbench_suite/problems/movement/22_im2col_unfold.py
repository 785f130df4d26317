import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    im2col with F.unfold (sliding local blocks, with padding and stride) and its inverse F.fold (overlapping blocks
    summed), as hand-written convolutions and local attention build their neighbourhoods.

    Where: torch.nn.Unfold's documented convolution-as-matmul example (`inp_unf = torch.nn.functional.unfold(inp,
    (4, 5))`), and involution / stand-alone local self-attention ports that gather k x k neighbourhoods with
    F.unfold.
    """
    def __init__(self, kernel_size: int = 3, padding: int = 1, stride: int = 1):
        super(Model, self).__init__()
        self.kernel_size = kernel_size
        self.padding = padding
        self.stride = stride

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (N, C, H, W) or (C, H, W).

        Returns:
            tuple: the unfolded columns (..., C * k * k, L) and F.fold of them back to (..., C, H, W).
        """
        cols = F.unfold(x, self.kernel_size, padding=self.padding, stride=self.stride)
        folded = F.fold(cols, x.shape[-2:], self.kernel_size, padding=self.padding, stride=self.stride)
        return cols, folded


CASES = [
    ((2, 16, 16, 16), torch.float32),
    ((1, 3, 32, 32), torch.float16),
    ((4, 5, 7), torch.bfloat16),
    ((1, 1, 1, 1), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [3, 1, 1]
