import torch
import torch.nn as nn


class Model(nn.Module):
    """
    gpt-oss's clamped SwiGLU on an interleaved gate/up projection: gate and up taken with step-2 slices, gate
    clamped from above and up on both sides at a limit, gate * sigmoid(alpha * gate), times (up + 1).

    Where: HF transformers models/gpt_oss/modeling_gpt_oss.py `GptOssExperts._apply_gate` / forward (alpha 1.702,
    limit 7.0), and openai/gpt-oss's reference torch implementation (`swiglu`).
    """
    def __init__(self, alpha: float = 1.702, limit: float = 7.0):
        super(Model, self).__init__()
        self.alpha = alpha
        self.limit = limit

    def forward(self, gate_up: torch.Tensor) -> torch.Tensor:
        """
        Args:
            gate_up (torch.Tensor): (..., 2 * inter), gate and up interleaved.

        Returns:
            torch.Tensor: (..., inter).
        """
        gate, up = gate_up[..., ::2], gate_up[..., 1::2]
        gate = gate.clamp(min=None, max=self.limit)
        up = up.clamp(min=-self.limit, max=self.limit)
        glu = gate * torch.sigmoid(gate * self.alpha)
        return (up + 1) * glu


CASES = [
    ((16, 2 * 2880), torch.bfloat16),  # gpt-oss's intermediate size
    ((4, 8, 2 * 256), torch.float32),
    ((1, 2 * 64), torch.float16),
    ((0, 2 * 64), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [(torch.randn(shape) * 5).to(dtype)]


def get_init_inputs():
    return [1.702, 7.0]
