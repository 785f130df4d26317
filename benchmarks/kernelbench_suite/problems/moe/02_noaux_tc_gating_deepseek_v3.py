import torch
import torch.nn as nn


class Model(nn.Module):
    """
    DeepSeek-V3's group-limited top-k gating without auxiliary loss: sigmoid scores plus a per-expert correction
    bias choose the experts; experts are grouped (a view with a computed group size), each group scored by the sum
    of its top-2, the best topk_group groups kept (topk, then a scatter into a zero mask), other experts masked to
    zero, the top_k experts taken; their weights are the uncorrected scores, normalized and scaled.

    Where: DeepSeek-V3 modeling_deepseek.py `MoEGate.forward` (topk_method "noaux_tc"; HF transformers
    models/deepseek_v3 `DeepseekV3TopkRouter`), vLLM's `grouped_topk` with scoring_func="sigmoid". The final top-k
    is sorted here so that the expert order is defined.
    """
    def __init__(self, n_group: int = 8, topk_group: int = 4, top_k: int = 8, routed_scaling_factor: float = 2.5):
        super(Model, self).__init__()
        self.n_group = n_group
        self.topk_group = topk_group
        self.top_k = top_k
        self.routed_scaling_factor = routed_scaling_factor

    def forward(self, router_logits: torch.Tensor, e_score_correction_bias: torch.Tensor):
        """
        Args:
            router_logits (torch.Tensor): float32 (tokens, experts), experts a multiple of n_group.
            e_score_correction_bias (torch.Tensor): float32 (experts,).

        Returns:
            tuple: int64 expert ids (tokens, top_k) and float32 weights (tokens, top_k).
        """
        tokens, experts = router_logits.shape
        scores = router_logits.sigmoid()
        scores_for_choice = scores + e_score_correction_bias.unsqueeze(0)
        group_scores = scores_for_choice.view(tokens, self.n_group, -1).topk(2, dim=-1)[0].sum(dim=-1)
        group_idx = torch.topk(group_scores, k=self.topk_group, dim=-1, sorted=False)[1]
        group_mask = torch.zeros_like(group_scores)
        group_mask.scatter_(1, group_idx, 1)
        score_mask = group_mask.unsqueeze(-1).expand(tokens, self.n_group, experts // self.n_group).reshape(tokens, -1)
        tmp_scores = scores_for_choice.masked_fill(~score_mask.bool(), 0.0)
        topk_idx = torch.topk(tmp_scores, k=self.top_k, dim=-1, sorted=True)[1]
        topk_weight = scores.gather(1, topk_idx)
        topk_weight = topk_weight / (topk_weight.sum(dim=-1, keepdim=True) + 1e-20)
        return topk_idx, topk_weight * self.routed_scaling_factor


CASES = [
    # tokens, experts
    (16, 256),
    (1, 256),
    (7, 64),
    (64, 128),
]


def get_inputs(case=CASES[0]):
    tokens, experts = case
    return [torch.randn(tokens, experts), torch.randn(experts) * 0.1]


def get_init_inputs():
    return [8, 4, 8, 2.5]
