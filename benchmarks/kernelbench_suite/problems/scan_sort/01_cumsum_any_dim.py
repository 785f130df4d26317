import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Cumulative sum over any given dim (first, middle, last) of tensors of rank 1 to 8, on floats and on integer and
    bool inputs (which PyTorch promotes to int64).

    Where: cumulative attention/alignment weights (Tacotron's location features, `torch.cumsum(alignments, dim=1)`),
    integral images, `attention_mask.cumsum(-1)` position ids (HF generation), and Mamba-2's chunked scans
    (`torch.cumsum(A, dim=-1)`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, dim: int) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any rank >= 1.
            dim (int): the scanned dim.

        Returns:
            torch.Tensor: the inclusive prefix sums (int64 for integer and bool inputs).
        """
        return torch.cumsum(x, dim=dim)


CASES = [
    ((16, 1024), torch.float32, -1),
    ((8, 512, 4), torch.float32, 1),
    ((64, 32), torch.bfloat16, 0),
    ((2, 4, 8, 16), torch.float16, 2),
    ((1000,), torch.float32, 0),
    ((8, 128), torch.int32, -1),
    ((4, 64), torch.bool, 1),
    ((2, 1, 3, 1, 4, 1, 5, 2), torch.float32, 4),
    ((2, 3, 2, 1, 4, 8), torch.float16, 5),
    ((1, 2, 3, 1, 2, 2, 5), torch.float32, 2),
    ((2, 3, 1, 2, 1, 2, 1, 7), torch.int64, 0),
    ((3, 0, 5), torch.float32, 2),
]


def get_inputs(case=CASES[0]):
    shape, dtype, dim = case
    if dtype == torch.bool:
        return [torch.rand(shape) > 0.5, dim]
    if dtype.is_floating_point:
        return [torch.randn(shape).to(dtype), dim]
    return [torch.randint(-100, 100, shape, dtype=dtype), dim]


def get_init_inputs():
    return []
