import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    SwiGLU followed by dynamic per-token symmetric int8 quantization, as W8A8 MLPs feed their down projection: the
    fused gate/up projection is split in two (chunk), silu(gate) * up in float32, each row's scale is its absolute
    maximum / 127, values divided by the scale, rounded (half to even), clamped to [-128, 127] and cast to int8.

    Where: vLLM `SiluAndMul` + `scaled_int8_quant` (dynamic; reference `ref_dynamic_per_token_quant` in
    tests/kernels/quant_utils.py), and the public description of torch_npu's `npu_swiglu_quant`-style fused ops.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (..., 2 * intermediate).

        Returns:
            tuple: int8 (..., intermediate) and the float32 per-row scales (...,).
        """
        gate, up = x.chunk(2, dim=-1)
        h = F.silu(gate.float()) * up.float()
        scale = h.abs().amax(dim=-1, keepdim=True).clamp(min=1e-10) / 127.0
        q = torch.round(h / scale).clamp(-128, 127).to(torch.int8)
        return q, scale.squeeze(-1)


CASES = [
    ((8, 2048), torch.bfloat16),
    ((1, 8192), torch.float16),
    ((3, 5, 512), torch.float32),
    ((512,), torch.bfloat16),
    ((16, 2, 2), torch.float32),
    ((0, 256), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
