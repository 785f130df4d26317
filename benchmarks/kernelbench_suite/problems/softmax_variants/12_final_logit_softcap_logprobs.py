import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Gemma-2's final-logit soft-capping followed by the token log-probabilities: logits / 30, tanh, times 30 (in the
    logits' dtype), then log_softmax in float32 over the vocabulary.

    Where: HF transformers models/gemma2/modeling_gemma2.py `Gemma2ForCausalLM.forward`
    (final_logit_softcapping = 30.0) followed by the sampler's float32 log-probabilities.
    """
    def __init__(self, softcap: float = 30.0):
        super(Model, self).__init__()
        self.softcap = softcap

    def forward(self, logits: torch.Tensor):
        """
        Args:
            logits (torch.Tensor): (batch, seq, vocab) or (tokens, vocab).

        Returns:
            tuple: the capped logits (logits' dtype) and float32 log-probabilities.
        """
        logits = logits / self.softcap
        logits = torch.tanh(logits)
        logits = logits * self.softcap
        return logits, logits.float().log_softmax(dim=-1)


CASES = [
    ((1, 4, 8192), torch.bfloat16),
    ((2, 1, 25600), torch.float32),
    ((3, 1000), torch.float16),
    ((1, 0, 256), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [(torch.randn(shape) * 40).to(dtype)]


def get_init_inputs():
    return [30.0]
