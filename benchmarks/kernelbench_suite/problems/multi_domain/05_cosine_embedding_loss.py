import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Cosine embedding loss with int64 +1/-1 pair labels: 1 - cos for similar pairs, max(0, cos - margin) for
    dissimilar ones, mean and unreduced.

    Where: `nn.CosineEmbeddingLoss(margin)` in siamese and cross-modal matching, e.g. torralba-lab/im2recipe-Pytorch
    (recipe/image embedding alignment with +1/-1 pair labels).
    """
    def __init__(self, margin: float = 0.2):
        super(Model, self).__init__()
        self.margin = margin

    def forward(self, x1: torch.Tensor, x2: torch.Tensor, y: torch.Tensor):
        """
        Args:
            x1, x2 (torch.Tensor): (N, dim) or (dim,).
            y (torch.Tensor): int64 (N,) or 0-dim, +1 or -1.

        Returns:
            tuple: the 0-dim mean loss and the unreduced losses.
        """
        return (F.cosine_embedding_loss(x1, x2, y, margin=self.margin),
                F.cosine_embedding_loss(x1, x2, y, margin=self.margin, reduction="none"))


CASES = [
    ((256, 128), torch.float32),
    ((1, 1024), torch.float32),
    ((64,), torch.float32),
    ((32, 64), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    labels_shape = shape[:-1]
    y = torch.randint(0, 2, labels_shape) * 2 - 1
    return [torch.randn(shape).to(dtype), torch.randn(shape).to(dtype), y]


def get_init_inputs():
    return [0.2]
