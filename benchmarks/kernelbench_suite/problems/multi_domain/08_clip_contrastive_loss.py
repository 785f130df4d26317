import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    CLIP's symmetric contrastive loss: both embeddings L2-normalized, logits = exp(logit_scale) * image @ text.T,
    the labels an arange made inside, cross-entropy over the rows and over the columns (the transposed logits),
    averaged. Reductions per row, per column and over the batch.

    Where: mlfoundations/open_clip src/open_clip/loss.py `ClipLoss.forward` (and HF transformers models/clip
    `clip_loss` / `contrastive_loss`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, image_features: torch.Tensor, text_features: torch.Tensor, logit_scale: torch.Tensor):
        """
        Args:
            image_features, text_features (torch.Tensor): (batch, dim).
            logit_scale (torch.Tensor): 0-dim, the log temperature.

        Returns:
            torch.Tensor: the 0-dim loss.
        """
        image_features = F.normalize(image_features, dim=-1)
        text_features = F.normalize(text_features, dim=-1)
        logits_per_image = logit_scale.exp() * image_features @ text_features.T
        logits_per_text = logits_per_image.T
        labels = torch.arange(logits_per_image.shape[0], dtype=torch.long)
        return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2


CASES = [
    ((256, 512), torch.float32),
    ((32, 768), torch.float32),
    ((1, 64), torch.float32),
    ((16, 256), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype), torch.tensor(2.6592).to(dtype)]


def get_init_inputs():
    return []
