"""Loop forms of ops PyTorch Inductor runs as library calls (its fallbacks), as decompositions into ops it lowers.

Each one computes what eager PyTorch computes on the CPU, for any shape and dtype it accepts, or returns
NotImplemented (Inductor's own handling then applies, and its fallback is refused by name):

- bucketize / searchsorted: torch's binary search itself, step by step (a gather per step), so that boundaries
  that are not sorted or hold NaN give torch's answer too (a count of smaller boundaries would not); unrolled for
  up to 8 times the traced length of the boundaries (longer ones are declined, and run as the original function);
- pow of integer tensors: square-and-multiply over the exponent's bits, with torch's results for negative
  exponents (1 for a base of 1, +-1 for -1, else 0) and two's complement wrap-around;
- scatter_reduce with amax/amin: a dense reduction over the scattered dim of where(index == i, src, identity),
  refused where that costs too much;
- masked_scatter: a gather of the source at the running count of the mask;
- adaptive average pooling: sums over each output's window (per-output start and end), in float32 for the
  narrow types, divided by the window's sizes as torch divides;
- cat of int8/uint8 tensors (which Inductor sends to the library on the CPU): the same cat through int16;
- updates at no positions (index_put, index_copy, index_add, index_fill, scatter with an empty index): a copy of
  the input (Inductor's lowering of an empty index asks for the value range [0, -1] and fails).
"""

from __future__ import annotations

import functools

import torch
from torch.fx.experimental.symbolic_shapes import statically_known_true

from torch_ascendgen.errors import UnsupportedFunction

aten = torch.ops.aten

_INDEX_LIMIT = 0x7FFFFFFF  # the kernels' sizes and indices fit int32 (the host declines larger tensors)
_DENSE_SCATTER_LIMIT = 4096  # longest scattered dim a dense scatter_reduce reduces over
_DENSE_SCATTER_WORK = 1 << 28
_HALF = 1 << 32  # most compares a dense scatter_reduce makes (output elements x scattered dim)


def _hint(size) -> int:
    """A size's value at the traced shapes (a plain int as is)."""
    if isinstance(size, int):
        return size
    node = size.node
    return int(node.shape_env.size_hint(node.expr))


def _steps(length) -> int:
    """How many halvings torch's binary search over ``length`` elements may make. For a size symbol: enough for
    8 times its traced value, the kernel declining longer ones (a guard: those calls run as the original function),
    so that the unrolled search stays short."""
    if isinstance(length, int):
        return length.bit_length()
    steps = min(max(_hint(length).bit_length() + 3, 4), _INDEX_LIMIT.bit_length())
    if steps < _INDEX_LIMIT.bit_length() and not bool(length < (1 << steps)):  # records the guard
        raise UnsupportedFunction(f"its sorted sequence is longer than {(1 << steps) - 1} elements")
    return steps


# ---- bucketize and searchsorted ----------------------------------------------------------------------------


def _search(values: torch.Tensor, boundaries: torch.Tensor, right: bool, sorter: torch.Tensor | None,
            out_int32: bool) -> torch.Tensor:
    """torch's lower/upper bound search of each value in its row of ``boundaries`` (1-D: one row for all)."""
    dtype = torch.int32 if out_int32 else torch.int64
    length = boundaries.shape[-1]
    if length == 0 or values.numel() == 0:
        return torch.zeros(values.shape, dtype=dtype, device=values.device)
    flat = boundaries.reshape(-1)
    order = sorter.reshape(-1) if sorter is not None else None
    if boundaries.dim() > 1:  # each value searches its own row: offsets of the rows, broadcast over the values
        rows = boundaries.numel() // length
        row_start = (torch.arange(rows, dtype=torch.int64, device=values.device) * length).reshape(
            *values.shape[:-1], 1)
    else:
        row_start = torch.zeros((), dtype=torch.int64, device=values.device)
    # the search's interval [start, end) in its row, as one int64 per value with start in the high half: one buffer
    # per step (the row's offset is added where the boundaries are read: it would not fit beside it)
    state = torch.zeros(values.shape, dtype=torch.int64, device=values.device) + length
    for _ in range(_steps(length)):
        state = _realized(state)  # each step reads the last one's interval once (inlined, the steps multiply)
        start, end = torch.bitwise_right_shift(state, 32), torch.bitwise_and(state, _HALF - 1)
        active = start < end
        mid = start + torch.bitwise_right_shift(end - start, 1)
        at = torch.where(active, mid, 0)  # an ended search reads its row's first element, unused
        at = at if order is None else _take(order, at + row_start)
        probe = _take(flat, at + row_start)
        # lower bound: go right while !(boundary >= value); upper bound: while !(boundary > value) (NaN: right)
        further = torch.logical_not(probe > values) if right else torch.logical_not(probe >= values)
        moved = torch.where(further, (mid + 1) * _HALF + end, start * _HALF + mid)
        state = torch.where(active, moved, state)
    return torch.bitwise_right_shift(state, 32).to(dtype)


