import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Sentence embeddings by masked mean pooling: the int attention mask unsqueezed and expanded over the hidden size,
    cast to float, the masked token embeddings summed over the sequence and divided by the clamped token count; the
    masked max pooling (padding set to a large negative value) beside it.

    Where: UKPLab/sentence-transformers sentence_transformers/models/Pooling.py (`pooling_mode_mean_tokens`,
    `pooling_mode_max_tokens`) and the `mean_pooling` snippet of every sentence-transformers model card.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, token_embeddings: torch.Tensor, attention_mask: torch.Tensor):
        """
        Args:
            token_embeddings (torch.Tensor): (batch, seq, hidden).
            attention_mask (torch.Tensor): int64 (batch, seq).

        Returns:
            tuple: (batch, hidden) mean and max pooled embeddings.
        """
        input_mask_expanded = attention_mask.unsqueeze(-1).expand(token_embeddings.size()).to(token_embeddings.dtype)
        sum_embeddings = torch.sum(token_embeddings * input_mask_expanded, 1)
        sum_mask = torch.clamp(input_mask_expanded.sum(1), min=1e-9)
        fill = -1e9 if token_embeddings.dtype == torch.float32 else -1e4
        masked = token_embeddings.masked_fill(input_mask_expanded == 0, fill)
        return sum_embeddings / sum_mask, torch.max(masked, 1).values


CASES = [
    (4, 64, 384, torch.float32),
    (4, 16, 768, torch.float16),
    (1, 1, 64, torch.bfloat16),
    (8, 300, 32, torch.float32),
    (0, 8, 16, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, seq, hidden, dtype = case
    lengths = torch.randint(1, seq + 1, (batch,))
    mask = (torch.arange(seq)[None] < lengths[:, None]).long()
    return [torch.randn(batch, seq, hidden, dtype=dtype), mask]


def get_init_inputs():
    return []
