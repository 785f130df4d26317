"""Model pieces the torch.compile backend's tests and benchmarks/compile_bench.py both compile."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    """Linear -> GELU -> Linear (the first product, its bias and GELU are one region; the second product, with
    nothing after it to fuse, stays eager)."""

    def __init__(self, d=64, hidden=128):
        super().__init__()
        self.up, self.down = nn.Linear(d, hidden), nn.Linear(hidden, d)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.rand(d) + 0.5), eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
