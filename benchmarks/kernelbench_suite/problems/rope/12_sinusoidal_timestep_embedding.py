import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Sinusoidal timestep embedding of diffusion models: exponents from arange(half) / (half - shift), the
    timesteps (int or float) times exp(exponent) as an outer product, sin and cos concatenated (optionally flipped
    to cos, sin) and zero-padded by one column when the embedding size is odd.

    Where: diffusers src/diffusers/models/embeddings.py `get_timestep_embedding` (also the DDPM/ADM
    `timestep_embedding` of guided-diffusion).
    """
    def __init__(self, flip_sin_to_cos: bool = True, downscale_freq_shift: float = 0.0, max_period: int = 10000):
        super(Model, self).__init__()
        self.flip_sin_to_cos = flip_sin_to_cos
        self.downscale_freq_shift = downscale_freq_shift
        self.max_period = max_period

    def forward(self, timesteps: torch.Tensor, embedding_dim: int) -> torch.Tensor:
        """
        Args:
            timesteps (torch.Tensor): (N,), int64 or float.
            embedding_dim (int): the embedding size (odd sizes get a zero column).

        Returns:
            torch.Tensor: float32 (N, embedding_dim).
        """
        half_dim = embedding_dim // 2
        exponent = -math.log(self.max_period) * torch.arange(start=0, end=half_dim, dtype=torch.float32)
        exponent = exponent / (half_dim - self.downscale_freq_shift)
        emb = torch.exp(exponent)
        emb = timesteps[:, None].float() * emb[None, :]
        emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
        if self.flip_sin_to_cos:
            emb = torch.cat([emb[:, half_dim:], emb[:, :half_dim]], dim=-1)
        if embedding_dim % 2 == 1:
            emb = F.pad(emb, (0, 1, 0, 0))
        return emb


CASES = [
    # N, embedding_dim, timestep dtype
    (8, 320, torch.int64),
    (2, 256, torch.float32),
    (1, 1280, torch.int64),
    (5, 33, torch.float16),  # odd size
    (16, 3, torch.int32),
    (0, 64, torch.int64),
]


def get_inputs(case=CASES[0]):
    n, embedding_dim, dtype = case
    if dtype.is_floating_point:
        timesteps = (torch.rand(n) * 999).to(dtype)
    else:
        timesteps = torch.randint(0, 1000, (n,), dtype=dtype)
    return [timesteps, embedding_dim]


def get_init_inputs():
    return [True, 0.0, 10000]
