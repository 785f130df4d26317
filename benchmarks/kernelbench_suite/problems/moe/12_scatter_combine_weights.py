import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Dense MoE combine: the top-k routing weights are scattered into a (tokens, experts) combine matrix the function
    makes itself (zeros, then scatter along the experts), and the per-expert outputs are mixed with it (a weighted
    sum over the experts).

    Where: fairseq fairseq/modules/moe/top2gate.py (`combine_weights` built by scatter) and GShard-style dense
    dispatch in DeepSpeed deepspeed/moe/sharded_moe.py (`top2gating`, `einsum("sec,sm->...")`).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, expert_outputs: torch.Tensor, topk_ids: torch.Tensor, topk_weights: torch.Tensor):
        """
        Args:
            expert_outputs (torch.Tensor): (tokens, experts, hidden), every expert's output for every token.
            topk_ids (torch.Tensor): int64 (tokens, top_k), distinct per token.
            topk_weights (torch.Tensor): (tokens, top_k).

        Returns:
            tuple: the combine matrix (tokens, experts) and the combined output (tokens, hidden).
        """
        tokens, experts, _ = expert_outputs.shape
        combine = torch.zeros(tokens, experts, dtype=topk_weights.dtype).scatter(1, topk_ids, topk_weights)
        return combine, (combine.unsqueeze(-1) * expert_outputs).sum(dim=1)


CASES = [
    # tokens, experts, hidden, top_k, dtype
    (16, 8, 64, 2, torch.float32),
    (4, 4, 256, 1, torch.bfloat16),
    (1, 16, 32, 4, torch.float16),
    (0, 8, 16, 2, torch.float32),
]


def get_inputs(case=CASES[0]):
    tokens, experts, hidden, top_k, dtype = case
    ids = torch.argsort(torch.rand(tokens, experts), dim=-1)[:, :top_k]
    weights = torch.softmax(torch.randn(tokens, top_k), dim=-1).to(dtype)
    return [torch.randn(tokens, experts, hidden, dtype=dtype), ids, weights]


def get_init_inputs():
    return []
