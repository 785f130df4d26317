import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Sequence classification pooling at the last non-padding token: the first pad position from an int argmax of
    (ids == pad), minus one, wrapped with a modulo (so rows without padding take the last token), then advanced
    indexing with an arange over the batch and those positions.

    Where: HF transformers models/llama/modeling_llama.py `LlamaForSequenceClassification.forward`
    (`sequence_lengths = torch.eq(input_ids, pad).int().argmax(-1) - 1`, `% input_ids.shape[-1]`,
    `logits[torch.arange(batch_size), sequence_lengths]`).
    """
    def __init__(self, pad_token_id: int = 0):
        super(Model, self).__init__()
        self.pad_token_id = pad_token_id

    def forward(self, input_ids: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        """
        Args:
            input_ids (torch.Tensor): int64 (batch, seq), right-padded with pad_token_id.
            logits (torch.Tensor): (batch, seq, labels).

        Returns:
            torch.Tensor: (batch, labels).
        """
        sequence_lengths = torch.eq(input_ids, self.pad_token_id).int().argmax(-1) - 1
        sequence_lengths = sequence_lengths % input_ids.shape[-1]
        return logits[torch.arange(input_ids.shape[0]), sequence_lengths]


CASES = [
    # batch, seq, labels, dtype
    (8, 64, 2, torch.float32),
    (1, 1, 5, torch.bfloat16),
    (16, 17, 3, torch.float16),
    (0, 8, 2, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, seq, labels, dtype = case
    lengths = torch.randint(1, seq + 1, (batch,))
    ids = torch.randint(1, 1000, (batch, seq)).masked_fill(torch.arange(seq)[None] >= lengths[:, None], 0)
    return [ids, torch.randn(batch, seq, labels, dtype=dtype)]


def get_init_inputs():
    return [0]
