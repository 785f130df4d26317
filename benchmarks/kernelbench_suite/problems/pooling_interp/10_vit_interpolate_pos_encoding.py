import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Resizing a ViT's learned position embeddings to a new image size: the class token's embedding split off, the
    patch embeddings reshaped to their square grid (side from the square root of the count), permuted to NCHW,
    resized bicubically to the new grid (computed from the image size and the patch size), permuted back and
    concatenated with the class embedding.

    Where: HF transformers models/vit/modeling_vit.py `ViTEmbeddings.interpolate_pos_encoding` (also DINOv2, CLIP,
    DeiT).
    """
    def __init__(self, patch_size: int = 16):
        super(Model, self).__init__()
        self.patch_size = patch_size

    def forward(self, position_embeddings: torch.Tensor, pixel_values: torch.Tensor) -> torch.Tensor:
        """
        Args:
            position_embeddings (torch.Tensor): (1, 1 + n * n, dim).
            pixel_values (torch.Tensor): (batch, 3, H, W), only its size is used.

        Returns:
            torch.Tensor: (1, 1 + (H / p) * (W / p), dim).
        """
        height, width = pixel_values.shape[-2:]
        num_positions = position_embeddings.shape[1] - 1
        class_pos_embed = position_embeddings[:, :1]
        patch_pos_embed = position_embeddings[:, 1:]
        dim = position_embeddings.shape[-1]
        new_height = height // self.patch_size
        new_width = width // self.patch_size
        sqrt_num_positions = int(num_positions ** 0.5)
        patch_pos_embed = patch_pos_embed.reshape(1, sqrt_num_positions, sqrt_num_positions, dim)
        patch_pos_embed = patch_pos_embed.permute(0, 3, 1, 2)
        patch_pos_embed = F.interpolate(patch_pos_embed, size=(new_height, new_width), mode="bicubic",
                                        align_corners=False)
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed, patch_pos_embed), dim=1)


CASES = [
    # grid side, dim, image height, image width, dtype
    (14, 192, 160, 224, torch.float32),
    (14, 768, 224, 160, torch.float16),
    (16, 64, 96, 128, torch.bfloat16),
    (2, 8, 16, 16, torch.float32),
]


def get_inputs(case=CASES[0]):
    side, dim, height, width, dtype = case
    return [torch.randn(1, 1 + side * side, dim, dtype=dtype), torch.zeros(1, 3, height, width, dtype=dtype)]


def get_init_inputs():
    return [16]
