import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Asymmetric per-tensor quint8 quantization from the tensor's own range, as a MinMax observer computes it: the
    range is widened to include zero, scale = (max - min) / 255, zero_point = clamp(-round(min / scale), 0, 255),
    q = clamp(round(x / scale) + zero_point, 0, 255) as uint8. Returns q, scale and zero_point.

    Where: torch/ao/quantization/observer.py `MinMaxObserver._calculate_qparams` (affine, quint8) followed by
    `quantize_per_tensor`'s reference (torch/ao/quantization/fx/_decomposed.py).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): float32, any shape.

        Returns:
            tuple: uint8 of x's shape, the float32 0-dim scale and the int64 0-dim zero point.
        """
        min_val = torch.clamp(x.min(), max=0.0)
        max_val = torch.clamp(x.max(), min=0.0)
        scale = ((max_val - min_val) / 255.0).clamp(min=torch.finfo(torch.float32).eps)
        zero_point = torch.clamp(-torch.round(min_val / scale).to(torch.int64), 0, 255)
        q = torch.clamp(torch.round(x / scale) + zero_point, 0, 255).to(torch.uint8)
        return q, scale, zero_point


CASES = [
    (64, 256),
    (3, 224, 224),
    (),
    (17,),
    (2, 1, 3, 4, 1, 5, 2, 3),
    (1, 3, 32, 32),
]


def get_inputs(case=CASES[0]):
    return [torch.randn(case) * 3 + 0.5]


def get_init_inputs():
    return []
