import torch
import torch.nn as nn


class Model(nn.Module):
    """
    ChatGLM2/3's rotary embedding: sequence-first activations, only the first rot_dim dims of each head rotated (rot_dim
    from the cache's shape), on interleaved pairs: the activations are reshaped to (..., rot_dim / 2, 2), the cache
    (sliced to the sequence length) viewed to broadcast, the pairs rotated with stack and flattened, and the
    pass-through part concatenated.

    Where: THUDM/chatglm2-6b modeling_chatglm.py `apply_rotary_pos_emb` (HF hub remote code).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, rope_cache: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (seq, batch, heads, head_dim).
            rope_cache (torch.Tensor): (max_seq, batch, rot_dim // 2, 2): cos and sin per pair.

        Returns:
            torch.Tensor: x with its first rot_dim dims rotated, same shape.
        """
        sq, np = x.size(0), x.size(2)
        rot_dim = rope_cache.shape[-2] * 2
        x, x_pass = x[..., :rot_dim], x[..., rot_dim:]
        rope_cache = rope_cache[:sq]
        xshaped = x.reshape(sq, -1, np, rot_dim // 2, 2)
        rope_cache = rope_cache.view(sq, -1, 1, xshaped.size(3), 2)
        x_out2 = torch.stack(
            [
                xshaped[..., 0] * rope_cache[..., 0] - xshaped[..., 1] * rope_cache[..., 1],
                xshaped[..., 1] * rope_cache[..., 0] + xshaped[..., 0] * rope_cache[..., 1],
            ],
            -1,
        )
        x_out2 = x_out2.flatten(3)
        return torch.cat((x_out2, x_pass), dim=-1)


CASES = [
    # (seq, batch, heads, head_dim), max_seq, dtype
    ((16, 1, 8, 128), 32, torch.float32),
    ((5, 2, 2, 64), 8, torch.float16),
    ((1, 3, 32, 128), 64, torch.bfloat16),
    ((7, 1, 1, 8), 7, torch.float32),
]


def get_inputs(case=CASES[0]):
    (seq, batch, heads, head_dim), max_seq, dtype = case
    rot_dim = head_dim // 2
    theta = 1.0 / (10000 ** (torch.arange(0, rot_dim, 2, dtype=torch.float32) / rot_dim))
    angles = torch.outer(torch.arange(max_seq, dtype=torch.float32), theta)
    cache = torch.stack([angles.cos(), angles.sin()], dim=-1)[:, None].expand(-1, batch, -1, -1).contiguous()
    return [torch.randn(seq, batch, heads, head_dim, dtype=dtype), cache.to(dtype)]


def get_init_inputs():
    return []
