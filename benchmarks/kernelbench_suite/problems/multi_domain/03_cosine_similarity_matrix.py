import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Cosine similarity between every query and every corpus embedding: both L2-normalized per row (each with its own
    norm reduction) and multiplied (a @ b.T); and the same as a broadcast F.cosine_similarity over an outer pair of
    dims.

    Where: UKPLab/sentence-transformers sentence_transformers/util.py `cos_sim` (normalize then mm), and
    `F.cosine_similarity(x1.unsqueeze(1), x2.unsqueeze(0), dim=-1)` in retrieval and prototype-network code.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor):
        """
        Args:
            a (torch.Tensor): (queries, dim).
            b (torch.Tensor): (corpus, dim).

        Returns:
            tuple: (queries, corpus) similarities from normalize + mm and from broadcast cosine_similarity.
        """
        a_norm = F.normalize(a, p=2, dim=1)
        b_norm = F.normalize(b, p=2, dim=1)
        return torch.mm(a_norm, b_norm.transpose(0, 1)), F.cosine_similarity(a.unsqueeze(1), b.unsqueeze(0), dim=-1)


CASES = [
    ((32, 384), (100, 384), torch.float32),
    ((1, 768), (50, 768), torch.float16),
    ((8, 64), (8, 64), torch.bfloat16),
    ((0, 16), (5, 16), torch.float32),
]


def get_inputs(case=CASES[0]):
    a_shape, b_shape, dtype = case
    return [torch.randn(a_shape, dtype=dtype), torch.randn(b_shape, dtype=dtype)]


def get_init_inputs():
    return []
