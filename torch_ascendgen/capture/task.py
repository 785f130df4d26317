"""What capture gives: the task (what a kernel computes), the call it was captured from, and its inputs' values."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import torch
import torch.fx
import torch.utils._pytree as pytree

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
class ValueDomain:
    """The values an integer input held in the call a task was captured from, so that verification draws values
    the function accepts (indices inside the tensor they index, distinct where the call's were).

    ``bounds``: the sizes (size text in the task's symbols) that the values index into, each with whether negative
    values count from the end there (``x[i]``) or are refused (``embedding``, ``gather``): at other shapes the
    values drawn stay inside them."""

    low: int
    high: int
    distinct: bool
    ordered: bool  # non-decreasing in memory order (offsets, sorted boundaries)
    bounds: tuple[tuple[str | int, bool], ...] = ()
    nonzero: bool = False  # 0 lies between the ends but no value was 0 (a divisor): none is drawn
    sentinel: int | None = None  # a negative value apart from the rest, all >= 0 (ignore_index -100, padding -1)
    # the other inputs (their positions) whose values, taken with this one's at each position, are distinct where
    # no one of them is alone (a block index and an offset in it: the slots a paged cache write fills)
    distinct_with: tuple[int, ...] = ()
    permutations: bool = False  # each row (along the last dim) holds 0 .. its length - 1 once: an argsort's order


def value_domain(tensor: torch.Tensor, bounds: tuple = ()) -> ValueDomain | None:
    """The domain of an integer tensor's values (None for floats, bools and empty tensors)."""
    if tensor.dtype.is_floating_point or tensor.dtype.is_complex or tensor.dtype == torch.bool or not tensor.numel():
        return None
    flat = tensor.detach().reshape(-1).cpu()
    ordered = bool((flat[1:] >= flat[:-1]).all()) if flat.numel() > 1 else True
    unique = torch.unique(flat)
    distinct = unique.numel() == flat.numel()
    low, high = int(unique[0]), int(unique[-1])
    sentinel = None
    if unique.numel() > 1 and low < 0 <= int(unique[1]):  # targets with ignore_index: -100 and then [0, classes)
        sentinel, low = low, int(unique[1])
    nonzero = low < 0 < high and not bool((flat == 0).any())
    return ValueDomain(low, high, distinct, ordered, tuple(bounds), nonzero, sentinel,
                       permutations=_rows_are_permutations(tensor))


def _rows_are_permutations(tensor: torch.Tensor) -> bool:
    if tensor.dim() == 0 or tensor.shape[-1] < 2:
        return False
    rows = tensor.detach().reshape(-1, tensor.shape[-1]).cpu()
    if rows.shape[0] < 2 and bool((rows[0, 1:] >= rows[0, :-1]).all()):
        return False  # one row in order: an arange, drawn as the ordered domain it is
    return bool((rows.sort(dim=-1).values == torch.arange(rows.shape[-1])).all())


def value_domains(tensors: Sequence[torch.Tensor], bounds: Sequence[tuple] = ()) -> list[ValueDomain | None]:
    """Each tensor's value_domain (``bounds``: per tensor, as value_domain takes them), with the inputs that are
    distinct together (``distinct_with``): integer tensors of one shape, none distinct alone, whose values taken
    position by position never repeat."""
    domains = [value_domain(t, bounds[i] if i < len(bounds) else ()) for i, t in enumerate(tensors)]
    groups: dict[tuple, list[int]] = {}
    for i, (tensor, domain) in enumerate(zip(tensors, domains)):
        plain = domain is not None and not (domain.distinct or domain.ordered or domain.nonzero or domain.permutations
                                            or domain.sentinel is not None)
        if plain and tensor.numel() > 1:  # drawn jointly, a domain's other rules would be lost
            groups.setdefault(tuple(tensor.shape), []).append(i)
    for members in groups.values():
        if len(members) < 2:
            continue
        rows = torch.stack([tensors[i].detach().reshape(-1).cpu().to(torch.int64) for i in members], dim=1)
        if torch.unique(rows, dim=0).shape[0] == rows.shape[0]:
            for i in members:
                domains[i] = replace(domains[i], distinct_with=tuple(m for m in members if m != i))
    return domains


@dataclass(frozen=True)
class CallPattern:
    """The call a task was captured from, at that call's own rank, and how its tensors become the task's.

    A later call with other sizes takes the task without being traced again when it matches ``inputs`` (dtypes,
    ranks, the sizes of 1, the sizes the computation requires to be equal or to relate, every other size at least 2)
    and satisfies ``guards``, as torch.compile's guards decide whether a compiled graph serves a call.
    ``task_inputs``: each input's shape in the task, as size text over the call's symbols: its own shape, or, for a
    task collapsed to fewer dimensions (see collapse.py), products of groups of its sizes ("s0*s1").
    """

    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    guards: tuple[str, ...]
    task_inputs: tuple[tuple[int | str, ...], ...]
    shapes: tuple[tuple[int, ...], ...] = ()  # the captured call's own shapes

    @property
    def collapsed(self) -> bool:
        return self.task_inputs != tuple(spec.shape for spec in self.inputs)

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

    def task_shapes(self, binding: dict[str, int]) -> list[tuple[int, ...]]:
        """The call's tensors' shapes in the task (without the task's constants)."""
        return [sizes.shape(shape, binding) for shape in self.task_inputs]

    def output_shapes(self, binding: dict[str, int]) -> list[tuple[int, ...]]:
        """The function's output shapes at the call's rank."""
        return [sizes.shape(spec.shape, binding) for spec in self.outputs]


@dataclass(frozen=True)
class KernelTask:
    """What to compute: the canonical graph, its input and output specs, and its category.

    ``inputs`` are the function's tensors, then its ``constants`` (tensors the function makes from literals, lifted
    into inputs: dispatch appends them to every call); ``guards`` (size text) hold for every shape the kernel is
    made for. ``graph_text`` holds the guards and the constants' sha256, so the key covers them. ``domains`` and
    ``call`` describe the call the task was captured from and are not part of the key.
    """

    name: str
    graph_text: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    category: str  # "elementwise", "reduction", "softmax", "norm", "matmul" or "other"
    specialized: bool  # True when the graph holds only for the traced shapes
    traced_shapes: tuple[tuple[int, ...], ...]
    graph: torch.fx.GraphModule = field(compare=False, repr=False)
    output_tree: Any = field(compare=False, repr=False)
    guards: tuple[str, ...] = ()
    constants: tuple[torch.Tensor, ...] = field(default=(), compare=False, repr=False)
    domains: tuple[ValueDomain | None, ...] = field(default=(), compare=False)
    call: CallPattern | None = field(default=None, compare=False, repr=False)
    data_dependent: bool = False  # a size in the graph depends on values (capture/sized.py): run as stages only

    @property
    def key(self) -> str:
        """sha256 of what the kernel computes (the graph and the specs); the cache adds the target."""
        text = self.graph_text + ("\nshapes " + repr(self.traced_shapes) if self.specialized else "")
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def empty_inputs(self) -> bool:
        """Whether an input's shape holds a literal 0 (a task traced from a call with an empty tensor): its kernel is
        made for empty inputs, and is asked to tile them."""
        return any(size == 0 for spec in self.inputs for size in spec.shape)

    @property
    def argument_count(self) -> int:
        """How many of ``inputs`` the function itself takes (the rest are its constants)."""
        return len(self.inputs) - len(self.constants)

    def portable(self) -> KernelTask:
        """The task without its graph and output tree (they hold the caller's function): what a child needs."""
        return replace(self, graph=None, output_tree=None)

    def reference(self, function: Callable, shapes: Sequence[Sequence[int]] | None = None) -> Callable:
        """``function`` (the original, taking the call's tensors) as this task takes its inputs: what verification
        judges kernels by (see TaskReference). ``shapes``: a call's own shapes (default: the captured call's)."""
        return function if isinstance(function, TaskReference) else TaskReference(function, self, shapes)


class TaskReference:
    """The original function as a task takes its inputs.

    The task's constants are dropped (the function makes them itself). A task collapsed to fewer dimensions gets
    the call's tensors back in the call's shapes at the call's own sizes, so that there the original function itself
    is the reference; at the other sizes verification tries (a tail, many blocks) there is no call of that rank to
    go back to, and the collapsed graph, the function's own ATen ops traced at the call, runs instead.
    """

    def __init__(self, function: Callable, task: KernelTask, shapes: Sequence[Sequence[int]] | None = None):
        self.function = function
        self.count = task.argument_count
        self.graph = task.graph if task.call is not None and task.call.collapsed else None
        if self.graph is not None:
            self.call_shapes = [tuple(shape) for shape in (shapes or task.call.shapes)]
            self.task_shapes = task.call.task_shapes(sizes.bind([s.shape for s in task.call.inputs], self.call_shapes))
            shapes = [*self.task_shapes, *(tuple(c.shape) for c in task.constants)]
            binding = sizes.bind([spec.shape for spec in task.inputs], shapes)
            self.outputs = [sizes.shape(spec.shape, binding) for spec in task.outputs]

    def __call__(self, *inputs):
        if self.graph is None:
            return self.function(*inputs[: self.count])
        own = inputs[: self.count]
        if [tuple(t.shape) for t in own] == self.task_shapes:
            results = pytree.tree_leaves(self.function(*[t.reshape(s) for t, s in zip(own, self.call_shapes)]))
            return tuple(r.reshape(s) for r, s in zip(results, self.outputs))
        return tuple(pytree.tree_leaves(self.graph(*inputs)))


def constant_digest(tensor: torch.Tensor) -> str:
    """sha256 of a constant's dtype, shape and bytes: what the key knows of its value."""
    data = tensor.detach().contiguous().cpu()
    digest = hashlib.sha256(f"{data.dtype}{list(data.shape)}".encode())
    digest.update(data.reshape(-1).view(torch.uint8).numpy().tobytes() if data.numel() else b"")
    return digest.hexdigest()
