import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Reordering cached keys and values by the surviving beams (index_select on the batch dim with an int64 beam
    index, repeats allowed), and picking heads on dim 1 with an int32 index.

    Where: HF transformers cache_utils.py `Cache.reorder_cache` / `_reorder_cache` of older models
    (`past_state.index_select(0, beam_idx)`), and head pruning (`index_select(1, heads)`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, key: torch.Tensor, value: torch.Tensor, beam_idx: torch.Tensor, heads: torch.Tensor):
        """
        Args:
            key, value (torch.Tensor): (batch * beams, kv_heads, seq, head_dim).
            beam_idx (torch.Tensor): int64 (batch * beams,).
            heads (torch.Tensor): int32 (kept heads,).

        Returns:
            tuple: the reordered key and value, and the key restricted to the kept heads.
        """
        key = key.index_select(0, beam_idx)
        return key, value.index_select(0, beam_idx), key.index_select(1, heads)


CASES = [
    # batch * beams, kv_heads, seq, head_dim, dtype
    (8, 4, 32, 64, torch.float16),
    (4, 8, 1, 128, torch.bfloat16),
    (2, 2, 5, 16, torch.float32),
    (3, 1, 0, 64, torch.float32),
]


def get_inputs(case=CASES[0]):
    rows, heads, seq, head_dim, dtype = case
    return [torch.randn(rows, heads, seq, head_dim, dtype=dtype), torch.randn(rows, heads, seq, head_dim, dtype=dtype),
            torch.randint(0, rows, (rows,)), torch.randperm(heads)[: max(1, heads // 2)].to(torch.int32)]


def get_init_inputs():
    return []
