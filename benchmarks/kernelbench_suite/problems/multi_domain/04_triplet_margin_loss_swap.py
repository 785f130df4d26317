import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Triplet margin loss with the distance swap: pairwise L2 distances (with PyTorch's eps) anchor-positive,
    anchor-negative and positive-negative, the harder negative distance taken, relu(d_ap - d_an + margin), mean;
    and the per-triplet losses without reduction.

    Where: `nn.TripletMarginLoss(margin, p=2, swap=True)` as in FaceNet-style and person re-identification training
    (e.g. KevinMusgrave/pytorch-metric-learning baselines, michuanhaohao/reid-strong-baseline).
    """
    def __init__(self, margin: float = 0.3):
        super(Model, self).__init__()
        self.margin = margin

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor):
        """
        Args:
            anchor, positive, negative (torch.Tensor): (N, dim) or (dim,).

        Returns:
            tuple: the 0-dim mean loss and the unreduced losses.
        """
        return (F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, swap=True),
                F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, swap=True, reduction="none"))


CASES = [
    ((128, 256), torch.float32),
    ((32, 2048), torch.float32),
    ((64,), torch.float32),
    ((16, 128), torch.bfloat16),
    ((4, 8), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    anchor = torch.randn(shape)
    positive = anchor + 0.5 * torch.randn(shape)
    negative = anchor + 0.5 * torch.randn(shape)  # hard negatives: about half the triplets violate the margin
    return [anchor.to(dtype), positive.to(dtype), negative.to(dtype)]


def get_init_inputs():
    return [0.3]
