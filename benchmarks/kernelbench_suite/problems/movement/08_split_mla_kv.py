import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Splitting the up-projected latent kv into per-head keys and values: a view with the head count computed from the
    size, a transpose to (batch, heads, seq, dim), and torch.split with the [nope, value] sizes on the last dim.

    Where: DeepSeek-V2/V3 modeling_deepseek.py `DeepseekV2Attention.forward` (`kv.view(bsz, q_len, num_heads,
    qk_nope_head_dim + v_head_dim).transpose(1, 2)`, `torch.split(kv, [qk_nope_head_dim, v_head_dim], dim=-1)`).
    """
    def __init__(self, qk_nope_head_dim: int = 128, v_head_dim: int = 128):
        super(Model, self).__init__()
        self.qk_nope_head_dim = qk_nope_head_dim
        self.v_head_dim = v_head_dim

    def forward(self, kv: torch.Tensor):
        """
        Args:
            kv (torch.Tensor): (batch, seq, heads * (nope + v)).

        Returns:
            tuple: k_nope (batch, heads, seq, nope) and values (batch, heads, seq, v), both views.
        """
        bsz, q_len, _ = kv.shape
        kv = kv.view(bsz, q_len, -1, self.qk_nope_head_dim + self.v_head_dim).transpose(1, 2)
        k_nope, value_states = torch.split(kv, [self.qk_nope_head_dim, self.v_head_dim], dim=-1)
        return k_nope, value_states


CASES = [
    ((1, 8, 16 * 256), torch.bfloat16),
    ((2, 3, 4 * 256), torch.float32),
    ((1, 1, 128 * 256), torch.float16),
    ((3, 5, 256), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [128, 128]
