import torch
import torch.nn as nn


class Model(nn.Module):
    """
    DeepSeek-V2's group-limited greedy gating: softmax scores, each expert group scored by its best expert
    (max over a view), the best topk_group groups kept through a scattered mask, the top_k experts of those taken,
    their weights scaled by routed_scaling_factor without renormalization.

    Where: DeepSeek-V2 modeling_deepseek.py `MoEGate.forward` (topk_method "group_limited_greedy"); vLLM's
    `grouped_topk` with scoring_func="softmax". The final top-k is sorted so that the expert order is defined.
    """
    def __init__(self, n_group: int = 8, topk_group: int = 3, top_k: int = 6, routed_scaling_factor: float = 16.0):
        super(Model, self).__init__()
        self.n_group = n_group
        self.topk_group = topk_group
        self.top_k = top_k
        self.routed_scaling_factor = routed_scaling_factor

    def forward(self, logits: torch.Tensor):
        """
        Args:
            logits (torch.Tensor): (tokens, experts), experts a multiple of n_group.

        Returns:
            tuple: float32 weights (tokens, top_k) and int64 expert ids (tokens, top_k).
        """
        tokens, experts = logits.shape
        scores = logits.softmax(dim=-1, dtype=torch.float32)
        group_scores = scores.view(tokens, self.n_group, -1).max(dim=-1).values
        group_idx = torch.topk(group_scores, k=self.topk_group, dim=-1, sorted=False)[1]
        group_mask = torch.zeros_like(group_scores)
        group_mask.scatter_(1, group_idx, 1)
        score_mask = group_mask.unsqueeze(-1).expand(tokens, self.n_group, experts // self.n_group).reshape(tokens, -1)
        tmp_scores = scores.masked_fill(~score_mask.bool(), 0.0)
        topk_weight, topk_idx = torch.topk(tmp_scores, k=self.top_k, dim=-1, sorted=True)
        return topk_weight * self.routed_scaling_factor, topk_idx


CASES = [
    # tokens, experts, dtype
    (16, 160, torch.float32),
    (1, 160, torch.bfloat16),
    (9, 64, torch.float16),
    (32, 64, torch.float32),
]


def get_inputs(case=CASES[0]):
    tokens, experts, dtype = case
    ranks = torch.argsort(torch.rand(tokens, experts), dim=-1).float()
    return [((ranks - experts / 2) / 8).to(dtype)]


def get_init_inputs():
    return [8, 3, 6, 16.0]
