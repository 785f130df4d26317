import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Switch Transformer's top-1 router with expert capacity: softmax in float32, argmax expert per token, one-hot
    (int64), each token's priority within its expert from a cumsum over the tokens, tokens beyond the capacity
    (computed from the sizes and a capacity factor) dropped; returns the dispatch mask, the router probability of
    the chosen expert and the probabilities.

    Where: HF transformers models/switch_transformers/modeling_switch_transformers.py
    `SwitchTransformersTop1Router.forward` (token_priority = cumsum(expert_index, dim=-2)).
    """
    def __init__(self, num_experts: int = 8, capacity_factor: float = 1.0):
        super(Model, self).__init__()
        self.num_experts = num_experts
        self.capacity_factor = capacity_factor

    def forward(self, router_logits: torch.Tensor):
        """
        Args:
            router_logits (torch.Tensor): (groups, tokens_per_group, num_experts).

        Returns:
            tuple: int64 dispatch mask (groups, tokens, experts), float32 (groups, tokens, 1) chosen probability,
            float32 probabilities.
        """
        expert_capacity = max(1, int(self.capacity_factor * router_logits.shape[1] / self.num_experts))
        router_probs = F.softmax(router_logits.float(), dim=-1)
        expert_index = torch.argmax(router_probs, dim=-1)
        expert_index = F.one_hot(expert_index, num_classes=self.num_experts)
        token_priority = torch.cumsum(expert_index, dim=-2)
        expert_capacity_mask = token_priority <= expert_capacity
        expert_index = expert_index * expert_capacity_mask
        router_max = torch.max(router_probs, dim=-1).values.unsqueeze(-1)
        return expert_index, router_max, router_probs


CASES = [
    ((2, 64, 8), torch.float32),
    ((1, 16, 8), torch.bfloat16),
    ((4, 7, 8), torch.float16),
    ((1, 1, 8), torch.float32),
    ((3, 0, 8), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    ranks = torch.argsort(torch.rand(shape), dim=-1).float()
    return [((ranks - 4) / 2).to(dtype)]


def get_init_inputs():
    return [8, 1.0]
