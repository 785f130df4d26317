import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Causal temporal padding of a video tensor: the first frame repeated (kernel_t - 1) times in front (slice,
    repeat, cat) and a replicate pad of the two spatial dims.

    Where: diffusers src/diffusers/models/autoencoders/autoencoder_kl_cogvideox.py and
    autoencoder_kl_ltx.py causal 3-d convolutions (`torch.cat([inputs[:, :, :1].repeat(...), inputs], dim=2)`,
    padding_mode="replicate").
    """
    def __init__(self, kernel_t: int = 3, padding: int = 1):
        super(Model, self).__init__()
        self.kernel_t = kernel_t
        self.padding = padding

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, T, H, W).

        Returns:
            torch.Tensor: (N, C, T + kernel_t - 1, H + 2p, W + 2p).
        """
        first = x[:, :, :1].repeat(1, 1, self.kernel_t - 1, 1, 1)
        x = torch.cat([first, x], dim=2)
        p = self.padding
        return F.pad(x, (p, p, p, p, 0, 0), mode="replicate")


CASES = [
    ((1, 16, 5, 32, 32), torch.float32),
    ((2, 4, 1, 16, 16), torch.bfloat16),
    ((1, 3, 9, 8, 12), torch.float16),
    ((1, 1, 2, 1, 1), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [3, 1]
