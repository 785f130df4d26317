import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Merging two partial attention results by their log-sum-exps (chunked prefill, cascade attention): an infinite
    prefix lse is treated as -inf, both are rescaled by exp(lse - max), the outputs mixed with the normalized weights
    (transposed from (heads, tokens) to (tokens, heads, 1)) and the merged lse returned.

    Where: vLLM vllm/attention/ops/triton_merge_attn_states.py and its torch reference
    `merge_attn_states_torch` in tests/kernels/attention/test_merge_attn_states.py (FlashInfer's merge_state).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, prefix_output: torch.Tensor, prefix_lse: torch.Tensor, suffix_output: torch.Tensor,
                suffix_lse: torch.Tensor):
        """
        Args:
            prefix_output, suffix_output (torch.Tensor): (tokens, heads, head_dim).
            prefix_lse, suffix_lse (torch.Tensor): float32 (heads, tokens).

        Returns:
            tuple: merged output (tokens, heads, head_dim) in the outputs' dtype and merged float32 lse.
        """
        p_lse = torch.where(prefix_lse == float("inf"), float("-inf"), prefix_lse)
        s_lse = torch.where(suffix_lse == float("inf"), float("-inf"), suffix_lse)
        max_lse = torch.maximum(p_lse, s_lse)
        p_se = torch.exp(p_lse - max_lse)
        s_se = torch.exp(s_lse - max_lse)
        out_se = p_se + s_se
        output_lse = torch.log(out_se) + max_lse
        p_scale = (p_se / out_se).transpose(0, 1).unsqueeze(2)
        s_scale = (s_se / out_se).transpose(0, 1).unsqueeze(2)
        output = prefix_output.float() * p_scale + suffix_output.float() * s_scale
        return output.to(prefix_output.dtype), output_lse


CASES = [
    # tokens, heads, head_dim, dtype
    (16, 8, 128, torch.bfloat16),
    (1, 32, 64, torch.float16),
    (7, 4, 256, torch.float32),
    (0, 8, 128, torch.bfloat16),
]


def get_inputs(case=CASES[0]):
    tokens, heads, head_dim, dtype = case
    prefix_lse = torch.randn(heads, tokens) * 3
    if tokens:
        prefix_lse[0, 0] = float("inf")  # an empty prefix, as the kernels mark it
    return [torch.randn(tokens, heads, head_dim, dtype=dtype), prefix_lse,
            torch.randn(tokens, heads, head_dim, dtype=dtype), torch.randn(heads, tokens) * 3]


def get_init_inputs():
    return []
