import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Preference-loss activations on margins of any rank (a 0-dim margin included): -logsigmoid(beta * margin) for
    DPO, and the smoothed variant -(1 - eps) * logsigmoid(m) - eps * logsigmoid(-m) (conservative DPO).

    Where: TRL trl/trainer/dpo_trainer.py `dpo_loss` ("sigmoid" loss with label_smoothing: `-F.logsigmoid(beta *
    logits) * (1 - label_smoothing) - F.logsigmoid(-beta * logits) * label_smoothing`).
    """
    def __init__(self, beta: float = 0.1, label_smoothing: float = 0.1):
        super(Model, self).__init__()
        self.beta = beta
        self.label_smoothing = label_smoothing

    def forward(self, margins: torch.Tensor):
        """
        Args:
            margins (torch.Tensor): any shape.

        Returns:
            tuple: the plain and the smoothed losses, margins' shape.
        """
        logits = self.beta * margins
        smoothed = -F.logsigmoid(logits) * (1 - self.label_smoothing) - F.logsigmoid(-logits) * self.label_smoothing
        return -F.logsigmoid(logits), smoothed


CASES = [
    ((64,), torch.float32),
    ((), torch.float32),
    ((8, 4), torch.bfloat16),
    ((2, 3, 5), torch.float16),
    ((0,), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [(torch.randn(shape) * 30).to(dtype)]


def get_init_inputs():
    return [0.1, 0.1]
