import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Triplet margin loss for metric learning (nn.TripletMarginLoss with a configurable margin).
    """
    def __init__(self, margin: float = 1.0):
        super(Model, self).__init__()
        self.loss_fn = nn.TripletMarginLoss(margin=margin)

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
        return self.loss_fn(anchor, positive, negative)


batch_size = 128
input_shape = (4096,)
margin = 1.0


def get_inputs():
    return [torch.randn(batch_size, *input_shape), torch.randn(batch_size, *input_shape),
            torch.randn(batch_size, *input_shape)]


def get_init_inputs():
    return [margin]
