import torch
import torch.nn as nn


class Model(nn.Module):
    """
    T5's LayerNorm (RMS only, no mean subtraction, no bias): the variance in float32, the normalized values cast to
    the weight's dtype when that is half precision, then scaled. The hidden states and the weight may have
    different dtypes (float32 activations with a bfloat16 weight in mixed-precision runs).

    Where: HF transformers models/t5/modeling_t5.py `T5LayerNorm.forward` (also MT5, UMT5, Pix2Struct).
    """
    def __init__(self, eps: float = 1e-6):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, hidden_states: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        """
        Args:
            hidden_states (torch.Tensor): (..., hidden).
            weight (torch.Tensor): (hidden,).

        Returns:
            torch.Tensor: the normalized hidden states.
        """
        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.eps)
        if weight.dtype in [torch.float16, torch.bfloat16]:
            hidden_states = hidden_states.to(weight.dtype)
        return weight * hidden_states


CASES = [
    # shape, activation dtype, weight dtype
    ((4, 16, 512), torch.float32, torch.float32),
    ((2, 7, 768), torch.float32, torch.bfloat16),
    ((3, 1024), torch.bfloat16, torch.bfloat16),
    ((1, 5, 256), torch.float16, torch.float32),
    ((512,), torch.float16, torch.float16),
    ((2, 0, 64), torch.float32, torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype, weight_dtype = case
    return [torch.randn(shape, dtype=dtype), (1 + 0.1 * torch.randn(shape[-1])).to(weight_dtype)]


def get_init_inputs():
    return [1e-6]
