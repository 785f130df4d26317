import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Quantization-aware training's per-channel fake quantization of weights: along axis 0, each channel quantized
    with its scale and int32 zero point to [-128, 127] and dequantized back, in one op.

    Where: torch/ao/quantization/fake_quantize.py `FakeQuantize.forward` with a per-channel observer
    (`torch.fake_quantize_per_channel_affine`), as in QAT of convolutional and linear weights.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, w: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor) -> torch.Tensor:
        """
        Args:
            w (torch.Tensor): float32 (channels, ...).
            scale (torch.Tensor): float32 (channels,).
            zero_point (torch.Tensor): int32 (channels,).

        Returns:
            torch.Tensor: w's shape, float32.
        """
        return torch.fake_quantize_per_channel_affine(w, scale, zero_point, 0, -128, 127)


CASES = [
    (64, 3, 3, 3),  # a conv weight
    (256, 512),  # a linear weight
    (8,),
    (16, 4, 1, 1),
    (2, 3, 4, 5, 6),
]


def get_inputs(case=CASES[0]):
    channels = case[0]
    w = torch.randn(case)
    scale = w.reshape(channels, -1).abs().amax(-1) / 127 + 1e-6
    zero_point = torch.randint(-3, 4, (channels,), dtype=torch.int32)
    return [w, scale, zero_point]


def get_init_inputs():
    return []
