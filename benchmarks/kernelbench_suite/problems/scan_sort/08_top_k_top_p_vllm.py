import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Top-k and top-p (nucleus) filtering of logits with per-request k (int) and p (float): one ascending sort, the
    k-th largest value gathered per row as a threshold, softmax and cumsum of the sorted logits for the nucleus, the
    last column always kept, both masks filled with -inf, and the sorted logits scattered back to vocabulary order.

    Where: vLLM vllm/v1/sample/ops/topk_topp_sampler.py `apply_top_k_top_p` (the PyTorch-native path).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, logits: torch.Tensor, k: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        """
        Args:
            logits (torch.Tensor): float32 (requests, vocab).
            k (torch.Tensor): int (requests,), 1 <= k <= vocab.
            p (torch.Tensor): float32 (requests,), in (0, 1].

        Returns:
            torch.Tensor: the filtered logits, -inf outside the kept set.
        """
        logits_sort, logits_idx = logits.sort(dim=-1, descending=False)
        top_k_mask = logits_sort.size(1) - k.to(torch.long)
        top_k_mask = logits_sort.gather(1, top_k_mask.unsqueeze(dim=1))
        top_k_mask = logits_sort < top_k_mask
        logits_sort = logits_sort.masked_fill(top_k_mask, -float("inf"))
        probs_sort = logits_sort.softmax(dim=-1)
        probs_sum = torch.cumsum(probs_sort, dim=-1)
        top_p_mask = probs_sum <= 1 - p.unsqueeze(dim=1)
        top_p_mask[:, -1] = False
        logits_sort = logits_sort.masked_fill(top_p_mask, -float("inf"))
        return logits_sort.scatter(dim=-1, index=logits_idx, src=logits_sort)


CASES = [
    # requests, vocab, k dtype
    (2, 32000, torch.int64),
    (1, 1000, torch.int32),
    (16, 100, torch.int64),
    (0, 50, torch.int64),
]


def get_inputs(case=CASES[0]):
    requests, vocab, k_dtype = case
    # distinct logits: the masks do not depend on how ties are ordered
    logits = torch.argsort(torch.rand(requests, vocab), dim=-1).float() / vocab * 20 - 10
    k = torch.randint(1, vocab + 1, (requests,), dtype=k_dtype)
    return [logits, k, torch.rand(requests) * 0.9 + 0.1]


def get_init_inputs():
    return []
