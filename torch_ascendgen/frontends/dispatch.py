"""The one path from a new signature's tensors to a kernel op, shared by ``@ascend_kernel`` and the torch.compile
backend's regions.

A front end decides when a signature needs a kernel and what runs when it gets none (guard.py); this module gets
the kernel: the function captured on the target's host copies of the tensors, compiled (once per task key and
target: another signature with the same canonical graph reuses it), verified at these tensors' shapes, and the
custom op that runs it. The same computation has the same task key, and so the same cache entry, whichever front
end it arrives through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import torch

from torch_ascendgen.capture import capture
from torch_ascendgen.pipeline import CompiledKernel, Options, compile_task, verify_shape
from torch_ascendgen.targets.runtime import kernel_op
from torch_ascendgen.targets.target import Target


class Kernel(NamedTuple):
    """A kernel ready to run at the shapes it was prepared for."""

    compiled: CompiledKernel
    op: Callable[[list[torch.Tensor]], list[torch.Tensor]]  # flat tensors in, flat outputs out
    output_tree: Any  # how the function's outputs nest (pytree spec)


class Kernels:
    """The kernels one decorated function or one region has got, by (task key, target)."""

    def __init__(self, name: str, options: Options):
        self.name = name
        self.options = options
        self._compiled: dict[tuple[str, Target], CompiledKernel] = {}

    def compiled(self) -> list[CompiledKernel]:
        """Every kernel got so far, oldest first."""
        return list(self._compiled.values())

    def prepare(self, function: Callable, tensors: list[torch.Tensor], target: Target) -> Kernel:
        """The kernel for ``function`` on ``tensors`` (its flat tensor inputs), verified at their shapes. Raises
        what capture, compile_task or verify_shape raise (UnsupportedFunction when there is no kernel to have)."""
        task = capture(function, target.host_copies(tensors), name=self.name)
        compiled = self._compiled.get((task.key, target))
        if compiled is None:
            compiled = self._compiled[(task.key, target)] = compile_task(task, function, self.options, target)
        verify_shape(compiled, function, tensors, self.options)
        return Kernel(compiled, kernel_op(compiled), task.output_tree)
