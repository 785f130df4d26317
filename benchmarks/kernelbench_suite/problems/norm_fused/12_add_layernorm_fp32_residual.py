import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Pre-norm block entry with a float32 residual stream: residual = hidden + residual, normalized with LayerNorm in
    the weight's dtype, the residual kept in float32 for the next block.

    Where: mamba_ssm mamba_ssm/modules/block.py `Block.forward` (residual_in_fp32, the non-fused path) and
    flash-attention's `layer_norm_fn(..., residual_in_fp32=True)` reference `layer_norm_ref`.
    """
    def __init__(self, eps: float = 1e-5):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, hidden_states: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor):
        """
        Args:
            hidden_states (torch.Tensor): (..., hidden) in the model dtype.
            residual (torch.Tensor): (..., hidden) in float32.
            weight, bias (torch.Tensor): (hidden,) in the model dtype.

        Returns:
            tuple: the normalized states (model dtype) and the float32 residual.
        """
        residual = hidden_states + residual
        normed = F.layer_norm(residual.to(dtype=weight.dtype), residual.shape[-1:], weight, bias, self.eps)
        return normed, residual.to(torch.float32)


CASES = [
    ((2, 16, 768), torch.bfloat16),
    ((1, 1, 2560), torch.float16),
    ((8, 1024), torch.float32),
    ((3, 5, 2, 64), torch.bfloat16),
    ((0, 4, 32), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    hidden = shape[-1]
    return [torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=torch.float32),
            (1 + 0.1 * torch.randn(hidden)).to(dtype), (0.1 * torch.randn(hidden)).to(dtype)]


def get_init_inputs():
    return [1e-5]
