import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Multi-class hinge (SVM) loss with int64 targets: for each sample, the mean over the other classes of
    max(0, margin - x[y] + x[i]) ** p, with p = 1 and p = 2, mean over the batch.

    Where: `nn.MultiMarginLoss` (torch's multi-class hinge loss, Weston & Watkins' SVM formulation) used as an
    SVM-style classification head on CNN features.
    """
    def __init__(self, margin: float = 1.0):
        super(Model, self).__init__()
        self.margin = margin

    def forward(self, x: torch.Tensor, target: torch.Tensor):
        """
        Args:
            x (torch.Tensor): float32 (N, C) or (C,).
            target (torch.Tensor): int64 (N,) or 0-dim.

        Returns:
            tuple: 0-dim losses for p = 1 and p = 2.
        """
        return (F.multi_margin_loss(x, target, p=1, margin=self.margin),
                F.multi_margin_loss(x, target, p=2, margin=self.margin))


CASES = [(128, 10), (4, 1000), (1, 2), (None, 5)]


def get_inputs(case=CASES[0]):
    n, c = case
    if n is None:
        return [torch.randn(c), torch.randint(0, c, ())]
    return [torch.randn(n, c), torch.randint(0, c, (n,))]


def get_init_inputs():
    return [1.0]
