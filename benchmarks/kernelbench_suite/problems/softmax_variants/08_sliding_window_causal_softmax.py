import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Sliding-window causal attention weights: the mask is built inside the function from arange comparisons (a key
    is visible when it is not in the future and less than `window` positions back, with the kv-cache offset), the
    masked scores filled with the dtype's lowest value, softmax in float32 and cast back.

    Where: HF transformers masking_utils.py `sliding_window_causal_mask_function` (Mistral, Gemma-2/3 local layers,
    Qwen2 with use_sliding_window) applied as in `eager_attention_forward`.
    """
    def __init__(self, window: int = 4):
        super(Model, self).__init__()
        self.window = window

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        """
        Args:
            scores (torch.Tensor): (batch, heads, queries, keys), keys >= queries.

        Returns:
            torch.Tensor: the weights, same shape and dtype.
        """
        queries, keys = scores.shape[-2:]
        q_pos = torch.arange(queries)[:, None] + (keys - queries)
        k_pos = torch.arange(keys)[None, :]
        visible = (k_pos <= q_pos) & (k_pos > q_pos - self.window)
        scores = scores.masked_fill(~visible, torch.finfo(scores.dtype).min)
        return torch.softmax(scores, dim=-1, dtype=torch.float32).to(scores.dtype)


CASES = [
    ((1, 8, 16, 16), torch.float32),
    ((2, 4, 9, 9), torch.bfloat16),
    ((1, 32, 1, 64), torch.float16),
    ((1, 2, 3, 40), torch.float32),
    ((1, 1, 1, 1), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype) * 4]


def get_init_inputs():
    return [4]
