import torch
import torch.nn as nn


class Model(nn.Module):
    """
    The epilogue of an int8 x int8 matmul: the int32 accumulators are dequantized with a per-token activation scale
    and a per-channel weight scale, the bias added, and the result cast to the output dtype (bfloat16 or float16).

    Where: vLLM `cutlass_scaled_mm` and its reference `ref_scaled_mm`/`baseline_scaled_mm`
    (tests/kernels/quantization/test_cutlass_scaled_mm.py); torch_npu's `npu_quant_matmul` with pertoken_scale and
    bias (operator description).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, acc: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor, bias: torch.Tensor):
        """
        Args:
            acc (torch.Tensor): int32 (M, N).
            scale_a (torch.Tensor): float32 (M, 1).
            scale_b (torch.Tensor): float32 (1, N).
            bias (torch.Tensor): (N,), in the output dtype.

        Returns:
            torch.Tensor: (M, N) in bias's dtype.
        """
        out = scale_a * (scale_b * acc.to(torch.float32))
        return (out + bias.to(torch.float32)).to(bias.dtype)


CASES = [
    ((16, 4096), torch.bfloat16),
    ((1, 1024), torch.float16),
    ((33, 100), torch.bfloat16),
    ((256, 256), torch.float16),
    ((0, 64), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    (m, n), dtype = case
    acc = torch.randint(-300000, 300000, (m, n), dtype=torch.int32)
    return [acc, torch.rand(m, 1) * 1e-3 + 1e-4, torch.rand(1, n) * 1e-3 + 1e-4, torch.randn(n).to(dtype)]


def get_init_inputs():
    return []
