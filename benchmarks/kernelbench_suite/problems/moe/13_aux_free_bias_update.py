import torch
import torch.nn as nn


class Model(nn.Module):
    """
    DeepSeek-V3's auxiliary-loss-free load balancing step: the tokens routed to each expert in a batch are counted
    (bincount of the top-k ids), compared with the mean load, and each expert's correction bias moves by a fixed
    rate in the direction of the sign of (mean - load).

    Where: the DeepSeek-V3 technical report's bias update (section 2.1.2), as written in open training code such
    as Megatron-LM's `get_updated_expert_bias` (megatron/core/transformer/moe/moe_utils.py).
    """
    def __init__(self, num_experts: int = 64, update_rate: float = 1e-3):
        super(Model, self).__init__()
        self.num_experts = num_experts
        self.update_rate = update_rate

    def forward(self, topk_ids: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """
        Args:
            topk_ids (torch.Tensor): int64 (tokens, top_k).
            bias (torch.Tensor): float32 (num_experts,).

        Returns:
            torch.Tensor: the updated float32 bias.
        """
        load = torch.bincount(topk_ids.flatten(), minlength=self.num_experts).float()
        error = load.mean() - load
        return bias + self.update_rate * torch.sign(error)


CASES = [
    (256, 8),
    (7, 2),
    (1, 6),
    (4096, 8),
]


def get_inputs(case=CASES[0]):
    tokens, top_k = case
    ids = torch.argsort(torch.rand(tokens, 64), dim=-1)[:, :top_k]
    return [ids, torch.randn(64) * 0.01]


def get_init_inputs():
    return [64, 1e-3]
