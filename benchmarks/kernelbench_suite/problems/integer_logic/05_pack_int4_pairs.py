import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Packing pairs of 4-bit values into bytes: the even and odd columns (step slices) masked with 0xF, the odd ones
    shifted left by 4, or-ed together; and the inverse unpacking with a right shift, interleaved back with stack.

    Where: torchao torchao/dtypes/uintx (`pack_uint4` / `unpack_uint4`: `(uint8_data[::, ::2] << 4 |
    uint8_data[::, 1::2])`), and int4 weight packing in AWQ/GPTQ exporters.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, q: torch.Tensor):
        """
        Args:
            q (torch.Tensor): uint8 (..., 2n), values in [0, 16).

        Returns:
            tuple: uint8 packed (..., n) and the unpacked uint8 (..., 2n).
        """
        packed = (q[..., ::2] & 0xF) | (q[..., 1::2] << 4)
        low = packed & 0xF
        high = (packed >> 4) & 0xF
        return packed, torch.stack((low, high), dim=-1).flatten(-2)


CASES = [
    (256, 512),
    (4096,),
    (3, 5, 8),
    (1, 2),
    (0, 16),
]


def get_inputs(case=CASES[0]):
    return [torch.randint(0, 16, case, dtype=torch.uint8)]


def get_init_inputs():
    return []
