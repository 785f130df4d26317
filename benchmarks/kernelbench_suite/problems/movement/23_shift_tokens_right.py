import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Decoder inputs from labels: a zero tensor made with new_zeros, the labels shifted right by one into it, the start
    token written into column 0, and the ignore index -100 replaced by the pad id. The function writes only to the
    tensor it made.

    Where: HF transformers models/bart/modeling_bart.py `shift_tokens_right` (also T5's `_shift_right`, Whisper,
    mBART, Marian).
    """
    def __init__(self, pad_token_id: int = 1, decoder_start_token_id: int = 2):
        super(Model, self).__init__()
        self.pad_token_id = pad_token_id
        self.decoder_start_token_id = decoder_start_token_id

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """
        Args:
            input_ids (torch.Tensor): int (batch, seq), labels with -100 at ignored positions.

        Returns:
            torch.Tensor: the decoder input ids, same shape and dtype.
        """
        shifted_input_ids = input_ids.new_zeros(input_ids.shape)
        shifted_input_ids[:, 1:] = input_ids[:, :-1].clone()
        shifted_input_ids[:, 0] = self.decoder_start_token_id
        shifted_input_ids.masked_fill_(shifted_input_ids == -100, self.pad_token_id)
        return shifted_input_ids


CASES = [
    (8, 64, torch.int64),
    (1, 1, torch.int64),
    (4, 33, torch.int32),
    (0, 16, torch.int64),
]


def get_inputs(case=CASES[0]):
    batch, seq, dtype = case
    ids = torch.randint(3, 50000, (batch, seq), dtype=dtype)
    return [ids.masked_fill(torch.rand(batch, seq) < 0.2, -100)]


def get_init_inputs():
    return [1, 2]
