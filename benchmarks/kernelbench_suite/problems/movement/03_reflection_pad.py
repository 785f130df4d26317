import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Reflection padding: of the last dim for sequences (unbatched (C, T) or batched (N, C, T)) and of the last two dims
    for images (unbatched (C, H, W) or (N, C, H, W)), the number of padded dims chosen from the rank.

    Where: CycleGAN/pix2pix `ResnetBlock` (`nn.ReflectionPad2d(1)`, junyanz/pytorch-CycleGAN-and-pix2pix
    models/networks.py) and audio codecs' reflect padding (Encodec `pad1d` with mode="reflect", HiFi-GAN's
    `nn.ReflectionPad1d`).
    """
    def __init__(self, padding: int = 3):
        super(Model, self).__init__()
        self.padding = padding

    def forward(self, x: torch.Tensor, two_d: bool) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (C, T) or (N, C, T) when two_d is False; (C, H, W) or (N, C, H, W) when True.
            two_d (bool): pad the last two dims.

        Returns:
            torch.Tensor: padded by `padding` on each side of each padded dim.
        """
        p = self.padding
        return F.pad(x, (p, p, p, p) if two_d else (p, p), mode="reflect")


CASES = [
    ((1, 16, 64, 64), torch.float32, True),
    ((3, 32, 32), torch.float16, True),
    ((2, 8, 5, 9), torch.bfloat16, True),
    ((2, 32, 1000), torch.float32, False),
    ((16, 40), torch.float32, False),
    ((1, 1, 4), torch.float32, False),
]


def get_inputs(case=CASES[0]):
    shape, dtype, two_d = case
    return [torch.randn(shape, dtype=dtype), two_d]


def get_init_inputs():
    return [3]
