import torch
import torch.nn as nn


class Model(nn.Module):
    """
    SnakeBeta, the periodic activation of neural vocoders: x + 1 / (beta + eps) * sin(x * alpha) ** 2, with alpha
    and beta learned per channel in log scale (exp), broadcast over (batch, channels, time).

    Where: NVIDIA/BigVGAN activations.py `SnakeBeta.forward` (alpha_logscale=True), also descript-audio-codec's
    `snake`.
    """
    def __init__(self, eps: float = 1e-9):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor, log_alpha: torch.Tensor, log_beta: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (batch, channels, time).
            log_alpha, log_beta (torch.Tensor): float32 (channels,).

        Returns:
            torch.Tensor: same shape as x.
        """
        alpha = torch.exp(log_alpha.unsqueeze(0).unsqueeze(-1))
        beta = torch.exp(log_beta.unsqueeze(0).unsqueeze(-1))
        return x + (1.0 / (beta + self.eps)) * torch.pow(torch.sin(x * alpha), 2)


CASES = [
    ((1, 512, 128), torch.float32),
    ((2, 32, 1000), torch.float32),
    ((4, 8, 7), torch.bfloat16),
    ((1, 1, 1), torch.float16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    channels = shape[1]
    return [torch.randn(shape, dtype=dtype), 0.1 * torch.randn(channels), 0.1 * torch.randn(channels)]


def get_init_inputs():
    return [1e-9]
