import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Swin window partition and its inverse: (B, H, W, C) viewed as (B, H/ws, ws, W/ws, ws, C), permuted to gather each
    window, made contiguous and viewed as (windows, ws, ws, C); and the reverse, with the batch computed from the
    window count.

    Where: HF transformers models/swin/modeling_swin.py `window_partition` and `window_reverse` (also
    microsoft/Swin-Transformer models/swin_transformer.py).
    """
    def __init__(self, window_size: int = 7):
        super(Model, self).__init__()
        self.window_size = window_size

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (B, H, W, C), H and W multiples of window_size.

        Returns:
            tuple: windows (B * H/ws * W/ws, ws, ws, C) and the windows merged back (B, H, W, C) after doubling.
        """
        ws = self.window_size
        batch, height, width, channels = x.shape
        windows = x.view(batch, height // ws, ws, width // ws, ws, channels)
        windows = windows.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, channels)
        merged = (windows * 2).view(-1, height // ws, width // ws, ws, ws, channels)
        merged = merged.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, height, width, channels)
        return windows, merged


CASES = [
    ((1, 28, 28, 96), torch.float32),
    ((2, 14, 28, 32), torch.bfloat16),
    ((1, 7, 7, 3), torch.float16),
    ((4, 21, 7, 8), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [7]
