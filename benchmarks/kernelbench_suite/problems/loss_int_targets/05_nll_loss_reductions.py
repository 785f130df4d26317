import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Negative log-likelihood of log-probabilities with integer targets (int64, or uint8 as masks are often stored):
    summed and unreduced, batched (N, C) or unbatched (C,) with a 0-dim target.

    Where: `F.nll_loss(F.log_softmax(output, dim=1), target, reduction="sum")` in pytorch/examples mnist/main.py
    `test`, and models that end with LogSoftmax (torchaudio's wav2letter, classic RNN taggers).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, log_probs: torch.Tensor, target: torch.Tensor):
        """
        Args:
            log_probs (torch.Tensor): (N, C) or (C,).
            target (torch.Tensor): int64 or uint8, (N,) or 0-dim, in [0, C).

        Returns:
            tuple: the summed loss (0-dim) and the unreduced losses.
        """
        return F.nll_loss(log_probs, target, reduction="sum"), F.nll_loss(log_probs, target, reduction="none")


CASES = [
    # N (None: unbatched), C, target dtype, dtype
    (1000, 10, torch.int64, torch.float32),
    (64, 29, torch.uint8, torch.float32),
    (None, 10, torch.int64, torch.float32),
    (8, 100, torch.int64, torch.bfloat16),
    (0, 10, torch.int64, torch.float32),
]


def get_inputs(case=CASES[0]):
    n, c, target_dtype, dtype = case
    shape = (c,) if n is None else (n, c)
    target_shape = () if n is None else (n,)
    return [torch.randn(shape).log_softmax(-1).to(dtype), torch.randint(0, c, target_shape).to(target_dtype)]


def get_init_inputs():
    return []
