import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Removing padding for variable-length attention: per-row lengths (int32 sum), the flat positions of the real
    tokens (nonzero: a data-dependent count), the cumulative lengths padded with a leading zero, and the hidden
    states of the real tokens gathered from the flattened batch.

    Where: Dao-AILab/flash-attention flash_attn/bert_padding.py `unpad_input` and `index_first_axis` (copied into HF
    transformers modeling_flash_attention_utils.py `_upad_input`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, hidden_states: torch.Tensor, attention_mask: torch.Tensor):
        """
        Args:
            hidden_states (torch.Tensor): (batch, seq, hidden).
            attention_mask (torch.Tensor): int64 (batch, seq), 1 for tokens.

        Returns:
            tuple: (tokens, hidden) states, int64 (tokens,) indices, int32 (batch + 1,) cumulative lengths.
        """
        seqlens_in_batch = attention_mask.sum(dim=-1, dtype=torch.int32)
        indices = torch.nonzero(attention_mask.flatten(), as_tuple=False).flatten()
        cu_seqlens = F.pad(torch.cumsum(seqlens_in_batch, dim=0, dtype=torch.int32), (1, 0))
        unpadded = hidden_states.reshape(-1, hidden_states.shape[-1])[indices]
        return unpadded, indices, cu_seqlens


CASES = [
    # batch, seq, hidden, dtype
    (4, 64, 128, torch.bfloat16),
    (1, 1, 64, torch.float16),
    (8, 9, 32, torch.float32),
    (0, 8, 16, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, seq, hidden, dtype = case
    lengths = torch.randint(1, seq + 1, (batch,))
    mask = (torch.arange(seq)[None] < lengths[:, None]).long()
    return [torch.randn(batch, seq, hidden, dtype=dtype), mask]


def get_init_inputs():
    return []
