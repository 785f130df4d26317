import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Preparing an inpainting mask for the latent space: the mask resized (nearest, the default mode) to the latent
    size computed from the image size and the VAE's scale factor, binarized with a comparison, and the masked image
    made as image * (mask < 0.5).

    Where: diffusers src/diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion_inpaint.py
    `prepare_mask_latents` (`torch.nn.functional.interpolate(mask, size=(height // self.vae_scale_factor,
    width // self.vae_scale_factor))`) and the older `prepare_mask_and_masked_image`.
    """
    def __init__(self, vae_scale_factor: int = 8):
        super(Model, self).__init__()
        self.vae_scale_factor = vae_scale_factor

    def forward(self, image: torch.Tensor, mask: torch.Tensor):
        """
        Args:
            image (torch.Tensor): (N, 3, H, W) in [-1, 1].
            mask (torch.Tensor): (N, 1, H, W) in [0, 1].

        Returns:
            tuple: the latent-size mask (N, 1, H / 8, W / 8) (0/1 floats) and the masked image.
        """
        height, width = image.shape[-2:]
        binary = (mask >= 0.5).to(image.dtype)
        masked_image = image * (binary < 0.5)
        latent_mask = F.interpolate(binary, size=(height // self.vae_scale_factor, width // self.vae_scale_factor))
        return latent_mask, masked_image


CASES = [
    ((1, 3, 128, 128), torch.float16),
    ((2, 3, 64, 96), torch.float32),
    ((1, 3, 8, 8), torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    n, _, h, w = shape
    return [(torch.rand(shape) * 2 - 1).to(dtype), torch.rand(n, 1, h, w).to(dtype)]


def get_init_inputs():
    return [8]
