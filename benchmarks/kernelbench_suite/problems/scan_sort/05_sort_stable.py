import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Stable sort with indices along a given dim, ascending or descending, on floats and integers: ties keep their
    original order, so the indices are defined.

    Where: beam search candidate ranking (`torch.sort(next_token_scores, descending=True)` in HF generation),
    length-bucketed batching (`lengths.sort(descending=True)` before `pack_padded_sequence`), and NMS's score sort
    in torchvision's reference `batched_nms`.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, dim: int, descending: bool):
        """
        Args:
            x (torch.Tensor): any rank >= 1.
            dim (int): the sorted dim.
            descending (bool): the order.

        Returns:
            tuple: sorted values (x's dtype) and int64 indices.
        """
        return torch.sort(x, dim=dim, descending=descending, stable=True)


CASES = [
    ((8, 1000), torch.float32, -1, True),
    ((64,), torch.int64, 0, True),  # sequence lengths
    ((16, 50), torch.bfloat16, 1, False),
    ((5, 7, 9), torch.float16, 1, True),
    ((100, 3), torch.int32, 0, False),
    ((2, 1, 2, 1, 2, 1, 2, 6), torch.float32, -1, False),
    ((4, 0), torch.float32, 1, True),
]


def get_inputs(case=CASES[0]):
    shape, dtype, dim, descending = case
    if dtype.is_floating_point:
        return [torch.randn(shape).to(dtype), dim, descending]
    return [torch.randint(0, 20, shape, dtype=dtype), dim, descending]


def get_init_inputs():
    return []
