import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Scale-invariant signal-to-distortion ratio loss: both signals made zero-mean per row, the estimate projected on
    the reference (alpha from two per-row sums), the target and noise energies, 10 * log10 of their ratio per
    signal, and the negated mean over the batch.

    Where: asteroid asteroid/losses/sdr.py `PairwiseNegSDR` / `SingleSrcNegSDR` (sdr_type "sisdr"), and
    torchmetrics functional `scale_invariant_signal_distortion_ratio` (zero_mean=True).
    """
    def __init__(self, eps: float = 1e-8):
        super(Model, self).__init__()
        self.eps = eps

    def forward(self, estimate: torch.Tensor, reference: torch.Tensor):
        """
        Args:
            estimate, reference (torch.Tensor): (..., samples).

        Returns:
            tuple: the SI-SDR per signal (...,) and the 0-dim loss.
        """
        estimate = estimate - estimate.mean(dim=-1, keepdim=True)
        reference = reference - reference.mean(dim=-1, keepdim=True)
        reference_energy = (reference ** 2).sum(dim=-1, keepdim=True) + self.eps
        alpha = (estimate * reference).sum(dim=-1, keepdim=True) / reference_energy
        target = alpha * reference
        noise = estimate - target
        si_sdr = 10 * torch.log10(((target ** 2).sum(dim=-1) + self.eps) / ((noise ** 2).sum(dim=-1) + self.eps))
        return si_sdr, -si_sdr.mean()


CASES = [
    ((4, 16000), torch.float32),  # one second at 16 kHz
    ((2, 2, 8000), torch.float32),  # (batch, sources, samples)
    ((1, 100), torch.float32),
    ((8, 4000), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    reference = torch.randn(shape)
    return [(reference + 0.3 * torch.randn(shape)).to(dtype), reference.to(dtype)]


def get_init_inputs():
    return []
