import torch
import torch.nn as nn


class Model(nn.Module):
    """
    MoE un-permutation (combine): the expert outputs, in expert-sorted order, are put back at their (token, slot)
    positions by an index_copy into a zero tensor the function makes itself, reshaped to (tokens, top_k, hidden) and
    summed over the slots weighted by the routing probabilities.

    Where: Megatron-LM megatron/core/transformer/moe/moe_utils.py `unpermute` (with probs), vLLM's
    `moe_unpermute`, and torch_npu's `npu_moe_finalize_routing` (operator description).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, permuted: torch.Tensor, sorted_idx: torch.Tensor, probs: torch.Tensor) -> torch.Tensor:
        """
        Args:
            permuted (torch.Tensor): (tokens * top_k, hidden), expert outputs in sorted order.
            sorted_idx (torch.Tensor): int64 (tokens * top_k,), a permutation: row i came from pair sorted_idx[i].
            probs (torch.Tensor): (tokens, top_k), the routing weights.

        Returns:
            torch.Tensor: (tokens, hidden) in permuted's dtype.
        """
        tokens, top_k = probs.shape
        unpermuted = torch.zeros_like(permuted).index_copy(0, sorted_idx, permuted)
        unpermuted = unpermuted.reshape(tokens, top_k, -1)
        return (unpermuted * probs.unsqueeze(-1).to(unpermuted.dtype)).sum(dim=1)


CASES = [
    # tokens, top_k, hidden, dtype
    (16, 2, 256, torch.bfloat16),
    (3, 8, 512, torch.float32),
    (1, 1, 64, torch.float16),
    (64, 4, 128, torch.float32),
]


def get_inputs(case=CASES[0]):
    tokens, top_k, hidden, dtype = case
    probs = torch.softmax(torch.randn(tokens, top_k), dim=-1).to(dtype)
    return [torch.randn(tokens * top_k, hidden, dtype=dtype), torch.randperm(tokens * top_k), probs]


def get_init_inputs():
    return []
