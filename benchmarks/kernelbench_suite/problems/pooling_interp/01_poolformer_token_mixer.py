import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    PoolFormer's token mixer: a stride-1 3x3 average pool with padding that does not count the padded zeros
    (count_include_pad=False, so border windows average fewer values), minus the input.

    Where: sail-sg/poolformer models/poolformer.py `Pooling.forward` (`self.pool(x) - x` with
    `nn.AvgPool2d(pool_size, stride=1, padding=pool_size // 2, count_include_pad=False)`), also in timm's
    metaformer.py.
    """
    def __init__(self, pool_size: int = 3):
        super(Model, self).__init__()
        self.pool_size = pool_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (N, C, H, W) or (C, H, W).

        Returns:
            torch.Tensor: same shape.
        """
        pooled = F.avg_pool2d(x, self.pool_size, stride=1, padding=self.pool_size // 2, count_include_pad=False)
        return pooled - x


CASES = [
    ((1, 64, 28, 28), torch.float32),
    ((1, 320, 14, 14), torch.bfloat16),
    ((4, 16, 7, 9), torch.float16),
    ((8, 5, 5), torch.float32),
    ((1, 1, 1, 1), torch.float32),
    ((0, 8, 4, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [3]
