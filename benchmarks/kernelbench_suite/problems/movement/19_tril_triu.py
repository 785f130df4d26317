import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Lower and upper triangular parts of the last two dims: tril keeping the diagonal, triu above a diagonal offset,
    on float score blocks and on bool masks, at any rank >= 2.

    Where: GPT-2's causal buffer (`torch.tril(torch.ones(...))` in HF models/gpt2), Mamba-2's chunked scan
    (`torch.tril` in `segsum`/`ssd_minimal_discrete` of state-spaces/mamba), and `triu(diagonal=1)` masks.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, mask: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (..., n, m) floats.
            mask (torch.Tensor): bool (..., n, m).

        Returns:
            tuple: tril(x), triu(x, diagonal=1), tril(mask, diagonal=-1).
        """
        return torch.tril(x), torch.triu(x, diagonal=1), torch.tril(mask, diagonal=-1)


CASES = [
    ((64, 64), torch.float32),
    ((2, 4, 16, 16), torch.bfloat16),
    ((3, 5, 8), torch.float16),
    ((2, 1, 2, 2, 6, 6), torch.float32),
    ((1, 2, 1, 2, 1, 2, 4, 4), torch.float32),
    ((1, 1), torch.float32),
    ((2, 0, 3), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype), torch.rand(shape) > 0.5]


def get_init_inputs():
    return []
