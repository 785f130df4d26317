import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Pooling on video tensors (N, C, T, H, W): a 3x3x3 stride-2 max pool with padding (a 3-d ResNet stem) and a
    (1, 2, 2) average pool that pools only space (SlowFast's pathway pooling); float32 average (CPU has no
    half-precision avg_pool3d), any float for the max.

    Where: facebookresearch/SlowFast slowfast/models/resnet_helper.py and stem_helper.py (`nn.MaxPool3d` stems,
    `nn.AvgPool3d` in the heads), and torchvision models/video/resnet.py.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (N, C, T, H, W).

        Returns:
            tuple: the max-pooled video and the spatially average-pooled float32 video.
        """
        return F.max_pool3d(x, 3, 2, 1), F.avg_pool3d(x.float(), (1, 2, 2))


CASES = [
    ((1, 32, 4, 28, 28), torch.float32),
    ((2, 16, 4, 16, 16), torch.float16),
    ((1, 8, 3, 7, 9), torch.bfloat16),
    ((1, 1, 1, 2, 2), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return []
