import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    GLU over a chosen dim: the dim split in halves, the first times the sigmoid of the second; on the channel dim of
    convolutional sequence models and on the last dim of linear ones.

    Where: facebookresearch/fairseq fairseq/models/fconv.py (`F.glu(x, dim=2)`), ConvS2S/WaveNet-style gated
    convolutions (`F.glu(x, dim=1)` on (batch, 2C, time)), and Conformer's convolution module (`nn.GLU(dim=1)`,
    torchaudio/models/conformer.py).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, dim: int) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): the glu dim of even size.
            dim (int): the split dim.

        Returns:
            torch.Tensor: x with that dim halved.
        """
        return F.glu(x, dim=dim)


CASES = [
    ((4, 2 * 144, 100), torch.float32, 1),  # Conformer conv module
    ((2, 50, 2 * 512), torch.float16, 2),
    ((16, 2 * 64), torch.bfloat16, -1),
    ((2 * 3,), torch.float32, 0),
    ((2, 2, 3, 2 * 2), torch.float32, 3),
]


def get_inputs(case=CASES[0]):
    shape, dtype, dim = case
    return [torch.randn(shape, dtype=dtype), dim]


def get_init_inputs():
    return []
