import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Mamba-2's time steps and decays: dt = softplus(dt + dt_bias) (per-head bias broadcast), clamped to a range,
    A = -exp(A_log) per head, and the per-step decay exp(dt * A).

    Where: HF transformers models/mamba2/modeling_mamba2.py `Mamba2Mixer.torch_forward` (`dt =
    nn.functional.softplus(dt + self.dt_bias)`, `torch.clamp(dt, self.time_step_limit[0], ...)`,
    `A = -torch.exp(self.A_log.float())`), state-spaces/mamba's reference.
    """
    def __init__(self, dt_min: float = 0.0, dt_max: float = 100.0):
        super(Model, self).__init__()
        self.dt_min = dt_min
        self.dt_max = dt_max

    def forward(self, dt: torch.Tensor, dt_bias: torch.Tensor, a_log: torch.Tensor):
        """
        Args:
            dt (torch.Tensor): (batch, seq, heads).
            dt_bias (torch.Tensor): (heads,), dt's dtype.
            a_log (torch.Tensor): float32 (heads,).

        Returns:
            tuple: the time steps (dt's dtype) and the float32 decays exp(dt * A), (batch, seq, heads).
        """
        dt = F.softplus(dt + dt_bias)
        dt = torch.clamp(dt, self.dt_min, self.dt_max)
        a = -torch.exp(a_log.float())
        return dt, torch.exp(dt.float() * a)


CASES = [
    ((2, 64, 24), torch.float32),
    ((1, 1, 128), torch.bfloat16),  # a decode step
    ((4, 33, 8), torch.float16),
    ((1, 0, 8), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    heads = shape[-1]
    return [(torch.randn(shape) * 2 - 2).to(dtype), torch.randn(heads).to(dtype), torch.log(torch.rand(heads) * 15 + 1)]


def get_init_inputs():
    return [0.0, 100.0]
