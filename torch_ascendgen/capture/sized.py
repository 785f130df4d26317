"""Ops whose result's size depends on their input's values, written as that size and the op given it.

``nonzero`` (and boolean-mask indexing, which capture writes through it), ``bincount``, ``repeat_interleave``
by a tensor of counts and ``unique_consecutive`` cannot be one kernel with shapes known at launch: their length
is a value the inputs hold. Each becomes two functions of plain torch ops that the loop lowering takes:

- ``size``: the inputs -> an int64 vector ``[length, lowest]``, a kernel whose result the host reads (eager's
  ``nonzero`` synchronises the same way); ``lowest`` is the smallest value the op requires to be >= 0 (bincount's
  values, repeat_interleave's counts; 0 where nothing is required) — below 0, torch's own op runs and raises;
- ``given``: the inputs and a *length carrier* (a uint8 tensor whose size is the length; its values are never
  read) -> the op's results, as gathers through a binary search of a running count: the kernel is shape-generic
  in the length.

Stages (stages.py) cut a graph at these ops and dispatch runs each as its size kernel, then its given kernel.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.fx

from torch_ascendgen.errors import UnsupportedFunction

aten = torch.ops.aten

SIZED_OPS = frozenset({"aten.nonzero.default", "aten.bincount.default", "aten.repeat_interleave.Tensor",
                       "aten.unique_consecutive.default"})
_DENSE_BINCOUNT_WORK = 1 << 27  # most compares a bincount makes (values x bins): its kernel is a dense reduction


@dataclass(frozen=True)
class SizedOp:
    """One data-dependent op of a graph: ``size`` and ``given`` take the op's tensor arguments (``given`` the
    length carrier after them); ``empty_length`` is the length when the source is empty (no kernel needed)."""

    name: str
    size: Callable[..., torch.Tensor]
    given: Callable[..., object]
    empty_length: int
    source: int  # the argument whose emptiness decides empty_length


def sized_op(node: torch.fx.Node) -> SizedOp:
    """The size and given forms of ``node`` (one of SIZED_OPS); UnsupportedFunction for a form not written here."""
    target = str(node.target)
    args = [_value(a) for a in node.args]
    if target == "aten.nonzero.default":
        return SizedOp("nonzero", _nonzero_size, _nonzero_given, 0, 0)
    if target == "aten.bincount.default":
        return _bincount(node)
    if target == "aten.repeat_interleave.Tensor":
        return SizedOp("repeat_interleave", _repeats_size, _repeats_given, 0, 0)
    if target == "aten.unique_consecutive.default":
        return _unique_consecutive(node, args)
    raise UnsupportedFunction(f"{target} has a size that depends on values and no sized form")


def tensor_values(args: tuple, kwargs: dict) -> list[torch.Tensor]:
    """An op call's tensor arguments, in order: what ``size`` and ``given`` take."""
    return [a for a in [*args, *kwargs.values()] if isinstance(a, torch.Tensor)]


def _value(arg):
    return arg.meta.get("val") if isinstance(arg, torch.fx.Node) else arg


def _kth_true(running: torch.Tensor, length: int) -> torch.Tensor:
    """Where each of the first ``length`` groups starts: the first position whose running count reaches k (k from
    1), by torch's binary search over the non-decreasing count."""
    wanted = torch.arange(1, length + 1, device=running.device, dtype=running.dtype)
    return torch.searchsorted(running, wanted)


# ---- nonzero -------------------------------------------------------------------------------------------------


def _nonzero_size(x: torch.Tensor) -> torch.Tensor:
    count = (x != 0).sum(dtype=torch.int64)
    return torch.stack([count, torch.zeros_like(count)])


def _nonzero_given(x: torch.Tensor, carrier: torch.Tensor) -> torch.Tensor:
    length = carrier.shape[0]
    if x.dim() == 0:
        return torch.zeros(length, 0, dtype=torch.int64, device=x.device)
    running = torch.cumsum((x != 0).reshape(-1).to(torch.int64), 0)
    flat = _kth_true(running, length).clamp(max=x.numel() - 1)
    coords = []
    stride = 1
    for size in reversed(x.shape):
        coords.append(torch.div(flat, stride, rounding_mode="floor") % size)
        stride = stride * size
    return torch.stack(coords[::-1], dim=1)


# ---- bincount ------------------------------------------------------------------------------------------------


