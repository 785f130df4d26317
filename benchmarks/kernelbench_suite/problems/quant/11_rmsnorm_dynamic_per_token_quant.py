import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Residual add + RMSNorm + dynamic per-token int8 quantization in one step: the sum becomes the new residual, the
    normalized (and weighted, in the activation dtype) values are quantized with a per-row scale amax / 127.

    Where: vLLM `rms_norm_dynamic_per_token_quant` (csrc/quantization/fused_kernels; its torch reference in
    tests/kernels/quantization/test_rms_norm_dynamic_per_token_quant.py) used by W8A8 models.
    """
    def __init__(self, eps: float = 1e-6):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor):
        """
        Args:
            x, residual (torch.Tensor): (tokens, hidden).
            weight (torch.Tensor): (hidden,).

        Returns:
            tuple: int8 (tokens, hidden), float32 scales (tokens, 1), the new residual (x's dtype).
        """
        dtype = x.dtype
        h = x.to(torch.float32) + residual.to(torch.float32)
        residual = h.to(dtype)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        y = (h.to(dtype) * weight).to(torch.float32)
        scale = y.abs().amax(dim=-1, keepdim=True).clamp(min=1e-10) / 127.0
        q = torch.round(y / scale).clamp(-128, 127).to(torch.int8)
        return q, scale, residual


CASES = [
    ((16, 4096), torch.bfloat16),
    ((1, 5120), torch.float16),
    ((7, 1024), torch.float32),
    ((64, 128), torch.bfloat16),
    ((0, 256), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype),
            (1 + 0.1 * torch.randn(shape[-1])).to(dtype)]


def get_init_inputs():
    return [1e-6]
