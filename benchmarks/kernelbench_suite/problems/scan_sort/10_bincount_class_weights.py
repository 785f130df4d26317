import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Class frequencies and inverse-frequency weights from int64 labels: bincount with minlength (classes absent from
    the batch count zero), a weighted bincount of per-sample weights, and weights total / (classes * count) with the
    zero counts clamped.

    Where: scikit-learn's `compute_class_weight("balanced")` formula as written in PyTorch trainers
    (`torch.bincount(labels, minlength=num_classes)`), and torchvision's detection references
    (`torch.bincount(... , weights=...)` group sampling).
    """
    def __init__(self, num_classes: int = 10):
        super(Model, self).__init__()
        self.num_classes = num_classes

    def forward(self, labels: torch.Tensor, sample_weights: torch.Tensor):
        """
        Args:
            labels (torch.Tensor): int64 (n,), values in [0, num_classes).
            sample_weights (torch.Tensor): float32 (n,).

        Returns:
            tuple: int64 counts, float32 weighted counts, float32 balanced class weights, each (num_classes,).
        """
        counts = torch.bincount(labels, minlength=self.num_classes)
        weighted = torch.bincount(labels, weights=sample_weights, minlength=self.num_classes)
        balanced = labels.shape[0] / (self.num_classes * counts.clamp(min=1).float())
        return counts, weighted, balanced


CASES = [1000, 7, 1, 0]


def get_inputs(case=CASES[0]):
    return [torch.randint(0, 10, (case,)), torch.rand(case)]


def get_init_inputs():
    return [10]
