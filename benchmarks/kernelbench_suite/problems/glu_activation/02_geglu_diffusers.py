import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    GEGLU: the projection split in two with chunk, the second half through the exact (erf) GELU computed in float32
    when the input is half precision, and multiplied with the first half.

    Where: diffusers src/diffusers/models/activations.py `GEGLU.forward` / `GEGLU.gelu` (the feed-forward of
    Stable Diffusion's transformer blocks), from Shazeer's "GLU Variants Improve Transformer".
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        """
        Args:
            hidden_states (torch.Tensor): (..., 2 * inner).

        Returns:
            torch.Tensor: (..., inner).
        """
        hidden_states, gate = hidden_states.chunk(2, dim=-1)
        if gate.dtype == torch.float16:
            gate = F.gelu(gate.to(dtype=torch.float32)).to(dtype=gate.dtype)
        else:
            gate = F.gelu(gate)
        return hidden_states * gate


CASES = [
    ((1, 16, 2 * 1280), torch.float16),  # SD 1.5's deepest block: 1280 channels
    ((1, 256, 2 * 320), torch.float32),
    ((4, 2 * 64), torch.bfloat16),
    ((1, 1, 2), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
