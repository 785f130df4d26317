import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Slot Attention's normalization: softmax over the slots (the middle dim, so slots compete for each input), plus
    an epsilon, then renormalized over the inputs (the last dim) to a weighted mean. Two reduction domains on one
    tensor.

    Where: google-research/google-research slot_attention/model.py `SlotAttention` and its PyTorch port
    lucidrains/slot-attention slot_attention.py (`attn = dots.softmax(dim=1) + self.eps`).
    """
    def __init__(self, eps: float = 1e-8):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, dots: torch.Tensor) -> torch.Tensor:
        """
        Args:
            dots (torch.Tensor): (batch, slots, inputs), scaled q @ k^T.

        Returns:
            torch.Tensor: the attention, same shape and dtype.
        """
        attn = dots.softmax(dim=1) + self.eps
        return attn / attn.sum(dim=-1, keepdim=True)


CASES = [
    ((8, 7, 1024), torch.float32),
    ((2, 11, 4096), torch.float16),
    ((1, 1, 64), torch.float32),
    ((4, 5, 100), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype) * 3]


def get_init_inputs():
    return []
