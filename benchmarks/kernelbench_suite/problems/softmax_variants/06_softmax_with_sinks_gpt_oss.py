import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Attention with learned sinks: a per-head sink logit is appended to every row of scores as an extra key (reshape,
    expand, cat), the row maximum subtracted, softmax in float32 over keys plus sink, and the sink column dropped:
    the probabilities sum to less than one.

    Where: HF transformers models/gpt_oss/modeling_gpt_oss.py `eager_attention_forward` (sinks).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, attn_weights: torch.Tensor, causal_mask: torch.Tensor, sinks: torch.Tensor) -> torch.Tensor:
        """
        Args:
            attn_weights (torch.Tensor): (batch, heads, queries, keys), scaled scores.
            causal_mask (torch.Tensor): (batch, 1, queries, keys), additive.
            sinks (torch.Tensor): (heads,).

        Returns:
            torch.Tensor: probabilities over the keys, attn_weights' shape and dtype.
        """
        batch, _, queries, _ = attn_weights.shape
        attn_weights = attn_weights + causal_mask
        sinks = sinks.reshape(1, -1, 1, 1).expand(batch, -1, queries, -1)
        combined_logits = torch.cat([attn_weights, sinks], dim=-1)
        combined_logits = combined_logits - combined_logits.max(dim=-1, keepdim=True).values
        probs = F.softmax(combined_logits, dim=-1, dtype=combined_logits.dtype)
        return probs[..., :-1]


CASES = [
    # batch, heads, queries, keys, dtype
    (1, 8, 16, 16, torch.bfloat16),
    (2, 4, 5, 5, torch.float32),
    (1, 64, 1, 33, torch.bfloat16),
    (1, 1, 1, 1, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, heads, queries, keys, dtype = case
    future = torch.arange(keys)[None, :] > torch.arange(queries)[:, None] + (keys - queries)
    mask = torch.zeros(queries, keys).masked_fill(future, torch.finfo(dtype).min).to(dtype)
    return [torch.randn(batch, heads, queries, keys, dtype=dtype) * 3, mask.expand(batch, 1, -1, -1).contiguous(),
            torch.randn(heads, dtype=dtype)]


def get_init_inputs():
    return []
