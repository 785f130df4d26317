"""Budgets: what verifying one signature may cost in memory, estimated from the specs before anything is allocated.

Verification's memory grows with the function's own tensors, not with the kernel: every input set lives in this
process while the candidate runs in its child (and is pickled to it); the candidate's outputs for every set come
back pickled; then, one set at a time, the reference runs on clones of the inputs, again in float64 (the exact
result) and once more per float input in float64 with that input moved by an ulp (verify._sensitivity). ``plan_bytes``
adds those copies up (measured against a real search; tests/pipeline/test_budgets.py keeps it honest), so that
verify.make_input_sets can choose input sets that fit ``budget_bytes()``, and refuse a signature whose traced shapes
alone do not fit, instead of running the machine out of memory.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import torch

from torch_ascendgen import config
from torch_ascendgen.capture import TensorSpec
from torch_ascendgen.capture.sizes import evaluate
from torch_ascendgen.errors import UnsupportedFunction

CHILD_BASELINE_BYTES = 3 << 29  # the candidate child's own use (torch, the simulator runtime) besides the sets
BIG_SET_FRACTION = 16  # a set above budget / 16 is "big": its edge-value sets move to a small shape
SMALL_SET_BYTES = 32 << 20  # ... of at most this (or budget / 16): 8M float32 elements still fill every core


@dataclass(frozen=True)
class SetCost:
    """Bytes of one input set's tensors: its inputs, the outputs they give, and both in float64 (the exact run)."""

    inputs: int
    outputs: int
    inputs64: int
    outputs64: int

    @property
    def tensors(self) -> int:
        return self.inputs + self.outputs

    @property
    def checking(self) -> int:
        """Extra bytes while this set is checked: clones of the inputs for the candidate and the reference, the
        reference's outputs, and the float64 runs (their inputs, the exact outputs, the moves summed so far and the
        current run's, which become its distances from the exact ones in place); the comparison works in chunks."""
        return 2 * self.inputs + self.outputs + self.inputs64 + 3 * self.outputs64


def set_cost(inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec], shapes: Sequence[Sequence[int]]) -> SetCost:
    """The cost of one input set with these input shapes (outputs' sizes bound from them)."""
    out_shapes = output_shapes(inputs, outputs, shapes)
    return SetCost(sum(_bytes(s.dtype, shape) for s, shape in zip(inputs, shapes)),
                   sum(_bytes(s.dtype, shape) for s, shape in zip(outputs, out_shapes)),
                   sum(_bytes(s.dtype, shape, exact=True) for s, shape in zip(inputs, shapes)),
                   sum(_bytes(s.dtype, shape, exact=True) for s, shape in zip(outputs, out_shapes)))


def plan_bytes(costs: Iterable[SetCost]) -> int:
    """Peak bytes of verifying a candidate on these sets in this process.

    Two moments peak: the outputs arriving from the child (every set's inputs and their pickle, every set's
    outputs twice over while unpickled from bytes read whole), and checking the largest set while every set's
    inputs and outputs are still held.
    """
    costs = list(costs)
    if not costs:
        return 0
    inputs, outputs = sum(c.inputs for c in costs), sum(c.outputs for c in costs)
    arriving = 2 * inputs + 3 * outputs
    checking = inputs + outputs + max(c.checking for c in costs)
    return max(arriving, checking)


def child_bytes(costs: Iterable[SetCost]) -> int:
    """Bytes the candidate's child needs for the sets: them and their pickle, clones of one, every output twice."""
    costs = list(costs)
    if not costs:
        return 0
    return (2 * sum(c.inputs for c in costs) + max(c.inputs for c in costs) + 2 * sum(c.outputs for c in costs)
            + CHILD_BASELINE_BYTES)


@dataclass(frozen=True)
class Budget:
    """Memory verification may use here (``memory``) and in the candidate's child (``child``, 0: no limit)."""

    memory: int
    child: int = 0

    @classmethod
    def current(cls) -> Budget:
        return cls(config.verify_memory_bytes(), config.run_memory_bytes())

    def fits(self, costs: Sequence[SetCost]) -> bool:
        return plan_bytes(costs) <= self.memory and (not self.child or child_bytes(costs) <= self.child)

    def is_big(self, cost: SetCost) -> bool:
        return cost.tensors > self.memory // BIG_SET_FRACTION

    def is_small(self, cost: SetCost) -> bool:
        return cost.tensors <= min(SMALL_SET_BYTES, self.memory // BIG_SET_FRACTION)

    def refuse(self, cost: SetCost, shapes: Sequence[Sequence[int]]) -> UnsupportedFunction:
        """Why the one set verification cannot do without does not fit, and which setting to raise."""
        needed, child_needed = plan_bytes([cost]), child_bytes([cost])
        if needed > self.memory:
            limit = (f"needs about {_gb(needed)} to verify, over the verification memory budget of "
                     f"{_gb(self.memory)}; raise {config.VERIFY_MEMORY_ENV} (in GB) to allow it")
        else:
            limit = (f"needs about {_gb(child_needed)} in the child that runs candidates, over its limit of "
                     f"{_gb(self.child)}; raise {config.RUN_MEMORY_ENV} (in GB) to allow it")
        return UnsupportedFunction(
            f"its tensors at the traced shapes {[list(s) for s in shapes]} ({_gb(cost.inputs)} of inputs, "
            f"{_gb(cost.outputs)} of outputs) are too big to verify a kernel on: one input set {limit}")


def output_shapes(inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec],
                  shapes: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """The outputs' shapes for these input shapes: symbols bound from the inputs, size text ("2*s0") evaluated
    (capture/sizes.py). A size that cannot be evaluated counts as the largest input's element count (an
    over-estimate)."""
    binding = {size: int(actual) for spec, shape in zip(inputs, shapes)
               for size, actual in zip(spec.shape, shape) if isinstance(size, str) and size.isidentifier()}
    fallback = max((math.prod(shape) for shape in shapes), default=1)
    return [tuple(_size(size, binding, fallback) for size in spec.shape) for spec in outputs]


def _size(size: int | str, binding: dict[str, int], fallback: int) -> int:
    if isinstance(size, int):
        return size
    try:
        return max(0, int(evaluate(size, binding)))
    except ValueError:
        return fallback


def _bytes(dtype: torch.dtype, shape: Sequence[int], exact: bool = False) -> int:
    """A tensor's bytes; with ``exact``, in the float64 run (floats of 4 bytes or less become 8; others stay)."""
    size = torch.empty((), dtype=dtype).element_size()
    if exact and dtype.is_floating_point:
        size = 8 if size <= 4 else size
    return math.prod(shape) * size


def _gb(count: int) -> str:
    if count >= 1 << 28:
        return f"{count / (1 << 30):.2f} GB"
    return f"{count / (1 << 20):.0f} MB" if count >= 1 << 20 else f"{count / (1 << 10):.0f} KB"
