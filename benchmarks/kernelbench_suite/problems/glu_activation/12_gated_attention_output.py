import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Output gating of attention: the query projection carries a gate per head (viewed as (..., heads, 2 * head_dim)
    with the head count computed from the size, chunked into query and gate), the gate reshaped to the hidden size
    and the attention output multiplied by its sigmoid.

    Where: HF transformers models/qwen3_next/modeling_qwen3_next.py `Qwen3NextAttention.forward`
    (`query_states, gate = torch.chunk(... view(*input_shape, -1, self.head_dim * 2), 2, dim=-1)`,
    `attn_output = attn_output * torch.sigmoid(gate)`).
    """
    def __init__(self, head_dim: int = 64):
        super(Model, self).__init__()
        self.head_dim = head_dim

    def forward(self, q_proj: torch.Tensor, attn_output: torch.Tensor):
        """
        Args:
            q_proj (torch.Tensor): (batch, seq, heads * 2 * head_dim).
            attn_output (torch.Tensor): (batch, seq, heads * head_dim).

        Returns:
            tuple: the queries (batch, seq, heads, head_dim) and the gated output (batch, seq, heads * head_dim).
        """
        input_shape = q_proj.shape[:-1]
        query_states, gate = torch.chunk(q_proj.view(*input_shape, -1, self.head_dim * 2), 2, dim=-1)
        gate = gate.reshape(*input_shape, -1)
        return query_states, attn_output * torch.sigmoid(gate)


CASES = [
    # batch, seq, heads, dtype
    (1, 32, 16, torch.bfloat16),
    (2, 5, 4, torch.float32),
    (1, 1, 32, torch.float16),
]


def get_inputs(case=CASES[0]):
    batch, seq, heads, dtype = case
    return [torch.randn(batch, seq, heads * 128, dtype=dtype), torch.randn(batch, seq, heads * 64, dtype=dtype)]


def get_init_inputs():
    return [64]
