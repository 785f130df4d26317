import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Concatenated global max and average pooling: adaptive max and average pools to one value per channel,
    concatenated along the channels and flattened for the head; also the 1-d variant on sequences.

    Where: fastai fastai/layers.py `AdaptiveConcatPool2d` / `AdaptiveConcatPool1d` (also timm's
    `SelectAdaptivePool2d(pool_type="catavgmax")`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, H, W) or (N, C, L).

        Returns:
            torch.Tensor: (N, 2C), max then average.
        """
        if x.dim() == 3:
            pooled = torch.cat([F.adaptive_max_pool1d(x, 1), F.adaptive_avg_pool1d(x, 1)], 1)
        else:
            pooled = torch.cat([F.adaptive_max_pool2d(x, 1), F.adaptive_avg_pool2d(x, 1)], 1)
        return torch.flatten(pooled, 1)


CASES = [
    ((2, 512, 7, 7), torch.float32),
    ((2, 2048, 4, 4), torch.bfloat16),
    ((4, 64, 100), torch.float32),
    ((1, 3, 1, 1), torch.float16),
    ((0, 16, 4, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
