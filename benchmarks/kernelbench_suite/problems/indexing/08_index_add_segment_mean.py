import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Graph message aggregation: edge messages summed into their destination nodes with index_add on a zero tensor
    the function makes itself, node degrees counted the same way with ones, and the mean (sum / clamp(degree, 1)).

    Where: PyTorch Geometric torch_geometric/utils/scatter.py `scatter` (reduce "sum"/"mean" via `index_add_` /
    `scatter_add_`), used by `MessagePassing.aggregate` in GCN/GraphSAGE layers.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, messages: torch.Tensor, dst: torch.Tensor, nodes: torch.Tensor):
        """
        Args:
            messages (torch.Tensor): (edges, features).
            dst (torch.Tensor): int64 (edges,), destination node of each edge.
            nodes (torch.Tensor): (num_nodes,), only its size is used.

        Returns:
            tuple: (num_nodes, features) sums and means.
        """
        num_nodes = nodes.shape[0]
        summed = torch.zeros(num_nodes, messages.shape[1], dtype=messages.dtype).index_add(0, dst, messages)
        ones = torch.ones_like(dst, dtype=messages.dtype)
        degree = torch.zeros(num_nodes, dtype=messages.dtype).index_add(0, dst, ones)
        return summed, summed / degree.clamp(min=1).unsqueeze(-1)


CASES = [
    # edges, nodes, features, dtype
    (1000, 100, 64, torch.float32),
    (10, 20, 16, torch.float32),
    (300, 50, 128, torch.float16),
    (0, 5, 8, torch.float32),
]


def get_inputs(case=CASES[0]):
    edges, nodes, features, dtype = case
    return [torch.randn(edges, features, dtype=dtype), torch.randint(0, nodes, (edges,)), torch.zeros(nodes)]


def get_init_inputs():
    return []
