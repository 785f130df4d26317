import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Stopping criteria on generated ids: whether each sequence's last token is one of several eos ids (isin against
    a small id tensor), and-ed into the unfinished flags; also how many pad tokens each row holds.

    Where: HF transformers generation/stopping_criteria.py `EosTokenCriteria.__call__`
    (`torch.isin(input_ids[:, -1], self.eos_token_id)`) and generation/utils.py
    (`unfinished_sequences & ~this_peer_finished`).
    """
    def __init__(self, pad_id: int = 0):
        super(Model, self).__init__()
        self.pad_id = pad_id

    def forward(self, input_ids: torch.Tensor, eos_token_id: torch.Tensor, unfinished: torch.Tensor):
        """
        Args:
            input_ids (torch.Tensor): int (batch, seq), seq >= 1.
            eos_token_id (torch.Tensor): int (n_eos,).
            unfinished (torch.Tensor): bool (batch,).

        Returns:
            tuple: bool is_done (batch,), bool still-unfinished (batch,), int64 pad counts (batch,).
        """
        is_done = torch.isin(input_ids[:, -1], eos_token_id)
        return is_done, unfinished & ~is_done, (input_ids == self.pad_id).sum(-1)


CASES = [
    # batch, seq, eos ids, dtype
    (8, 64, 2, torch.int64),
    (1, 1, 1, torch.int64),
    (32, 17, 3, torch.int32),
    (0, 5, 2, torch.int64),
]


def get_inputs(case=CASES[0]):
    batch, seq, n_eos, dtype = case
    input_ids = torch.randint(0, 8, (batch, seq), dtype=dtype)
    eos = torch.arange(1, n_eos + 1, dtype=dtype)
    return [input_ids, eos, torch.rand(batch) > 0.2]


def get_init_inputs():
    return [0]
