import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Median smoothing of a signal: the signal padded at both ends, sliding windows taken with unfold, the median of
    each window (values and int64 indices); and the k-th smallest value over the whole last dim (kthvalue).

    Where: torchaudio torchaudio/functional/functional.py `_median_smoothing` (pitch detection:
    `roll = indices.unfold(-1, win_length, 1)`, `values, _ = torch.median(roll, -1)`), and kthvalue-based robust
    thresholds.
    """
    def __init__(self, win_length: int = 5):
        super(Model, self).__init__()
        self.win_length = win_length

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (..., frames), distinct values per row.

        Returns:
            tuple: the smoothed values and int64 window indices (..., frames), and the 3rd smallest per row.
        """
        pad = (self.win_length - 1) // 2
        padded = F.pad(x, (pad, pad), mode="constant", value=0.0)
        roll = padded.unfold(-1, self.win_length, 1)
        values, indices = torch.median(roll, -1)
        return values, indices, torch.kthvalue(x, 3, dim=-1).values


CASES = [
    ((4, 1000), torch.float32),
    ((2, 3, 100), torch.float32),
    ((1, 8), torch.float16),
    ((50,), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    n = shape[-1]
    # distinct and non-zero within a row (defined median indices), a different range per row; exact in float16
    rows = torch.argsort(torch.rand(shape), dim=-1).float() + 1 + torch.randint(0, 100, (*shape[:-1], 1))
    return [(rows / n).to(dtype) if dtype == torch.float32 else rows.to(dtype)]


def get_init_inputs():
    return [5]
