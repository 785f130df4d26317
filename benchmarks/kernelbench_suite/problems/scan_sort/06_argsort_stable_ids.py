import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Stable argsort of integer ids (many ties) along the last dim, and the inverse permutation by a second argsort,
    as token reordering by expert or by bucket does.

    Where: Megatron-LM moe_utils.py `permute` (`torch.argsort(routing_map..., stable=True)`), the LSH-attention
    bucket sort of Reformer (HF transformers models/reformer `_get_sorted_bucket_idx_and_undo_sorted_bucket_idx`:
    sort and undo-sort by argsort).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, ids: torch.Tensor):
        """
        Args:
            ids (torch.Tensor): int (..., n).

        Returns:
            tuple: int64 sorting indices and int64 undo indices, ids' shape.
        """
        order = torch.argsort(ids, dim=-1, stable=True)
        return order, torch.argsort(order, dim=-1)


CASES = [
    ((2, 8, 4096), torch.int64),  # Reformer buckets per head
    ((512,), torch.int32),
    ((3, 5), torch.int16),
    ((1, 1), torch.int64),
    ((0, 9), torch.int64),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randint(0, 16, shape, dtype=dtype)]


def get_init_inputs():
    return []
