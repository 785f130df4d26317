import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Repetition penalty on the scores of tokens already generated: gather the scores at the previous ids (which
    repeat), penalize (negative scores times the penalty, positive ones divided by it) with torch.where, and scatter
    them back (repeated ids write the same value).

    Where: HF transformers generation/logits_process.py `RepetitionPenaltyLogitsProcessor.__call__`
    (`torch.gather(scores, 1, input_ids)`, `scores.scatter(1, input_ids, score)`).
    """
    def __init__(self, penalty: float = 1.2):
        super(Model, self).__init__()
        self.penalty = penalty

    def forward(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        """
        Args:
            input_ids (torch.Tensor): int64 (batch, seq), ids < vocab.
            scores (torch.Tensor): (batch, vocab).

        Returns:
            torch.Tensor: the penalized scores.
        """
        score = torch.gather(scores, 1, input_ids)
        score = torch.where(score < 0, score * self.penalty, score / self.penalty)
        return scores.scatter(1, input_ids, score)


CASES = [
    # batch, seq, vocab, dtype
    (4, 64, 32000, torch.float32),
    (1, 1, 1000, torch.bfloat16),
    (8, 20, 50, torch.float16),  # many repeats
    (2, 0, 100, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, seq, vocab, dtype = case
    return [torch.randint(0, vocab, (batch, seq)), torch.randn(batch, vocab, dtype=dtype)]


def get_init_inputs():
    return [1.2]
