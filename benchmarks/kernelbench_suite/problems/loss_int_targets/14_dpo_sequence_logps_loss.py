import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    DPO loss from policy logits and int64 labels: labels shifted against the logits, a loss mask from labels !=
    -100, masked labels replaced by 0 for the gather, per-token log-probabilities gathered from log_softmax, summed
    per sequence; the chosen/rejected halves compared with the reference log-probabilities through -logsigmoid.

    Where: TRL trl/trainer/dpo_trainer.py (`get_batch_logps` / `concatenated_forward`, `dpo_loss` with the sigmoid
    loss type).
    """
    def __init__(self, beta: float = 0.1):
        super(Model, self).__init__()
        self.beta = beta

    def forward(self, logits: torch.Tensor, labels: torch.Tensor, reference_logps: torch.Tensor):
        """
        Args:
            logits (torch.Tensor): (2 * pairs, seq, vocab): chosen rows first, then rejected.
            labels (torch.Tensor): int64 (2 * pairs, seq), -100 on prompt and padding.
            reference_logps (torch.Tensor): float32 (2 * pairs,).

        Returns:
            tuple: 0-dim mean loss and float32 (2 * pairs,) sequence log-probabilities.
        """
        labels = labels[:, 1:].clone()
        logits = logits[:, :-1, :]
        loss_mask = labels != -100
        labels[labels == -100] = 0
        per_token_logps = torch.gather(logits.float().log_softmax(-1), dim=2, index=labels.unsqueeze(2)).squeeze(2)
        logps = (per_token_logps * loss_mask).sum(-1)
        pairs = logps.shape[0] // 2
        pi_logratios = logps[:pairs] - logps[pairs:]
        ref_logratios = reference_logps[:pairs] - reference_logps[pairs:]
        losses = -F.logsigmoid(self.beta * (pi_logratios - ref_logratios))
        return losses.mean(), logps


CASES = [
    # pairs, seq, vocab, dtype
    (2, 32, 1000, torch.bfloat16),
    (1, 3, 16000, torch.float32),
    (4, 5, 50, torch.float16),
]


def get_inputs(case=CASES[0]):
    pairs, seq, vocab, dtype = case
    labels = torch.randint(0, vocab, (2 * pairs, seq))
    labels[:, : seq // 3] = -100  # the prompt
    return [torch.randn(2 * pairs, seq, vocab, dtype=dtype), labels, -torch.rand(2 * pairs) * 50]


def get_init_inputs():
    return [0.1]
