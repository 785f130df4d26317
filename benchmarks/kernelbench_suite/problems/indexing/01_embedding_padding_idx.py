import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Token embedding lookup with a padding index (its row is zero), as an nn.Embedding module holding the table,
    called on ids of every shape: a single id (0-dim), a flat packed batch, (batch, seq), and with extra dims.

    Where: every HF model's `embed_tokens = nn.Embedding(vocab_size, hidden_size, padding_idx)` (models/llama,
    models/bert), called on (batch, seq) ids and on flattened varlen ids in vLLM.
    """
    def __init__(self, vocab_size: int = 1000, hidden_size: int = 64, padding_idx: int = 0):
        super(Model, self).__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size, padding_idx=padding_idx)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """
        Args:
            input_ids (torch.Tensor): int64 or int32, any shape, values in [0, 1000).

        Returns:
            torch.Tensor: float32 (*input_ids.shape, 64).
        """
        return self.embed_tokens(input_ids)


CASES = [
    ((4, 128), torch.int64),
    ((333,), torch.int64),
    ((), torch.int64),
    ((2, 16), torch.int32),
    ((2, 3, 5), torch.int64),
    ((1, 1), torch.int64),
    ((0, 8), torch.int64),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randint(0, 1000, shape, dtype=dtype)]


def get_init_inputs():
    return [1000, 64, 0]