def _take(flat: torch.Tensor, at: torch.Tensor) -> torch.Tensor:
    """flat[at], elementwise, for an index tensor of any rank (Python's indexing reads a 0-d one as a number)."""
    return aten.index.Tensor(flat, [at])


def _realized(tensor: torch.Tensor) -> torch.Tensor:
    """``tensor`` as a buffer of its own: Inductor computes it once, where its readers would each recompute it."""
    return torch.as_strided(tensor, tensor.shape, tensor.stride())


def _bucketize(values, boundaries, *, out_int32=False, right=False):
    if not isinstance(values, torch.Tensor):
        return NotImplemented
    return _search(values, boundaries, bool(right), None, bool(out_int32))


def _scalar_values(value, boundaries: torch.Tensor) -> torch.Tensor:
    return torch.scalar_tensor(value, dtype=torch.result_type(boundaries, value), device=boundaries.device)


def _bucketize_scalar(value, boundaries, *, out_int32=False, right=False):
    values = _scalar_values(value, boundaries)
    return _search(values, boundaries, bool(right), None, bool(out_int32))


def _searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    right = bool(right) or side == "right"
    if sorted_sequence.dim() > 1 and tuple(sorted_sequence.shape[:-1]) != tuple(values.shape[:-1]):
        return NotImplemented  # torch raises
    return _search(values, sorted_sequence, right, sorter, bool(out_int32))


def _searchsorted_scalar(sorted_sequence, value, *, out_int32=False, right=False, side=None, sorter=None):
    if sorted_sequence.dim() != 1:
        return NotImplemented
    values = _scalar_values(value, sorted_sequence)
    return _search(values, sorted_sequence, bool(right) or side == "right", sorter, bool(out_int32))


# ---- pow of integers ---------------------------------------------------------------------------------------


