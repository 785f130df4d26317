import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    PReLU with one learned slope per channel (dim 1), or a single shared slope, on inputs of rank 1 to 5.

    Where: `nn.PReLU(num_parameters=C)` in face recognition backbones (deepinsight/insightface
    recognition/arcface_torch/backbones/iresnet.py) and ESPCN/SRResNet super-resolution nets.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, *) or (C,).
            weight (torch.Tensor): (C,) or (1,).

        Returns:
            torch.Tensor: same shape as x.
        """
        return F.prelu(x, weight)


CASES = [
    ((2, 64, 28, 28), 64, torch.float32),
    ((4, 512), 512, torch.float32),
    ((2, 16, 100), 1, torch.bfloat16),  # one shared slope
    ((1, 8, 4, 8, 8), 8, torch.float16),
    ((16,), 1, torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, slopes, dtype = case
    weight = 0.25 + 0.01 * torch.arange(slopes, dtype=torch.float32)
    return [torch.randn(shape, dtype=dtype), weight.to(dtype)]


def get_init_inputs():
    return []
