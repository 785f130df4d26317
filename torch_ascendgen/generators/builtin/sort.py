"""Sorting, top-k and histograms: the built-in generator's kernels for graphs that are one such op of an input.

A task qualifies when its graph is ``aten.sort`` (``torch.sort``, ``torch.argsort``), ``aten.topk`` or
``aten.histc`` applied to a kernel input, its outputs some of that op's results. Sorts and top-k along any dim
become ``csrc/templates/sort.cpp`` (the vector unit's Sort32/MrgSort, in torch's CPU order among equal values; see
the template's comment), histograms ``csrc/templates/histc.cpp``. ``plan_sort`` says whether a task is one of these
(None when it is not, UnsupportedFunction with the reason when it is but cannot be done); ``sort_candidates``
writes the variants.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import torch
import torch.fx

from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.templates import fill_template
from torch_ascendgen.records import Candidate

VERSION = "builtin-sort-6"
SORT_OPS = frozenset({"aten.sort.default", "aten.sort.stable", "aten.topk.default"})
HISTC_OP = "aten.histc.default"
OPS = SORT_OPS | {HISTC_OP}

_CTYPES = {torch.float32: "float", torch.float16: "half", torch.bfloat16: "bfloat16_t", torch.int64: "int64_t",
           torch.int32: "int32_t", torch.int16: "int16_t", torch.int8: "int8_t", torch.uint8: "uint8_t",
           torch.bool: "uint8_t"}
# int32 and int64 keys are ranked by a radix sort on 16-bit digits first (floats hold the narrower types exactly)
_RADIX_DIGITS = {torch.int64: 4, torch.int32: 2}
_UB_BUDGET = 176 * 1024
_ORDERS = {"stable": "ORDER_STABLE", "unstable": "ORDER_UNSTABLE", "topk": "ORDER_TOPK"}


@dataclass(frozen=True)
class SortPlan:
    """A sort or top-k along one dim: what the template's config region gets."""

    order: str  # "stable", "unstable" or "topk"
    descending: bool  # sort: descending; topk: largest
    k: int  # topk's k, 0 for sorts
    trailing: int  # dims after the sorted one
    strided: bool  # some of them are not size 1: the kernel reads and writes the sorted dim with a stride
    sorted: bool  # topk's sorted (False: std::nth_element's arrangement, as torch leaves it)
    values_out: int | None  # the task output that holds the values, None when not returned
    indices_out: int | None
    dtype: torch.dtype
    source: int  # the input sorted


@dataclass(frozen=True)
class HistcPlan:
    bins: int
    low: float  # the range as float32 values (torch rounds the edges to the input dtype)
    high: float
    source: int  # the input counted


def plan_sort(task: KernelTask) -> SortPlan | HistcPlan | None:
    """The plan when the task's graph is one sort, top-k or histc of an input; None when it is none of these."""
    graph = task.graph.graph
    ops = [node for node in graph.nodes if node.op == "call_function" and str(node.target) in OPS]
    if not ops:
        return None
    node = ops[0]
    computed = [n for n in graph.nodes if n.op == "call_function" and n is not node and not _is_getitem_of(n, node)]
    name = _op_label(node)
    if len(ops) > 1:
        raise UnsupportedFunction(f"it holds {len(ops)} sorts, top-ks or histograms "
                                  f"({', '.join(_op_label(op) for op in ops)}); the built-in generator takes one, of a "
                                  "kernel input")
    if computed:
        other = sorted({str(n.target) for n in computed})
        raise UnsupportedFunction(f"it computes {', '.join(other)} around {name}; the built-in generator takes {name} "
                                  "of a kernel input only (its order among equal values must match torch's, which "
                                  "needs the values as torch has them)")
    source = node.args[0]
    if not isinstance(source, torch.fx.Node) or source.op != "placeholder":
        raise UnsupportedFunction(f"{name} is applied to a computed value, not a kernel input")
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    index = placeholders.index(source)
    if str(node.target) == HISTC_OP:
        return _plan_histc(task, node, task.inputs[index], index)
    return _plan_sort(task, node, task.inputs[index], index)


def _is_getitem_of(node: torch.fx.Node, op: torch.fx.Node) -> bool:
    return getattr(node.target, "__name__", "") == "getitem" and node.args[0] is op


def _op_label(node: torch.fx.Node) -> str:
    return {"aten.sort.default": "torch.sort", "aten.sort.stable": "torch.sort", "aten.topk.default": "torch.topk",
            HISTC_OP: "torch.histc"}[str(node.target)]


