import torch
import torch.nn as nn


class Model(nn.Module):
    """
    MoE finalize routing: each token's top-k expert output rows are gathered from the expanded (expert-sorted) rows
    through an int32 row map, each plus its expert's bias row (picked by the expert id), weighted by the routing
    scales, summed, and added to the skip connection.

    Where: the public description of torch_npu's `npu_moe_finalize_routing` (expanded_permuted_rows, skip1, bias,
    scales, expanded_src_to_dst_row, export_for_source_row), as vLLM-Ascend's MoE layers call it.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, expanded_rows: torch.Tensor, skip: torch.Tensor, bias: torch.Tensor, scales: torch.Tensor,
                src_to_dst_row: torch.Tensor, expert_for_source_row: torch.Tensor) -> torch.Tensor:
        """
        Args:
            expanded_rows (torch.Tensor): (tokens * top_k, hidden).
            skip (torch.Tensor): (tokens, hidden).
            bias (torch.Tensor): (experts, hidden).
            scales (torch.Tensor): (tokens, top_k).
            src_to_dst_row (torch.Tensor): int32 (top_k * tokens,), slot-major: entry j * tokens + t is the row of
                token t's slot j.
            expert_for_source_row (torch.Tensor): int32 (tokens, top_k).

        Returns:
            torch.Tensor: (tokens, hidden).
        """
        tokens, top_k = scales.shape
        rows = expanded_rows.index_select(0, src_to_dst_row.long())
        rows = rows.view(top_k, tokens, -1).transpose(0, 1)
        rows = rows + bias[expert_for_source_row.long()]
        return skip + (rows * scales.unsqueeze(-1)).sum(dim=1)


CASES = [
    # tokens, top_k, hidden, experts, dtype
    (16, 2, 256, 8, torch.float32),
    (4, 8, 128, 64, torch.bfloat16),
    (1, 1, 64, 4, torch.float16),
    (33, 4, 32, 16, torch.float32),
]


def get_inputs(case=CASES[0]):
    tokens, top_k, hidden, experts, dtype = case
    expert_ids = torch.argsort(torch.rand(tokens, experts), dim=-1)[:, :top_k].to(torch.int32)
    return [torch.randn(tokens * top_k, hidden, dtype=dtype), torch.randn(tokens, hidden, dtype=dtype),
            torch.randn(experts, hidden, dtype=dtype), torch.rand(tokens, top_k).to(dtype),
            torch.randperm(tokens * top_k).to(torch.int32), expert_ids]


def get_init_inputs():
    return []
