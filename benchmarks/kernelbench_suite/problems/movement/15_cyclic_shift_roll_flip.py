import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Swin's cyclic shift (torch.roll by minus half a window on height and width, and back) and the sequence reversal of
    bidirectional state-space blocks (torch.flip on the token dim).

    Where: HF transformers models/swin/modeling_swin.py `SwinLayer.forward` (`torch.roll(hidden_states,
    shifts=(-shift, -shift), dims=(1, 2))`), and Vision Mamba (hustvl/Vim) `hidden_states.flip([1])` for the
    backward scan.
    """
    def __init__(self, shift_size: int = 3):
        super(Model, self).__init__()
        self.shift_size = shift_size

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (batch, height, width, channels).

        Returns:
            tuple: the shifted map, the map shifted back (equal to x), and x flipped along dim 1.
        """
        s = self.shift_size
        shifted = torch.roll(x, shifts=(-s, -s), dims=(1, 2))
        return shifted, torch.roll(shifted * 2, shifts=(s, s), dims=(1, 2)), torch.flip(x, dims=[1])


CASES = [
    ((1, 28, 28, 96), torch.float32),
    ((2, 14, 14, 64), torch.bfloat16),
    ((1, 7, 7, 8), torch.float16),
    ((3, 2, 5, 4), torch.float32),  # shift larger than the map
    ((0, 7, 7, 8), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [3]
