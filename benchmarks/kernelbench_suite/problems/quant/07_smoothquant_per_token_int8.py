import torch
import torch.nn as nn


class Model(nn.Module):
    """
    SmoothQuant activation quantization: activations divided by a per-channel smoothing factor (migrating outliers
    into the weights), then dynamic per-token symmetric int8 quantization; the scales are returned for the
    int8 matmul's dequantization.

    Where: mit-han-lab/smoothquant smoothquant/fake_quant.py (`quantize_activation_per_token_absmax`) with the
    smoothing of smooth.py; torch_npu's `npu_dynamic_quant(x, smooth_scales=...)` operator description.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, smooth_scales: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (..., hidden).
            smooth_scales (torch.Tensor): float32 (hidden,).

        Returns:
            tuple: int8 of x's shape and float32 scales of x's shape without its last dim.
        """
        h = x.to(torch.float32) * smooth_scales
        scale = h.abs().amax(dim=-1).clamp(min=1e-10) / 127.0
        q = torch.round(h / scale.unsqueeze(-1)).clamp(-128, 127).to(torch.int8)
        return q, scale


CASES = [
    ((32, 4096), torch.float16),
    ((2, 9, 1024), torch.bfloat16),
    ((1, 1, 7), torch.float32),
    ((4096,), torch.float16),
    ((2, 2, 2, 256), torch.float32),
    ((0, 64), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype), torch.rand(shape[-1]) + 0.5]


def get_init_inputs():
    return []
