import torch
import torch.nn as nn


class Model(nn.Module):
    """
    The router z-loss that keeps router logits small: logsumexp over the experts, squared, summed and divided by the
    number of tokens (computed from the shape).

    Where: HF transformers models/switch_transformers/modeling_switch_transformers.py `router_z_loss_func` (ST-MoE;
    also NLLB-MoE and GPTSAN).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, router_logits: torch.Tensor) -> torch.Tensor:
        """
        Args:
            router_logits (torch.Tensor): (groups, tokens_per_group, experts).

        Returns:
            torch.Tensor: the 0-dim loss.
        """
        num_groups, tokens_per_group, _ = router_logits.shape
        log_z = torch.logsumexp(router_logits, dim=-1)
        z_loss = log_z ** 2
        return torch.sum(z_loss) / (num_groups * tokens_per_group)


CASES = [
    ((4, 128, 8), torch.float32),
    ((1, 64, 64), torch.bfloat16),
    ((2, 7, 128), torch.float16),
    ((1, 1, 2), torch.float32),
]


def get_inputs(case=CASES[0]):
    shape, dtype = case
    return [torch.randn(shape, dtype=dtype) * 2]


def get_init_inputs():
    return []
