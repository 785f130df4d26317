import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Cross-entropy with label smoothing and int64 class targets, over (N, C) logits and over (N, C, d1, ...) maps
    (the class dim is dim 1), mean reduction.

    Where: torchvision's classification reference (references/classification/train.py
    `nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)`), and timm's `LabelSmoothingCrossEntropy`.
    """
    def __init__(self, smoothing: float = 0.1):
        super(Model, self).__init__()
        self.smoothing = smoothing

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """
        Args:
            logits (torch.Tensor): (N, C, *).
            target (torch.Tensor): int64 (N, *), in [0, C).

        Returns:
            torch.Tensor: 0-dim loss in logits' dtype.
        """
        return F.cross_entropy(logits, target, label_smoothing=self.smoothing)


CASES = [
    ((64, 1000), torch.float32),
    ((32, 10), torch.float16),
    ((8, 5, 16), torch.float32),  # per-position classes
    ((2, 4, 8, 8), torch.bfloat16),
    ((1, 2), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    target_shape = (shape[0], *shape[2:])
    return [torch.randn(shape, dtype=dtype), torch.randint(0, shape[1], target_shape)]


def get_init_inputs():
    return [0.1]
