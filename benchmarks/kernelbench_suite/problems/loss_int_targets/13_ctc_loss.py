import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    CTC loss of speech-recognition outputs: (T, N, C) log-probabilities, padded int64 target label sequences and
    int64 input and target lengths, blank 0, mean over the batch of the length-normalized losses, infinite losses
    zeroed.

    Where: HF transformers models/wav2vec2/modeling_wav2vec2.py `Wav2Vec2ForCTC.forward`
    (`nn.functional.ctc_loss(log_probs, flattened_targets, input_lengths, target_lengths, blank=pad_token_id,
    reduction=..., zero_infinity=...)`), torchaudio's DeepSpeech/wav2letter recipes.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, log_probs: torch.Tensor, targets: torch.Tensor, input_lengths: torch.Tensor,
                target_lengths: torch.Tensor) -> torch.Tensor:
        """
        Args:
            log_probs (torch.Tensor): float32 (T, N, C), log_softmax over C.
            targets (torch.Tensor): int64 (N, S), labels in [1, C).
            input_lengths (torch.Tensor): int64 (N,), <= T.
            target_lengths (torch.Tensor): int64 (N,), <= S.

        Returns:
            torch.Tensor: the 0-dim loss.
        """
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
                          zero_infinity=True)


CASES = [
    # T, N, C, S
    (200, 4, 32, 40),
    (50, 1, 29, 10),
    (30, 8, 10, 30),  # some targets too long for their inputs: infinite, zeroed
    (10, 2, 5, 1),
]


def get_inputs(case=CASES[0]):
    t, n, c, s = case
    log_probs = torch.randn(t, n, c).log_softmax(-1)
    targets = torch.randint(1, c, (n, s))
    input_lengths = torch.randint(t // 2, t + 1, (n,))
    target_lengths = torch.randint(1, s + 1, (n,))
    return [log_probs, targets, input_lengths, target_lengths]


def get_init_inputs():
    return []