def _argument(node: torch.fx.Node, position: int, name: str, default):
    if len(node.args) > position:
        return node.args[position]
    return node.kwargs.get(name, default)


def _plan_sort(task: KernelTask, node: torch.fx.Node, spec, source: int) -> SortPlan:
    target = str(node.target)
    if spec.dtype not in _CTYPES:
        raise UnsupportedFunction(f"it sorts {spec.dtype} values; the built-in generator sorts float32, float16, "
                                  "bfloat16 and the integer types up to 64 bits")
    rank = len(spec.shape)
    if rank == 0:
        raise UnsupportedFunction("it sorts a zero-dimensional tensor")
    if target == "aten.topk.default":
        k = _argument(node, 1, "k", None)
        dim = _argument(node, 2, "dim", -1)
        descending = _argument(node, 3, "largest", True)
        if not isinstance(k, int):
            raise UnsupportedFunction("torch.topk's k is not a constant")
        order = "topk"
    else:
        k = 0
        if target == "aten.sort.stable":
            dim = node.kwargs.get("dim", -1)
            descending = node.kwargs.get("descending", False)
            order = "stable" if node.kwargs.get("stable") else "unstable"
        else:
            dim = _argument(node, 1, "dim", -1)
            descending = _argument(node, 2, "descending", False)
            order = "unstable"
    dim = dim % rank
    trailing = spec.shape[dim + 1:]
    values_out, indices_out = _result_outputs(task, node)
    if order == "unstable" and indices_out is None:
        order = "stable"  # the same values (equal ones are equal): the stable order takes rows of any length
    arranged = order == "topk" and not _argument(node, 4, "sorted", True)
    return SortPlan(order, bool(descending), int(k), len(trailing), any(size != 1 for size in trailing), not arranged,
                    values_out, indices_out, spec.dtype, source)


def _result_outputs(task: KernelTask, node: torch.fx.Node) -> tuple[int | None, int | None]:
    """Which task output is the values and which the indices (None: not returned)."""
    output = next(n for n in task.graph.graph.nodes if n.op == "output")
    leaves = torch.utils._pytree.tree_leaves(output.args[0])
    found: dict[int, int] = {}
    for position, leaf in enumerate(leaves):
        if not (isinstance(leaf, torch.fx.Node) and _is_getitem_of(leaf, node)) or leaf.args[1] in found:
            raise UnsupportedFunction("its outputs are not the sort's values and indices, each once")
        found[leaf.args[1]] = position
    return found.get(0), found.get(1)


def _plan_histc(task: KernelTask, node: torch.fx.Node, spec, source: int) -> HistcPlan:
    if spec.dtype != torch.float32:
        raise UnsupportedFunction(f"torch.histc of {spec.dtype}: the built-in generator counts float32 inputs (torch "
                                  "counts half and bfloat16 inputs in their own type, where counts past 2048 or 256 "
                                  "stop adding up)")
    bins = _argument(node, 1, "bins", 100)
    low = _argument(node, 2, "min", 0)
    high = _argument(node, 3, "max", 0)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (bins, low, high)):
        raise UnsupportedFunction("torch.histc's bins and range are not constants")
    if low == high:
        raise UnsupportedFunction("torch.histc with min == max takes its range from the data (two passes); the "
                                  "built-in generator needs the range given")
    if not (math.isfinite(low) and math.isfinite(high)) or low > high or bins < 1:
        raise UnsupportedFunction("torch.histc's range is not finite and increasing, or bins < 1 (torch raises)")
    low32, high32 = _float32(low), _float32(high)
    if low32 == high32 or math.isinf(_float32(high32 - low32)):
        raise UnsupportedFunction("torch.histc's range is empty or overflows in float32")
    return HistcPlan(int(bins), low32, high32, source)


def _float32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


# ---- candidates ---------------------------------------------------------------------------------------------


def sort_candidates(task: KernelTask, variants: int) -> list[Candidate] | None:
    """Up to ``variants`` candidates when ``task`` is a sort, top-k or histc of an input (None when it is none of
    these); raises UnsupportedFunction with the reason when it is one but the built-in generator cannot do it."""
    plan = plan_sort(task)
    if plan is None:
        return None
    if isinstance(plan, HistcPlan):
        from torch_ascendgen.generators.builtin.histc import histc_candidates

        return histc_candidates(task, plan, variants)
    grid = [(chunk, buffers) for chunk, buffers in ((2048, 2), (1024, 2), (2048, 1), (512, 2))
            if _sort_ub_bytes(plan, chunk, buffers) <= _UB_BUDGET]
    what = {"stable": "stable sort", "unstable": "sort", "topk": f"top-{plan.k}"}[plan.order]
    return [Candidate(_emit_sort(task, plan, chunk, buffers), VERSION,
                      {"template": "sort", "chunk": chunk, "buffers": buffers},
                      f"{what} kernel, {chunk}-element chunks, {buffers} input buffer(s)")
            for chunk, buffers in grid[: max(1, variants)]]


