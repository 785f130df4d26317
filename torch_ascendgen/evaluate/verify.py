"""Verification: is a candidate kernel's output the reference function's output? No candidate is trusted.

A candidate is any callable ``run(*inputs) -> outputs`` (a tensor, or a tuple/list of tensors); the
reference is the original function with the same convention. Nothing here depends on how the
candidate runs (simulator, NPU, child process).

Defences against the ways kernels pass checks they should fail (see ../shared/ASCENDC.md):

- several input sets: mixed-sign normal values (returning the input passes ReLU on non-negative
  data), finite edge values, infinities and NaNs, and, for shape-generic tasks, shapes with tails
  and a shape large enough to use more blocks than cores (specialising on the traced shape);
- the candidate runs first, on clones, so no reference output exists yet that it could reuse, and
  its inputs must be bitwise unchanged afterwards;
- outputs must not share memory with the inputs or with each other;
- after each comparison the reference's outputs are overwritten with NaN bytes, so a candidate that
  keeps them, or allocates their freed memory, finds garbage rather than the answer;
- NaN and ±inf positions must match exactly (on sets whose inputs hold infinities or NaNs, a NaN may
  stand for an infinity and the reverse), finite values must be close (``torch.isclose``
  semantics), and an output must also be close as a whole (relative L2 error), because a
  per-element ``atol`` alone accepts zeros wherever the expected values are smaller than ``atol``;
- integer and bool outputs must be equal, except where the original's own value moves when its float
  inputs move by a few float32 ulps (a rounding boundary): there any of the values it moves to passes.
"""

from __future__ import annotations

import functools
import math
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import torch
import torch.utils._pytree as pytree

from torch_ascendgen import config
from torch_ascendgen.capture import KernelTask, TensorSpec, ValueDomain
from torch_ascendgen.capture.sizes import bind, evaluate, holds
from torch_ascendgen.errors import ReferenceFailed, ShapeDeclined
from torch_ascendgen.evaluate.budgets import Budget, set_cost
from torch_ascendgen.records import InputSet, SetRun, Tolerance, Verdict

MAX_ELEMENTS = 1 << 20  # no generated shape binds its symbols to more elements than this
MANY_BLOCKS_ELEMENTS = 1 << 19  # what the "many blocks" shape aims for: a tiling of 48 cores loops
SMALL_TAILS = (7, 33, 5, 17, 3, 9, 11, 13, 15, 19, 21, 23)  # odd: never a multiple of 32 bytes
LONG_TAILS = (1003, 33, 7, 5, 3, 9, 11, 13, 15, 17, 19, 21)
NORM_FACTOR = 10.0  # an output's relative L2 error may reach NORM_FACTOR * rtol
COMPARE_CHUNK = 1 << 20  # elements of an output compared at once (temporaries: a few dozen bytes each)
BIAS_SAMPLES = 1 << 18  # at most about this many values of an output enter the bias test (a median)
BIAS_MIN_SAMPLES = 16  # outputs with fewer usable values are not tested for bias
SENSITIVITY_FACTOR = 32.0  # times the exact result's move under 1-ulp input changes: allowed on top (see _sensitivity)
LOST_DIGITS = 1e-2  # where the original is further than this (relative) from the exact result, |exact| more is allowed
OWN_FACTOR = 2.0  # times the original's own distance from the exact result, allowed on top of the ulps bound ...
ROUNDING_ULPS = 16.0  # float32 ulps the float inputs move by when looking for integer outputs on a rounding boundary
ROUNDING_DRAWS = 8  # ... in at most this many draws of random signs (each run with them and mirrored)
LOSSY_OWN_FACTOR, LOSSY_ULPS = 16.0, 16.0  # ... or this many times where that distance exceeds LOSSY_ULPS ulps

# The magnitude sets stop this many binades below overflow for dtypes whose sums accumulate in their own range
# (float32, bfloat16): then no order of summing up to 4096 of them overflows, so summation order cannot decide
# between inf and a finite sum. float16 sums accumulate in float32 (torch, and kernels): its whole range is used.
MAGNITUDE_HEADROOM = {torch.float32: 12, torch.bfloat16: 12}
# A task with a matrix product multiplies two inputs before it sums K of the products. Its wide sets keep every value
# within PRODUCT_BINADES / 2 binades of 1 (magnitudes log-uniform there; break points beyond it left out): over a wider
# range a sum of products is decided by its few largest terms, whose cancellation two summation orders (torch's
# blocked one, the cube's) do not round alike, and a sensitivity drawn with one set of random signs (_sensitivity)
# can see those few terms' moves cancel; squares of the dtype's largest values overflow float32 itself.
PRODUCT_OPS = ("aten.mm.default", "aten.bmm.default", "aten.addmm.default")
PRODUCT_BINADES = 8
BREAK_POINTS = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 9.0, 10.0, 15.0, 17.0, 20.0, 30.0, 44.0, 50.0, 100.0,
                math.pi / 2, math.pi, 2 * math.pi)
_WIDE_FILLS = ("magnitudes", "breakpoints", "magnitudes+breakpoints")

# "Large" edge values: big enough to overflow exp() and half-precision squares, small enough that
# a few of them squared and summed stay finite in float32, so a correct reduction is not failed
# for summing in another order. Only positive: +large and -large in one row cancel, and what is
# left then depends on the summation order.
_LARGE = {torch.float16: 1.0e4, torch.bfloat16: 1.0e15, torch.float32: 1.0e15, torch.float64: 1.0e150}

ValueFn = Callable[[int, tuple[int, ...], torch.dtype, torch.Generator], torch.Tensor]


_TOLERANCES = {
    torch.float64: Tolerance(1e-7, 1e-12, ulps=16, bias_ulps=8),
    torch.float32: Tolerance(1e-4, 1e-5, ulps=16, bias_ulps=8),
    torch.float16: Tolerance(2e-3, 1e-3, ulps=2, bias_ulps=0.5),
    torch.bfloat16: Tolerance(1.6e-2, 1e-2, ulps=2, bias_ulps=0.5),
}


def default_tolerance(dtype: torch.dtype) -> Tolerance:
    """A few ulps of the output dtype from the exact result for floats (kernels round differently); exact
    otherwise. ``rtol``/``atol`` are the ``torch.isclose`` equivalent for callers that compare that way."""
    if dtype in _TOLERANCES:
        return _TOLERANCES[dtype]
    if dtype.is_floating_point:
        return Tolerance(2 * torch.finfo(dtype).eps, 2 * torch.finfo(dtype).eps, ulps=2, bias_ulps=0.5)
    return Tolerance(0.0, 0.0)


# ---------------------------------------------------------------------------------------------
# Input sets


@dataclass(frozen=True)
class SetPlan:
    """One input set to make: its label, its input shapes and how its values are filled ("normal", "edge",
    "nonfinite", or "edge+nonfinite" when one set carries both)."""

    label: str
    shapes: tuple[tuple[int, ...], ...]
    fill: str


def make_input_sets(
    inputs: Sequence[TensorSpec],
    traced_shapes: Sequence[Sequence[int]],
    *,
    generic: bool = True,
    seed: int | None = None,
    value_fn: ValueFn | None = None,
    device: torch.device | str = "cpu",
    outputs: Sequence[TensorSpec] = (),
    budget: Budget | None = None,
    guards: Sequence[str] = (),
    fixed: Mapping[int, torch.Tensor] | None = None,
    domains: Sequence[ValueDomain | None] = (),
    products: bool = False,
) -> list[InputSet]:
    """The input sets a candidate must pass (see plan_input_sets), deterministic in ``seed``; None: fresh_seed().

    ``value_fn(input_index, shape, dtype, generator)`` replaces the normal values (e.g. positive values for a
    log); edge values are still sprinkled into them. ``guards``: size text every set's shapes satisfy (the task's).
    ``fixed``: inputs whose values every set holds as they are (the task's constants). ``domains``: per input, the
    values an integer input may take (drawn inside it, its ends included, distinct where the call's were; a set whose
    shapes leave no room for them is left out). Raises UnsupportedFunction when even the traced shapes' normal set
    does not fit the memory budget. ``products``: the inputs are multiplied together (a matrix product; see
    PRODUCT_BINADES).
    """
    seed = fresh_seed() if seed is None else seed
    fixed = fixed or {}
    sets = []
    plans = plan_input_sets(inputs, traced_shapes, outputs, generic=generic, budget=budget, guards=guards)
    traced = {tuple(map(tuple, traced_shapes))}
    for index, plan in enumerate(plans):
        generator = torch.Generator().manual_seed((seed * 7919 + index) % (1 << 63))
        binding = bind([spec.shape for spec in inputs], plan.shapes) if domains else {}
        try:
            tensors = tuple(
                fixed[i].clone().to(device) if i in fixed else
                _values(plan.fill, i, spec.dtype, shape, generator, value_fn,
                        _domain(domains, i), binding, strict=index > 0, products=products).to(device)
                for i, (spec, shape) in enumerate(zip(inputs, plan.shapes))
            )
            tensors = _jointly_distinct(tensors, domains, binding, generator, strict=index > 0)
        except _NoRoom:
            continue  # the domain of an integer input does not fit this set's shapes
        # optional: skipped where the original itself refuses it (wide values; other shapes, e.g. a clamp to
        # shape[-1] - 1 that overflows uint8 there: a call at such shapes is verified, and refused, on its own)
        optional = plan.fill in _WIDE_FILLS or index > 0 and tuple(map(tuple, plan.shapes)) not in traced
        sets.append(InputSet(f"{plan.label} {_shapes_text(plan.shapes)}", tensors, seed, optional))
    return sets


