import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Boolean reductions on integer masks: whether a row has any padding (any), whether a column is fully valid (all
    over dim 0), and the non-zero count per row (count_nonzero, int64), as sequence lengths.

    Where: HF transformers (`if (attention_mask == 0).any()` before choosing SDPA's mask, `attention_mask.all()`),
    and sequence lengths `torch.count_nonzero(attention_mask, dim=-1)` in packing/unpadding code.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, attention_mask: torch.Tensor):
        """
        Args:
            attention_mask (torch.Tensor): int 0/1 or bool, (batch, seq, ...).

        Returns:
            tuple: bool (batch, ...) has padding, bool (seq, ...) all valid, int64 (batch, ...) lengths.
        """
        has_padding = (attention_mask == 0).any(dim=1)
        return has_padding, attention_mask.bool().all(dim=0), torch.count_nonzero(attention_mask, dim=1)


CASES = [
    ((8, 128), torch.int64),
    ((32, 7), torch.int32),
    ((4, 16), torch.bool),
    ((2, 5, 3), torch.int8),
    ((1, 1), torch.int64),
    ((0, 4), torch.int64),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [(torch.rand(shape) > 0.2).to(dtype)]


def get_init_inputs():
    return []
