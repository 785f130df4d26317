import torch
import torch.nn as nn


class Model(nn.Module):
    """
    The rotary embedding's cos/sin tables from position ids: inverse frequencies (a buffer) times the positions
    as a batched outer product (matmul), the angles concatenated with themselves, cos and sin times the attention
    scaling, cast to the activations' dtype.

    Where: HF transformers models/llama/modeling_llama.py `LlamaRotaryEmbedding.forward` (and its
    `_compute_default_rope_parameters` for inv_freq).
    """
    def __init__(self, head_dim: int = 64, base: float = 10000.0, attention_scaling: float = 1.0):
        super(Model, self).__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.attention_scaling = attention_scaling

    def forward(self, x: torch.Tensor, position_ids: torch.Tensor):
        """
        Args:
            x (torch.Tensor): the hidden states (batch, seq, hidden); only its dtype is used.
            position_ids (torch.Tensor): int64 (batch, seq).

        Returns:
            tuple: cos and sin, (batch, seq, head_dim) in x's dtype.
        """
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


CASES = [
    # batch, seq, first position, dtype
    (1, 32, 0, torch.float32),
    (2, 7, 0, torch.float16),
    (4, 1, 200, torch.bfloat16),  # decode steps at position 200
    (1, 1, 4095, torch.float32),  # a late decode step
    (3, 0, 0, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, seq, start, dtype = case
    x = torch.randn(batch, seq, 16, dtype=dtype)
    position_ids = (torch.arange(seq) + start).unsqueeze(0).expand(batch, -1).contiguous()
    return [x, position_ids]


def get_init_inputs():
    return [64, 10000.0, 1.0]
