import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Backward of LlamaRMSNorm (y = weight * (x * rstd).to(dtype)) as forward math: dx = rstd * (g - xhat *
    mean(g * xhat)) with g = dy * weight in float32; dweight = sum over all rows of dy * xhat. The row statistics
    are recomputed from x, as fused kernels do.

    Where: the RMSNorm backward of Liger-Kernel (`LigerRMSNormFunction.backward`, llama casting mode) and of
    Megatron-LM/apex `FusedRMSNormAffineFunction`.
    """
    def __init__(self, eps: float = 1e-6):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor):
        """
        Args:
            dy, x (torch.Tensor): (..., hidden).
            weight (torch.Tensor): (hidden,).

        Returns:
            tuple: dx in x's dtype and dweight in weight's dtype.
        """
        xf = x.float()
        rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        xhat = xf * rstd
        g = dy.float() * weight.float()
        dx = rstd * (g - xhat * (g * xhat).mean(-1, keepdim=True))
        dweight = (dy.float() * xhat.to(x.dtype).float()).flatten(0, -2).sum(0)
        return dx.to(x.dtype), dweight.to(weight.dtype)


CASES = [
    ((8, 512), torch.float32),
    ((3, 7, 256), torch.bfloat16),
    ((1, 4096), torch.float16),
    ((64, 128), torch.float32),
    ((2, 2, 2, 32), torch.bfloat16),
    ((0, 64), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    weight = (1 + 0.1 * torch.randn(shape[-1])).to(dtype)
    return [torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype), weight]


def get_init_inputs():
    return [1e-6]
