import torch
import torch.nn as nn


class Model(nn.Module):
    """
    MAE's per-sample random masking, driven by given noise: argsort of the noise shuffles the patches, a second
    argsort restores the order, the kept patches gathered with an index repeated over the features, and the binary
    mask (ones, zeros for the kept prefix) unshuffled with gather. The kept count is computed from the sizes.

    Where: facebookresearch/mae models_mae.py `MaskedAutoencoderViT.random_masking` (also HF transformers
    models/vit_mae `ViTMAEEmbeddings.random_masking`).
    """
    def __init__(self, mask_ratio: float = 0.75):
        super(Model, self).__init__()
        self.mask_ratio = mask_ratio

    def forward(self, x: torch.Tensor, noise: torch.Tensor):
        """
        Args:
            x (torch.Tensor): (N, L, D) patch embeddings.
            noise (torch.Tensor): float32 (N, L) in [0, 1).

        Returns:
            tuple: kept patches (N, len_keep, D), float mask (N, L) (1 = removed), int64 ids_restore (N, L).
        """
        n, length, dim = x.shape
        len_keep = int(length * (1 - self.mask_ratio))
        ids_shuffle = torch.argsort(noise, dim=1)
        ids_restore = torch.argsort(ids_shuffle, dim=1)
        ids_keep = ids_shuffle[:, :len_keep]
        x_masked = torch.gather(x, dim=1, index=ids_keep.unsqueeze(-1).repeat(1, 1, dim))
        mask = torch.ones([n, length], dtype=x.dtype)
        mask[:, :len_keep] = 0
        mask = torch.gather(mask, dim=1, index=ids_restore)
        return x_masked, mask, ids_restore


CASES = [
    ((1, 196, 384), torch.float32),
    ((4, 64, 128), torch.bfloat16),
    ((1, 5, 16), torch.float16),
    ((3, 1, 8), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    n, length, _ = shape
    noise = torch.randperm(n * length).reshape(n, length).float() / (n * length)  # distinct: a defined order
    return [torch.randn(shape, dtype=dtype), noise]


def get_init_inputs():
    return [0.75]
