import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    The causal language-model loss: logits upcast to float32, labels padded on the right with -100 and shifted left
    by one, both flattened, cross-entropy summed over the counted tokens and divided by the number of items in the
    whole (gradient-accumulated) batch, given as a 0-dim int64 tensor.

    Where: HF transformers loss/loss_utils.py `ForCausalLMLoss` and `fixed_cross_entropy` (num_items_in_batch).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, logits: torch.Tensor, labels: torch.Tensor, num_items_in_batch: torch.Tensor) -> torch.Tensor:
        """
        Args:
            logits (torch.Tensor): (batch, seq, vocab).
            labels (torch.Tensor): int64 (batch, seq), -100 where no loss.
            num_items_in_batch (torch.Tensor): int64 0-dim.

        Returns:
            torch.Tensor: 0-dim float32 loss.
        """
        logits = logits.float()
        labels = F.pad(labels, (0, 1), value=-100)
        shift_labels = labels[..., 1:].contiguous()
        logits = logits.view(-1, logits.size(-1))
        shift_labels = shift_labels.view(-1)
        loss = F.cross_entropy(logits, shift_labels, ignore_index=-100, reduction="sum")
        return loss / num_items_in_batch


CASES = [
    # batch, seq, vocab, dtype
    (2, 64, 1000, torch.bfloat16),
    (1, 3, 32000, torch.bfloat16),
    (4, 9, 50, torch.float32),
    (1, 1, 10, torch.float16),
]


def get_inputs(case=CASES[0]):
    batch, seq, vocab, dtype = case
    labels = torch.randint(0, vocab, (batch, seq)).masked_fill(torch.rand(batch, seq) < 0.2, -100)
    return [torch.randn(batch, seq, vocab, dtype=dtype), labels, torch.tensor(batch * seq * 2)]


def get_init_inputs():
    return []
