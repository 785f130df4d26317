import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Backward of residual-add + RMSNorm written as forward math: with h = x + residual, rstd = 1/sqrt(mean(h^2)+eps)
    and xhat = h * rstd, the gradient reaching h is rstd * (g - xhat * mean(g * xhat)) with g = dy * weight, plus
    the gradient flowing into the residual output; the weight gradient sums dy * xhat over every row. Two
    reduction domains: per row (the mean over hidden) and over rows (the weight gradient).

    Where: the backward passes of Liger-Kernel src/liger_kernel/ops/rms_norm.py and of flash-attention
    flash_attn/ops/triton/layer_norm.py (`_layer_norm_bwd` with is_rms_norm and a residual).
    """
    def __init__(self, eps: float = 1e-6):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, dy: torch.Tensor, dresidual: torch.Tensor, h: torch.Tensor, weight: torch.Tensor):
        """
        Args:
            dy (torch.Tensor): gradient of the normalized output, (..., hidden).
            dresidual (torch.Tensor): gradient of the residual output, (..., hidden).
            h (torch.Tensor): the saved sum x + residual, (..., hidden).
            weight (torch.Tensor): (hidden,).

        Returns:
            tuple: dh (the gradient of both x and residual) in h's dtype, and dweight in weight's dtype.
        """
        hidden = h.shape[-1]
        hf = h.float()
        rstd = torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + self.eps)
        xhat = hf * rstd
        g = dy.float() * weight.float()
        dh = rstd * (g - xhat * (g * xhat).mean(-1, keepdim=True)) + dresidual.float()
        dweight = (dy.float() * xhat).reshape(-1, hidden).sum(0)
        return dh.to(h.dtype), dweight.to(weight.dtype)


CASES = [
    ((8, 1024), torch.float32),
    ((4, 2048), torch.bfloat16),
    ((2, 5, 512), torch.float16),
    ((1, 4096), torch.bfloat16),
    ((33, 64), torch.float32),
    ((0, 128), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    weight = (1 + 0.1 * torch.randn(shape[-1])).to(dtype)
    return [torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype), weight]


def get_init_inputs():
    return [1e-6]
