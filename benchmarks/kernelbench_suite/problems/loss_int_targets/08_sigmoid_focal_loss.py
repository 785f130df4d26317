import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Sigmoid focal loss for dense detection with int64 class labels (one-hot through F.one_hot, the background label
    num_classes dropped): BCE with logits per element, scaled by (1 - p_t) ** gamma and the alpha balance, summed
    and divided by the number of foreground anchors (at least one).

    Where: torchvision torchvision/ops/focal_loss.py `sigmoid_focal_loss`, used by RetinaNet's
    `RetinaNetClassificationHead.compute_loss` (torchvision/models/detection/retinanet.py).
    """
    def __init__(self, num_classes: int = 80, alpha: float = 0.25, gamma: float = 2.0):
        super(Model, self).__init__()
        self.num_classes = num_classes
        self.alpha = alpha
        self.gamma = gamma

    def forward(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """
        Args:
            logits (torch.Tensor): (anchors, num_classes).
            labels (torch.Tensor): int64 (anchors,), in [0, num_classes] (num_classes: background).

        Returns:
            torch.Tensor: the 0-dim loss.
        """
        targets = F.one_hot(labels, self.num_classes + 1)[:, : self.num_classes].to(logits.dtype)
        p = torch.sigmoid(logits)
        ce_loss = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        loss = ce_loss * ((1 - p_t) ** self.gamma)
        alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
        loss = alpha_t * loss
        foreground = (labels < self.num_classes).sum().clamp(min=1)
        return loss.sum() / foreground


CASES = [(1000, torch.float32), (64, torch.float16), (1, torch.float32), (333, torch.bfloat16)]


def get_inputs(case=CASES[0]):
    anchors, dtype = case
    labels = torch.where(torch.rand(anchors) < 0.9, 80, torch.randint(0, 80, (anchors,)))
    return [(torch.randn(anchors, 80) * 2 - 3).to(dtype), labels]


def get_init_inputs():
    return [80, 0.25, 2.0]
