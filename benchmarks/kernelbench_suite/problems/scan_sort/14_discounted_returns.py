import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Discounted returns of reward sequences with a reversed cumsum: rewards times gamma ** t (powers from an arange
    made inside), flipped, cumsum, flipped back, divided by gamma ** t; then normalized per episode (mean and std
    over time).

    Where: the PyTorch REINFORCE example (pytorch/examples reinforcement_learning/reinforce.py: discounted returns,
    then `(returns - returns.mean()) / (returns.std() + eps)`), vectorized over episodes.
    """
    def __init__(self, gamma: float = 0.99):
        super(Model, self).__init__()
        self.gamma = gamma

    def forward(self, rewards: torch.Tensor):
        """
        Args:
            rewards (torch.Tensor): (episodes, steps).

        Returns:
            tuple: the returns and the normalized returns, (episodes, steps).
        """
        steps = rewards.shape[-1]
        discounts = self.gamma ** torch.arange(steps, dtype=rewards.dtype)
        returns = (rewards * discounts).flip(-1).cumsum(-1).flip(-1) / discounts
        normalized = (returns - returns.mean(-1, keepdim=True)) / (returns.std(-1, keepdim=True) + 1e-8)
        return returns, normalized


CASES = [
    ((16, 200), torch.float32),
    ((1, 2), torch.float32),
    ((64, 50), torch.float32),
    ((4, 30), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape).to(dtype)]


def get_init_inputs():
    return [0.99]
