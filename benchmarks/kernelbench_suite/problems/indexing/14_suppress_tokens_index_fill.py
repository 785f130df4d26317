import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Suppressing tokens during generation: the scores of given vocabulary ids set to -inf in every row with
    index_fill on the vocabulary dim, and the first step's begin-suppression done with a bool mask from isin over
    an arange of the vocabulary.

    Where: HF transformers generation/logits_process.py `SuppressTokensLogitsProcessor` /
    `SuppressTokensAtBeginLogitsProcessor` (Whisper; `isin(vocab_tensor, self.suppress_tokens)`, `torch.where(...,
    -float("inf"), scores)`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, scores: torch.Tensor, suppress_tokens: torch.Tensor, begin_suppress: torch.Tensor):
        """
        Args:
            scores (torch.Tensor): (batch, vocab).
            suppress_tokens (torch.Tensor): int64 (n,) ids.
            begin_suppress (torch.Tensor): int64 (m,) ids.

        Returns:
            torch.Tensor: the scores with both sets at -inf.
        """
        scores = scores.index_fill(1, suppress_tokens, float("-inf"))
        vocab_tensor = torch.arange(scores.shape[-1])
        begin_mask = torch.isin(vocab_tensor, begin_suppress)
        return torch.where(begin_mask, float("-inf"), scores)


CASES = [
    # batch, vocab, suppressed, begin-suppressed, dtype
    (1, 51865, 90, 2, torch.float32),  # Whisper's vocabulary and suppress list size
    (1, 32000, 1, 1, torch.bfloat16),
    (8, 1000, 10, 3, torch.float16),
    (0, 100, 2, 1, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, vocab, n, m, dtype = case
    return [torch.randn(batch, vocab, dtype=dtype), torch.randperm(vocab)[:n], torch.randperm(vocab)[:m]]


def get_init_inputs():
    return []
