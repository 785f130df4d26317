import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Expanding a batch for beam search or multiple samples: every input (int64 ids, the int attention mask, float
    pixel values) repeated expand_size times with repeat_interleave on dim 0, so each example's copies are adjacent.

    Where: HF transformers generation/utils.py `GenerationMixin._expand_inputs_for_generation`
    (`dict_to_expand[key].repeat_interleave(expand_size, dim=0)`).
    """
    def __init__(self, expand_size: int = 4):
        super(Model, self).__init__()
        self.expand_size = expand_size

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, pixel_values: torch.Tensor):
        """
        Args:
            input_ids (torch.Tensor): int64 (batch, seq).
            attention_mask (torch.Tensor): int64 (batch, seq).
            pixel_values (torch.Tensor): (batch, 3, H, W).

        Returns:
            tuple: the three inputs with batch * expand_size rows.
        """
        return (input_ids.repeat_interleave(self.expand_size, dim=0),
                attention_mask.repeat_interleave(self.expand_size, dim=0),
                pixel_values.repeat_interleave(self.expand_size, dim=0))


CASES = [
    # batch, seq, image size, dtype
    (2, 16, 32, torch.float32),
    (1, 1, 16, torch.bfloat16),
    (4, 7, 8, torch.float16),
    (0, 5, 8, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, seq, size, dtype = case
    return [torch.randint(0, 32000, (batch, seq)), torch.ones(batch, seq, dtype=torch.int64),
            torch.randn(batch, 3, size, size, dtype=dtype)]


def get_init_inputs():
    return [4]
