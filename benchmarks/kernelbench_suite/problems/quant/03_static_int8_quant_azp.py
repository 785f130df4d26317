import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Static int8 quantization with a per-tensor scale and an asymmetric zero point, both 0-dim tensors from
    calibration: round(x / scale) + azp, clamped to [-128, 127], cast to int8. Activations of any rank, from one
    scalar up.

    Where: vLLM `scaled_int8_quant(x, scale, azp)` (static; the reference in tests/kernels/quantization/
    test_int8_quant.py) used by compressed-tensors W8A8 layers.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, scale: torch.Tensor, azp: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any shape.
            scale (torch.Tensor): float32, 0-dim.
            azp (torch.Tensor): int32, 0-dim.

        Returns:
            torch.Tensor: int8, x's shape.
        """
        q = torch.round(x.to(torch.float32) / scale) + azp
        return q.clamp(-128, 127).to(torch.int8)


CASES = [
    ((16, 4096), torch.bfloat16),
    ((3, 7, 512), torch.float16),
    ((), torch.float32),
    ((5,), torch.float32),
    ((2, 3, 1, 4, 2, 8), torch.bfloat16),
    ((2, 1, 3, 1, 2, 1, 4, 8), torch.float32),
    ((0, 64), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    x = torch.randn(shape, dtype=dtype)
    return [x, torch.tensor(0.02), torch.tensor(3, dtype=torch.int32)]


def get_init_inputs():
    return []
