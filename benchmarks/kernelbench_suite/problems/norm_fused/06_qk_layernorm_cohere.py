import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Per-head LayerNorm of queries (no bias, a separate weight per head), computed in float32: the projection is
    viewed as (batch, seq, heads, head_dim), the mean and variance taken over head_dim, scaled by a (heads,
    head_dim) weight, and cast back.

    Where: HF transformers models/cohere/modeling_cohere.py `CohereLayerNorm` used as `q_norm`/`k_norm` with
    use_qk_norm (Command-R+).
    """
    def __init__(self, head_dim: int = 128, eps: float = 1e-5):
        super(Model, self).__init__()
        self.head_dim = head_dim
        self.eps = eps

    def forward(self, q: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        """
        Args:
            q (torch.Tensor): (batch, seq, heads * head_dim).
            weight (torch.Tensor): (heads, head_dim).

        Returns:
            torch.Tensor: (batch, seq, heads, head_dim) in q's dtype.
        """
        hidden_states = q.view(*q.shape[:-1], -1, self.head_dim)
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        mean = hidden_states.mean(-1, keepdim=True)
        variance = (hidden_states - mean).pow(2).mean(-1, keepdim=True)
        hidden_states = (hidden_states - mean) * torch.rsqrt(variance + self.eps)
        hidden_states = weight.to(torch.float32) * hidden_states
        return hidden_states.to(input_dtype)


CASES = [
    # batch, seq, heads, dtype
    (1, 8, 16, torch.float16),
    (2, 3, 8, torch.bfloat16),
    (1, 1, 64, torch.float32),
    (3, 5, 1, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, seq, heads, dtype = case
    return [torch.randn(batch, seq, heads * 128, dtype=dtype), (1 + 0.1 * torch.randn(heads, 128)).to(dtype)]


def get_init_inputs():
    return [128, 1e-5]
