import torch
import torch.nn as nn


class Model(nn.Module):
    """
    torch.gather along a given dim with an int64 index tensor of the same rank (in range), e.g. the Q-values of the
    taken actions or per-token scores at chosen labels; the dim and the rank vary per call.

    Where: the PyTorch DQN tutorial (`policy_net(state_batch).gather(1, action_batch)`), TRL's
    `selective_log_softmax` (`torch.gather(logits, dim=-1, index=...)`), and beam search score picking.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any rank >= 1.
            dim (int): the gathered dim.
            index (torch.Tensor): int64, x's rank, values in [0, x.shape[dim]).

        Returns:
            torch.Tensor: index's shape, x's dtype.
        """
        return torch.gather(x, dim, index)


CASES = [
    # x shape, dim, index size along dim, dtype
    ((32, 6), 1, 1, torch.float32),
    ((1, 2, 32000), -1, 1, torch.bfloat16),
    ((5, 7), 0, 3, torch.float16),
    ((100,), 0, 100, torch.int64),
    ((2, 3, 4, 5), 2, 2, torch.float32),
    ((2, 1, 2, 1, 2, 1, 2, 9), 7, 4, torch.float32),
    ((3, 8), 1, 0, torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dim, size, dtype = case
    x = torch.randn(shape).to(dtype) if dtype.is_floating_point else torch.randint(-50, 50, shape, dtype=dtype)
    index_shape = list(shape)
    index_shape[dim] = size
    return [x, dim, torch.randint(0, shape[dim], index_shape)]


def get_init_inputs():
    return []
