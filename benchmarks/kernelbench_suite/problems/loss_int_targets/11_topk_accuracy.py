import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Top-1 and top-5 accuracy against int64 targets: the top-5 predictions (topk, sorted), transposed, compared with
    the expanded targets (bool), and for each k the count of hits in the first k rows as a percentage.

    Where: pytorch/examples imagenet/main.py `accuracy(output, target, topk=(1, 5))` (also timm's
    timm/utils/metrics.py `accuracy`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, output: torch.Tensor, target: torch.Tensor):
        """
        Args:
            output (torch.Tensor): (N, C), C >= 5, distinct values per row.
            target (torch.Tensor): int64 (N,).

        Returns:
            tuple: 0-dim float32 top-1 and top-5 accuracies in percent.
        """
        batch_size = target.size(0)
        _, pred = output.topk(5, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in (1, 5):
            correct_k = correct[:k].reshape(-1).float().sum(0)
            res.append(correct_k * (100.0 / batch_size))
        return res[0], res[1]


CASES = [(64, 1000), (1, 10), (64, 100), (7, 5)]


def get_inputs(case=CASES[0]):
    n, c = case
    return [torch.argsort(torch.rand(n, c), dim=-1).float() / c, torch.randint(0, c, (n,))]


def get_init_inputs():
    return []
