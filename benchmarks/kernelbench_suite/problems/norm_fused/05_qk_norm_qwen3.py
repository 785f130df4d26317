import torch
import torch.nn as nn


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    input_dtype = x.dtype
    x = x.to(torch.float32)
    variance = x.pow(2).mean(-1, keepdim=True)
    x = x * torch.rsqrt(variance + eps)
    return weight * x.to(input_dtype)


class Model(nn.Module):
    """
    Query/key normalization per head before rotary embedding: the projections (batch, seq, heads * head_dim) are
    viewed per head (the head count computed from the size), RMS-normalized over head_dim with a per-dim weight,
    and transposed to (batch, heads, seq, head_dim).

    Where: HF transformers models/qwen3/modeling_qwen3.py `Qwen3Attention.forward` (`self.q_norm(...view(
    hidden_shape)).transpose(1, 2)`); the same in Gemma-3 and OLMo-2-style qk-norm.
    """
    def __init__(self, head_dim: int = 128, eps: float = 1e-6):
        super(Model, self).__init__()
        self.head_dim = head_dim
        self.eps = eps

    def forward(self, q: torch.Tensor, k: torch.Tensor, q_weight: torch.Tensor, k_weight: torch.Tensor):
        """
        Args:
            q (torch.Tensor): (batch, seq, heads * head_dim).
            k (torch.Tensor): (batch, seq, kv_heads * head_dim).
            q_weight, k_weight (torch.Tensor): (head_dim,).

        Returns:
            tuple: normalized q (batch, heads, seq, head_dim) and k (batch, kv_heads, seq, head_dim).
        """
        q_shape = (*q.shape[:-1], -1, self.head_dim)
        k_shape = (*k.shape[:-1], -1, self.head_dim)
        q = rms_norm(q.view(q_shape), q_weight, self.eps).transpose(1, 2)
        k = rms_norm(k.view(k_shape), k_weight, self.eps).transpose(1, 2)
        return q, k


CASES = [
    # batch, seq, heads, kv_heads, dtype
    (1, 16, 16, 8, torch.bfloat16),
    (2, 5, 8, 2, torch.float16),
    (4, 1, 32, 4, torch.bfloat16),
    (1, 3, 4, 4, torch.float32),
    (1, 1, 1, 1, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, seq, heads, kv_heads, dtype = case
    return [torch.randn(batch, seq, heads * 128, dtype=dtype), torch.randn(batch, seq, kv_heads * 128, dtype=dtype),
            (1 + 0.1 * torch.randn(128)).to(dtype), (1 + 0.1 * torch.randn(128)).to(dtype)]


def get_init_inputs():
    return [128, 1e-6]
