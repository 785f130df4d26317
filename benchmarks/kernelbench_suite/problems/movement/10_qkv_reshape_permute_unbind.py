import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Splitting a fused qkv projection the ViT way: reshape to (B, N, 3, heads, head_dim) with head_dim computed from
    the channels, permute to (3, B, heads, N, head_dim), unbind the first dim, and scale the queries.

    Where: timm timm/models/vision_transformer.py `Attention.forward` (`qkv.reshape(B, N, 3, self.num_heads,
    self.head_dim).permute(2, 0, 3, 1, 4)`, `q, k, v = qkv.unbind(0)`), also DINOv2 and SAM's image encoder.
    """
    def __init__(self, num_heads: int = 8):
        super(Model, self).__init__()
        self.num_heads = num_heads

    def forward(self, qkv: torch.Tensor):
        """
        Args:
            qkv (torch.Tensor): (B, N, 3 * C), C a multiple of num_heads.

        Returns:
            tuple: q * head_dim ** -0.5, k, v, each (B, heads, N, head_dim).
        """
        B, N, C3 = qkv.shape
        head_dim = C3 // 3 // self.num_heads
        qkv = qkv.reshape(B, N, 3, self.num_heads, head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        return q * head_dim ** -0.5, k, v


CASES = [
    ((1, 65, 3 * 384), torch.float32),  # ViT-S/16 at 128: 64 patches and the class token
    ((1, 50, 3 * 768), torch.float16),
    ((4, 17, 3 * 64), torch.bfloat16),
    ((1, 1, 3 * 8), torch.float32),
    ((0, 5, 3 * 64), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [8]
