import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Tiling learned embeddings over the batch: object queries unsqueezed and repeated over a batch size read from
    another tensor's shape, and a positional table tiled along the sequence with torch.tile.

    Where: facebookresearch/detr models/transformer.py `Transformer.forward` (`query_embed.unsqueeze(1).repeat(1,
    bs, 1)`), and `pos.repeat(...)`/`torch.tile` of positional tables in ported TF code.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, query_embed: torch.Tensor, memory: torch.Tensor):
        """
        Args:
            query_embed (torch.Tensor): (num_queries, d_model).
            memory (torch.Tensor): (hw, batch, d_model), only its batch size is used.

        Returns:
            tuple: (num_queries, batch, d_model) repeated queries and (2 * num_queries, 2 * d_model) tiled table.
        """
        bs = memory.shape[1]
        return query_embed.unsqueeze(1).repeat(1, bs, 1), torch.tile(query_embed, (2, 2))


CASES = [
    ((100, 256), (16, 2), torch.float32),
    ((100, 256), (16, 4), torch.float16),
    ((1, 8), (3, 5), torch.bfloat16),
    ((10, 32), (4, 0), torch.float32),
]


def get_inputs(case=CASES[0]):
    query_shape, (hw, batch), dtype = case
    return [torch.randn(query_shape, dtype=dtype), torch.randn(hw, batch, query_shape[1], dtype=dtype)]


def get_init_inputs():
    return []
