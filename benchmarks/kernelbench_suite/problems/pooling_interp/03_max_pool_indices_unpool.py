import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    SegNet's pooling with indices: 2x2 max pooling that also returns the int64 argmax positions, and max-unpooling
    with those indices (the max values back at their positions, zeros elsewhere).

    Where: SegNet ports (e.g. the `nn.MaxPool2d(2, 2, return_indices=True)` / `nn.MaxUnpool2d(2, 2)` encoder-decoder
    pairs of pytorch-semseg ptsemseg/models/segnet.py).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (N, C, H, W), H and W even, distinct values in each window.

        Returns:
            tuple: pooled (N, C, H/2, W/2), int64 indices, and the unpooled (N, C, H, W).
        """
        pooled, indices = F.max_pool2d(x, 2, 2, return_indices=True)
        return pooled, indices, F.max_unpool2d(pooled, indices, 2, 2, output_size=x.shape[-2:])


CASES = [
    ((2, 64, 32, 32), torch.float32),
    ((1, 16, 8, 12), torch.float16),
    ((3, 4, 2, 2), torch.float32),
    ((1, 8, 16, 16), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    *lead, h, w = shape
    # each 2x2 window: an integer base plus the offsets 0, 1/4, 1/2, 3/4 in random order (distinct maxima, exact in
    # every dtype, so the indices are defined)
    base = torch.randint(0, 64, (*lead, h // 2, w // 2, 1)).float()
    offsets = torch.argsort(torch.rand(*lead, h // 2, w // 2, 4), dim=-1).float() / 4
    windows = (base + offsets).reshape(*lead, h // 2, w // 2, 2, 2).transpose(-3, -2)
    return [windows.reshape(shape).to(dtype)]


def get_init_inputs():
    return []
