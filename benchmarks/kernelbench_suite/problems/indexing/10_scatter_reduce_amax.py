import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Max aggregation into segments: scatter_reduce with "amax" (include_self=False) of point or edge features into
    their groups, starting from a zero tensor the function makes; the index expanded over the features.

    Where: PyTorch Geometric torch_geometric/utils/scatter.py (`src.new_zeros(size).scatter_reduce_(dim, index,
    src, reduce="amax", include_self=False)`), used by max-aggregation GNN layers and PointNet-style pooling.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, src: torch.Tensor, index: torch.Tensor, groups: torch.Tensor) -> torch.Tensor:
        """
        Args:
            src (torch.Tensor): (points, features).
            index (torch.Tensor): int64 (points,), group of each point.
            groups (torch.Tensor): (num_groups,), only its size is used.

        Returns:
            torch.Tensor: (num_groups, features), zero for empty groups.
        """
        expanded = index.unsqueeze(-1).expand_as(src)
        out = src.new_zeros(groups.shape[0], src.shape[1])
        return out.scatter_reduce(0, expanded, src, reduce="amax", include_self=False)


CASES = [
    # points, groups, features, dtype
    (1024, 64, 32, torch.float32),
    (10, 20, 8, torch.float16),
    (500, 7, 64, torch.bfloat16),
    (0, 4, 8, torch.float32),
]


def get_inputs(case=CASES[0]):
    points, groups, features, dtype = case
    return [torch.randn(points, features, dtype=dtype), torch.randint(0, groups, (points,)), torch.zeros(groups)]


def get_init_inputs():
    return []
