import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Attention diagnostics on probability maps: each row's entropy -sum(p * log p) (with p clamped away from zero),
    averaged over heads and queries per example, and the head-averaged attention map (the mean over dim 1) used for
    attention rollout.

    Where: apple/ml-sigma-reparam (attention entropy monitoring, "Stabilizing Transformer Training by Preventing
    Attention Entropy Collapse") and jacobgil/vit-explain vit_rollout.py (`attention.mean(axis=1)` head fusion).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, probs: torch.Tensor):
        """
        Args:
            probs (torch.Tensor): (batch, heads, queries, keys), rows summing to one.

        Returns:
            tuple: float32 (batch,) mean entropies and the (batch, queries, keys) head-averaged map.
        """
        p = probs.float()
        entropy = -(p * torch.log(p.clamp(min=1e-12))).sum(dim=-1)
        return entropy.mean(dim=(1, 2)), probs.mean(dim=1)


CASES = [
    ((2, 12, 50, 50), torch.float32),  # ViT-B/32 at 224: 50 tokens
    ((1, 8, 16, 16), torch.bfloat16),
    ((4, 1, 1, 32), torch.float16),
    ((1, 16, 64, 64), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.softmax(torch.randn(shape) * 3, dim=-1).to(dtype)]


def get_init_inputs():
    return []
