import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Floor division and remainder on integers (negative values included: Python semantics, the remainder takes the
    divisor's sign), by a tensor and by Python int constants, as paged caches and position bucketing compute
    block ids and offsets.

    Where: vLLM's slot mapping (vllm/v1/worker/block_table.py `compute_slot_mapping`: `positions // block_size`,
    `positions % block_size`) and `torch.div(..., rounding_mode="floor")` in HF transformers (e.g. Wav2Vec2's
    `_get_feat_extract_output_lengths`).
    """
    def __init__(self, block_size: int = 16):
        super(Model, self).__init__()
        self.block_size = block_size

    def forward(self, a: torch.Tensor, b: torch.Tensor):
        """
        Args:
            a (torch.Tensor): integers, any shape.
            b (torch.Tensor): non-zero integers, same shape and dtype.

        Returns:
            tuple: a // b, a % b, torch.div(a, block_size, rounding_mode="floor"), torch.remainder(a, block_size).
        """
        return (torch.floor_divide(a, b), torch.remainder(a, b), torch.div(a, self.block_size, rounding_mode="floor"),
                a % self.block_size)


CASES = [
    ((1024,), torch.int64),
    ((8, 128), torch.int32),
    ((), torch.int64),
    ((3, 4, 5), torch.int16),
    ((2, 3), torch.int8),
    ((2, 1, 2, 1, 2, 1, 2, 3), torch.int32),
    ((0,), torch.int64),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    high = 100 if dtype == torch.int8 else 10000
    a = torch.randint(-high, high, shape, dtype=dtype)
    b = torch.randint(1, 10, shape, dtype=dtype) * (torch.randint(0, 2, shape, dtype=dtype) * 2 - 1)
    return [a, b]


def get_init_inputs():
    return [16]
