import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    The MoE auxiliary load-balancing loss: routing probabilities (softmax), each token's top-k experts as a one-hot
    mask (int64, one row per slot), the fraction of tokens per expert and the mean router probability per expert,
    their product summed and scaled by the number of experts. Reductions over the tokens and over the experts.

    Where: HF transformers models/mixtral/modeling_mixtral.py `load_balancing_loss_func` (without an attention
    mask; also Qwen2-MoE, OLMoE, Jamba).
    """
    def __init__(self, num_experts: int = 8, top_k: int = 2):
        super(Model, self).__init__()
        self.num_experts = num_experts
        self.top_k = top_k

    def forward(self, gate_logits: torch.Tensor) -> torch.Tensor:
        """
        Args:
            gate_logits (torch.Tensor): (tokens, num_experts), every layer's router logits concatenated.

        Returns:
            torch.Tensor: the 0-dim loss, float32.
        """
        routing_weights = F.softmax(gate_logits.float(), dim=-1)
        _, selected_experts = torch.topk(routing_weights, self.top_k, dim=-1)
        expert_mask = F.one_hot(selected_experts, self.num_experts)
        tokens_per_expert = torch.mean(expert_mask.float(), dim=0)
        router_prob_per_expert = torch.mean(routing_weights, dim=0)
        overall_loss = torch.sum(tokens_per_expert * router_prob_per_expert.unsqueeze(0))
        return overall_loss * self.num_experts


CASES = [
    (256, torch.float32),
    (32, torch.bfloat16),
    (1, torch.float16),
    (1000, torch.float32),
]


def get_inputs(case=CASES[0]):
    tokens, dtype = case
    ranks = torch.argsort(torch.rand(tokens, 8), dim=-1).float()
    return [((ranks - 4) / 2).to(dtype)]


def get_init_inputs():
    return [8, 2]
