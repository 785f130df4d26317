import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Box format conversion: (cx, cy, w, h) boxes unbound along the last dim, corners computed, and stacked back
    (stack on a new last dim), for box tensors of any leading rank.

    Where: torchvision torchvision/ops/_box_convert.py `_box_cxcywh_to_xyxy` (also DETR's util/box_ops.py
    `box_cxcywh_to_xyxy`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, boxes: torch.Tensor) -> torch.Tensor:
        """
        Args:
            boxes (torch.Tensor): (..., 4) as cx, cy, w, h.

        Returns:
            torch.Tensor: (..., 4) as x1, y1, x2, y2.
        """
        cx, cy, w, h = boxes.unbind(-1)
        x1 = cx - 0.5 * w
        y1 = cy - 0.5 * h
        x2 = cx + 0.5 * w
        y2 = cy + 0.5 * h
        return torch.stack((x1, y1, x2, y2), dim=-1)


CASES = [
    ((100, 4), torch.float32),
    ((2, 300, 4), torch.float32),
    ((4,), torch.float16),
    ((8, 3, 20, 4), torch.bfloat16),
    ((0, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.rand(shape, dtype=dtype)]


def get_init_inputs():
    return []
