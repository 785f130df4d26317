import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Weight-only int8 dequantization with a per-output-channel scale and zero point: (q - zero_point) * scale, in
    float32, cast to the activation dtype before the matmul.

    Where: torch.ao's `dequantize_per_channel` reference (torch/ao/quantization/fx/_decomposed.py) used by
    torchao int8 weight-only linears, and W8A16 layers of ported checkpoints.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, q: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor) -> torch.Tensor:
        """
        Args:
            q (torch.Tensor): int8 (out_features, in_features).
            scale (torch.Tensor): (out_features,), the activation dtype.
            zero_point (torch.Tensor): int8 (out_features,).

        Returns:
            torch.Tensor: (out_features, in_features) in scale's dtype.
        """
        w = (q.to(torch.float32) - zero_point.to(torch.float32).unsqueeze(-1)) * scale.to(torch.float32).unsqueeze(-1)
        return w.to(scale.dtype)


CASES = [
    ((256, 512), torch.bfloat16),
    ((1024, 64), torch.float16),
    ((33, 17), torch.float32),
    ((1, 4096), torch.bfloat16),
    ((0, 64), torch.float16),
]


def get_inputs(case=CASES[0]):
    (out_features, in_features), dtype = case
    q = torch.randint(-128, 128, (out_features, in_features), dtype=torch.int8)
    scale = (torch.rand(out_features) * 0.01 + 1e-3).to(dtype)
    zero_point = torch.randint(-8, 8, (out_features,), dtype=torch.int8)
    return [q, scale, zero_point]


def get_init_inputs():
    return []