def _bincount(node: torch.fx.Node) -> SizedOp:
    x = _value(node.args[0])
    weights = node.args[1] if len(node.args) > 1 else node.kwargs.get("weights")
    minlength = node.args[2] if len(node.args) > 2 else node.kwargs.get("minlength", 0)
    if x.dim() != 1:
        raise UnsupportedFunction("bincount of a tensor that is not 1-D (torch refuses it)")
    minlength = int(minlength or 0)

    def size(x: torch.Tensor, *rest: torch.Tensor) -> torch.Tensor:
        return torch.stack([(x.max() + 1).clamp(min=minlength).to(torch.int64), x.min().to(torch.int64)])

    def given(x: torch.Tensor, *rest: torch.Tensor) -> torch.Tensor:
        carrier = rest[-1]
        bins = carrier.shape[0]
        if x.shape[0] * bins > _DENSE_BINCOUNT_WORK:
            raise UnsupportedFunction(f"its bincount of {x.shape[0]} values into {bins} bins takes more compares "
                                      f"than the built-in generator's dense count does ({_DENSE_BINCOUNT_WORK})")
        hits = x.unsqueeze(1) == torch.arange(bins, device=x.device, dtype=x.dtype)
        if len(rest) == 1 or x.numel() == 0:  # torch counts no values as int64 zeros, weighted or not
            return hits.sum(0, dtype=torch.int64)
        w = rest[0]
        out_dtype = w.dtype if w.dtype == torch.float32 else torch.float64
        return torch.where(hits, w.to(out_dtype).unsqueeze(1), 0).sum(0)

    return SizedOp("bincount" if weights is None else "weighted bincount", size, given, minlength, 0)


# ---- repeat_interleave by counts -----------------------------------------------------------------------------


def _repeats_size(repeats: torch.Tensor) -> torch.Tensor:
    return torch.stack([repeats.sum(dtype=torch.int64), repeats.min().to(torch.int64)])


def _repeats_given(repeats: torch.Tensor, carrier: torch.Tensor) -> torch.Tensor:
    running = torch.cumsum(repeats.to(torch.int64), 0)
    wanted = torch.arange(carrier.shape[0], device=repeats.device, dtype=torch.int64)
    return torch.searchsorted(running, wanted, right=True).clamp(max=repeats.shape[0] - 1)


# ---- unique_consecutive --------------------------------------------------------------------------------------


def _unique_consecutive(node: torch.fx.Node, args: list) -> SizedOp:
    x = args[0]
    return_inverse = bool(args[1]) if len(args) > 1 else False
    return_counts = bool(args[2]) if len(args) > 2 else False
    dim = args[3] if len(args) > 3 else None
    if dim is not None and not (x.dim() == 1 and dim in (0, -1)):
        raise UnsupportedFunction("unique_consecutive along a dim of a tensor that is not 1-D (rows compared whole)")

    def changes(flat: torch.Tensor) -> torch.Tensor:
        first = torch.ones(1, dtype=torch.bool, device=flat.device)
        return torch.cat([first, flat[1:] != flat[:-1]])

    def size(x: torch.Tensor) -> torch.Tensor:
        count = changes(x.reshape(-1)).sum(dtype=torch.int64)
        return torch.stack([count, torch.zeros_like(count)])

    def given(x: torch.Tensor, carrier: torch.Tensor):
        flat = x.reshape(-1)
        length = carrier.shape[0]
        running = torch.cumsum(changes(flat).to(torch.int64), 0)
        starts = _kth_true(running, length).clamp(max=flat.shape[0] - 1)
        ends = torch.cat([starts[1:], torch.full((1,), flat.shape[0], dtype=torch.int64, device=x.device)])
        inverse = (running - 1).reshape(x.shape) if return_inverse else torch.zeros(0, dtype=torch.int64)
        counts = ends - starts if return_counts else torch.zeros(0, dtype=torch.int64)
        return flat[starts], inverse, counts

    return SizedOp("unique_consecutive", size, given, 0, 0)


def empty_source(op: SizedOp, tensors: list[torch.Tensor]) -> bool:
    return math.prod(tensors[op.source].shape) == 0


# ---- boolean masks as indices ----------------------------------------------------------------------------------


def sized_decompositions(table: dict) -> dict:
    """Capture's entries for data-dependent ops: ``x[mask]`` (aten.index with a bool or uint8 index) as ATen itself
    computes it, the mask's nonzero coordinates, one index tensor per masked dim (other indexing as ``table``, or the
    tracer, has it); unique_consecutive of a 1-D tensor along its dim as without a dim (the same result: torch's
    meta function gives the dim form a wrong rank)."""
    otherwise = table.get(aten.index.Tensor)

    def index(x: torch.Tensor, indices):
        if not any(i is not None and i.dtype in (torch.bool, torch.uint8) for i in indices):
            return otherwise(x, indices) if otherwise is not None else NotImplemented
        expanded: list = []
        for i in indices:
            if i is not None and i.dtype in (torch.bool, torch.uint8):
                coords = torch.nonzero(i)
                expanded.extend(coords.select(1, d) for d in range(i.dim()))
            else:
                expanded.append(i)
        return aten.index.Tensor(x, expanded)

    def unique_consecutive(x: torch.Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None):
        if dim is None or x.dim() != 1 or dim not in (0, -1):
            return NotImplemented
        return aten.unique_consecutive.default(x, return_inverse, return_counts, None)

    return {aten.index.Tensor: index, aten.unique_consecutive.default: unique_consecutive}