def task_input_sets(task: KernelTask, shapes: Sequence[Sequence[int]] | None = None, *, generic: bool = False,
                    seed: int | None = None, domains: Sequence[ValueDomain | None] | None = None,
                    device: torch.device | str = "cpu") -> list[InputSet]:
    """make_input_sets for ``task`` at ``shapes`` (default: its traced shapes): its guards, its constants' values,
    its integer inputs' domains (``domains``: another call's, e.g. the one at ``shapes``)."""
    first_constant = task.argument_count
    return make_input_sets(task.inputs, task.traced_shapes if shapes is None else shapes, generic=generic, seed=seed,
                           device=device, outputs=task.outputs, guards=task.guards,
                           fixed={first_constant + i: c for i, c in enumerate(task.constants)},
                           domains=task.domains if domains is None else domains,
                           products=any(op in task.graph_text for op in PRODUCT_OPS))


def _domain(domains: Sequence[ValueDomain | None], index: int) -> ValueDomain | None:
    return domains[index] if index < len(domains) else None


def fresh_seed() -> int:
    """The seed of one verification: config.verify_seed() when set (to reproduce a failure), else a new secret
    one, so that no kernel can know in advance the values it is checked on."""
    forced = config.verify_seed()
    return forced if forced is not None else secrets.randbits(48)


def plan_input_sets(inputs: Sequence[TensorSpec], traced_shapes: Sequence[Sequence[int]],
                    outputs: Sequence[TensorSpec] = (), *, generic: bool = True,
                    budget: Budget | None = None, guards: Sequence[str] = ()) -> list[SetPlan]:
    """Which input sets to make, planned to fit ``budget`` (default: budgets.Budget.current()).

    At the traced shapes, always: normal values (what the user runs). Then finite edge values and infinities and
    NaNs: at the traced shapes, or, when those are big (budgets.BIG_SET_FRACTION) and the task is shape-generic,
    at a small shape of the same rank and broadcast pattern; a specialised task that has room for only one more
    set at its traced shapes gets one holding both kinds. When the task is shape-generic (``generic``, i.e. ``not
    task.specialized``) and has symbols, also: small tails, long tails (1003 on the last symbol) and "many blocks"
    (about 2**19 elements), each shrunk until it fits. Symbols are bound to odd sizes >= 3 (never 1, which would
    change the broadcast pattern), distinct where possible; a symbol shared by several inputs gets one value;
    dimensions of 1 stay 1; sizes written as size text follow from the symbols. A binding that breaks one of
    ``guards`` (the task's: a size that must be even, have room for a slice) is moved to the nearest one that keeps
    them, or dropped. ``outputs`` (the task's output specs) make the estimate count the outputs too.
    """
    traced = _checked_traced_shapes(inputs, traced_shapes)
    budget = budget or Budget.current()
    cost = functools.partial(set_cost, inputs, outputs)
    if not budget.fits([cost(traced)]):
        raise budget.refuse(cost(traced), traced)
    symbols = _symbols(inputs) if generic else []
    powers = _powers(inputs, symbols)
    valid = functools.partial(_valid, inputs, tuple(guards))
    plans = _with_value_sets([SetPlan("normal", traced, "normal")], inputs, symbols, budget, cost, valid)
    if symbols:
        fixed = max(math.prod(int(size) for size in spec.shape if not isinstance(size, str)) for spec in inputs)
        for label, binding in _shape_bindings(symbols, fixed, powers):
            binding = _satisfying(binding, valid)
            plan = binding and _shrunk(SetPlan(label, _bind(inputs, binding), "normal"), inputs, binding,
                                       lambda candidate: budget.fits([cost(p.shapes) for p in (*plans, candidate)]),
                                       valid)
            if plan and all((p.shapes, p.fill) != (plan.shapes, plan.fill) for p in plans):
                plans.append(plan)
    return plans


def _valid(inputs: Sequence[TensorSpec], guards: tuple[str, ...], binding: dict[str, int]) -> bool:
    """Whether ``binding`` keeps every guard and gives every input size at least 1."""
    try:
        return holds(guards, binding) and all(size >= 1 for shape in _bind(inputs, binding) for size in shape)
    except ValueError:
        return False


def _satisfying(binding: dict[str, int], valid) -> dict[str, int] | None:
    """``binding`` if ``valid``, else the first valid one nearby (one symbol or all moved up a little, or rounded
    up to a multiple of a power of two), else None."""
    if valid(binding):
        return binding
    return next((candidate for candidate in _nearby(binding) if valid(candidate)), None)