def _sort_ub_bytes(plan: SortPlan, chunk: int, buffers: int) -> int:
    """UB the sort template's InitBuffer calls take (see SortKernel::Init)."""
    size = plan.dtype.itemsize
    span = chunk + 64
    strided = chunk * size + 2 * chunk * 4 if plan.strided else 0  # the stage and the transposing tables
    return ((buffers + 1) * chunk * size + chunk * 8 + (13 * span + 2 * 1024) * 4 + 5 * ((span // 8 + 31) // 32 * 32)
            + 64 * 32 + strided)


def _emit_sort(task: KernelTask, plan: SortPlan, chunk: int, buffers: int) -> str:
    config = [f"constexpr uint32_t CHUNK = {chunk};", f"constexpr int32_t BUFFER_NUM = {buffers};",
              f"constexpr uint32_t ORDER = {_ORDERS[plan.order]};",
              f"constexpr bool DESCENDING = {_cpp_bool(plan.descending)};",
              f"constexpr uint32_t TOPK = {plan.k};",
              f"constexpr bool SORTED = {_cpp_bool(plan.sorted)};",
              f"constexpr bool VALUES_OUT = {_cpp_bool(plan.values_out is not None)};",
              f"constexpr bool INDICES_OUT = {_cpp_bool(plan.indices_out is not None)};",
              f"constexpr int32_t TRAILING = {plan.trailing};",
              f"constexpr bool STRIDED = {_cpp_bool(plan.strided)};",
              f"constexpr int32_t SOURCE = {plan.source};",
              f"constexpr bool CANONICAL_NAN = {_cpp_bool(plan.order == 'topk' and plan.dtype == torch.bfloat16)};",
              f"constexpr uint32_t RADIX_DIGITS = {_RADIX_DIGITS.get(plan.dtype, 0)};",
              *_integer_config(plan.dtype),
              f"constexpr bool RADIX_1D = {_cpp_bool(_radix_1d(plan))};",
              f"using In = {_CTYPES[plan.dtype]};"]
    params, values, indices = _entry(task, plan.values_out, plan.indices_out)
    return fill_template("sort", {"config": "\n".join(config), "entry_params": params,
                                  "entry_args": f"in{plan.source}, {values}, {indices},"})


def _integer_config(dtype: torch.dtype) -> list[str]:
    """INTEGER and the range that values rebuilt from float keys are clamped to (int8, uint8, bool, int16)."""
    integer = not dtype.is_floating_point
    low, high = 0, 0  # floats are not clamped; int32 and int64 values are gathered from the input, never rebuilt
    if dtype == torch.bool:
        low, high = 0, 1
    elif integer and dtype not in _RADIX_DIGITS:
        low, high = torch.iinfo(dtype).min, torch.iinfo(dtype).max
    return [f"constexpr bool INTEGER = {_cpp_bool(integer)};", f"constexpr float INT_LOW = {float(low)!r}f;",
            f"constexpr float INT_HIGH = {float(high)!r}f;"]


def _radix_1d(plan: SortPlan) -> bool:
    """Whether torch would sort a 1-D input of 32768 elements or more by its radix sort (stable): an unstable
    ascending sort of integers, bool excepted (ATen's can_use_radix_sort)."""
    integral = not plan.dtype.is_floating_point and plan.dtype != torch.bool
    return plan.order == "unstable" and integral and not plan.descending


def _cpp_bool(value: bool) -> str:
    return "true" if value else "false"


def _entry(task: KernelTask, values_out: int | None, indices_out: int | None) -> tuple[str, str, str]:
    params = ", ".join([f"GM_ADDR in{i}" for i in range(len(task.inputs))]
                       + [f"GM_ADDR out{i}" for i in range(len(task.outputs))]) + ","
    values = "nullptr" if values_out is None else f"out{values_out}"
    indices = "nullptr" if indices_out is None else f"out{indices_out}"
    return params, values, indices
