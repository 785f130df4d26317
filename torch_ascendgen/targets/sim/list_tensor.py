"""The GM block that AscendC's ListTensorDesc parses (kernel_operator_list_tensor_intf.h), built from CPU tensors.

Layout (64-bit words, ListTensorDesc page): the byte offset of the data-pointer array; per tensor, its dim count
(low 32 bits) and index (high 32) then its shape; then one data pointer per tensor. The pointers are the tensors'
addresses in this process: launch in this process (``SimKernel.launch``), with each tensor also passed as a
kernel argument, so that the simulator knows its GM region.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True)
class ListOf:
    """A launch argument: the ListTensorDesc of the tensors at these positions of the same launch's arguments, built
    by the launch itself. A sandboxed launch (``launch_isolated``) runs on copies of the tensors in a child, whose
    addresses the caller cannot know; built there, the descriptor names the tensors the kernel gets."""

    positions: tuple[int, ...]

    def descriptor(self, args: Sequence[Any]) -> torch.Tensor:
        """The descriptor of the tensors this names among ``args`` (the launch's arguments)."""
        def tensor_at(position: int) -> torch.Tensor:
            if not 0 <= position < len(args) or not isinstance(args[position], torch.Tensor):
                raise ValueError(f"ListOf names argument {position}, which is not a tensor argument of this launch")
            return args[position]

        return list_tensor_desc([tensor_at(i) for i in self.positions])
