import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Patchify and unpatchify of images as MAE writes them: reshape to (N, C, h, p, w, p) with h, w computed from the
    sizes, an einsum that only permutes ('nchpwq->nhwpqc'), reshape to (N, h*w, p*p*C); and the inverse.

    Where: facebookresearch/mae models_mae.py `MaskedAutoencoderViT.patchify` / `unpatchify` (also HF transformers
    models/vit_mae `ViTMAEForPreTraining.patchify`).
    """
    def __init__(self, patch_size: int = 16):
        super(Model, self).__init__()
        self.patch_size = patch_size

    def forward(self, imgs: torch.Tensor):
        """
        Args:
            imgs (torch.Tensor): (N, C, H, W), H and W multiples of patch_size.

        Returns:
            tuple: patches (N, h*w, p*p*C) and the images rebuilt from them.
        """
        p = self.patch_size
        n, c, height, width = imgs.shape
        h, w = height // p, width // p
        x = imgs.reshape(n, c, h, p, w, p)
        x = torch.einsum("nchpwq->nhwpqc", x)
        patches = x.reshape(n, h * w, p * p * c)
        y = patches.reshape(n, h, w, p, p, c)
        y = torch.einsum("nhwpqc->nchpwq", y)
        return patches, y.reshape(n, c, h * p, w * p)


CASES = [
    ((2, 3, 64, 64), torch.float32),
    ((1, 3, 224, 224), torch.float16),
    ((4, 1, 32, 16), torch.bfloat16),
    ((1, 3, 16, 16), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype)]


def get_init_inputs():
    return [16]
