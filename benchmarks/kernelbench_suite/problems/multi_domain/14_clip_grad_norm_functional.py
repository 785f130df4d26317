import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Gradient clipping by the global norm, functionally: the L2 norm of each gradient, the norm of those norms (a
    stack of 0-dim results), the clip coefficient max_norm / (total + 1e-6) clamped to at most one, and every
    gradient scaled by it. The gradients come as a list of tensors of different ranks and sizes.

    Where: torch/nn/utils/clip_grad.py `clip_grad_norm_` (`_get_total_norm`, `_clip_grads_with_norm_`:
    `clip_coef = max_norm / (total_norm + 1e-6)`, `clip_coef_clamped = torch.clamp(clip_coef, max=1.0)`).
    """
    def __init__(self, max_norm: float = 1.0):
        super(Model, self).__init__()
        self.max_norm = max_norm

    def forward(self, grads: list):
        """
        Args:
            grads (list): tensors of any shapes, one dtype.

        Returns:
            tuple: the clipped gradients (a list) and the 0-dim total norm.
        """
        norms = [torch.linalg.vector_norm(g, 2.0) for g in grads]
        total_norm = torch.linalg.vector_norm(torch.stack(norms), 2.0)
        clip_coef = self.max_norm / (total_norm + 1e-6)
        clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
        return [g * clip_coef_clamped for g in grads], total_norm


CASES = [
    # gradient shapes, dtype
    ([(256, 128), (256,), (10, 256), (10,)], torch.float32),
    ([(64, 3, 3, 3), (64,), (64,), (1000, 64)], torch.float32),
    ([(32, 32), (32,)], torch.bfloat16),
    ([(8,), (0, 4), ()], torch.float32),
]


def get_inputs(case=CASES[0]):
    shapes, dtype = case
    return [[torch.randn(shape, dtype=dtype) * 0.1 for shape in shapes]]


def get_init_inputs():
    return [1.0]
