import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Multi-label classification loss: int64 multi-hot labels cast to the logits' dtype, binary cross-entropy with
    logits and a per-class positive weight, mean reduction; and the unweighted per-element losses.

    Where: HF transformers `BertForSequenceClassification` with problem_type "multi_label_classification"
    (`BCEWithLogitsLoss()(logits, labels)`), and `pos_weight` for imbalanced tagging (e.g. CheXNet ports).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, logits: torch.Tensor, labels: torch.Tensor, pos_weight: torch.Tensor):
        """
        Args:
            logits (torch.Tensor): (N, C).
            labels (torch.Tensor): int64 (N, C) of 0/1.
            pos_weight (torch.Tensor): (C,), logits' dtype.

        Returns:
            tuple: 0-dim weighted mean loss and (N, C) unweighted losses.
        """
        targets = labels.to(logits.dtype)
        weighted = F.binary_cross_entropy_with_logits(logits, targets, pos_weight=pos_weight)
        return weighted, F.binary_cross_entropy_with_logits(logits, targets, reduction="none")


CASES = [
    ((64, 14), torch.float32),
    ((8, 1000), torch.float16),
    ((1, 1), torch.float32),
    ((32, 80), torch.bfloat16),
    ((0, 5), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype) * 3, (torch.rand(shape) < 0.3).long(),
            (torch.rand(shape[1]) * 4 + 0.5).to(dtype)]


def get_init_inputs():
    return []
