import torch
import torch.nn as nn


class Model(nn.Module):
    """
    vLLM's native rotary embedding in GPT-J style (interleaved pairs) on a partial rotary width: the cos/sin rows of
    each position come from the cache, the even and odd elements of the rotary part are taken with step slices,
    rotated and interleaved back with stack/flatten, then concatenated with the pass-through part.

    Where: vLLM vllm/model_executor/layers/rotary_embedding (`RotaryEmbedding.forward_native`,
    `_apply_rotary_emb_torch` with is_neox_style=False), as used for GPT-J and ChatGLM-style models.
    """
    def __init__(self, head_size: int = 64, rotary_dim: int = 32):
        super(Model, self).__init__()
        self.head_size = head_size
        self.rotary_dim = rotary_dim

    def forward(self, positions: torch.Tensor, query: torch.Tensor, cos_sin_cache: torch.Tensor) -> torch.Tensor:
        """
        Args:
            positions (torch.Tensor): int64 (tokens,).
            query (torch.Tensor): (tokens, heads * head_size).
            cos_sin_cache (torch.Tensor): (max_positions, rotary_dim).

        Returns:
            torch.Tensor: the rotated query, same shape.
        """
        cos_sin = cos_sin_cache[positions]
        cos, sin = cos_sin.chunk(2, dim=-1)
        shape = query.shape
        query = query.view(positions.shape[0], -1, self.head_size)
        x = query[..., : self.rotary_dim]
        cos = cos.unsqueeze(-2).to(x.dtype)
        sin = sin.unsqueeze(-2).to(x.dtype)
        x1 = x[..., ::2]
        x2 = x[..., 1::2]
        rotated = torch.stack((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).flatten(-2)
        return torch.cat((rotated, query[..., self.rotary_dim:]), dim=-1).reshape(shape)


CASES = [
    # tokens, heads, dtype
    (16, 8, torch.float32),
    (3, 16, torch.float16),
    (1, 32, torch.bfloat16),
    (40, 1, torch.float32),
]


def get_inputs(case=CASES[0]):
    tokens, heads, dtype = case
    max_positions, rotary_dim = 128, 32
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim))
    freqs = torch.outer(torch.arange(max_positions).float(), inv_freq)
    cos_sin_cache = torch.cat((freqs.cos(), freqs.sin()), dim=-1).to(dtype)
    return [torch.randint(0, max_positions, (tokens,)), torch.randn(tokens, heads * 64, dtype=dtype), cos_sin_cache]


def get_init_inputs():
    return [64, 32]
