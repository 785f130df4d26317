import torch
import torch.nn as nn


class Model(nn.Module):
    """
    MoE token permutation (dispatch): each (token, slot) pair of the top-k routing is sorted by expert id (a stable
    argsort of the flattened ids), the hidden states gathered in that order (index_select with sorted // top_k),
    and the tokens per expert counted (bincount with minlength).

    Where: Megatron-LM megatron/core/transformer/moe/moe_utils.py `permute` / `sort_chunks_by_idxs`, vLLM's
    `moe_permute`, and the public description of torch_npu's `npu_moe_init_routing`.
    """
    def __init__(self, num_experts: int = 8):
        super(Model, self).__init__()
        self.num_experts = num_experts

    def forward(self, hidden_states: torch.Tensor, topk_ids: torch.Tensor):
        """
        Args:
            hidden_states (torch.Tensor): (tokens, hidden).
            topk_ids (torch.Tensor): int (tokens, top_k), values in [0, num_experts).

        Returns:
            tuple: the permuted rows (tokens * top_k, hidden), the sorting order (int64) and the int64 token
            counts per expert.
        """
        top_k = topk_ids.shape[-1]
        flat = topk_ids.flatten().long()
        sorted_idx = torch.argsort(flat, stable=True)
        permuted = hidden_states.index_select(0, sorted_idx // top_k)
        tokens_per_expert = torch.bincount(flat, minlength=self.num_experts)
        return permuted, sorted_idx, tokens_per_expert


CASES = [
    # tokens, hidden, top_k, id dtype, dtype
    (16, 256, 2, torch.int64, torch.bfloat16),
    (5, 1024, 2, torch.int32, torch.float16),
    (64, 64, 4, torch.int64, torch.float32),
    (1, 128, 8, torch.int32, torch.bfloat16),
    (0, 64, 2, torch.int64, torch.float32),
]


def get_inputs(case=CASES[0]):
    tokens, hidden, top_k, id_dtype, dtype = case
    ids = torch.argsort(torch.rand(tokens, 8), dim=-1)[:, :top_k].to(id_dtype)  # distinct experts per token
    return [torch.randn(tokens, hidden, dtype=dtype), ids]


def get_init_inputs():
    return [8]
