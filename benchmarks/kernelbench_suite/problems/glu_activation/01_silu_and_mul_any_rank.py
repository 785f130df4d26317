import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    SwiGLU on a fused gate/up projection: the last dim split in halves by slicing at d = size // 2, silu(gate) * up,
    called on activations of every rank (packed tokens, batched sequences, extra leading dims).

    Where: vLLM vllm/model_executor/layers/activation.py `SiluAndMul.forward_native` (`d = x.shape[-1] // 2`,
    `F.silu(x[..., :d]) * x[..., d:]`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (..., 2 * d).

        Returns:
            torch.Tensor: (..., d).
        """
        d = x.shape[-1] // 2
        return F.silu(x[..., :d]) * x[..., d:]


CASES = [
    ((16, 2 * 1408), torch.bfloat16),
    ((1, 2 * 11008), torch.float16),
    ((2, 7, 2 * 512), torch.float32),
    ((2 * 64,), torch.float32),
    ((2, 2, 3, 2 * 96), torch.bfloat16),
    ((2, 1, 2, 1, 2, 1, 2, 2 * 8), torch.float32),
    ((0, 2 * 128), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
