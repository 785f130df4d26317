import torch
import torch.nn as nn


class Model(nn.Module):
    """
    argmax and argmin over a given dimension (with and without keepdim) on float and integer tensors; ties give the
    first index, as PyTorch documents.

    Where: greedy decoding (`next_tokens = torch.argmax(next_token_scores, dim=-1)` in HF generate), accuracy
    metrics (`preds = logits.argmax(dim=1)`), CTC greedy decoders (`argmax(dim=-1)` over (batch, time, vocab)).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, dim: int):
        """
        Args:
            x (torch.Tensor): any non-empty reduced dimension.
            dim (int): the dimension.

        Returns:
            tuple: int64 argmax over dim, int64 argmin over dim with keepdim.
        """
        return torch.argmax(x, dim=dim), torch.argmin(x, dim=dim, keepdim=True)


CASES = [
    # shape, dtype, dim
    ((2, 32000), torch.bfloat16, -1),
    ((32, 10), torch.float32, 1),
    ((4, 50, 29), torch.float16, -1),
    ((16, 7), torch.int64, 0),
    ((3, 4, 5), torch.int32, 1),
    ((100,), torch.int8, 0),
    ((2, 3, 1, 4, 5), torch.float32, 3),
    ((2, 1, 2, 1, 2, 1, 2, 3), torch.int16, 6),
    ((0, 5), torch.float32, 1),
]


def get_inputs(case=CASES[0]):
    shape, dtype, dim = case
    if dtype.is_floating_point:
        return [torch.randn(shape, dtype=dtype), dim]
    return [torch.randint(-50, 50, shape, dtype=dtype), dim]


def get_init_inputs():
    return []
