import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Constant padding on the time axis for a causal convolution (kernel_size - 1 zeros on the left) and cropping with a
    negative pad (constant_pad_nd removes the trailing sample a transposed convolution added); both on inputs whose
    rank varies (unbatched (C, T), batched (N, C, T), and more leading dims).

    Where: Mamba's causal conv1d reference (`F.pad(x, (d_conv - 1, 0))` in mamba_ssm causal_conv1d_ref), WaveNet
    style causal convs, and Encodec's `unpad1d` (HF transformers models/encodec/modeling_encodec.py).
    """
    def __init__(self, kernel_size: int = 4):
        super(Model, self).__init__()
        self.kernel_size = kernel_size

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (..., T).

        Returns:
            tuple: (..., T + kernel_size - 1) left-padded with zeros, (..., T - 1) with the last step cropped and the
            first padded with -1.
        """
        return F.pad(x, (self.kernel_size - 1, 0)), F.pad(x, (1, -2), value=-1.0)


CASES = [
    ((2, 64, 128), torch.float32),
    ((1, 1536, 2), torch.bfloat16),  # short: the crop leaves one step
    ((64, 50), torch.float16),
    ((5,), torch.float32),
    ((2, 2, 3, 4, 1, 2, 3, 6), torch.float32),
    ((3, 4, 2), torch.int64),
    ((0, 8, 10), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    if dtype.is_floating_point:
        return [torch.randn(shape, dtype=dtype)]
    return [torch.randint(-9, 9, shape, dtype=dtype)]


def get_init_inputs():
    return [4]
