import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Merging image features into the text embeddings at the image placeholder tokens: a bool mask from
    (input_ids == image_token_id), unsqueezed and expanded over the hidden size, and masked_scatter filling those
    positions in order with the image features (as many as there are placeholders).

    Where: HF transformers models/llava/modeling_llava.py `LlavaModel.forward` (`special_image_mask`,
    `inputs_embeds.masked_scatter(special_image_mask, image_features)`), also Qwen2-VL and LLaVA-NeXT.
    """
    def __init__(self, image_token_id: int = 32000):
        super(Model, self).__init__()
        self.image_token_id = image_token_id

    def forward(self, input_ids: torch.Tensor, inputs_embeds: torch.Tensor, image_features: torch.Tensor):
        """
        Args:
            input_ids (torch.Tensor): int64 (batch, seq).
            inputs_embeds (torch.Tensor): (batch, seq, hidden).
            image_features (torch.Tensor): (placeholders, hidden).

        Returns:
            torch.Tensor: the merged embeddings (batch, seq, hidden).
        """
        special_image_mask = (input_ids == self.image_token_id).unsqueeze(-1).expand_as(inputs_embeds)
        return inputs_embeds.masked_scatter(special_image_mask, image_features.to(inputs_embeds.dtype))


CASES = [
    # batch, seq, hidden, placeholders per row, dtype
    (2, 64, 128, 16, torch.bfloat16),
    (1, 600, 64, 576, torch.float16),  # LLaVA-1.5's 576 image tokens
    (3, 9, 32, 0, torch.float32),  # text only
    (1, 4, 8, 4, torch.float32),
]


def get_inputs(case=CASES[0]):
    batch, seq, hidden, per_row, dtype = case
    ids = torch.randint(0, 32000, (batch, seq))
    for row in range(batch):
        ids[row, torch.randperm(seq)[:per_row]] = 32000
    return [ids, torch.randn(batch, seq, hidden, dtype=dtype), torch.randn(batch * per_row, hidden, dtype=dtype)]


def get_init_inputs():
    return [32000]
