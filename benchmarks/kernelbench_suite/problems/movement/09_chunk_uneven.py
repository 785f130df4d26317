import torch
import torch.nn as nn


class Model(nn.Module):
    """
    torch.chunk into a fixed number of chunks along a dim whose size is not a multiple of it (the last chunk is
    smaller, and fewer chunks come back when the dim is short), each chunk scaled by its position.

    Where: HF transformers pytorch_utils.py `apply_chunking_to_forward` (`input_tensor.chunk(num_chunks,
    dim=chunk_dim)`, Reformer/Bert chunked feed-forward) and sequence-parallel splits.
    """
    def __init__(self, chunks: int = 3):
        super(Model, self).__init__()
        self.chunks = chunks

    def forward(self, x: torch.Tensor, dim: int):
        """
        Args:
            x (torch.Tensor): any shape with at least one dim.
            dim (int): the dimension to chunk.

        Returns:
            tuple: the chunks, chunk i multiplied by (i + 1).
        """
        return tuple(chunk * (i + 1) for i, chunk in enumerate(x.chunk(self.chunks, dim=dim)))


CASES = [
    ((4, 10, 64), torch.float32, 1),
    ((7, 32), torch.bfloat16, 0),
    ((2, 2, 96), torch.float16, -1),
    ((2, 5), torch.float32, 1),  # fewer chunks than asked
    ((9,), torch.int32, 0),
    ((2, 1, 3, 1, 2, 1, 2, 11), torch.float32, 7),
]


def get_inputs(case=CASES[0]):
    shape, dtype, dim = case
    if dtype.is_floating_point:
        return [torch.randn(shape, dtype=dtype), dim]
    return [torch.randint(-100, 100, shape, dtype=dtype), dim]


def get_init_inputs():
    return [3]
