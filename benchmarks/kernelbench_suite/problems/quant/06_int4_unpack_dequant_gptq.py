import torch
import torch.nn as nn


class Model(nn.Module):
    """
    GPTQ 4-bit weight unpacking and dequantization: eight 4-bit values per int32 are extracted with right shifts by
    arange(0, 32, 4) and a 0xF mask, for the weights and for the packed zero points; each input row's group comes
    from g_idx (an int32 index tensor), and the weight is (w - zeros[g]) * scales[g].

    Where: AutoGPTQ / HF optimum `QuantLinear` torch reference (`dequantize_weight` in
    gptqmodel/nn_modules/qlinear and auto_gptq's qlinear_cuda_old), also vLLM's `unpack_cols`-style test helpers.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, qweight: torch.Tensor, qzeros: torch.Tensor, scales: torch.Tensor, g_idx: torch.Tensor):
        """
        Args:
            qweight (torch.Tensor): int32 (in_features // 8, out_features).
            qzeros (torch.Tensor): int32 (groups, out_features // 8).
            scales (torch.Tensor): (groups, out_features), the activation dtype.
            g_idx (torch.Tensor): int32 (in_features,), each input row's group.

        Returns:
            torch.Tensor: (in_features, out_features) in scales' dtype.
        """
        shifts = torch.arange(0, 32, 4, dtype=torch.int32)
        weight = torch.bitwise_right_shift(qweight.unsqueeze(1), shifts[None, :, None])
        weight = torch.bitwise_and(weight, 0xF).reshape(-1, qweight.shape[-1])
        zeros = torch.bitwise_right_shift(qzeros.unsqueeze(2), shifts[None, None, :])
        zeros = torch.bitwise_and(zeros, 0xF).reshape(qzeros.shape[0], -1)
        g = g_idx.long()
        return ((weight - zeros[g]) * scales[g]).to(scales.dtype)


CASES = [
    # in_features, out_features, group_size, dtype
    (256, 128, 128, torch.float16),
    (512, 64, 64, torch.bfloat16),
    (64, 256, 32, torch.float32),
    (8, 8, 8, torch.float16),
]


def get_inputs(case=CASES[0]):
    in_features, out_features, group_size, dtype = case
    groups = in_features // group_size
    qweight = torch.randint(-2**31, 2**31 - 1, (in_features // 8, out_features), dtype=torch.int32)
    qzeros = torch.randint(-2**31, 2**31 - 1, (groups, out_features // 8), dtype=torch.int32)
    scales = (torch.rand(groups, out_features) * 0.02 + 1e-3).to(dtype)
    g_idx = (torch.arange(in_features) // group_size).to(torch.int32)
    return [qweight, qzeros, scales, g_idx]


def get_init_inputs():
    return []
