import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Comparisons that return bool tensors, on token ids and other integer or float tensors: against another tensor,
    against a Python int (a pad or eos id), and a combination with `&` and `|`.

    Where: HF transformers generation/utils.py and data collators (`input_ids == pad_token_id`,
    `next_tokens != eos_token_id`, `unfinished_sequences & ~is_done`), torchvision's box filtering (`scores > t`).
    """
    def __init__(self, pad_id: int = 0):
        super(Model, self).__init__()
        self.pad_id = pad_id

    def forward(self, a: torch.Tensor, b: torch.Tensor):
        """
        Args:
            a, b (torch.Tensor): same shape and dtype.

        Returns:
            tuple: bool tensors a > b, a == pad_id, (a <= b) | (a != pad_id), (a >= 3) & (b < 5).
        """
        return a > b, a == self.pad_id, (a <= b) | (a != self.pad_id), (a >= 3) & (b < 5)


CASES = [
    ((4, 128), torch.int64),
    ((16, 33), torch.int32),
    ((), torch.int64),
    ((7,), torch.int16),
    ((2, 3, 4), torch.int8),
    ((5, 5), torch.uint8),
    ((8, 64), torch.float16),
    ((2, 1, 2, 1, 3, 1, 2, 2), torch.int32),
    ((3, 0), torch.int64),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    if dtype.is_floating_point:
        return [torch.randint(-5, 10, shape).to(dtype), torch.randint(-5, 10, shape).to(dtype)]
    low = 0 if dtype == torch.uint8 else -5
    return [torch.randint(low, 10, shape, dtype=dtype), torch.randint(low, 10, shape, dtype=dtype)]


def get_init_inputs():
    return [0]
