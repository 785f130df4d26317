import benchmark_ops
import torch
import torch_npu  # noqa: F401


class ModelNew(torch.nn.Module):
    """Softmax over the last dimension of a 2-D float32 tensor."""

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim
        self.module = benchmark_ops

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.module.forward(x)
