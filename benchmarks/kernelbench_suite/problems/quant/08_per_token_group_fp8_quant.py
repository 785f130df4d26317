import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Fine-grained (block-wise) float8 activation quantization: the last dim is viewed as groups of 128 values (a
    view with a computed group count), each group's scale is its absolute maximum / 448, the values are cast to
    float8_e4m3fn, and the scales are returned per token and group.

    Where: DeepSeek-V3 inference/kernel.py `act_quant` (block_size 128) and vLLM's
    `per_token_group_quant_fp8` (its torch reference in tests/kernels/quantization).
    """
    def __init__(self, group_size: int = 128):
        super(Model, self).__init__()
        self.group_size = group_size

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (..., hidden), hidden a multiple of 128.

        Returns:
            tuple: float8_e4m3fn of x's shape and float32 scales (..., hidden // 128).
        """
        fp8_max = torch.finfo(torch.float8_e4m3fn).max
        groups = x.view(*x.shape[:-1], x.shape[-1] // self.group_size, self.group_size).to(torch.float32)
        scale = groups.abs().amax(dim=-1, keepdim=True).clamp(min=1e-10) / fp8_max
        q = (groups / scale).clamp(-fp8_max, fp8_max).to(torch.float8_e4m3fn)
        return q.view(x.shape), scale.squeeze(-1)


CASES = [
    ((16, 7168), torch.bfloat16),
    ((1, 2048), torch.bfloat16),
    ((3, 5, 512), torch.float16),
    ((128,), torch.float32),
    ((0, 256), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [128]
