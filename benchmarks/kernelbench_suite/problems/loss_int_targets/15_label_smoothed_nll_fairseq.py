import torch
import torch.nn as nn


class Model(nn.Module):
    """
    fairseq's label-smoothed NLL: the target log-probability gathered per token (targets unsqueezed), the smoothing
    term as the sum of all log-probabilities, both zeroed at padding positions (target == pad, masked_fill), summed,
    and mixed with eps / (V - 1).

    Where: facebookresearch/fairseq fairseq/criterions/label_smoothed_cross_entropy.py `label_smoothed_nll_loss`.
    """
    def __init__(self, epsilon: float = 0.1, ignore_index: int = 1):
        super(Model, self).__init__()
        self.epsilon = epsilon
        self.ignore_index = ignore_index

    def forward(self, lprobs: torch.Tensor, target: torch.Tensor):
        """
        Args:
            lprobs (torch.Tensor): (tokens, vocab) log-probabilities.
            target (torch.Tensor): int64 (tokens,), pad id 1 where padded.

        Returns:
            tuple: the 0-dim smoothed loss and the 0-dim NLL.
        """
        target = target.unsqueeze(-1)
        nll_loss = -lprobs.gather(dim=-1, index=target)
        smooth_loss = -lprobs.sum(dim=-1, keepdim=True)
        pad_mask = target.eq(self.ignore_index)
        nll_loss = nll_loss.masked_fill(pad_mask, 0.0).sum()
        smooth_loss = smooth_loss.masked_fill(pad_mask, 0.0).sum()
        eps_i = self.epsilon / (lprobs.size(-1) - 1)
        loss = (1.0 - self.epsilon - eps_i) * nll_loss + eps_i * smooth_loss
        return loss, nll_loss


CASES = [
    (128, 1000, torch.float32),
    (2, 32000, torch.bfloat16),
    (1, 10, torch.float32),
    (0, 100, torch.float32),
]


def get_inputs(case=CASES[0]):
    tokens, vocab, dtype = case
    target = torch.randint(2, vocab, (tokens,)).masked_fill(torch.rand(tokens) < 0.2, 1)
    return [torch.randn(tokens, vocab).log_softmax(-1).to(dtype), target]


def get_init_inputs():
    return [0.1, 1]
