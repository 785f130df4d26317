import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Attention probabilities with a padding mask made additive: the int 0/1 mask (batch, keys) is broadcast to
    (batch, 1, 1, keys), turned into 0 / the dtype's lowest value with (1 - mask) * finfo(dtype).min, added to the
    scaled scores, softmaxed over the keys.

    Where: HF transformers modeling_attn_mask_utils.py `_prepare_4d_attention_mask` / the older
    `get_extended_attention_mask` of BERT, RoBERTa and ViT-style encoders, then `nn.functional.softmax(scores, -1)`.
    """
    def __init__(self, head_dim: int = 64):
        super(Model, self).__init__()
        self.scale = head_dim ** -0.5

    def forward(self, scores: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """
        Args:
            scores (torch.Tensor): (batch, heads, queries, keys), q @ k^T.
            attention_mask (torch.Tensor): int64 (batch, keys), 1 for tokens and 0 for padding.

        Returns:
            torch.Tensor: the probabilities, scores' shape and dtype.
        """
        dtype = scores.dtype
        extended = (1.0 - attention_mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min
        return torch.softmax(scores * self.scale + extended, dim=-1)


CASES = [
    # batch, heads, queries, keys, dtype
    (2, 12, 32, 32, torch.float32),
    (4, 8, 16, 16, torch.float16),
    (1, 16, 1, 77, torch.bfloat16),
    (3, 1, 5, 9, torch.float32),
    (0, 4, 8, 8, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, heads, queries, keys, dtype = case
    lengths = torch.randint(1, keys + 1, (batch,))
    mask = (torch.arange(keys)[None, :] < lengths[:, None]).long()
    return [torch.randn(batch, heads, queries, keys, dtype=dtype) * 8, mask]


def get_init_inputs():
    return [64]
