import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Activation histograms for calibration: torch.histc of the float32 values over a fixed range and over the data's
    own range (min = max = 0), from tensors of any rank, a 0-dim one included.

    Where: torch/ao/quantization/observer.py `HistogramObserver` (`torch.histc(x, self.bins, min=min_val,
    max=max_val)`), and NVIDIA TensorRT-Model-Optimizer / pytorch-quantization `HistogramCalibrator`.
    """
    def __init__(self, bins: int = 64):
        super(Model, self).__init__()
        self.bins = bins

    def forward(self, x: torch.Tensor):
        """
        Args:
            x (torch.Tensor): any shape, floating.

        Returns:
            tuple: (bins,) float32 counts over [-4, 4] and over [x.min(), x.max()].
        """
        x = x.float()
        return torch.histc(x, bins=self.bins, min=-4.0, max=4.0), torch.histc(x, bins=self.bins, min=0, max=0)


CASES = [
    ((64, 1024), torch.float32),
    ((2, 16, 32, 32), torch.float16),
    ((), torch.float32),
    ((100,), torch.bfloat16),
    ((2, 1, 3, 1, 4, 1, 5, 6), torch.float32),
    ((0, 8), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [(torch.randn(shape) * 1.5).to(dtype)]


def get_init_inputs():
    return [64]
