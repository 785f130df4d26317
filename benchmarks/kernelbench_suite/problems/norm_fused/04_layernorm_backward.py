import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Backward of LayerNorm with weight and bias as forward math: mean and rstd per row, xhat = (x - mean) * rstd,
    g = dy * weight, dx = rstd * (g - mean(g) - xhat * mean(g * xhat)); dweight = sum over rows of dy * xhat and
    dbias = sum over rows of dy.

    Where: the LayerNorm backward of apex `FusedLayerNormAffineFunction`, flash-attention
    flash_attn/ops/triton/layer_norm.py (`_layer_norm_bwd`) and Liger-Kernel's layer_norm.
    """
    def __init__(self, eps: float = 1e-5):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor):
        """
        Args:
            dy, x (torch.Tensor): (..., hidden).
            weight (torch.Tensor): (hidden,).

        Returns:
            tuple: dx (x's dtype), dweight and dbias (weight's dtype).
        """
        xf, dyf = x.float(), dy.float()
        mean = xf.mean(-1, keepdim=True)
        rstd = torch.rsqrt(xf.var(-1, unbiased=False, keepdim=True) + self.eps)
        xhat = (xf - mean) * rstd
        g = dyf * weight.float()
        dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
        rows = dyf.reshape(-1, x.shape[-1])
        dweight = (rows * xhat.reshape(-1, x.shape[-1])).sum(0)
        dbias = rows.sum(0)
        return dx.to(x.dtype), dweight.to(weight.dtype), dbias.to(weight.dtype)


CASES = [
    ((16, 768), torch.float32),
    ((4, 9, 256), torch.float16),
    ((2, 1024), torch.bfloat16),
    ((1, 1, 64), torch.float32),
    ((3, 4, 5, 48), torch.float32),
    ((0, 32), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    weight = (1 + 0.1 * torch.randn(shape[-1])).to(dtype)
    return [torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype), weight]


def get_init_inputs():
    return [1e-5]
