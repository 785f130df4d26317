import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Expert token counts padded to the grouped matmul's block size, and each expert's start offset: bincount of the
    top-k ids, rounded up to a multiple of block_size with integer arithmetic, an exclusive cumsum for the offsets
    and the padded total.

    Where: vLLM vllm/model_executor/layers/fused_moe/moe_align_block_size.py (`moe_align_block_size`, the
    expert-offset part of its torch reference in tests/kernels/moe).
    """
    def __init__(self, num_experts: int = 16, block_size: int = 16):
        super(Model, self).__init__()
        self.num_experts = num_experts
        self.block_size = block_size

    def forward(self, topk_ids: torch.Tensor):
        """
        Args:
            topk_ids (torch.Tensor): int (tokens, top_k), values in [0, num_experts).

        Returns:
            tuple: int64 counts, padded counts and start offsets (num_experts,), and the 0-dim padded total.
        """
        counts = torch.bincount(topk_ids.flatten().long(), minlength=self.num_experts)
        padded = (counts + self.block_size - 1) // self.block_size * self.block_size
        offsets = torch.cumsum(padded, dim=0) - padded
        return counts, padded, offsets, padded.sum()


CASES = [
    ((64, 2), torch.int32),
    ((1, 8), torch.int64),
    ((333, 4), torch.int32),
    ((0, 2), torch.int64),
]


def get_inputs(case=CASES[0]):
    (tokens, top_k), dtype = case
    return [torch.argsort(torch.rand(tokens, 16), dim=-1)[:, :top_k].to(dtype)]


def get_init_inputs():
    return [16, 16]
