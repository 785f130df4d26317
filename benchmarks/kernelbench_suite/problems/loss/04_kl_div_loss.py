import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Kullback-Leibler divergence between two distributions, batch-mean reduction.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.kl_div(torch.log(predictions), targets, reduction="batchmean")


batch_size = 128
input_shape = (4096,)


def get_inputs():
    return [torch.randn(batch_size, *input_shape).softmax(dim=-1),
            torch.randn(batch_size, *input_shape).softmax(dim=-1)]


def get_init_inputs():
    return []
