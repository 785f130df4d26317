import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Merging attention heads back into the hidden size: (batch, heads, seq, head_dim) transposed to (batch, seq,
    heads, head_dim), reshaped to (batch, seq, heads * head_dim) (a copy) and made contiguous.

    Where: HF transformers `LlamaAttention.forward` (`attn_output.transpose(1, 2).contiguous()`,
    `reshape(*input_shape, -1)`) and every HF attention's `_merge_heads`.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, attn_output: torch.Tensor) -> torch.Tensor:
        """
        Args:
            attn_output (torch.Tensor): (batch, heads, seq, head_dim).

        Returns:
            torch.Tensor: (batch, seq, heads * head_dim).
        """
        batch, _, seq, _ = attn_output.shape
        return attn_output.transpose(1, 2).reshape(batch, seq, -1).contiguous()


CASES = [
    ((1, 32, 16, 128), torch.bfloat16),
    ((2, 12, 7, 64), torch.float32),
    ((4, 8, 1, 128), torch.float16),
    ((1, 1, 1, 1), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
