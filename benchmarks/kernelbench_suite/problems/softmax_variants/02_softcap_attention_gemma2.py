import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Gemma-2's attention-logit soft-capping: scores / cap, tanh, times cap; the additive causal mask (a float tensor
    of 0 and the dtype's lowest value) added; softmax in float32, cast back to the query dtype.

    Where: HF transformers models/gemma2/modeling_gemma2.py `eager_attention_forward` (softcap =
    attn_logit_softcapping = 50.0).
    """
    def __init__(self, softcap: float = 50.0):
        super(Model, self).__init__()
        self.softcap = softcap

    def forward(self, attn_weights: torch.Tensor, causal_mask: torch.Tensor) -> torch.Tensor:
        """
        Args:
            attn_weights (torch.Tensor): (batch, heads, queries, keys), already scaled.
            causal_mask (torch.Tensor): (batch, 1, queries, keys), additive.

        Returns:
            torch.Tensor: probabilities in attn_weights' dtype.
        """
        attn_weights = attn_weights / self.softcap
        attn_weights = torch.tanh(attn_weights)
        attn_weights = attn_weights * self.softcap
        attn_weights = attn_weights + causal_mask
        return nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(attn_weights.dtype)


CASES = [
    # batch, heads, queries, keys, dtype
    (1, 8, 16, 16, torch.bfloat16),
    (2, 4, 7, 7, torch.float32),
    (1, 16, 1, 40, torch.float16),  # decode against a cache
    (1, 1, 3, 5, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, heads, queries, keys, dtype = case
    future = torch.arange(keys)[None, :] > torch.arange(queries)[:, None] + (keys - queries)
    mask = torch.zeros(queries, keys).masked_fill(future, torch.finfo(dtype).min).to(dtype)
    return [torch.randn(batch, heads, queries, keys, dtype=dtype) * 30, mask.expand(batch, 1, -1, -1).contiguous()]


def get_init_inputs():
    return [50.0]
