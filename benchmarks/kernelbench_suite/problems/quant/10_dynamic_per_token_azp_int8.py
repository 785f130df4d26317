import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Dynamic per-token asymmetric int8 quantization: each row's min and max give scale = (max - min) / 255 and an
    int32 zero point azp = round(-128 - min / scale); q = clamp(round(x / scale) + azp, -128, 127) as int8.

    Where: vLLM `scaled_int8_quant(x, azp=None, symmetric=False)` (dynamic, its torch reference in
    tests/kernels/quantization/test_int8_quant.py `test_dynamic_scaled_int8_azp_quant`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (tokens, hidden).

        Returns:
            tuple: int8 (tokens, hidden), float32 scales (tokens, 1), int32 zero points (tokens, 1).
        """
        xf = x.to(torch.float32)
        x_min = xf.min(dim=-1, keepdim=True).values
        x_max = xf.max(dim=-1, keepdim=True).values
        scale = ((x_max - x_min) / 255.0).clamp(min=1e-10)
        azp = torch.round(-128.0 - x_min / scale).to(torch.int32)
        q = (torch.round(xf / scale) + azp).clamp(-128, 127).to(torch.int8)
        return q, scale, azp


CASES = [
    ((16, 4096), torch.float16),
    ((1, 1024), torch.bfloat16),
    ((7, 33), torch.float32),
    ((128, 64), torch.float32),
    ((0, 32), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [(torch.randn(shape) + 0.7).to(dtype)]


def get_init_inputs():
    return []
