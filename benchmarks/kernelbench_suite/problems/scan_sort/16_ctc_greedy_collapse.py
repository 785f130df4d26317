import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Greedy CTC decoding of one utterance: the best label per frame (argmax), consecutive repeats collapsed with
    unique_consecutive (a data-dependent length), and the blank label removed with a bool mask index.

    Where: the torchaudio speech-recognition tutorial's `GreedyCTCDecoder.forward` (`torch.argmax(emission,
    dim=-1)`, `torch.unique_consecutive(indices, dim=-1)`, dropping the blank), as Wav2Vec2 decoders do.
    """
    def __init__(self, blank: int = 0):
        super(Model, self).__init__()
        self.blank = blank

    def forward(self, emission: torch.Tensor) -> torch.Tensor:
        """
        Args:
            emission (torch.Tensor): (frames, labels) log-probabilities.

        Returns:
            torch.Tensor: int64 label ids after collapsing and removing blanks.
        """
        indices = torch.argmax(emission, dim=-1)
        indices = torch.unique_consecutive(indices, dim=-1)
        return indices[indices != self.blank]


CASES = [
    ((500, 29), torch.float32),
    ((1, 29), torch.float32),
    ((50, 32), torch.float16),
    ((0, 29), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    frames, labels = shape
    # blank-heavy emissions with runs, as acoustic models produce
    best = torch.where(torch.rand(frames) < 0.5, 0, torch.randint(1, labels, (frames,)))
    best = best.repeat_interleave(2)[:frames]
    emission = torch.randn(frames, labels) - 5
    emission[torch.arange(frames), best] = 5
    return [emission.log_softmax(-1).to(dtype)]


def get_init_inputs():
    return []
