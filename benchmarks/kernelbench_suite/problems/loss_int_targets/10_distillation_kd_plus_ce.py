import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Knowledge distillation loss: KL divergence between the temperature-softened teacher and student distributions
    (batchmean, times T^2) mixed with the hard-label cross-entropy on int64 labels.

    Where: HF transformers examples research_projects/distillation/distiller.py (`nn.KLDivLoss(reduction=
    "batchmean")` on `log_softmax(s / T)`, `softmax(t / T)`, times T ** 2), and Hinton et al.'s recipe in
    torchdistill.
    """
    def __init__(self, temperature: float = 2.0, alpha: float = 0.5):
        super(Model, self).__init__()
        self.temperature = temperature
        self.alpha = alpha

    def forward(self, student_logits: torch.Tensor, teacher_logits: torch.Tensor, labels: torch.Tensor):
        """
        Args:
            student_logits, teacher_logits (torch.Tensor): (N, C).
            labels (torch.Tensor): int64 (N,).

        Returns:
            torch.Tensor: the 0-dim loss.
        """
        T = self.temperature
        kd = F.kl_div(F.log_softmax(student_logits / T, dim=-1), F.softmax(teacher_logits / T, dim=-1),
                      reduction="batchmean") * (T ** 2)
        ce = F.cross_entropy(student_logits, labels)
        return self.alpha * kd + (1 - self.alpha) * ce


CASES = [
    (256, 10, torch.float32),
    (2, 30522, torch.float32),  # a BERT vocabulary (masked-LM distillation)
    (1, 2, torch.float32),
    (16, 100, torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    n, c, dtype = case
    return [torch.randn(n, c, dtype=dtype), torch.randn(n, c, dtype=dtype), torch.randint(0, c, (n,))]


def get_init_inputs():
    return [2.0, 0.5]
