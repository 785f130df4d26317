import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Cross-entropy over class logits (upcast to float32) with int64 targets where -100 marks ignored positions: the
    mean over the counted targets (NaN when every target is ignored, as PyTorch gives).

    Where: every HF model's token classification / LM loss (`CrossEntropyLoss()` with the default ignore_index=-100,
    e.g. models/bert `BertForTokenClassification`), with logits upcast as in transformers loss/loss_utils.py.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """
        Args:
            logits (torch.Tensor): (N, C).
            target (torch.Tensor): int64 (N,), in [0, C) or -100.

        Returns:
            torch.Tensor: 0-dim float32 loss.
        """
        return F.cross_entropy(logits.float(), target, ignore_index=-100)


CASES = [
    # N, C, ignored fraction, dtype
    (512, 9, 0.2, torch.float32),
    (2, 32000, 0.1, torch.bfloat16),
    (1, 2, 0.0, torch.float16),
    (100, 1000, 0.5, torch.float32),
    (4, 10, 1.0, torch.float32),  # all ignored: NaN
]


def get_inputs(case=CASES[0]):
    n, c, ignored, dtype = case
    target = torch.randint(0, c, (n,)).masked_fill(torch.rand(n) < ignored, -100)
    return [torch.randn(n, c, dtype=dtype), target]


def get_init_inputs():
    return []
