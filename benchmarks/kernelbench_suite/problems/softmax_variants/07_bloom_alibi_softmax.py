import math

import torch
import torch.nn as nn


class Model(nn.Module):
    """
    BLOOM's ALiBi bias built from the attention mask, added to the scores before a float32 softmax: per-head slopes
    from the head count (the closest power of two and extra interleaved slopes when it is not one: Python math on
    the sizes), key positions from a cumsum of the int mask, slope times position, reshaped per head.

    Where: HF transformers models/bloom/modeling_bloom.py `build_alibi_tensor` and `BloomAttention.forward`
    (softmax in float32, cast back).
    """
    def __init__(self, num_heads: int = 12):
        super(Model, self).__init__()
        self.num_heads = num_heads

    def forward(self, scores: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """
        Args:
            scores (torch.Tensor): (batch, num_heads, queries, keys).
            attention_mask (torch.Tensor): int64 (batch, keys), 0 for (left) padding.

        Returns:
            torch.Tensor: probabilities, scores' shape and dtype.
        """
        batch_size, seq_length = attention_mask.shape
        num_heads = self.num_heads
        closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
        base = torch.tensor(2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3))), dtype=torch.float32)
        powers = torch.arange(1, 1 + closest_power_of_2, dtype=torch.int32)
        slopes = torch.pow(base, powers)
        if closest_power_of_2 != num_heads:
            extra_base = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest_power_of_2) - 3))), dtype=torch.float32)
            num_remaining_heads = min(closest_power_of_2, num_heads - closest_power_of_2)
            extra_powers = torch.arange(1, 1 + 2 * num_remaining_heads, 2, dtype=torch.int32)
            slopes = torch.cat([slopes, torch.pow(extra_base, extra_powers)], dim=0)
        arange_tensor = ((attention_mask.cumsum(dim=-1) - 1) * attention_mask)[:, None, :]
        alibi = slopes[..., None] * arange_tensor
        alibi = alibi.reshape(batch_size, num_heads, 1, seq_length).to(scores.dtype)
        probs = torch.softmax((scores + alibi).float(), dim=-1)
        return probs.to(scores.dtype)


CASES = [
    # batch, queries, keys, dtype
    (2, 16, 16, torch.float32),
    (3, 1, 24, torch.bfloat16),
    (1, 8, 8, torch.float16),
    (4, 3, 3, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, queries, keys, dtype = case
    pads = torch.randint(0, keys, (batch,))
    mask = (torch.arange(keys)[None, :] >= pads[:, None]).long()  # left padding
    return [torch.randn(batch, 12, queries, keys, dtype=dtype), mask]


def get_init_inputs():
    return [12]
