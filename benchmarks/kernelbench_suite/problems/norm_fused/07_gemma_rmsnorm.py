import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Gemma's RMSNorm: everything in float32, the weight stored as an offset from one (x * (1 + weight)), the result
    cast back to the input's dtype at the end (unlike Llama, which casts before the weight).

    Where: HF transformers models/gemma/modeling_gemma.py `GemmaRMSNorm.forward` (also Gemma-2/3, Qwen3-Next's
    norms).
    """
    def __init__(self, eps: float = 1e-6):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (..., hidden).
            weight (torch.Tensor): (hidden,), the offset from one.

        Returns:
            torch.Tensor: same shape and dtype as x.
        """
        output = x.float()
        output = output * torch.rsqrt(output.pow(2).mean(-1, keepdim=True) + self.eps)
        output = output * (1.0 + weight.float())
        return output.type_as(x)


CASES = [
    ((8, 2048), torch.bfloat16),
    ((2, 6, 256), torch.float16),
    ((3072,), torch.float32),
    ((1, 1, 1, 1, 128), torch.bfloat16),
    ((4, 2, 3, 5, 64), torch.float32),
    ((2, 1, 2, 1, 3, 1, 32), torch.float16),
    ((0, 3, 64), torch.bfloat16),
    ((1, 1), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype), (0.1 * torch.randn(shape[-1])).to(dtype)]


def get_init_inputs():
    return [1e-6]
