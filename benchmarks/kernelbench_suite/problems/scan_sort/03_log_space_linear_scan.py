import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    A linear recurrence h_t = a_t * h_{t-1} + b_t evaluated in parallel in log space (Heinsen's scan): cumulative sums
    of log coefficients over time, logcumsumexp of the shifted log values, exp back. Used by minGRU/minLSTM.

    Where: lucidrains/minGRU-pytorch minGRU_pytorch/minGRU.py `heinsen_associative_scan_log` (from Heinsen 2023,
    "Efficient Parallelization of a Ubiquitous Sequential Computation"; "Were RNNs All We Needed?").
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, gate_logits: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        """
        Args:
            gate_logits (torch.Tensor): (batch, seq, dim), the update gate before the sigmoid.
            hidden (torch.Tensor): (batch, seq, dim), the candidate states (positive after g()).

        Returns:
            torch.Tensor: (batch, seq, dim) the scanned states.
        """
        log_coeffs = -F.softplus(gate_logits)
        log_z = -F.softplus(-gate_logits)
        log_tilde_h = torch.where(hidden >= 0, (F.relu(hidden) + 0.5).log(), -F.softplus(-hidden))
        log_values = log_z + log_tilde_h
        a_star = log_coeffs.cumsum(dim=1)
        log_h = a_star + torch.logcumsumexp(log_values - a_star, dim=1)
        return log_h.exp()


CASES = [
    ((2, 256, 64), torch.float32),
    ((1, 1, 512), torch.float32),
    ((4, 33, 16), torch.float16),
    ((2, 64, 128), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
