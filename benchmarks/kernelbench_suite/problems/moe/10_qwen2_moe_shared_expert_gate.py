import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Qwen2-MoE's routing with a gated shared expert: softmax in float32 over the router logits, top-k without
    renormalization, weights cast to the hidden dtype; the shared expert's output is scaled by the sigmoid of its
    own one-column gate.

    Where: HF transformers models/qwen2_moe/modeling_qwen2_moe.py `Qwen2MoeSparseMoeBlock.forward`
    (norm_topk_prob=False, `F.sigmoid(self.shared_expert_gate(hidden_states)) * shared_expert_output`).
    """
    def __init__(self, top_k: int = 4):
        super(Model, self).__init__()
        self.top_k = top_k

    def forward(self, router_logits: torch.Tensor, shared_gate_logits: torch.Tensor, shared_output: torch.Tensor):
        """
        Args:
            router_logits (torch.Tensor): (tokens, experts).
            shared_gate_logits (torch.Tensor): (tokens, 1).
            shared_output (torch.Tensor): (tokens, hidden).

        Returns:
            tuple: routing weights (tokens, top_k) in the hidden dtype, int64 expert ids, gated shared output.
        """
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, self.top_k, dim=-1)
        routing_weights = routing_weights.to(shared_output.dtype)
        return routing_weights, selected_experts, F.sigmoid(shared_gate_logits) * shared_output


CASES = [
    # tokens, experts, hidden, dtype
    (16, 60, 256, torch.bfloat16),
    (1, 60, 2048, torch.float16),
    (9, 8, 64, torch.float32),
    (0, 60, 128, torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    tokens, experts, hidden, dtype = case
    ranks = torch.argsort(torch.rand(tokens, experts), dim=-1).float()
    return [((ranks - experts / 2) / 4).to(dtype), torch.randn(tokens, 1, dtype=dtype),
            torch.randn(tokens, hidden, dtype=dtype)]


def get_init_inputs():
    return [4]
