import torch
import torch.nn as nn


class Model(nn.Module):
    """
    QuickGELU, the sigmoid approximation of GELU: x * sigmoid(1.702 * x), at any rank.

    Where: openai/CLIP clip/model.py `QuickGELU` (also HF transformers activations.py `QuickGELUActivation`, used by
    CLIP and OWL-ViT).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any shape.

        Returns:
            torch.Tensor: same shape and dtype.
        """
        return x * torch.sigmoid(1.702 * x)


CASES = [
    ((1, 16, 2048), torch.float16),  # CLIP text tower MLP
    ((50, 3072), torch.float32),
    ((), torch.float32),
    ((1, 2, 3, 4, 5), torch.bfloat16),
    ((2, 2, 1, 3, 2, 4), torch.float16),
    ((1, 2, 1, 2, 3, 1, 16), torch.float32),
    ((2, 1, 2, 1, 2, 1, 2, 5), torch.float32),
    ((0, 4), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype) * 3]


def get_init_inputs():
    return []
