import torch
import torch.nn as nn


class Model(nn.Module):
    """
    MoE gating with top-k softmax: router logits softmaxed in float32, the top-k experts per token taken, their
    weights renormalized to sum to one and cast back to the activations' dtype; the expert ids are int64.

    Where: HF transformers models/mixtral/modeling_mixtral.py `MixtralSparseMoeBlock.forward` (and vLLM's
    `fused_topk` / `topk_softmax` op with renormalize=True).
    """
    def __init__(self, top_k: int = 2):
        super(Model, self).__init__()
        self.top_k = top_k

    def forward(self, router_logits: torch.Tensor):
        """
        Args:
            router_logits (torch.Tensor): (tokens, experts).

        Returns:
            tuple: the weights (tokens, top_k) in the logits' dtype and the int64 expert ids (tokens, top_k).
        """
        routing_weights = torch.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, self.top_k, dim=-1)
        routing_weights = routing_weights / routing_weights.sum(dim=-1, keepdim=True)
        return routing_weights.to(router_logits.dtype), selected_experts


CASES = [
    # tokens, experts, dtype
    (32, 8, torch.bfloat16),
    (1, 8, torch.float16),
    (7, 64, torch.float32),
    (128, 16, torch.bfloat16),
    (5, 2, torch.float32),
    (0, 8, torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    tokens, experts, dtype = case
    # distinct logits per row (exact in every dtype), so that the top-k is unambiguous
    ranks = torch.argsort(torch.rand(tokens, experts), dim=-1).float()
    return [((ranks - experts / 2) / 4).to(dtype)]


def get_init_inputs():
    return [2]
