import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Segmentation logits upsampled bilinearly to the input image's size (read from the image's shape), with
    align_corners False (torchvision) and True (older DeepLab ports).

    Where: torchvision torchvision/models/segmentation/_utils.py `_SimpleSegmentationModel.forward`
    (`F.interpolate(x, size=input_shape, mode="bilinear", align_corners=False)`), and
    jfzhang95/pytorch-deeplab-xception (`align_corners=True`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, logits: torch.Tensor, image: torch.Tensor):
        """
        Args:
            logits (torch.Tensor): (N, classes, h, w).
            image (torch.Tensor): (N, 3, H, W), only its size is used.

        Returns:
            tuple: (N, classes, H, W) with align_corners False and True.
        """
        size = image.shape[-2:]
        return (F.interpolate(logits, size=size, mode="bilinear", align_corners=False),
                F.interpolate(logits, size=size, mode="bilinear", align_corners=True))


CASES = [
    ((1, 21, 33, 33), (1, 3, 65, 65), torch.float32),
    ((1, 19, 8, 16), (1, 3, 32, 64), torch.float16),
    ((1, 2, 7, 5), (1, 3, 20, 11), torch.bfloat16),
    ((1, 1, 1, 1), (1, 3, 4, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    logits_shape, image_shape, dtype = case
    return [torch.randn(logits_shape, dtype=dtype), torch.zeros(image_shape, dtype=dtype)]


def get_init_inputs():
    return []
