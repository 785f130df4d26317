import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Group normalization written out as in the GroupNorm paper's reference code: the (N, C, *) input reshaped to
    (N, G, C // G, *), mean and variance over every dim but the first two, normalized, reshaped back, and a
    per-channel affine broadcast over the spatial dims (a view with as many trailing ones as the input has).

    Where: Wu & He, "Group Normalization" (ECCV 2018), Figure 3's reference implementation, as ported to PyTorch in
    BiT (google-research/big_transfer bit_pytorch/models.py) and torch-only GN implementations.
    """
    def __init__(self, groups: int = 4, eps: float = 1e-5):
        super(Model, self).__init__()
        self.groups = groups
        self.eps = eps

    def forward(self, x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, *spatial), C a multiple of groups.
            gamma, beta (torch.Tensor): (C,).

        Returns:
            torch.Tensor: same shape as x.
        """
        n, c = x.shape[:2]
        grouped = x.reshape(n, self.groups, c // self.groups, *x.shape[2:])
        dims = tuple(range(2, grouped.dim()))
        mean = grouped.mean(dim=dims, keepdim=True)
        var = grouped.var(dim=dims, unbiased=False, keepdim=True)
        grouped = (grouped - mean) / torch.sqrt(var + self.eps)
        affine_shape = (1, c) + (1,) * (x.dim() - 2)
        return grouped.reshape(x.shape) * gamma.view(affine_shape) + beta.view(affine_shape)


CASES = [
    ((2, 64, 16, 16), torch.float32),
    ((1, 32, 100), torch.float32),
    ((2, 16, 4, 8, 8), torch.float32),
    ((4, 8), torch.float32),
    ((2, 32, 8, 8), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    channels = shape[1]
    return [torch.randn(shape, dtype=dtype), (1 + 0.1 * torch.randn(channels)).to(dtype),
            (0.1 * torch.randn(channels)).to(dtype)]


def get_init_inputs():
    return [4, 1e-5]