def _nearby(binding: dict[str, int]):
    for step in range(1, 17):
        for symbol in binding:
            yield {**binding, symbol: binding[symbol] + step}
    for multiple in (2, 4, 8, 16, 32, 64, 128):
        yield {symbol: -(-value // multiple) * multiple for symbol, value in binding.items()}
        for symbol in binding:
            yield {**binding, symbol: -(-binding[symbol] // multiple) * multiple}
    for step in range(1, 17):
        yield {symbol: value + step for symbol, value in binding.items()}


def _with_value_sets(plans: list[SetPlan], inputs, symbols: list[str], budget: Budget, cost,
                     valid) -> list[SetPlan]:
    """``plans`` and the value sets, where they fit: edge values and inf/NaN (float inputs), then every magnitude
    (float and integer inputs) and the activations' break points (float inputs); each pair merged into one set
    when only one more fits."""
    traced = plans[0].shapes
    shapes = traced
    if symbols and budget.is_big(cost(traced)):
        binding = _satisfying(_small_binding(inputs, symbols, traced, lambda s: budget.is_small(cost(s))), valid)
        shapes = _bind(inputs, binding) if binding else traced
    floats = any(spec.dtype.is_floating_point for spec in inputs)
    integers = any(not spec.dtype.is_floating_point and spec.dtype != torch.bool for spec in inputs)
    if floats:
        plans = _with_pair(plans, [SetPlan("edge values", shapes, "edge"), SetPlan("inf and nan", shapes, "nonfinite"),
                                   SetPlan("edge values, inf and nan", shapes, "edge+nonfinite")], budget, cost)
        plans = _with_pair(plans, [SetPlan("magnitudes", shapes, "magnitudes"),
                                   SetPlan("break points", shapes, "breakpoints"),
                                   SetPlan("magnitudes and break points", shapes, "magnitudes+breakpoints")],
                           budget, cost)
    elif integers:
        plans = _with_pair(plans, [SetPlan("magnitudes", shapes, "magnitudes")], budget, cost)
    return plans


def _with_pair(plans: list[SetPlan], pair: list[SetPlan], budget: Budget, cost) -> list[SetPlan]:
    """``plans`` and ``pair[:2]`` if they fit, else and ``pair[2]`` (both kinds in one set) if it fits; a single
    plan is added if it fits."""
    def fits(extra: list[SetPlan]) -> bool:
        return budget.fits([cost(p.shapes) for p in (*plans, *extra)])

    for extra in (pair[:2], pair[2:]):
        if extra and fits(extra):
            return plans + extra
    return plans


def _small_binding(inputs, symbols: list[str], traced, small) -> dict[str, int]:
    """The traced symbol values, each halved (to odd sizes) largest first until ``small(shapes)``."""
    binding = bind([spec.shape for spec in inputs], traced)
    values = [binding[symbol] for symbol in symbols]
    while not small(_bind(inputs, dict(zip(symbols, values)))) and max(values) > 3:
        largest = values.index(max(values))
        values[largest] = _odd(values[largest] // 2)
    return dict(zip(symbols, values))


def _shrunk(plan: SetPlan, inputs, binding: dict[str, int], fits, valid) -> SetPlan | None:
    """``plan`` with its largest symbols halved (and moved to keep ``valid``) until ``fits(plan)``; None when even
    sizes of 3 do not fit."""
    symbols, values = list(binding), list(binding.values())
    while not fits(plan):
        if max(values) <= 3:
            return None
        largest = values.index(max(values))
        values[largest] = _odd(values[largest] // 2)
        moved = _satisfying(dict(zip(symbols, values)), valid)
        if moved is not None:
            plan = replace(plan, shapes=_bind(inputs, moved))
    return plan


def _checked_traced_shapes(inputs: Sequence[TensorSpec], traced_shapes) -> tuple[tuple[int, ...], ...]:
    traced = tuple(tuple(int(size) for size in shape) for shape in traced_shapes)
    if len(traced) != len(inputs) or any(len(s) != len(spec.shape) for s, spec in zip(traced, inputs)):
        raise ValueError(f"traced shapes {traced} do not match the input specs {[s.text() for s in inputs]}")
    return traced


def _symbols(inputs: Sequence[TensorSpec]) -> list[str]:
    """The symbols in order of first appearance as an input's size; none when a size written as size text names a
    symbol no input's size is (the shapes cannot be chosen symbol by symbol)."""
    symbols: list[str] = []
    for spec in inputs:
        for size in spec.shape:
            if isinstance(size, str) and size.isidentifier() and size not in symbols:
                symbols.append(size)
    for spec in inputs:
        for size in spec.shape:
            if isinstance(size, str) and not size.isidentifier():
                try:
                    evaluate(size, dict.fromkeys(symbols, 3))
                except ValueError:
                    return []
    return symbols


def _powers(inputs: Sequence[TensorSpec], symbols: list[str]) -> list[int]:
    """How often each symbol appears in one input at most: attention scores (s0, s1, s2, s2) hold s2 squared."""
    return [max(1, *(spec.shape.count(symbol) for spec in inputs)) for symbol in symbols]


def _shape_bindings(symbols: list[str], fixed: int = 1, powers: list[int] | None = None,
                    ) -> list[tuple[str, dict[str, int]]]:
    """Sizes for each symbol: small tails, long tails on the last symbol, and many blocks.

    ``fixed`` is the largest product of an input's fixed (non-symbolic) sizes: the symbols share
    what is left of the element budget; ``powers``: how often each symbol appears in one input.
    """
    powers = powers or [1] * len(symbols)
    count = len(symbols)
    budget = max(3 ** count, MAX_ELEMENTS // max(1, fixed))
    small = _cycle(SMALL_TAILS, count)
    long = list(reversed(_cycle(LONG_TAILS, count)))
    base = _odd(round(max(3 ** count, MANY_BLOCKS_ELEMENTS // max(1, fixed)) ** (1 / count)))
    many = [max(3, base - 2 * i) for i in range(count)]
    return [(label, dict(zip(symbols, _fit(sizes, budget, powers)))) for label, sizes in
            (("tail", small), ("tail", long), ("many blocks", many))]


def _cycle(sizes: tuple[int, ...], count: int) -> list[int]:
    return [sizes[i % len(sizes)] for i in range(count)]


def _odd(size: int) -> int:
    return max(3, size if size % 2 else size - 1)


def _fit(sizes: list[int], budget: int = MAX_ELEMENTS, powers: list[int] | None = None) -> list[int]:
    """Halve the largest size until every symbol bound at once stays within MAX_ELEMENTS.

    The bound is on the product over all symbols (each to its power), because broadcasting inputs
    of shapes (s0, 1) and (1, s1) gives an output of s0 * s1 elements.
    """
    sizes = list(sizes)
    powers = powers or [1] * len(sizes)
    while math.prod(size ** power for size, power in zip(sizes, powers)) > budget and max(sizes) > 3:
        largest = sizes.index(max(sizes))
        sizes[largest] = _odd(sizes[largest] // 2)
    return sizes


def _bind(inputs: Sequence[TensorSpec], binding: dict[str, int]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(evaluate(s, binding)) if isinstance(s, str) else int(s) for s in spec.shape)
                 for spec in inputs)


def _shapes_text(shapes: tuple[tuple[int, ...], ...]) -> str:
    return ", ".join("[" + ", ".join(map(str, shape)) + "]" for shape in shapes)


def _values(fill: str, index: int, dtype: torch.dtype, shape: tuple[int, ...], generator: torch.Generator,
            value_fn: ValueFn | None, domain: ValueDomain | None = None, binding: Mapping[str, int] | None = None,
            strict: bool = True, products: bool = False) -> torch.Tensor:
    """The values of one input; the wide sets' own values replace ``value_fn``'s (such sets are optional). An
    integer input with a ``domain`` gets values inside it in every set (see _domain_values)."""
    if domain is not None and not dtype.is_floating_point and dtype != torch.bool:
        tensor = _domain_values(domain, dtype, shape, generator, binding or {}, strict)
    elif fill in _WIDE_FILLS:
        tensor = _wide(fill, dtype, shape, generator) if not products else _product_wide(fill, dtype, shape, generator)
    else:
        tensor = value_fn(index, shape, dtype, generator) if value_fn else _normal(dtype, shape, generator)
    if tuple(tensor.shape) != shape or tensor.dtype != dtype:
        raise ValueError(f"value_fn gave {tensor.dtype}{list(tensor.shape)} for input {index}, "
                         f"expected {dtype}{list(shape)}")
    tensor = tensor.detach().to("cpu").contiguous().clone()
    if dtype.is_floating_point and "edge" in fill:
        _sprinkle(tensor, _finite_edges(dtype), per=256, generator=generator)
    if dtype.is_floating_point and "nonfinite" in fill:
        _sprinkle(tensor, [math.nan, math.inf, -math.inf], per=128, generator=generator)
    return tensor


class _NoRoom(Exception):
    """An integer input's domain has no room at a set's shapes (indices into a dimension the set makes smaller)."""


def _domain_values(domain: ValueDomain, dtype: torch.dtype, shape: tuple[int, ...], generator: torch.Generator,
                   binding: Mapping[str, int], strict: bool) -> torch.Tensor:
    """Values inside ``domain``: uniform between its ends, both ends present (when there are two values or more),
    distinct when the call's were, in order when the call's were, never 0 when the call's were not (divisors). At
    shapes where a size the values index into is smaller than the call's, the domain is cut to it (negative values
    to its negative, where they count from the end). _NoRoom when that leaves no value (or, ``distinct``, too
    few); not ``strict`` (the call's own shapes): the domain as recorded, without distinctness if need be."""
    if domain.permutations and shape and shape[-1] > 0:  # each row an order of its positions, as the call's were
        rows = math.prod(shape[:-1])
        orders = torch.argsort(torch.rand(rows, shape[-1], generator=generator), dim=-1)
        return orders.reshape(shape).to(dtype)
    low, high = _cut(domain, binding)
    skip_zero = domain.nonzero and low < 0 < high  # drawn in [low, high - 1], then 0 and above moved up by one
    high -= skip_zero
    count = math.prod(shape)
    distinct = domain.distinct and count > 1
    if high < low or distinct and high - low + 1 < count:
        if strict:
            raise _NoRoom(f"values in [{low}, {high}] for {count} elements")
        if high < low:
            low, high = domain.low, domain.high - skip_zero
        distinct = distinct and high - low + 1 >= count
    if distinct:
        values = low + _distinct(high - low + 1, count, generator)
    else:
        values = torch.randint(low, high + 1, (count,), generator=generator, dtype=torch.int64)
    _with_ends(values, low, high, distinct, generator)
    if skip_zero:
        values += (values >= 0).to(values.dtype)
    if domain.sentinel is not None and values.numel() > 1:
        _with_sentinel(values, domain.sentinel, distinct, generator)
    if domain.ordered:
        values = values.sort().values
    return values.reshape(shape).to(dtype)


def _jointly_distinct(tensors: tuple, domains: Sequence[ValueDomain | None], binding: Mapping[str, int],
                      generator: torch.Generator, strict: bool) -> tuple:
    """The inputs that are distinct together (ValueDomain.distinct_with) drawn again so that their values, taken
    position by position, never repeat: distinct points of the product of their domains. _NoRoom (``strict``) when
    the product has too few."""
    tensors, done = list(tensors), set()
    for i, domain in enumerate(domains):
        members = [i, *domain.distinct_with] if domain is not None and i not in done else []
        if len(members) < 2 or any(m >= len(tensors) or tensors[m].shape != tensors[i].shape for m in members):
            continue
        done.update(members)
        ranges = [_cut(domains[m], binding) for m in members]
        room, count = math.prod(max(high - low + 1, 0) for low, high in ranges), tensors[i].numel()
        if room < count:
            if strict:
                raise _NoRoom(f"{count} distinct positions in a product of {room}")
            continue
        flat = _distinct(room, count, generator)
        for m, (low, high) in reversed(list(zip(members, ranges))):
            tensors[m] = (low + flat % (high - low + 1)).reshape(tensors[m].shape).to(tensors[m].dtype).to(
                tensors[m].device)
            flat = flat // (high - low + 1)
    return tuple(tensors)


def _with_sentinel(values: torch.Tensor, sentinel: int, distinct: bool, generator: torch.Generator) -> None:
    """The call's sentinel (an ignore_index) at one position in eight (at one only, for distinct values), in place;
    the rest stay inside the domain's other values, which the function accepts."""
    count = 1 if distinct else max(1, values.numel() // 8)
    values[torch.randperm(values.numel(), generator=generator)[:count]] = sentinel


def _cut(domain: ValueDomain, binding: Mapping[str, int]) -> tuple[int, int]:
    low, high = domain.low, domain.high
    for size, negative in domain.bounds:
        try:
            bound = size if isinstance(size, int) else int(evaluate(size, binding))
        except ValueError:
            continue
        low, high = max(low, -bound if negative else 0), min(high, bound - 1)
    return low, high


def _distinct(room: int, count: int, generator: torch.Generator) -> torch.Tensor:
    """``count`` distinct values in [0, room), in random order."""
    if room <= max(4 * count, 1 << 20):
        return torch.randperm(room, generator=generator)[:count]
    chosen = torch.empty(0, dtype=torch.int64)
    while chosen.numel() < count:
        chosen = torch.unique(torch.cat([chosen, torch.randint(0, room, (2 * count,), generator=generator)]))
    return chosen[torch.randperm(chosen.numel(), generator=generator)[:count]]


def _with_ends(values: torch.Tensor, low: int, high: int, distinct: bool, generator: torch.Generator) -> None:
    """Both ends of the domain somewhere in ``values`` (in place), keeping them distinct if they are."""
    if values.numel() < 2:
        return
    ends = [low, high] if high != low else [low]
    positions = torch.randperm(values.numel(), generator=generator)[:2].tolist()
    if not distinct:
        for position, end in zip(positions, ends):
            values[position] = end
        return
    for end in ends:
        if not bool((values == end).any()):
            position = int(((values != low) & (values != high)).nonzero()[0])
            values[position] = end


def _normal(dtype: torch.dtype, shape: tuple[int, ...], generator: torch.Generator) -> torch.Tensor:
    """Mixed-sign values: standard normal floats, nonzero integers in ±[1, 16], both booleans."""
    if dtype.is_floating_point:
        work = torch.float64 if dtype == torch.float64 else torch.float32
        return torch.randn(shape, generator=generator, dtype=work).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=generator).bool()
    magnitude = torch.randint(1, 17, shape, generator=generator)  # never 0: integer division by 0 raises
    if torch.iinfo(dtype).min < 0:
        magnitude = magnitude * (torch.randint(0, 2, shape, generator=generator) * 2 - 1)
    return magnitude.to(dtype)


def _wide(fill: str, dtype: torch.dtype, shape: tuple[int, ...], generator: torch.Generator) -> torch.Tensor:
    if dtype == torch.bool:
        return _normal(dtype, shape, generator)
    if not dtype.is_floating_point:
        return _integer_magnitudes(dtype, shape, generator)
    if fill == "breakpoints":
        return _break_points(dtype, shape, generator)
    tensor = _magnitudes(dtype, shape, generator)
    if fill == "magnitudes+breakpoints":
        half = torch.rand(shape, generator=generator) < 0.5
        tensor = torch.where(half, tensor, _break_points(dtype, shape, generator))
    return tensor


def _product_wide(fill: str, dtype: torch.dtype, shape: tuple[int, ...], generator: torch.Generator) -> torch.Tensor:
    """A wide set's values for a task with a matrix product (see PRODUCT_BINADES)."""
    if not dtype.is_floating_point or dtype == torch.float64:
        return _wide(fill, dtype, shape, generator)
    exponent = (torch.rand(shape, generator=generator, dtype=torch.float64) - 0.5) * PRODUCT_BINADES
    tensor = (torch.exp2(exponent) * _signs(shape, generator)).to(dtype)
    if fill != "magnitudes":
        limit = 2.0 ** (PRODUCT_BINADES // 2)
        points = torch.tensor([p for p in BREAK_POINTS if p <= limit], dtype=torch.float64)
        pick = points[torch.randint(len(points), shape, generator=generator)]
        spread = 1.0 + (torch.rand(shape, generator=generator, dtype=torch.float64) - 0.5) * 0.2
        near = torch.where(torch.rand(shape, generator=generator) < 1 / 3, pick, pick * spread)
        near = (near * _signs(shape, generator)).to(dtype)
        tensor = near if fill == "breakpoints" else torch.where(torch.rand(shape, generator=generator) < 0.5,
                                                                 tensor, near)
    return tensor


def _magnitudes(dtype: torch.dtype, shape: tuple[int, ...], generator: torch.Generator) -> torch.Tensor:
    """Log-uniform magnitudes with mixed signs, from the smallest subnormal up to MAGNITUDE_HEADROOM binades below
    overflow (float16 and float64: up to overflow)."""
    info = torch.finfo(dtype)
    low = math.log2(info.tiny * info.eps)
    high = math.log2(info.max) - MAGNITUDE_HEADROOM.get(dtype, 0)
    exponent = low + (high - low) * torch.rand(shape, generator=generator, dtype=torch.float64)
    return (torch.exp2(exponent) * _signs(shape, generator)).to(dtype)


def _break_points(dtype: torch.dtype, shape: tuple[int, ...], generator: torch.Generator) -> torch.Tensor:
    """Mixed-sign values at the activations' break points (see _break_point_values): a third exactly there, a third
    a few ulps away, a third within 10%."""
    info = torch.finfo(dtype)
    points = torch.tensor(_break_point_values(dtype), dtype=torch.float64)
    pick = points[torch.randint(len(points), shape, generator=generator)]
    mode = torch.randint(3, shape, generator=generator)
    ulps = torch.randint(-4, 5, shape, generator=generator).double() * info.eps
    spread = (torch.rand(shape, generator=generator, dtype=torch.float64) - 0.5) * 0.2
    factor = torch.where(mode == 0, 1.0, torch.where(mode == 1, 1.0 + ulps, 1.0 + spread))
    return ((pick * factor).clamp(max=info.max) * _signs(shape, generator)).to(dtype)


def _break_point_values(dtype: torch.dtype) -> list[float]:
    """Where common activations change regime: hardtanh/hardswish/relu6 (1, 3, 6), erf and tanh saturation
    (3..9), sigmoid and softplus thresholds (15, 17, 20, 30, 44), sin/cos periods, and the dtype's own limits:
    exp overflow and underflow (log max, -log tiny, -log of the smallest subnormal), squares and cubes overflowing
    (sqrt max, cbrt max), the first integer step above 1 ulp (1 / eps), and max itself; all at most
    MAGNITUDE_HEADROOM binades below overflow."""
    info = torch.finfo(dtype)
    own = [math.log(info.max), -math.log(info.tiny), -math.log(info.tiny * info.eps), math.sqrt(info.max),
           info.max ** (1 / 3), 1 / info.eps, info.max]
    return [v for v in (*BREAK_POINTS, *own) if v <= info.max / 2 ** MAGNITUDE_HEADROOM.get(dtype, 0)]


def _integer_magnitudes(dtype: torch.dtype, shape: tuple[int, ...], generator: torch.Generator) -> torch.Tensor:
    """Log-uniform nonzero integers with mixed signs (when signed) up to the square root of the type's range, so
    that a product of two stays in range."""
    info = torch.iinfo(dtype)
    bits = max(4, (info.bits - (1 if info.min < 0 else 0)) // 2)
    magnitude = torch.exp2(torch.rand(shape, generator=generator, dtype=torch.float64) * bits).floor()
    if info.min < 0:
        magnitude = magnitude * _signs(shape, generator)
    return magnitude.to(dtype)


def _signs(shape: tuple[int, ...], generator: torch.Generator) -> torch.Tensor:
    return torch.randint(0, 2, shape, generator=generator).double() * 2 - 1


def _finite_edges(dtype: torch.dtype) -> list[float]:
    info = torch.finfo(dtype)
    large = _LARGE.get(dtype, math.sqrt(info.max) / 8)
    return [0.0, -0.0, large, info.tiny / 4, -info.tiny / 4, info.tiny]  # tiny / 4 is subnormal


def _sprinkle(tensor: torch.Tensor, values: list[float], per: int, generator: torch.Generator) -> None:
    """Overwrite about one element in ``per`` with each value (each at least once if room), in place."""
    flat = tensor.view(-1)
    each = max(1, flat.numel() // per)
    count = min(flat.numel(), each * len(values))
    positions = torch.randperm(flat.numel(), generator=generator)[:count]
    flat[positions] = torch.tensor(values, dtype=tensor.dtype).repeat(each)[:count]


# ---------------------------------------------------------------------------------------------
# Checking


class _Rejected(Exception):
    """A candidate failed a step: ``subject`` and ``detail`` make the verdict's sentence."""

    def __init__(self, kind: str, subject: str, detail: str = "", **fields):
        super().__init__(subject)
        self.kind, self.subject, self.detail, self.fields = kind, subject, detail, fields

    def verdict(self, input_set: InputSet) -> Verdict:
        reason = f"{self.subject} for input set '{input_set.name}'{seed_text(input_set)}" + (
            f": {self.detail}" if self.detail else "")
        return Verdict(ok=False, reason=reason, kind=self.kind, input_set=input_set.name, seed=input_set.seed,
                       **self.fields)


def seed_text(input_set: InputSet) -> str:
    """" (seed N; TORCH_ASCENDGEN_VERIFY_SEED=N reproduces it)" for a failure on ``input_set``."""
    return f" (seed {input_set.seed}; {config.VERIFY_SEED_ENV}={input_set.seed} reproduces it)" \
        if input_set.seed is not None else ""


@dataclass(frozen=True)
class _Errors:
    max_abs: float
    max_rel: float
    max_ulps: float = 0.0
    bias_ulps: float = 0.0


def check(reference_fn: Callable, candidate_fn: Callable, input_set: InputSet,
          tolerance: Tolerance | None = None) -> Verdict:
    """Check the candidate against the reference on one input set.

    ``tolerance`` applies to every output; None means ``default_tolerance`` of each output's dtype.
    Raises ReferenceFailed when the reference itself fails (that is not the candidate's fault).
    """
    try:
        got = _run_candidate(candidate_fn, input_set)
        expected = _run_reference(reference_fn, input_set)
        try:
            _check_structure(got, expected)
            errors = _compare_outputs(reference_fn, input_set, got, expected, tolerance)
        finally:
            _scribble(expected)
    except _Rejected as rejected:
        if input_set.optional and _reference_raises(reference_fn, input_set):
            return _skipped(input_set)
        return rejected.verdict(input_set)
    except ReferenceFailed:
        if input_set.optional:
            return _skipped(input_set)
        raise
    return Verdict(ok=True, reason=f"passed input set '{input_set.name}'", input_set=input_set.name,
                   max_abs_error=max((e.max_abs for e in errors), default=0.0),
                   max_rel_error=max((e.max_rel for e in errors), default=0.0),
                   passed_shapes=(input_set.shapes,), seed=input_set.seed,
                   max_ulps=max((e.max_ulps for e in errors), default=0.0),
                   bias_ulps=max((e.bias_ulps for e in errors), key=abs, default=0.0))


def _reference_raises(reference_fn: Callable, input_set: InputSet) -> bool:
    try:
        _scribble(_run_reference(reference_fn, input_set))
    except ReferenceFailed:
        return True
    return False


def _skipped(input_set: InputSet) -> Verdict:
    """An optional set (values outside the normal range) the original itself rejects: nothing to compare."""
    return Verdict(ok=True, reason=f"skipped input set '{input_set.name}': the original function raises on it",
                   input_set=input_set.name, seed=input_set.seed)


def verify(reference_fn: Callable, candidate_fn: Callable, input_sets: Sequence[InputSet],
           tolerance: Tolerance | None = None) -> Verdict:
    """Check every input set in order, stopping at the first failure."""
    if not input_sets:
        raise ValueError("verify needs at least one input set")
    passed: list[tuple[tuple[int, ...], ...]] = []
    verdicts = []
    for input_set in input_sets:
        verdict = check(reference_fn, candidate_fn, input_set, tolerance)
        if not verdict.ok:
            return replace(verdict, passed_shapes=tuple(passed))
        if verdict.passed_shapes and input_set.shapes not in passed:
            passed.append(input_set.shapes)
        verdicts.append(verdict)
    names = ", ".join(f"'{s.name}'" for s in input_sets)
    return Verdict(ok=True, reason=f"passed {len(input_sets)} input sets: {names}",
                   max_abs_error=max(v.max_abs_error for v in verdicts),
                   max_rel_error=max(v.max_rel_error for v in verdicts), passed_shapes=tuple(passed),
                   seed=input_sets[0].seed, max_ulps=max(v.max_ulps for v in verdicts),
                   bias_ulps=max((v.bias_ulps for v in verdicts), key=abs))


def judge_run(reference_fn: Callable, input_set: InputSet, run: SetRun, tolerance: Tolerance | None = None) -> Verdict:
    """The verdict on a candidate's run in a child (SetRun), checked against the reference like ``check``: its
    error or modified inputs as they are, then its outputs, then the outputs of any later launch that differed."""
    where = f"input set '{input_set.name}'{seed_text(input_set)}"
    if run.error:
        if input_set.optional and _reference_raises(reference_fn, input_set):  # both refuse it, as ``check``
            return _skipped(input_set)
        return Verdict(False, f"{where}: {run.error}", kind="raised", input_set=input_set.name, seed=input_set.seed)
    if run.modified_inputs:
        return Verdict(False, f"{where}: the kernel modified its inputs {list(run.modified_inputs)}",
                       kind="modified_input", input_set=input_set.name, seed=input_set.seed)
    verdict = check(reference_fn, lambda *_: run.outputs, input_set, tolerance)
    for repeat in run.repeats if verdict.ok else ():
        again = check(reference_fn, lambda *_: repeat.outputs, input_set, tolerance)  # noqa: B023 - called within check
        if not again.ok:
            return replace(again, reason=(
                f"input set '{input_set.name}': launch {repeat.launch} (block order seed {repeat.block_order_seed}) "
                "gave different results from the first launch on the same inputs: the kernel keeps state between "
                f"launches, or its blocks race. {again.reason}"))
    return verdict


def verify_loaded(reference_fn: Callable, runner, input_sets: Sequence[InputSet],
                  tolerance: Tolerance | None = None) -> Verdict:
    """``verify`` for a trusted kernel loaded in this process (``runner`` has ContractKernel's ``plan``): input
    sets whose shapes its tiling declines are skipped, not failed (those calls run as the original function)."""
    passed: list = []
    verdict = Verdict(False, "no input set had shapes the kernel accepts", kind="raised")
    for input_set in input_sets:
        try:
            runner.plan(input_set.tensors)
        except ShapeDeclined:
            continue
        verdict = verify(reference_fn, runner, [input_set], tolerance)
        if not verdict.ok:
            return verdict
        passed += verdict.passed_shapes
    return replace(verdict, passed_shapes=tuple(passed)) if passed else verdict


def _run_candidate(candidate_fn: Callable, input_set: InputSet) -> tuple[torch.Tensor, ...]:
    inputs = tuple(t.clone() for t in input_set.tensors)
    try:
        raw = candidate_fn(*inputs)
    except Exception as exc:  # noqa: BLE001 - any failure of the candidate is its verdict
        raise _Rejected("raised", f"the candidate raised {type(exc).__name__}", str(exc) or repr(exc)) from None
    _require_unchanged(input_set.tensors, inputs)
    outputs = _as_tensors(raw)
    if outputs is None:
        raise _Rejected("not_tensors", f"the candidate returned {type(raw).__name__}",
                        "expected a tensor or a tuple of tensors")
    _require_no_aliasing(outputs, inputs)
    return outputs


def _run_reference(reference_fn: Callable, input_set: InputSet) -> tuple[torch.Tensor, ...]:
    try:
        raw = reference_fn(*(t.clone() for t in input_set.tensors))
    except Exception as exc:
        raise ReferenceFailed(f"the reference function raised {type(exc).__name__} for input set "
                              f"'{input_set.name}': {exc}; pass a value_fn for inputs it accepts") from exc
    outputs = _as_tensors(raw)
    if outputs is None:
        raise ReferenceFailed(f"the reference function returned {type(raw).__name__}, not tensors")
    return outputs


def _as_tensors(raw) -> tuple[torch.Tensor, ...] | None:
    if isinstance(raw, torch.Tensor):
        return (raw,)
    if not isinstance(raw, (tuple, list)):
        return None
    leaves = pytree.tree_leaves(raw)
    return tuple(leaves) if all(isinstance(leaf, torch.Tensor) for leaf in leaves) else None


def _require_unchanged(originals: tuple[torch.Tensor, ...], used: tuple[torch.Tensor, ...]) -> None:
    """Bitwise, so NaNs compare equal to themselves and -0.0 differs from 0.0."""
    for i, (before, after) in enumerate(zip(originals, used)):
        if after.shape != before.shape or after.dtype != before.dtype:
            raise _Rejected("modified_input", f"the candidate changed input {i} to "
                            f"{after.dtype}{list(after.shape)} (was {before.dtype}{list(before.shape)})",
                            "kernels must not write to their inputs")
        changed = _bits(before) != _bits(after)
        if changed.any():
            index = _first(changed)
            raise _Rejected("modified_input", f"the candidate modified input {i}",
                            f"{int(changed.sum())} of {changed.numel()} elements changed, first at index "
                            f"{index} ({_fmt(before[index])} became {_fmt(after[index])}); "
                            "kernels must not write to their inputs")


def _bits(tensor: torch.Tensor) -> torch.Tensor:
    tensor = tensor.detach().cpu()
    if tensor.dtype == torch.bool:
        return tensor.view(torch.uint8)
    if tensor.is_floating_point():
        return tensor.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[tensor.element_size()])
    return tensor


def _require_no_aliasing(outputs: tuple[torch.Tensor, ...], inputs: tuple[torch.Tensor, ...]) -> None:
    """Outputs must be new memory: not an input, a view of one, or another output."""
    for i, out in enumerate(outputs):
        for j, tensor in enumerate(inputs):
            if _overlap(out, tensor):
                raise _Rejected("aliasing", f"output {i} shares memory with input {j}",
                                "outputs must be new tensors, not inputs or views of them")
        for j in range(i):
            if _overlap(out, outputs[j]):
                raise _Rejected("aliasing", f"outputs {j} and {i} share memory",
                                "each output must be its own tensor")


def _overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether the address ranges the two tensors span intersect (on the same device)."""
    if a.device != b.device or a.numel() == 0 or b.numel() == 0:
        return False
    (a_start, a_end), (b_start, b_end) = _extent(a), _extent(b)
    return a_start < b_end and b_start < a_end


def _extent(t: torch.Tensor) -> tuple[int, int]:
    span = sum((size - 1) * abs(stride) for size, stride in zip(t.shape, t.stride())) + 1
    return t.data_ptr(), t.data_ptr() + span * t.element_size()


def _check_structure(got: tuple[torch.Tensor, ...], expected: tuple[torch.Tensor, ...]) -> None:
    if len(got) != len(expected):
        raise _Rejected("count", f"the candidate returned {len(got)} outputs, expected {len(expected)}")
    for i, (g, e) in enumerate(zip(got, expected)):
        for kind, got_value, expected_value in (("shape", list(g.shape), list(e.shape)), ("dtype", g.dtype, e.dtype),
                                                ("device", g.device, e.device)):
            if got_value != expected_value:
                raise _Rejected(kind, f"output {i} has {kind} {got_value}, expected {expected_value}",
                                output_index=i)


def _compare_outputs(reference_fn: Callable, input_set: InputSet, got: tuple, expected: tuple,
                     tolerance: Tolerance | None) -> list[_Errors]:
    """Each output against the original's and against the exact (float64) result.

    The exact result is computed for every set with float outputs (the reference run on float64 inputs). The
    original's own result carries rounding error (a long sum that cancels loses digits; an intermediate square
    overflows float32): a value is accepted when it is within the tolerance of the original's value, or within the
    tolerance plus twice the original's own distance from the exact result, so that a kernel is never failed for
    being more exact. See _close for the non-finite cases.
    """
    exact = _exact_reference(reference_fn, input_set, expected)
    sensitivity = _sensitivity(reference_fn, input_set, exact) if exact is not None else None
    nonfinite = _has_nonfinite(input_set)
    boundaries = _on_rounding_boundaries(reference_fn, input_set, got, expected)
    try:
        return [_compare(i, g, e, tolerance, None if exact is None else exact[i],
                         None if sensitivity is None else sensitivity[i], nonfinite, boundaries[i])
                for i, (g, e) in enumerate(zip(got, expected))]
    finally:  # a reference that keeps its outputs must not hand the exact ones to the next candidate
        _scribble(tuple(x for x in (*(exact or ()), *(sensitivity or ())) if x is not None))


def _has_nonfinite(input_set: InputSet) -> bool:
    return any(t.is_floating_point() and not bool(torch.isfinite(t).all()) for t in input_set.tensors)


def _on_rounding_boundaries(reference_fn: Callable, input_set: InputSet, got: tuple,
                            expected: tuple) -> list[torch.Tensor | None]:
    """For each integer or bool output computed from float inputs (a quantization's round, a comparison, an argmax)
    that the candidate got wrong somewhere: where the candidate's value is one the original gives in float64 or with
    every float input moved by ROUNDING_ULPS float32 ulps (random signs, then the mirrored signs, for up to
    ROUNDING_DRAWS draws). There the value sits on a rounding boundary (round(x / scale) at k + 0.5, a tie between two
    maxima) that a kernel's float rounding may fall on the other side of, as eager's own would on another machine.
    The draws stop once every value the candidate got wrong is explained (scale-invariant functions, x / amax(x), move
    only where signs differ: one draw is not enough). None for the other outputs."""
    explained = [torch.zeros(e.shape, dtype=torch.bool) if not e.is_floating_point() and not e.is_complex()
                 and g.shape == e.shape and g.dtype == e.dtype and bool((g != e).any()) else None
                 for g, e in zip(got, expected)]
    floats = [i for i, t in enumerate(input_set.tensors) if t.is_floating_point()]
    if not floats or all(x is None for x in explained):
        return [None] * len(expected)
    generator = torch.Generator().manual_seed((input_set.seed or 0) % (1 << 63))
    eps = torch.finfo(torch.float32).eps * ROUNDING_ULPS
    for draw in range(2 * ROUNDING_DRAWS + 1):
        if draw % 2 == 1:
            signs = {i: torch.randint(0, 2, input_set.tensors[i].shape, generator=generator, dtype=torch.float64)
                     .mul_(2).sub_(1) for i in floats}
        direction = 0.0 if draw == 0 else (1.0 if draw % 2 else -1.0)
        tensors = tuple(t.to(torch.float64) * (signs[i] * (direction * eps) + 1.0) if direction and i in floats
                        else t.to(torch.float64) if i in floats else t for i, t in enumerate(input_set.tensors))
        try:
            outputs = _run_reference(reference_fn, InputSet(input_set.name, tensors))
        except ReferenceFailed:
            break
        for i, output in enumerate(outputs[:len(expected)]):
            if explained[i] is not None and output.shape == expected[i].shape and not output.is_floating_point():
                explained[i] |= got[i].cpu() == output.to(expected[i].dtype).cpu()
            _scribble((output,))
        if all(x is None or bool((x | (got[i].cpu() == expected[i].cpu())).all()) for i, x in enumerate(explained)):
            break
    return explained


def _exact_reference(reference_fn: Callable, input_set: InputSet, expected: tuple) -> tuple | None:
    """The reference run in float64, one entry per output: None for an output it cannot stand for (not a float
    output of 4 bytes or less, another shape); float64 outputs are their own exact result. None when there is
    nothing to run (no such output) or the reference cannot run in float64 (a dtype-bound function)."""
    if not any(e.is_floating_point() and e.element_size() <= 4 for e in expected):
        return None
    tensors = tuple(t.double() if t.is_floating_point() else t for t in input_set.tensors)
    try:
        exact = _run_reference(reference_fn, InputSet(input_set.name, tensors))
    except ReferenceFailed:
        return None
    if len(exact) != len(expected):
        _scribble(exact)
        return None
    return tuple(x if e.is_floating_point() and x.is_floating_point() and x.shape == e.shape else None
                 for x, e in zip(exact, expected))


def _sensitivity(reference_fn: Callable, input_set: InputSet, exact: tuple) -> tuple | None:
    """How far each exact output moves when the float inputs are scaled by 1 ± eps (float32's eps; float64's for
    float64 inputs, random signs within an input): the error any backward-stable way of computing it may make (a
    sum in another order, a norm scaled differently, pow through exp and log). SENSITIVITY_FACTOR times it is
    allowed on top of the ulps bound. Each input is moved on its own and the moves added: moved together, one
    input's move can cancel another's (x ** e with ln x near 1 moves by e * eps * (1 - ln x)). Where a move makes
    the result NaN (a negative base to an exponent that is no longer whole), that input is moved again with its
    small integers kept whole; infinite or NaN moves count as none. The moved outputs are overwritten by the moves
    (in place), so a reference that keeps them hands nothing usable to the next candidate."""
    total = None
    for index, tensor in enumerate(input_set.tensors):
        if not tensor.is_floating_point():
            continue
        moves = _moved(reference_fn, input_set, exact, index, keep_integers=False)
        if moves is not None and any(m is not None and torch.isnan(m).any() for m in moves):
            _fill_unknown(moves, _moved(reference_fn, input_set, exact, index, keep_integers=True))
        total = _added(total, moves)
    return None if total is None else tuple(_at_least_the_median(m) for m in total)


def _added(total: tuple | None, moves: tuple | None) -> tuple | None:
    """The moves of one more input added to ``total`` (in place); unknown moves count as none."""
    if moves is None or total is None:
        return total if moves is None else moves
    result = []
    for old, new in zip(total, moves):
        if old is not None and new is not None:
            old.add_(new.nan_to_num_(nan=0.0, posinf=0.0))
            _scribble((new,))
        result.append(old if old is not None else new)
    return tuple(result)


def _fill_unknown(moves: tuple, others: tuple | None) -> None:
    for move, other in zip(moves, others or ()):
        if move is not None and other is not None:
            torch.where(torch.isnan(move), other, move, out=move)
            _scribble((other,))


def _moved(reference_fn: Callable, input_set: InputSet, exact: tuple, index: int,
           keep_integers: bool) -> tuple | None:
    """The moves with float input ``index`` perturbed (its small integers kept whole with ``keep_integers``)."""
    generator = torch.Generator().manual_seed(((input_set.seed or 0) + index) % (1 << 63))
    tensors = tuple(_perturbed(t, generator, keep_integers) if i == index
                    else t.to(torch.float64) if t.is_floating_point() else t for i, t in enumerate(input_set.tensors))
    try:
        moved = _run_reference(reference_fn, InputSet(input_set.name, tensors))
    except ReferenceFailed:
        return None
    del tensors
    if len(moved) != len(exact):
        _scribble(moved)
        return None
    return tuple(_moves(m, x) for m, x in zip(moved, exact))


def _moves(moved: torch.Tensor, exact: torch.Tensor | None) -> torch.Tensor | None:
    """``|moved - exact|`` in place (in float64); NaN where the exact result is finite and the moved one is not."""
    if exact is None or moved.shape != exact.shape or not moved.is_floating_point():
        _scribble((moved,))
        return None
    move = moved.to(torch.float64).contiguous()
    if move.untyped_storage().data_ptr() != moved.untyped_storage().data_ptr():
        _scribble((moved,))
    finite = torch.isfinite(move)
    move.sub_(exact).abs_()
    move.masked_fill_(~finite & ~torch.isfinite(exact), 0.0)
    return move.masked_fill_(finite & ~torch.isfinite(move), 0.0)


def _at_least_the_median(move: torch.Tensor | None) -> torch.Tensor | None:
    """The moves, unknown ones none, each at least the output's median move: the random signs can cancel at one
    position (a row sum that barely moves) where another order of summing still rounds like its neighbours."""
    if move is None:
        return None
    move.nan_to_num_(nan=0.0, posinf=0.0)
    flat = move.view(-1)
    if flat.numel():
        move.clamp_(min=float(flat[::max(1, -(-flat.numel() // BIAS_SAMPLES))].median()))
    return move


def _perturbed(tensor: torch.Tensor, generator: torch.Generator, keep_integers: bool) -> torch.Tensor:
    """Float values scaled by 1 ± eps; with ``keep_integers``, small integers (|v| <= 2**16) are kept whole."""
    if not tensor.is_floating_point():
        return tensor
    eps = torch.finfo(torch.float64 if tensor.dtype == torch.float64 else torch.float32).eps
    values = tensor.to(torch.float64, copy=True)
    factor = torch.randint(0, 2, tensor.shape, generator=generator, dtype=torch.float64).mul_(2 * eps).add_(1 - eps)
    if keep_integers:
        factor.masked_fill_((values == values.round()) & (values.abs() <= 2 ** 16), 1.0)
    return values.mul_(factor)


@dataclass
class _Tally:
    """What _compare accumulates over the chunks of one output."""

    max_abs: float = 0.0
    max_rel: float = 0.0
    bad: int = 0
    first_bad: int | None = None  # flat index
    first_expected: float = 0.0
    first_got: float = 0.0
    first_exact: float | None = None
    diff_sq: float = 0.0  # sums of squares of the finite values: relative L2 error as a whole
    scale_sq: float = 0.0
    own_sq: float = 0.0  # the original's own distance from the exact result
    max_expected: float = 0.0
    max_got: float = 0.0
    max_ulps: float = 0.0
    step: int = 1  # every step-th element is a sample for the bias test
    errors: list = field(default_factory=list)  # signed errors from the exact result, in ulps (samples)
    own_errors: list = field(default_factory=list)  # the original's, at the same positions


def _compare(index: int, got: torch.Tensor, expected: torch.Tensor, tolerance: Tolerance | None,
             exact: torch.Tensor | None = None, sensitivity: torch.Tensor | None = None, nonfinite: bool = False,
             boundary: torch.Tensor | None = None) -> _Errors:
    """Same non-finite values (see _close), finite values close element-wise, as a whole, and without bias;
    integers equal, except on a rounding ``boundary`` (see _on_rounding_boundaries).

    Compared COMPARE_CHUNK elements at a time, so that the temporaries stay small whatever the output's size.
    """
    tol = tolerance or default_tolerance(expected.dtype)
    g_all, e_all = got.detach().cpu().reshape(-1), expected.detach().cpu().reshape(-1)
    if exact is None and expected.dtype == torch.float64:
        exact = expected
    x_all = exact.detach().cpu().reshape(-1) if exact is not None else None
    s_all = sensitivity.reshape(-1) if sensitivity is not None and exact is not None else None
    tally = _Tally(step=max(1, -(-e_all.numel() // BIAS_SAMPLES)))
    b_all = boundary.reshape(-1) if boundary is not None else None
    for start in range(0, e_all.numel(), COMPARE_CHUNK):
        part = slice(start, start + COMPARE_CHUNK)
        _tally_chunk(tally, start, g_all[part], e_all[part], None if x_all is None else x_all[part],
                     None if s_all is None else s_all[part], tol, nonfinite, None if b_all is None else b_all[part])
    errors = _Errors(tally.max_abs, tally.max_rel, tally.max_ulps)
    if tally.bad:
        raise _mismatch(index, tally, e_all.numel(), tuple(expected.shape), errors)
    if expected.is_floating_point() and tol.rtol > 0:
        _require_close_overall(index, tally, tol, errors, exact is not None)
    if expected.is_floating_point() and tol.bias_ulps is not None:
        errors = replace(errors, bias_ulps=_require_unbiased(index, tally, tol, expected.dtype, errors))
    return errors


def _tally_chunk(tally: _Tally, start: int, got: torch.Tensor, expected: torch.Tensor, exact: torch.Tensor | None,
                 sensitivity: torch.Tensor | None, tol: Tolerance, nonfinite: bool = False,
                 boundary: torch.Tensor | None = None) -> None:
    dtype = expected.dtype
    work = torch.float32 if expected.is_floating_point() and expected.element_size() <= 4 else torch.float64
    g, e = got.to(work), expected.to(work)
    diff = (g - e).abs()  # NaN where either is NaN or both are the same infinity
    finite = torch.isfinite(diff)
    tally.max_abs = max(tally.max_abs, _max(torch.where(finite, diff, 0.0)))
    tally.max_rel = max(tally.max_rel, _max(torch.where(finite & (e != 0), diff / e.abs(), 0.0)))
    if expected.is_floating_point():
        g, e = g.double(), e.double()
        x = exact.double() if exact is not None else None
        close = _close(g, e, x, tol, dtype, sensitivity)
        if nonfinite:
            close |= _either_nan(g, e)
    else:
        close = got == expected
        if boundary is not None:
            close |= boundary
    bad = ~close
    count = int(bad.sum())
    if count and tally.first_bad is None:
        first = int(bad.nonzero()[0])
        tally.first_bad, tally.first_expected, tally.first_got = start + first, e[first].item(), g[first].item()
        if expected.is_floating_point() and x is not None:
            tally.first_exact = x[first].item()
    tally.bad += count
    if expected.is_floating_point() and not count:
        _tally_overall(tally, g, e, x)
        if x is not None:
            _tally_ulps(tally, start, g, e, x, dtype)


def _close(g: torch.Tensor, e: torch.Tensor, x: torch.Tensor | None, tol: Tolerance,
           dtype: torch.dtype, sensitivity: torch.Tensor | None = None) -> torch.Tensor:
    """Which values pass (all in float64): the original's value exactly (NaN for NaN, the same infinity) or within
    the tolerance of it; else, against the exact result ``x``, a finite value within the tolerance plus twice the
    original's own distance (OWN_FACTOR times it; LOSSY_OWN_FACTOR times where the original is more than LOSSY_ULPS ulps
    off: an ill-conditioned spot, e.g. gelu's tanh form in its tail, where kernels lose more digits the same way), plus
    SENSITIVITY_FACTOR times the sensitivity (taken as 0 where the original is not finite: a reference that overflowed
    where the exact result is finite accepts a finite kernel close to the exact result), or, where the exact result is
    within a binade of overflow (or past it), an infinity of its sign. Where the original's own relative error exceeds
    LOST_DIGITS (the tail of gelu's tanh form, where 1 + tanh cancels), the kernel may lose those digits too: |exact| is
    allowed on top (a zero passes, a value of the wrong sign or magnitude does not). Where the original is NaN but the
    exact result finite (an intermediate overflowed: inf - inf, 0 * inf), any value passes: the original gives no answer
    there (normal values never get there; the magnitude sets do, e.g. a layer norm whose squares overflow)."""
    close = (g == e) | (torch.isnan(g) & torch.isnan(e))
    close |= torch.isfinite(g) & torch.isfinite(e) & ((g - e).abs() <= _allowed(e, tol, dtype))
    if x is None:
        return close
    close |= torch.isnan(e) & torch.isfinite(x)  # the original overflowed into NaN: it has no answer to keep
    own = torch.where(torch.isfinite(e) & torch.isfinite(x), (e - x).abs(), 0.0)
    lost = torch.where(own > LOST_DIGITS * x.abs(), x.abs(), 0.0)  # the original kept few digits: so may the kernel
    own = own * torch.where(own > LOSSY_ULPS * ulp(x, dtype), LOSSY_OWN_FACTOR, OWN_FACTOR)
    if sensitivity is not None:
        own = own + SENSITIVITY_FACTOR * sensitivity
    close |= torch.isfinite(g) & torch.isfinite(x) & ((g - x).abs() <= _allowed(x, tol, dtype) + own + lost)
    near_overflow = x.abs() >= torch.finfo(dtype).max / 2
    return close | (torch.isinf(g) & near_overflow & (g.sign() == x.sign()))


def _either_nan(g: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
    """Where the inputs hold infinities or NaNs: NaN and ±inf stand for each other in an output. Which of them a
    non-finite input leads to depends on the order of operations (an interpolation's inf * 0 weight against eager's
    kernel skipping it, a variance's inf - inf, a max that compares before it propagates), and torch.compile's
    decompositions differ from eager's kernels there too. Finite against non-finite, and +inf against -inf, still
    fail."""
    return (torch.isnan(g) & torch.isinf(e)) | (torch.isinf(g) & torch.isnan(e))


def _allowed(reference: torch.Tensor, tol: Tolerance, dtype: torch.dtype) -> torch.Tensor:
    if tol.ulps is None:
        return tol.atol + tol.rtol * reference.abs()
    return tol.atol + tol.ulps * ulp(reference, dtype)


def ulp(values: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The spacing of ``dtype``'s values at each of ``values`` (float64): ``eps * 2**floor(log2 |v|)`` in the normal
    range, the subnormal spacing below it, the top binade's spacing at and past ``max``."""
    info = torch.finfo(dtype)
    magnitude = values.double().abs().clamp(min=info.tiny, max=info.max)
    _, exponent = torch.frexp(magnitude)  # magnitude = m * 2**exponent, 0.5 <= m < 1
    return torch.ldexp(torch.full_like(magnitude, info.eps), exponent - 1)


def _tally_overall(tally: _Tally, g: torch.Tensor, e: torch.Tensor, x: torch.Tensor | None) -> None:
    """Sums of squares for the relative L2 error over the finite values: against the exact result when there is
    one, with the original's own distance from it recorded as an allowance."""
    reference = x if x is not None else e
    finite = torch.isfinite(g) & torch.isfinite(reference) & ~torch.isnan(e)
    if x is not None:
        tally.own_sq += float(torch.where(finite & torch.isfinite(e), e - x, 0.0).norm()) ** 2
    g, reference = torch.where(finite, g, 0.0), torch.where(finite, reference, 0.0)
    tally.diff_sq += float((g - reference).norm()) ** 2
    tally.scale_sq += float(reference.norm()) ** 2
    tally.max_expected = max(tally.max_expected, _max(reference.abs()))
    tally.max_got = max(tally.max_got, _max(g.abs()))


def _tally_ulps(tally: _Tally, start: int, g: torch.Tensor, e: torch.Tensor, x: torch.Tensor,
                dtype: torch.dtype) -> None:
    """Signed errors in ulps at the exact result, in the direction of its magnitude, where all three values are
    finite and the exact result is in the normal range: the largest, and every step-th as a sample for the bias
    test (with the original's own)."""
    info = torch.finfo(dtype)
    usable = torch.isfinite(g) & torch.isfinite(e) & (x.abs() >= info.tiny) & (x.abs() <= info.max)
    units = ulp(x, dtype)
    errors = torch.where(usable, (g - x) * x.sign() / units, 0.0)
    tally.max_ulps = max(tally.max_ulps, _max(errors.abs()))
    sample = usable & (torch.arange(start, start + g.numel()) % tally.step == 0)
    tally.errors.append(errors[sample].float())
    tally.own_errors.append(((e - x) * x.sign() / units)[sample].float())


def _require_unbiased(index: int, tally: _Tally, tol: Tolerance, dtype: torch.dtype, errors: _Errors) -> float:
    """Reject an output whose errors from the exact result lean one way: a constant factor (1 + 1e-3 in float16
    is 1 to 2 ulps, within the element-wise bound) shifts the median signed error; rounding does not.

    The limit is ``bias_ulps`` plus the original's own median signed error plus three standard errors of the
    median (1.25 * spread / sqrt(n), spread = 1.4826 * the median absolute deviation), so that noisy but fair
    errors pass; outputs with fewer than BIAS_MIN_SAMPLES usable values are not tested. Returns the median.
    """
    samples = torch.cat(tally.errors) if tally.errors else torch.empty(0)
    if samples.numel() < BIAS_MIN_SAMPLES:
        return 0.0
    bias = float(samples.median())
    own_bias = float(torch.cat(tally.own_errors).median())
    spread = 1.4826 * float((samples - bias).abs().median())
    limit = tol.bias_ulps + abs(own_bias) + 3.75 * spread / math.sqrt(samples.numel())
    if abs(bias) > limit:
        raise _Rejected(
            "values", f"output {index} is biased",
            f"every element is within the tolerance, but its errors from the exact result lean one way: their "
            f"median is {bias:+.3g} ulps of {str(dtype).removeprefix('torch.')} (limit {limit:.3g}; the original's "
            f"own median error is {own_bias:+.3g} ulps) over {samples.numel()} values, as a constant factor "
            f"of about 1{bias * torch.finfo(dtype).eps * 0.75:+.1e} would give",
            output_index=index, max_abs_error=errors.max_abs, max_rel_error=errors.max_rel,
        )
    return bias


def _mismatch(index: int, tally: _Tally, numel: int, shape: tuple[int, ...], errors: _Errors) -> _Rejected:
    first = _unravel(tally.first_bad, shape)
    expected, got = tally.first_expected, tally.first_got
    note = ""
    if math.isnan(expected) != math.isnan(got):
        note = " (NaN positions must match the reference)"
    elif math.isinf(expected) or math.isinf(got):
        note = " (±inf positions must match the reference)"
    exact = "" if tally.first_exact is None or tally.first_exact == expected else \
        f" (exact result {_fmt(tally.first_exact)})"
    return _Rejected(
        "values", f"output {index} differs at {tally.bad} of {numel} elements",
        f"first at index {first}: expected {_fmt(expected)}{exact}, got {_fmt(got)}{note}; "
        f"max abs error {errors.max_abs:.3g}",
        output_index=index, max_abs_error=errors.max_abs, max_rel_error=errors.max_rel, mismatches=tally.bad,
        first_mismatch=first, expected=expected, got=got,
    )


def _require_close_overall(index: int, tally: _Tally, tol: Tolerance, errors: _Errors, exact: bool) -> None:
    """Reject outputs that pass only because the expected values are below ``atol`` (e.g. zeros).

    A correct kernel's relative L2 error is a few rounding errors; this fails it only when its
    outputs are tiny through cancellation of much larger intermediates. Against the exact result, twice the
    original's own relative error is allowed on top.
    """
    scale = math.sqrt(tally.scale_sq)
    if scale == 0.0:
        return
    relative = math.sqrt(tally.diff_sq) / scale
    allowance = 2 * math.sqrt(tally.own_sq) / scale if exact else 0.0
    limit = NORM_FACTOR * tol.rtol + allowance
    if relative > limit:
        raise _Rejected(
            "values", f"output {index} is wrong as a whole",
            f"every element is within the tolerance of the reference, but the relative L2 error is "
            f"{relative:.3g} (limit {limit:.3g}); expected values reach {tally.max_expected:.3g}, "
            f"got values reach {tally.max_got:.3g}",
            output_index=index, max_abs_error=errors.max_abs, max_rel_error=errors.max_rel,
        )


def _scribble(outputs: tuple[torch.Tensor, ...]) -> None:
    """Fill the reference's outputs with 0xFF bytes (NaN for floats, -1 for integers).

    A candidate that kept a reference output, or is handed its freed memory by the allocator,
    then finds garbage instead of the right answer.
    """
    for tensor in outputs:
        storage = tensor.untyped_storage()
        torch.empty(0, dtype=torch.uint8, device=tensor.device).set_(storage).fill_(0xFF)


def _first(mask: torch.Tensor) -> tuple[int, ...]:
    return _unravel(int(mask.reshape(-1).nonzero()[0]), tuple(mask.shape))


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return tuple(reversed(index))


def _max(tensor: torch.Tensor) -> float:
    return float(tensor.max()) if tensor.numel() else 0.0


def _fmt(value) -> str:
    if isinstance(value, torch.Tensor):
        value = value.item()
    return str(value) if isinstance(value, (bool, int)) else f"{value:.6g}"

