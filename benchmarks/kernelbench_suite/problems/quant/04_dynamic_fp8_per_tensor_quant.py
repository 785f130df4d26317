import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Dynamic per-tensor float8 (e4m3) quantization: the scale is the tensor's absolute maximum / 448 (e4m3's largest
    value), the values divided by it, clamped to [-448, 448] and cast to float8_e4m3fn.

    Where: vLLM `scaled_fp8_quant` without a given scale (its torch reference `ref_dynamic_per_tensor_fp8_quant` in
    tests/kernels/quant_utils.py), also TransformerEngine-style per-tensor casts.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (..., hidden).

        Returns:
            tuple: float8_e4m3fn of x's shape and the float32 0-dim scale.
        """
        fp8_max = torch.finfo(torch.float8_e4m3fn).max
        scale = (x.abs().max().to(torch.float32) / fp8_max).clamp(min=1e-12)
        out = (x.to(torch.float32) / scale).clamp(-fp8_max, fp8_max).to(torch.float8_e4m3fn)
        return out, scale


CASES = [
    ((16, 2048), torch.bfloat16),
    ((4, 4096), torch.float16),
    ((2, 3, 256), torch.float32),
    ((1, 1), torch.float32),
    ((1024,), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