def _integer_pow(base: torch.Tensor, exponent: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """torch's integer pow: square and multiply over the exponent's bits (wrapping as ``dtype`` wraps); a negative
    exponent gives 1 for a base of 1, -1 or 1 (odd or even exponent) for -1, and 0 for any other base."""
    base, exponent = torch.broadcast_tensors(base.to(dtype), exponent.to(dtype))
    signed = dtype.is_signed
    positive = torch.where(exponent < 0, torch.zeros_like(exponent), exponent) if signed else exponent
    result = torch.ones_like(base)
    square = base
    bits = dtype.itemsize * 8 - (1 if signed else 0)
    for bit in range(bits):  # each step reads the last result and square once (x ** 2 loads x once)
        chosen = torch.bitwise_and(positive, 1 << bit) != 0
        result = result * torch.where(chosen, square, torch.ones_like(square))
        if bit + 1 < bits:
            square = square ** 2
    if not signed:
        return result
    one = torch.ones_like(base)
    odd = torch.bitwise_and(exponent, 1) != 0
    negative = torch.where(base == 1, one, torch.where(base == -1, torch.where(odd, -one, one),
                                                       torch.zeros_like(base)))
    return torch.where(exponent < 0, negative, result)


def _integral(dtype: torch.dtype) -> bool:
    return not dtype.is_floating_point and not dtype.is_complex and dtype != torch.bool


def _pow_tensor_tensor(base, exponent):
    dtype = torch.result_type(base, exponent)
    if not _integral(dtype):
        return NotImplemented
    return _integer_pow(base, exponent, dtype)


def _pow_scalar(base, exponent):
    dtype = torch.result_type(base, exponent)
    if not _integral(dtype):
        return NotImplemented
    return _integer_pow(torch.scalar_tensor(base, dtype=dtype, device=exponent.device), exponent, dtype)


# ---- scatter_reduce with amax / amin -----------------------------------------------------------------------


def _identity(dtype: torch.dtype, reduce: str):
    if dtype.is_floating_point:
        return float("-inf") if reduce == "amax" else float("inf")
    info = torch.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
    if reduce not in ("amax", "amin") or self.dtype == torch.bool or self.dtype.is_complex:
        return NotImplemented
    if self.dim() == 0:
        return _scatter_reduce(self.reshape(1), 0, index.reshape(1), src.reshape(1), reduce,
                               include_self=include_self).reshape(())
    dim = dim % self.dim()
    length = index.shape[dim] if index.dim() else 1
    if index.numel() == 0:
        return self.clone()
    work = _hint(self.numel()) * _hint(length)
    if _hint(length) > _DENSE_SCATTER_LIMIT or work > _DENSE_SCATTER_WORK:
        raise UnsupportedFunction(
            f"it uses scatter_reduce with {reduce!r} over an index of {_hint(length)} along dim {dim} into "
            f"{_hint(self.numel())} elements: the loop form compares every element with every index along that "
            f"dim ({work} compares; it takes at most {_DENSE_SCATTER_LIMIT} along the dim and "
            f"{_DENSE_SCATTER_WORK} in all)")
    index = index.reshape([1] * self.dim()) if index.dim() == 0 else index
    src = src.reshape([1] * self.dim()) if src.dim() == 0 else src
    src = src[tuple(slice(0, size) for size in index.shape)]  # the part of src the index pairs with
    index, src, target = index.movedim(dim, -1), src.movedim(dim, -1), self.movedim(dim, -1)
    for k in range(target.dim() - 1):  # other dims filled up to self's sizes with an index that never hits
        missing = target.shape[k] - index.shape[k]
        if not statically_known_true(missing == 0):
            index = torch.cat([index, index.new_full((*index.shape[:k], missing, *index.shape[k + 1:]), -1)], k)
            src = torch.cat([src, src.new_zeros((*src.shape[:k], missing, *src.shape[k + 1:]))], k)
    slots = torch.arange(target.shape[-1], dtype=index.dtype, device=index.device).unsqueeze(-1)
    hits = index.unsqueeze(-2) == slots  # (..., slot, position along the index)
    candidates = torch.where(hits, src.unsqueeze(-2), _identity(self.dtype, reduce))
    reduced = candidates.amax(-1) if reduce == "amax" else candidates.amin(-1)
    if include_self:  # NaN wins either way, as torch's scatter keeps it
        combined = torch.maximum(target, reduced) if reduce == "amax" else torch.minimum(target, reduced)
    else:  # the reduction of the sources alone where any lands, self elsewhere
        combined = torch.where(hits.any(-1), reduced, target)
    return combined.movedim(-1, dim).contiguous()


# ---- masked_scatter ----------------------------------------------------------------------------------------


def _masked_scatter(self, mask, source):
    shape = torch.broadcast_shapes(self.shape, mask.shape)
    target = self.expand(shape).reshape(-1)
    chosen = mask.expand(shape).reshape(-1)
    if source.numel() == 0:  # nothing to place (torch raises if the mask asks for any)
        return target.clone().reshape(shape)
    position = torch.cumsum(chosen.to(torch.int32), 0) - 1  # the source element each chosen position takes
    position = torch.clamp(position, 0, source.numel() - 1)
    taken = _take(source.reshape(-1), position)
    return torch.where(chosen, taken, target).reshape(shape)


# ---- adaptive average pooling ------------------------------------------------------------------------------


def _windows(size, out: int, device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Each output's window along one dim: (input index of each window position, clamped into the dim; whether
    the position is inside the window; the window's length), as torch's start_index/end_index give it."""
    outputs = torch.arange(out, dtype=torch.int64, device=device)
    start = torch.div(outputs * size, out, rounding_mode="floor")
    end = torch.div((outputs + 1) * size + out - 1, out, rounding_mode="floor")
    widest = (size + 2 * out - 2) // out  # no window is longer
    offsets = torch.arange(widest, dtype=torch.int64, device=device)
    at = start.unsqueeze(-1) + offsets
    inside = at < end.unsqueeze(-1)
    return torch.clamp(at, max=size - 1), inside, end - start


def _adaptive_avg_pool(x: torch.Tensor, output_size) -> torch.Tensor:
    dims = len(output_size)
    if not x.is_floating_point() or x.dim() <= dims or any(o == 0 for o in output_size):
        return NotImplemented
    if any(s == 0 for s in x.shape[-dims:]):
        return NotImplemented  # torch raises
    work = x.to(torch.float32) if x.dtype in (torch.float16, torch.bfloat16) else x
    windows = [_windows(size, int(out), x.device) for size, out in zip(x.shape[-dims:], output_size)]
    # index tensors shaped (o_1, ..., o_d, k_1, ..., k_d), each varying along its own o_i and k_i
    indices, inside = [], None
    for number, (at, mask, _) in enumerate(windows):
        view = [1] * (2 * dims)
        view[number], view[dims + number] = at.shape[0], at.shape[1]
        indices.append(at.reshape(view))
        inside = mask.reshape(view) if inside is None else inside & mask.reshape(view)
    values = work[(Ellipsis, *indices)]
    summed = torch.where(inside, values, torch.zeros((), dtype=work.dtype, device=x.device))
    summed = summed.sum(list(range(-dims, 0)))
    for number, (_, _, length) in enumerate(windows):  # torch divides by each window length in turn
        view = [1] * dims
        view[number] = length.shape[0]
        summed = summed / length.reshape(view).to(work.dtype)
    return summed.to(x.dtype)


def _adaptive_avg_pool2d(x, output_size):
    return _adaptive_avg_pool(x, list(output_size))


def _adaptive_avg_pool3d(x, output_size):
    return _adaptive_avg_pool(x, list(output_size))


# ---- cat of bytes ------------------------------------------------------------------------------------------


def _cat(tensors, dim=0):
    if not tensors or not all(t.dtype in (torch.int8, torch.uint8) for t in tensors):
        return NotImplemented
    dtype = functools.reduce(torch.promote_types, [t.dtype for t in tensors])
    return torch.cat([t.to(torch.int16) for t in tensors], dim).to(dtype)


# ---- updates at no positions --------------------------------------------------------------------------------

# op -> the positions of the arguments that name where it writes (an index tensor, or index_put's list of them)
_UPDATES = {
    aten.index_put.default: (1,), aten.index_copy.default: (2,), aten.index_add.default: (2,),
    aten.index_fill.int_Scalar: (2,), aten.index_fill.int_Tensor: (2,), aten.scatter.src: (2,),
    aten.scatter.value: (2,), aten.scatter_add.default: (2,), aten.scatter_reduce.two: (2,),
}


def _is_empty(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_is_empty(v) for v in value)
    return isinstance(value, torch.Tensor) and statically_known_true(value.numel() == 0)


def _no_positions(op, positions: tuple[int, ...], otherwise):
    """``op`` as a copy of its input where it writes at no position, else ``otherwise`` (the table's own entry)."""
    def decomposition(*args, **kwargs):
        if any(_is_empty(args[i]) for i in positions if i < len(args)):
            return args[0].clone()
        return otherwise(*args, **kwargs) if otherwise is not None else NotImplemented
    return decomposition


def empty_update_decompositions(table: dict) -> dict:
    """Entries for the update ops of ``table`` (the lowering's decompositions so far) that write at no position."""
    return {op: _no_positions(op, positions, table.get(op)) for op, positions in _UPDATES.items()}


def library_call_decompositions() -> dict:
    """The table entries that give loop forms to ops Inductor would run as library calls."""
    return {
        aten.bucketize.Tensor: _bucketize, aten.bucketize.Scalar: _bucketize_scalar,
        aten.searchsorted.Tensor: _searchsorted, aten.searchsorted.Scalar: _searchsorted_scalar,
        aten.pow.Tensor_Tensor: _pow_tensor_tensor, aten.pow.Scalar: _pow_scalar,
        aten.scatter_reduce.two: _scatter_reduce,
        aten.masked_scatter.default: _masked_scatter,
        aten._adaptive_avg_pool2d.default: _adaptive_avg_pool2d,
        aten._adaptive_avg_pool3d.default: _adaptive_avg_pool3d,
        aten.cat.default: _cat,
    }
