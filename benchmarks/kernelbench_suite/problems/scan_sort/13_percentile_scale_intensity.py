import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Robust intensity scaling by percentiles: the lower and upper quantiles of each image's values (torch.quantile
    over the flattened spatial dims), the image rescaled to [0, 1] between them and clipped.

    Where: Project-MONAI monai/transforms/intensity/array.py `ScaleIntensityRangePercentiles` (torch.quantile on
    tensors), and percentile normalization in microscopy pipelines (cellpose `normalize99`).
    """
    def __init__(self, lower: float = 0.01, upper: float = 0.99):
        super(Model, self).__init__()
        self.lower = lower
        self.upper = upper

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """
        Args:
            images (torch.Tensor): float32 (batch, channels, *spatial).

        Returns:
            torch.Tensor: the rescaled images, same shape.
        """
        flat = images.flatten(2)
        q = torch.quantile(flat, torch.tensor([self.lower, self.upper]), dim=-1, keepdim=True)
        low, high = q[0], q[1]
        scaled = (flat - low) / (high - low).clamp(min=1e-8)
        return scaled.clamp(0, 1).view_as(images)


CASES = [
    (2, 1, 64, 64),
    (1, 3, 16, 32, 32),
    (4, 2, 100),
    (1, 1, 1, 1),
]


def get_inputs(case=CASES[0]):
    return [torch.randn(case) * 100 + 50]


def get_init_inputs():
    return [0.01, 0.99]
