"""The GM block that AscendC's ListTensorDesc parses (kernel_operator_list_tensor_intf.h), built from CPU tensors.

Layout (64-bit words, ListTensorDesc page): the byte offset of the data-pointer array; per tensor, its dim count
(low 32 bits) and index (high 32) then its shape; then one data pointer per tensor. The pointers are the tensors'
addresses in this process: launch in this process (``SimKernel.launch``), with each tensor also passed as a
kernel argument, so that the simulator knows its GM region.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch


def list_tensor_desc(tensors: Sequence[torch.Tensor]) -> torch.Tensor:
    """The ListTensorDesc bytes describing ``tensors`` (contiguous CPU tensors), as a uint8 tensor."""
    words: list[int] = [0]
    for index, tensor in enumerate(tensors):
        if tensor.device.type != "cpu" or not tensor.is_contiguous():
            raise ValueError(f"tensor {index} of the list must be a contiguous CPU tensor")
        words.append(tensor.dim() | (index << 32))
        words.extend(int(d) for d in tensor.shape)
    words[0] = 8 * len(words)
    words.extend(t.data_ptr() for t in tensors)
    return torch.tensor(words, dtype=torch.uint64).view(torch.uint8)
