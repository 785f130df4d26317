import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Smoothed one-hot targets from int64 class labels of any shape: F.one_hot (int64) cast to float, times
    (1 - smoothing), plus smoothing / classes.

    Where: timm timm/data/mixup.py `one_hot` / `mixup_target` (`torch.full(...).scatter_(1, x, on_value)`, written
    with F.one_hot in many trainers) and torchvision's classification reference (`label_smoothing`).
    """
    def __init__(self, num_classes: int = 10, smoothing: float = 0.1):
        super(Model, self).__init__()
        self.num_classes = num_classes
        self.smoothing = smoothing

    def forward(self, labels: torch.Tensor):
        """
        Args:
            labels (torch.Tensor): int64, any shape, values in [0, num_classes).

        Returns:
            tuple: int64 one-hot (*labels.shape, num_classes) and the float32 smoothed targets.
        """
        one_hot = F.one_hot(labels, self.num_classes)
        return one_hot, one_hot.float() * (1 - self.smoothing) + self.smoothing / self.num_classes


CASES = [(128,), (), (4, 16, 16), (2, 3), (0,)]


def get_inputs(case=CASES[0]):
    return [torch.randint(0, 10, case)]


def get_init_inputs():
    return [10, 0.1]
