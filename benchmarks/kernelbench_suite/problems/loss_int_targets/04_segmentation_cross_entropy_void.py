import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Semantic segmentation loss: per-pixel cross-entropy of (N, C, H, W) logits against (N, H, W) int64 masks where
    255 marks void pixels (ignored), both unreduced (per pixel) and the mean.

    Where: torchvision references/segmentation/train.py `criterion` (`nn.functional.cross_entropy(x, target,
    ignore_index=255)`), and mmsegmentation's `CrossEntropyLoss` with ignore_index=255.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor):
        """
        Args:
            logits (torch.Tensor): (N, C, H, W).
            target (torch.Tensor): int64 (N, H, W), in [0, C) or 255.

        Returns:
            tuple: per-pixel losses (N, H, W) and the 0-dim mean over non-void pixels.
        """
        return (F.cross_entropy(logits, target, ignore_index=255, reduction="none"),
                F.cross_entropy(logits, target, ignore_index=255))


CASES = [
    ((2, 21, 64, 64), torch.float32),  # Pascal VOC classes
    ((1, 19, 32, 64), torch.float16),  # Cityscapes classes
    ((4, 2, 16, 16), torch.bfloat16),
    ((1, 3, 1, 1), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    n, c, h, w = shape
    target = torch.randint(0, c, (n, h, w)).masked_fill(torch.rand(n, h, w) < 0.1, 255)
    return [torch.randn(shape, dtype=dtype), target]


def get_init_inputs():
    return []
