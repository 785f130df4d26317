import math

import torch
import torch.nn as nn


class Model(nn.Module):
    """
    T5's relative position buckets: integer relative positions split by sign (bidirectional) or clipped at zero
    (causal), small distances kept exact, large ones mapped logarithmically (float log, truncated back to int64)
    and capped at the last bucket with min and full_like; torch.where picks per element.

    Where: HF transformers models/t5/modeling_t5.py `T5Attention._relative_position_bucket` (also LongT5, UMT5,
    Pop2Piano).
    """
    def __init__(self, num_buckets: int = 32, max_distance: int = 128):
        super(Model, self).__init__()
        self.num_buckets = num_buckets
        self.max_distance = max_distance

    def forward(self, relative_position: torch.Tensor, bidirectional: bool) -> torch.Tensor:
        """
        Args:
            relative_position (torch.Tensor): int64 (queries, keys), memory position minus query position.
            bidirectional (bool): encoder (True) or decoder (False) buckets.

        Returns:
            torch.Tensor: int64 buckets, same shape.
        """
        num_buckets = self.num_buckets
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(self.max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
        )
        relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
        return relative_buckets


CASES = [
    # queries, keys, bidirectional
    (64, 64, True),
    (64, 64, False),
    (1, 300, False),  # a decode step far into the sequence
    (7, 13, True),
    (1, 1, True),
]


def get_inputs(case=CASES[0]):
    queries, keys, bidirectional = case
    context = torch.arange(queries)[:, None] + (keys - queries)
    memory = torch.arange(keys)[None, :]
    return [memory - context, bidirectional]


def get_init_inputs():
    return [32, 128]
