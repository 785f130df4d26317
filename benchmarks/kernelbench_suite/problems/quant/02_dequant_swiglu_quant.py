import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Dequant -> SwiGLU -> quant between two int8 matmuls: the int32 accumulators of the gate/up matmul are dequantized
    with a per-channel weight scale and a per-token activation scale, split into gate and up, silu(gate) * up,
    multiplied by a per-channel smoothing scale, then dynamically quantized per token to int8.

    Where: the W8A8 MoE/MLP path of vLLM-Ascend and MindIE; the public description of torch_npu's
    `npu_dequant_swiglu_quant` (weight_scale, activation_scale, quant_scale inputs, dynamic quant mode).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, weight_scale: torch.Tensor, activation_scale: torch.Tensor,
                quant_scale: torch.Tensor):
        """
        Args:
            x (torch.Tensor): int32 (tokens, 2 * intermediate).
            weight_scale (torch.Tensor): float32 (2 * intermediate,).
            activation_scale (torch.Tensor): float32 (tokens,).
            quant_scale (torch.Tensor): float32 (intermediate,), the smoothing scale.

        Returns:
            tuple: int8 (tokens, intermediate) and the float32 per-token scales (tokens,).
        """
        h = x.to(torch.float32) * weight_scale * activation_scale.unsqueeze(-1)
        gate, up = h.chunk(2, dim=-1)
        y = F.silu(gate) * up * quant_scale
        scale = y.abs().amax(dim=-1, keepdim=True).clamp(min=1e-10) / 127.0
        q = torch.round(y / scale).clamp(-128, 127).to(torch.int8)
        return q, scale.squeeze(-1)


CASES = [
    # tokens, intermediate
    (16, 1024),
    (1, 4096),
    (7, 320),
    (64, 64),
    (0, 128),
]


def get_inputs(case=CASES[0]):
    tokens, inter = case
    x = torch.randint(-20000, 20000, (tokens, 2 * inter), dtype=torch.int32)
    weight_scale = torch.rand(2 * inter) * 1e-3 + 1e-4
    activation_scale = torch.rand(tokens) * 1e-2 + 1e-3
    quant_scale = torch.rand(inter) + 0.5
    return [x, weight_scale, activation_scale, quant_scale]


def get_init_inputs():
    return []
