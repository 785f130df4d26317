import torch
import torch.nn as nn


class Model(nn.Module):
    """
    LlamaRMSNorm as a module holding its weight (a float32 parameter of one size), called on activations of every
    rank from 1 to 8 whose last dim is the hidden size: the variance in float32, cast back to the input dtype, then
    the weight (so half-precision inputs give a float32 result, as in a float32 master-weight model).

    Where: HF transformers models/llama/modeling_llama.py `LlamaRMSNorm` (called on (tokens, hidden) in packed
    batches, (batch, seq, hidden) in models, and per head in qk-norm).
    """
    def __init__(self, hidden_size: int = 256, eps: float = 1e-6):
        super(Model, self).__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size) + 0.1 * torch.randn(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        """
        Args:
            hidden_states (torch.Tensor): (..., 256).

        Returns:
            torch.Tensor: same shape; float32.
        """
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


CASES = [
    ((256,), torch.float32),
    ((32, 256), torch.float32),
    ((2, 16, 256), torch.float32),
    ((2, 4, 8, 256), torch.bfloat16),
    ((1, 2, 2, 3, 256), torch.float16),
    ((2, 1, 2, 1, 3, 256), torch.float32),
    ((1, 2, 1, 2, 1, 2, 256), torch.float32),
    ((2, 1, 1, 2, 1, 1, 2, 256), torch.bfloat16),
    ((0, 256), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [256, 1e-6]
