import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Gated RMSNorm with groups: the hidden states times silu(gate), in float32, normalized by the RMS of each group of
    group_size channels (a view with a computed group count), viewed back, cast to the input dtype and scaled.

    Where: mamba_ssm mamba_ssm/ops/triton/layernorm_gated.py `rms_norm_ref` (group_size, norm_before_gate=False)
    and HF transformers models/mamba2/modeling_mamba2.py `MambaRMSNormGated`; also Qwen3-Next's gated delta net.
    """
    def __init__(self, group_size: int = 64, eps: float = 1e-5):
        super(Model, self).__init__()
        self.group_size = group_size
        self.eps = eps

    def forward(self, x: torch.Tensor, gate: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x, gate (torch.Tensor): (..., hidden), hidden a multiple of group_size.
            weight (torch.Tensor): (hidden,).

        Returns:
            torch.Tensor: same shape and dtype as x.
        """
        input_dtype = x.dtype
        h = x.to(torch.float32) * F.silu(gate.to(torch.float32))
        grouped = h.view(*h.shape[:-1], -1, self.group_size)
        grouped = grouped * torch.rsqrt(grouped.pow(2).mean(-1, keepdim=True) + self.eps)
        h = grouped.view(h.shape)
        return weight * h.to(input_dtype)


CASES = [
    ((4, 256), torch.float32),
    ((2, 8, 512), torch.bfloat16),
    ((1, 1, 1024), torch.float16),
    ((3, 64), torch.float32),  # one group
    ((2, 3, 4, 128), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype),
            (1 + 0.1 * torch.randn(shape[-1])).to(dtype)]


def get_init_inputs():
    return [64, 1e-5]
