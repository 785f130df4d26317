import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Cumulative sequence lengths for variable-length vision attention: each image's patches per frame (h * w from an
    int64 grid table) repeated t times with repeat_interleave by a tensor of counts (a data-dependent length),
    cumsum to int32, and a leading zero padded in.

    Where: HF transformers models/qwen2_vl/modeling_qwen2_vl.py `Qwen2VisionTransformerPretrainedModel.forward`
    (`torch.repeat_interleave(grid_thw[:, 1] * grid_thw[:, 2], grid_thw[:, 0]).cumsum(dim=0, dtype=torch.int32)`,
    `F.pad(cu_seqlens, (1, 0), value=0)`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, grid_thw: torch.Tensor) -> torch.Tensor:
        """
        Args:
            grid_thw (torch.Tensor): int64 (images, 3): frames, height and width in patches.

        Returns:
            torch.Tensor: int32 (total frames + 1,) cumulative lengths from 0.
        """
        cu_seqlens = torch.repeat_interleave(grid_thw[:, 1] * grid_thw[:, 2], grid_thw[:, 0]).cumsum(
            dim=0, dtype=torch.int32)
        return F.pad(cu_seqlens, (1, 0), value=0)


CASES = [4, 1, 16, 0]  # images in the batch


def get_inputs(case=CASES[0]):
    images = case
    frames = torch.randint(1, 5, (images,))
    height, width = torch.randint(1, 40, (images,)), torch.randint(1, 40, (images,))
    return [torch.stack([frames, height, width], dim=1)]


def get_init_inputs():
    return []
