import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Start offsets of each request's tokens in a packed batch: an int32 cumsum of the query lengths (dtype argument)
    with a leading zero, each request's last-token index, and the per-token request id from repeat_interleave of an
    arange by the lengths.

    Where: vLLM v1's `query_start_loc` / `logits_indices` (vllm/v1/worker/gpu_model_runner.py `_prepare_inputs`,
    `torch.cumsum(num_scheduled_tokens, dim=0)`), and FlashAttention varlen `cu_seqlens_q`.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, query_lens: torch.Tensor):
        """
        Args:
            query_lens (torch.Tensor): int32 (requests,), positive.

        Returns:
            tuple: int32 (requests + 1,) start offsets, int32 (requests,) last-token indices, int64 request id per
            token.
        """
        cu = F.pad(torch.cumsum(query_lens, dim=0, dtype=torch.int32), (1, 0))
        request_ids = torch.repeat_interleave(torch.arange(query_lens.shape[0]), query_lens)
        return cu, cu[1:] - 1, request_ids


CASES = [64, 1, 7, 256]


def get_inputs(case=CASES[0]):
    return [torch.randint(1, 20, (case,), dtype=torch.int32)]


def get_init_inputs():
    return []
