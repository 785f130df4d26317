import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Combining attention masks with logical ops: a causal/visibility mask (bool) and a padding mask (int 0/1, as
    tokenizers return it) broadcast together with logical_and, logical_or, logical_not and logical_xor, all returning
    bool.

    Where: HF transformers masking_utils.py (`and_masks`, `or_masks`, `padding_mask_function`), and
    `torch.logical_not(attention_mask)` in T5/BART-style code.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, visible: torch.Tensor, padding_mask: torch.Tensor):
        """
        Args:
            visible (torch.Tensor): bool (..., queries, keys).
            padding_mask (torch.Tensor): int (..., 1, keys), 1 for tokens.

        Returns:
            tuple: four bool tensors of the broadcast shape (and, or, not, xor).
        """
        both = torch.logical_and(visible, padding_mask)
        either = torch.logical_or(visible, padding_mask)
        hidden = torch.logical_not(both)
        return both, either, hidden, torch.logical_xor(visible, padding_mask)


CASES = [
    # batch dims, queries, keys, padding dtype
    ((2,), 16, 16, torch.int64),
    ((4, 1), 1, 33, torch.int32),
    ((), 8, 8, torch.bool),
    ((2, 2, 2), 3, 5, torch.int8),
    ((1,), 1, 1, torch.int64),
    ((0,), 4, 4, torch.int64),
]


def get_inputs(case=CASES[0]):
    batch, queries, keys, dtype = case
    visible = torch.rand(*batch, queries, keys) > 0.3
    padding = (torch.rand(*batch, 1, keys) > 0.2).to(dtype)
    return [visible, padding]


def get_init_inputs():
    return []
