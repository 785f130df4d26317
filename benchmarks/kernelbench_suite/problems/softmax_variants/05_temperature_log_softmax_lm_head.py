import torch
import torch.nn as nn


class Model(nn.Module):
    """
    The sampler's log-probabilities over a vocabulary: logits upcast to float32, divided by each request's
    temperature (a per-row tensor), log_softmax over the vocabulary.

    Where: vLLM vllm/v1/sample/sampler.py (`apply_temperature`: `logits.div_(temp.unsqueeze(dim=1))`, then
    `compute_logprobs`: `logits.log_softmax(dim=-1, dtype=torch.float32)`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, logits: torch.Tensor, temperature: torch.Tensor) -> torch.Tensor:
        """
        Args:
            logits (torch.Tensor): (requests, vocab).
            temperature (torch.Tensor): float32 (requests,).

        Returns:
            torch.Tensor: float32 (requests, vocab).
        """
        logits = logits.to(torch.float32).div(temperature.unsqueeze(dim=1))
        return logits.log_softmax(dim=-1, dtype=torch.float32)


CASES = [
    # requests, vocab, dtype
    (2, 32000, torch.bfloat16),  # Llama-2
    (1, 151936, torch.bfloat16),  # Qwen2
    (1, 50257, torch.float16),  # GPT-2
    (16, 1000, torch.float32),
    (0, 32000, torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    requests, vocab, dtype = case
    return [torch.randn(requests, vocab, dtype=dtype) * 4, torch.rand(requests) + 0.5]


def get_init_inputs():
    return []
