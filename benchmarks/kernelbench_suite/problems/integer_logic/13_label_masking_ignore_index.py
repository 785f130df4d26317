import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Building language-model labels from integer ids: padding positions set to the ignore index -100 with
    masked_fill (ids compared with the pad id), prompt positions masked with torch.where on the attention mask, and
    the labels shifted left by one with a -100 column (cat).

    Where: HF transformers data/data_collator.py `DataCollatorForLanguageModeling.torch_call`
    (`labels[labels == pad_token_id] = -100`) and TRL's completion-only collators.
    """
    def __init__(self, pad_id: int = 0):
        super(Model, self).__init__()
        self.pad_id = pad_id

    def forward(self, input_ids: torch.Tensor, loss_mask: torch.Tensor):
        """
        Args:
            input_ids (torch.Tensor): int (batch, seq).
            loss_mask (torch.Tensor): int 0/1 (batch, seq), 1 where the loss counts.

        Returns:
            tuple: labels (batch, seq) and shifted labels (batch, seq), input_ids' dtype.
        """
        labels = input_ids.masked_fill(input_ids == self.pad_id, -100)
        labels = torch.where(loss_mask.bool(), labels, -100)
        ignore = torch.full_like(labels[:, :1], -100)
        return labels, torch.cat((labels[:, 1:], ignore), dim=1)


CASES = [
    (8, 128, torch.int64),
    (1, 1, torch.int64),
    (4, 37, torch.int32),
    (0, 16, torch.int64),
]


def get_inputs(case=CASES[0]):
    batch, seq, dtype = case
    return [torch.randint(0, 50, (batch, seq), dtype=dtype), (torch.rand(batch, seq) > 0.3).to(dtype)]


def get_init_inputs():
    return [0]
