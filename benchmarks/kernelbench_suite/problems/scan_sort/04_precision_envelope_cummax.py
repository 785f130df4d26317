import torch
import torch.nn as nn


class Model(nn.Module):
    """
    The precision envelope of a precision-recall curve: the running maximum from the right (flip, cummax, flip), with
    the argmax positions cummax gives; the running minimum (cummin) of the recall the same way. Per class rows.

    Where: pycocotools cocoeval.py `COCOeval.accumulate` (the `q[i-1] = max(q[i-1], q[i])` loop over
    detections), vectorized in PyTorch ports as `torch.flip(torch.cummax(torch.flip(p, [-1]), -1).values, [-1])`.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, precision: torch.Tensor, recall: torch.Tensor):
        """
        Args:
            precision, recall (torch.Tensor): (classes, detections).

        Returns:
            tuple: the envelope (classes, detections), int64 positions of the running max (in flipped order), and the
            running minimum of recall from the right.
        """
        envelope = torch.cummax(torch.flip(precision, dims=[-1]), dim=-1)
        running_min = torch.flip(torch.cummin(torch.flip(recall, dims=[-1]), dim=-1).values, dims=[-1])
        return torch.flip(envelope.values, dims=[-1]), envelope.indices, running_min


CASES = [
    ((80, 100), torch.float32),
    ((1, 1000), torch.float32),
    ((3, 7), torch.float16),
    ((10, 1), torch.float32),
    ((2, 0), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    n = max(1, shape[0] * shape[1])
    distinct = (torch.randperm(n)[: shape[0] * shape[1]].float() / n).reshape(shape)  # no ties: defined indices
    return [distinct.to(dtype), torch.rand(shape).to(dtype)]


def get_init_inputs():
    return []
