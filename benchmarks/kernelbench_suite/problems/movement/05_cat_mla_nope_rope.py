import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Assembling multi-head latent attention's queries and keys: the no-position part and the rotary part concatenated
    on the last dim; the keys' rotary part is shared by all heads (one head, expanded) before the cat.

    Where: DeepSeek-V2/V3 modeling_deepseek.py `DeepseekV2Attention.forward` (`query_states[:, :, :, :nope] =
    q_nope`, `key_states = k_pe.expand(...)`; written with cat in HF transformers models/deepseek_v3).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, q_nope: torch.Tensor, q_pe: torch.Tensor, k_nope: torch.Tensor, k_pe: torch.Tensor):
        """
        Args:
            q_nope, k_nope (torch.Tensor): (batch, heads, seq, nope_dim).
            q_pe (torch.Tensor): (batch, heads, seq, rope_dim).
            k_pe (torch.Tensor): (batch, 1, seq, rope_dim).

        Returns:
            tuple: queries and keys (batch, heads, seq, nope_dim + rope_dim).
        """
        k_pe = k_pe.expand(*k_nope.shape[:-1], -1)
        return torch.cat((q_nope, q_pe), dim=-1), torch.cat((k_nope, k_pe), dim=-1)


CASES = [
    # batch, heads, seq, nope, rope, dtype
    (1, 16, 8, 128, 64, torch.bfloat16),
    (2, 4, 3, 128, 64, torch.float32),
    (1, 128, 1, 128, 64, torch.float16),
    (1, 2, 5, 16, 8, torch.float32),
    (1, 4, 0, 128, 64, torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    batch, heads, seq, nope, rope, dtype = case
    return [torch.randn(batch, heads, seq, nope, dtype=dtype), torch.randn(batch, heads, seq, rope, dtype=dtype),
            torch.randn(batch, heads, seq, nope, dtype=dtype), torch.randn(batch, 1, seq, rope, dtype=dtype)]


def get_init_inputs():
    return []
