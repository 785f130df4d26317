import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Residual add fused with RMSNorm, returning both the normalized output and the new residual: the sum is taken in
    float32, the residual stored in the input dtype, the variance in float32, cast back before the weight.

    Where: vLLM vllm/model_executor/layers/layernorm.py `RMSNorm.forward_static` with a residual (the reference of
    its `fused_add_rms_norm` op).
    """
    def __init__(self, eps: float = 1e-6):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor):
        """
        Args:
            x, residual (torch.Tensor): (..., hidden).
            weight (torch.Tensor): (hidden,).

        Returns:
            tuple: the normalized sum (..., hidden) and the sum itself (the next residual), both in x's dtype.
        """
        orig_dtype = x.dtype
        x = x.to(torch.float32) + residual.to(torch.float32)
        residual = x.to(orig_dtype)
        variance = x.pow(2).mean(dim=-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        x = x.to(orig_dtype) * weight
        return x, residual


CASES = [
    ((7, 1024), torch.bfloat16),
    ((1, 4096), torch.float16),
    ((16, 2048), torch.float32),
    ((2, 3, 512), torch.float32),
    ((4096,), torch.bfloat16),
    ((1, 1, 1, 64), torch.float16),
    ((0, 256), torch.bfloat16),
    ((5, 8, 4, 96), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    weight = (1 + 0.1 * torch.randn(shape[-1])).to(dtype)
    return [torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype), weight]


def get_init_inputs():
    return [1e-6]
