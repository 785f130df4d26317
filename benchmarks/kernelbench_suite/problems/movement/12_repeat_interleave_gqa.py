import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Grouped-query attention's key/value head expansion with repeat_interleave, the repeat count computed from the
    query and key head counts (1 for multi-head attention, the full count for multi-query attention).

    Where: HF transformers models/falcon (`key_layer.repeat_interleave(num_heads // num_kv_heads, dim=1)`) and
    ChatGLM2's multi-query attention; the meta-llama reference `repeat_kv` computes the same with expand/reshape.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor):
        """
        Args:
            query (torch.Tensor): (batch, heads, seq, head_dim), only its head count is used.
            key, value (torch.Tensor): (batch, kv_heads, kv_seq, head_dim).

        Returns:
            tuple: key and value with heads repeated to (batch, heads, kv_seq, head_dim).
        """
        n_rep = query.shape[1] // key.shape[1]
        return torch.repeat_interleave(key, n_rep, dim=1), torch.repeat_interleave(value, n_rep, dim=1)


CASES = [
    # batch, heads, kv_heads, seq, kv_seq, head_dim, dtype
    (1, 32, 8, 1, 16, 128, torch.bfloat16),
    (2, 8, 8, 4, 4, 64, torch.float16),  # MHA: n_rep 1
    (1, 16, 1, 3, 20, 64, torch.float32),  # MQA
    (3, 4, 2, 2, 2, 8, torch.float32),
    (1, 8, 2, 1, 0, 64, torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    batch, heads, kv_heads, seq, kv_seq, head_dim, dtype = case
    return [torch.randn(batch, heads, seq, head_dim, dtype=dtype),
            torch.randn(batch, kv_heads, kv_seq, head_dim, dtype=dtype),
            torch.randn(batch, kv_heads, kv_seq, head_dim, dtype=dtype)]


def get_init_inputs():
    return []
