import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Class-weighted cross-entropy with int64 targets: the mean is weighted by each target's class weight (the sum of
    weighted losses over the sum of the targets' weights), and the unreduced per-sample losses.

    Where: imbalanced classification heads (`nn.CrossEntropyLoss(weight=class_weights)`), e.g. HF transformers
    Trainer subclasses in the docs' custom-loss example and torchvision's segmentation weighting.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor, weight: torch.Tensor):
        """
        Args:
            logits (torch.Tensor): (N, C) float32.
            target (torch.Tensor): int64 (N,).
            weight (torch.Tensor): float32 (C,).

        Returns:
            tuple: 0-dim weighted mean loss and (N,) per-sample losses.
        """
        return (F.cross_entropy(logits, target, weight=weight),
                F.cross_entropy(logits, target, weight=weight, reduction="none"))


CASES = [(1024, 3), (16, 100), (1, 5), (0, 4)]


def get_inputs(case=CASES[0]):
    n, c = case
    return [torch.randn(n, c), torch.randint(0, c, (n,)), torch.rand(c) + 0.1]


def get_init_inputs():
    return []
