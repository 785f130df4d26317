"""What capture gives: the task (what a kernel computes) and the call it was captured from."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import torch
import torch.fx

from torch_ascendgen.capture import sizes

DTYPE_NAMES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.float64: "f64",
               torch.int8: "i8", torch.uint8: "u8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
               torch.bool: "bool"}


@dataclass(frozen=True)
class TensorSpec:
    """A tensor input or output: dtype and symbolic shape (1, a symbol like "s0", another fixed size, or size text
    over the symbols like "s0 + s1" or "s1 // 2"; see sizes.py)."""

    dtype: torch.dtype
    shape: tuple[int | str, ...]

    def text(self) -> str:
        return f"{DTYPE_NAMES.get(self.dtype, str(self.dtype))}[{', '.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class CallPattern:
    """The call a task was captured from, at that call's own rank.

    A later call with other sizes takes the task without being traced again when it matches ``inputs`` (dtypes,
    ranks, the sizes of 1, the sizes the computation requires to be equal or to relate, every other size at least 2)
    and satisfies ``guards``, as torch.compile's guards decide whether a compiled graph serves a call.
    """

    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    guards: tuple[str, ...]

    def binding(self, tensors: Sequence[torch.Tensor]) -> dict[str, int] | None:
        """The call's symbol values for these tensors, or None when the pattern does not take them."""
        if len(tensors) != len(self.inputs) or any(t.dtype != s.dtype for t, s in zip(tensors, self.inputs)):
            return None
        try:
            binding = sizes.bind([s.shape for s in self.inputs], [tuple(t.shape) for t in tensors])
        except ValueError:
            return None
        if any(value < 2 for value in binding.values()) or not sizes.holds(self.guards, binding):
            return None  # a size of 0 or 1 is traced as such (its own task); the guards' failing shapes retrace
        return binding

    def output_shapes(self, binding: dict[str, int]) -> list[tuple[int, ...]]:
        """The function's output shapes at the call's rank."""
        return [sizes.shape(spec.shape, binding) for spec in self.outputs]


@dataclass(frozen=True)
class KernelTask:
    """What to compute: the canonical graph, its input and output specs, and its category.

    ``guards`` (size text) hold for every shape the kernel is made for; ``graph_text`` holds them, so the key covers
    them. ``call`` describes the call the task was captured from and is not part of the key.
    """

    name: str
    graph_text: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    category: str  # "elementwise", "reduction", "softmax", "norm" or "other"
    specialized: bool  # True when the graph holds only for the traced shapes
    traced_shapes: tuple[tuple[int, ...], ...]
    graph: torch.fx.GraphModule = field(compare=False, repr=False)
    output_tree: Any = field(compare=False, repr=False)
    guards: tuple[str, ...] = ()
    call: CallPattern | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        """sha256 of what the kernel computes (the graph and the specs); the cache adds the target."""
        text = self.graph_text + ("\nshapes " + repr(self.traced_shapes) if self.specialized else "")
        return hashlib.sha256(text.encode()).hexdigest()

    def portable(self) -> KernelTask:
        """The task without its graph and output tree (they hold the caller's function): what a child needs."""
        return replace(self, graph=None, output_tree=None)
