import torch
import torch.nn as nn


class Model(nn.Module):
    """
    vLLM's native rotary embedding on flattened tokens (neox style): the cos/sin rows of each token's position are
    picked from a cos_sin cache with index_select and split with chunk; queries and keys of shape
    (tokens, heads * head_size) are viewed per head, the rotary part rotated (chunk into halves, cat back) and
    concatenated with the pass-through part, then reshaped to the input shape.

    Where: vLLM vllm/model_executor/layers/rotary_embedding (`RotaryEmbedding.forward_native`,
    `_apply_rotary_emb_torch` with is_neox_style=True).
    """
    def __init__(self, head_size: int = 64, rotary_dim: int = 64):
        super(Model, self).__init__()
        self.head_size = head_size
        self.rotary_dim = rotary_dim

    def _rotate(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        cos = cos.unsqueeze(-2).to(x.dtype)
        sin = sin.unsqueeze(-2).to(x.dtype)
        x1, x2 = torch.chunk(x, 2, dim=-1)
        return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)

    def forward(self, positions: torch.Tensor, query: torch.Tensor, key: torch.Tensor, cos_sin_cache: torch.Tensor):
        """
        Args:
            positions (torch.Tensor): int64 (tokens,).
            query (torch.Tensor): (tokens, heads * head_size).
            key (torch.Tensor): (tokens, kv_heads * head_size).
            cos_sin_cache (torch.Tensor): (max_positions, rotary_dim): cos in the first half, sin in the second.

        Returns:
            tuple: the rotated query and key, same shapes.
        """
        positions = positions.flatten()
        num_tokens = positions.shape[0]
        cos_sin = cos_sin_cache.index_select(0, positions)
        cos, sin = cos_sin.chunk(2, dim=-1)
        outputs = []
        for x in (query, key):
            shape = x.shape
            x = x.view(num_tokens, -1, self.head_size)
            x_rot = self._rotate(x[..., : self.rotary_dim], cos, sin)
            outputs.append(torch.cat((x_rot, x[..., self.rotary_dim:]), dim=-1).reshape(shape))
        return outputs[0], outputs[1]


CASES = [
    # tokens, heads, kv_heads, dtype
    (16, 8, 8, torch.float32),
    (5, 8, 2, torch.float16),
    (1, 32, 8, torch.bfloat16),
    (33, 2, 1, torch.float32),
]


def get_inputs(case=CASES[0]):
    tokens, heads, kv_heads, dtype = case
    max_positions, rotary_dim = 256, 64
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim))
    freqs = torch.outer(torch.arange(max_positions).float(), inv_freq)
    cos_sin_cache = torch.cat((freqs.cos(), freqs.sin()), dim=-1).to(dtype)
    positions = torch.randint(0, max_positions, (tokens,))
    return [positions, torch.randn(tokens, heads * 64, dtype=dtype), torch.randn(tokens, kv_heads * 64, dtype=dtype),
            cos_sin_cache]


def get_init_inputs():
    return [64, 64]
