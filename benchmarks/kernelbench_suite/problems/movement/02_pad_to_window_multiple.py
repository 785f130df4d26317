import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Padding a channels-last feature map so that height and width become multiples of the window size: the pads are
    computed from the shape ((window - size % window) % window) and applied with F.pad on the two spatial dims (zero
    when already aligned).

    Where: HF transformers models/swin/modeling_swin.py `SwinLayer.maybe_pad` (also Swin-V2, Donut-Swin, MaskFormer
    Swin).
    """
    def __init__(self, window_size: int = 7):
        super(Model, self).__init__()
        self.window_size = window_size

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        """
        Args:
            hidden_states (torch.Tensor): (batch, height, width, channels).

        Returns:
            torch.Tensor: (batch, padded height, padded width, channels).
        """
        height, width = hidden_states.shape[1], hidden_states.shape[2]
        pad_right = (self.window_size - width % self.window_size) % self.window_size
        pad_bottom = (self.window_size - height % self.window_size) % self.window_size
        return F.pad(hidden_states, (0, 0, 0, pad_right, 0, pad_bottom))


CASES = [
    ((1, 28, 28, 96), torch.float32),  # already aligned
    ((2, 30, 45, 32), torch.float16),
    ((1, 1, 1, 8), torch.bfloat16),
    ((3, 13, 7, 16), torch.float32),
    ((0, 10, 10, 8), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [7]
