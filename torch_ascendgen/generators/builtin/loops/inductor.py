"""A captured task -> a loop-level ``Program``, through PyTorch Inductor's graph lowering.

Inductor's lowering (``GraphLowering``: its decompositions and lowerings, with symbolic sizes) turns the ATen graph
into buffers whose bodies load through index expressions: views, slices with steps, concatenation and padding
(loads under a mask), gathers (loads through indirect indices), pooling windows and interpolation become such
bodies. This module runs it and walks each buffer's simplified loop body with an ops handler that records our own
nodes (ir.py); no Inductor code generation is used. The translation is tied to the installed torch (its version is
part of the generator's identity); anything it does not recognise raises UnsupportedFunction with the reason.
"""

from __future__ import annotations

import itertools
import threading
import warnings
import weakref
from collections.abc import Callable
from functools import partial
from unittest.mock import patch

import sympy
import torch

from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.loops.decompositions import roots_of_variances, variance_decompositions
from torch_ascendgen.generators.builtin.loops.ir import (
    Buffer,
    Combine,
    Node,
    Pass,
    Program,
    Region,
    index_vars,
    indirect_symbol,
    reduction_vars,
    size_symbol,
)
from torch_ascendgen.generators.builtin.loops.library_calls import (
    empty_update_decompositions,
    library_call_decompositions,
)

# Inductor keeps its graph, its ops handler and its config in process-wide state: one lowering at a time.
_LOWERING = threading.Lock()
# a task's shape environment -> how many guards it held when the task was first lowered
_GUARDS_BEFORE_LOWERING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_IN_POOLING: list[bool] = []  # not empty while Inductor lowers a max pooling with indices (under _LOWERING)

_OPTIONS = {
    "force_pointwise_cat": True,  # concatenation as a masked load, not a copy kernel per input
    "cpp.fallback_scatter_reduce_sum": False,
    "split_reductions": False,  # one reduction is one pass; the vector code splits it itself
    "comprehensive_padding": False,
    "padding_stride_threshold": 1 << 62,
}

_BOOL_OPS = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not", "logical_xor",
             "isnan", "isinf", "signbit", "and_", "or_", "xor", "not_"}
_FLOAT_RESULT = {"truediv", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "erf", "sin", "cos", "log1p", "expm1",
                 "reciprocal", "erfc", "atan", "asin", "acos", "sinh", "cosh", "tan", "log2", "exp2", "log10",
                 "lgamma", "erfinv", "acosh", "asinh", "atanh", "atan2"}


def program_of(task: KernelTask) -> Program:
    """The task's loop-level program. Raises UnsupportedFunction when Inductor cannot lower it to loops."""
    if task.graph is None:
        raise UnsupportedFunction("the task carries no graph to lower")
    with _LOWERING, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Inductor's advice on its own code generation is not the user's concern
        try:
            return _lower(task)
        except UnsupportedFunction:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure inside Inductor means "not lowered"
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
            raise UnsupportedFunction(f"PyTorch Inductor could not lower it to loops ({type(exc).__name__}: "
                                      f"{first})") from exc


def _lower(task: KernelTask) -> Program:
    from torch._inductor import config, ir, lowering
    from torch._inductor.codegen.common import BackendFeature
    from torch._inductor.decomposition import select_decomp_table
    from torch._inductor.graph import GraphLowering
    from torch._inductor.virtualized import V
    from torch.fx.experimental.proxy_tensor import make_fx

    fakes = [node.meta["val"] for node in task.graph.graph.nodes if node.op == "placeholder"]
    mode = fakes[0].fake_mode
    shape_env = mode.shape_env
    renaming = _SymbolRenaming(fakes)  # before the lowering's guards replace any size symbol by a number
    # the shape environment keeps the guards of every earlier lowering of this task (a second lowering re-derives
    # none of them): the lowering's are all that came after the first lowering began
    guards_before = _GUARDS_BEFORE_LOWERING.setdefault(shape_env, len(shape_env.guards)) if shape_env is not None else 0
    table = {**select_decomp_table(), **variance_decompositions(), **library_call_decompositions()}
    table.update(empty_update_decompositions(table))
    with mode:
        graph_module = make_fx(_flat_outputs(roots_of_variances(task.graph)), decomposition_table=table)(*fakes)
    graph = GraphLowering(graph_module, example_inputs=fakes, shape_env=shape_env)
    features = {BackendFeature.SCAN, BackendFeature.TUPLE_REDUCTION, BackendFeature.PREFER_STORE_LOOP_ORDER}
    graph.has_feature = lambda device, feature: feature in features
    with (V.set_graph_handler(graph), V.set_fake_mode(mode), config.patch(_OPTIONS),
          patch.object(ir.Reduction, "_unroll_reduction_fn",
                       staticmethod(partial(_unrolled_as_eager, ir.Reduction._unroll_reduction_fn))),
          patch.object(lowering, "_max_pool_with_offsets", partial(_pooling, lowering._max_pool_with_offsets))):
        graph.run(*fakes)
        program = _Translation(graph, renaming).program()
    if shape_env is not None:  # what the lowering assumed about the sizes: the host checks it
        new_guards = [renaming(sympy.sympify(guard.expr)) for guard in shape_env.guards[guards_before:]]
        program.guards = list(dict.fromkeys(guard for guard in new_guards if guard is not sympy.true))
    return program


def _flat_outputs(graph_module: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The graph returning its outputs as one flat tuple, in the order the task numbers them (a function may return
    nested lists and tuples, e.g. a list of tensors beside a tensor; Inductor's graph takes a flat sequence)."""
    output = next(node for node in graph_module.graph.nodes if node.op == "output")
    output.args = (tuple(torch.utils._pytree.tree_leaves(output.args[0])),)
    graph_module.recompile()
    return graph_module


def _pooling(max_pool_with_offsets: Callable, *args, **kwargs):
    """Inductor's max pooling with offsets, its argmax windows marked as pooling windows (see _unrolled_as_eager)."""
    _IN_POOLING.append(True)
    try:
        return max_pool_with_offsets(*args, **kwargs)
    finally:
        _IN_POOLING.pop()


def _unrolled_as_eager(unroll: Callable, inner_fn: Callable, reduction_ranges, reduction_type: str,
                       src_dtype: torch.dtype) -> Callable:
    """Inductor's ``Reduction._unroll_reduction_fn`` (``unroll``: a small reduction as one pointwise body, e.g. a
    pooling window), computed as PyTorch computes it: a sum or product of float16/bfloat16 values in float32 (unrolled
    in the narrow type, every partial sum would be rounded to it), and a max pooling window's argmax as its CPU kernel
    takes it (a later NaN replaces an earlier one; torch.argmax keeps the first NaN)."""
    from torch._inductor.virtualized import ops

    if reduction_type == "argmax" and _IN_POOLING and src_dtype.is_floating_point:
        return _pooling_argmax(inner_fn, reduction_ranges)
    if reduction_type not in ("sum", "prod") or src_dtype not in (torch.float16, torch.bfloat16):
        return unroll(inner_fn, reduction_ranges, reduction_type, src_dtype)
    return unroll(lambda index, rindex: ops.to_dtype(inner_fn(index, rindex), torch.float32), reduction_ranges,
                  reduction_type, torch.float32)


def _pooling_argmax(inner_fn: Callable, reduction_ranges) -> Callable:
    """The window's offset of its maximum, walked in order: a value replaces the best so far when it is greater or
    NaN (PyTorch's CPU max pooling: ``val > maxval || isnan(val)``), so ties keep the first, NaNs the last."""
    from torch._inductor import ir
    from torch._inductor.virtualized import V, ops

    ranges = V.graph.sizevars.guard_int_seq(reduction_ranges)
    flat = ir._fixed_indexer(ranges, ir.FlexibleLayout.contiguous_strides(ranges))

    def fn(index):
        best = offset = None
        for rindex in itertools.product(*[range(size) for size in ranges]):
            value = inner_fn(index, [sympy.Integer(r) for r in rindex])
            here = ops.index_expr(flat([sympy.Integer(r) for r in rindex]), torch.int64)
            if best is None:
                best, offset = value, here
                continue
            replaces = ops.logical_or(ops.gt(value, best), ops.ne(value, value))
            best, offset = ops.where(replaces, value, best), ops.where(replaces, here, offset)
        return offset

    return fn


class _Translation:
    """Inductor's lowered graph -> Program."""

    def __init__(self, graph, renaming: _SymbolRenaming):
        self.graph = graph
        self.renaming = renaming
        self.buffers: dict[str, Buffer] = {}
        self.names: dict[str, str] = {}  # Inductor buffer name -> ours

    def program(self) -> Program:
        from torch._inductor import ir

        for number, name in enumerate(self.graph.graph_input_names):
            node = self.graph.graph_inputs[name]
            self._add(name, f"in{number}", node.get_dtype(), node.get_size(), "input")
        computed = []
        for operation in self.graph.operations:
            if isinstance(operation, ir.ComputedBuffer):
                if not _uninitialised(operation):
                    computed.append(operation)
            else:
                raise UnsupportedFunction(f"it uses {_describe(operation)}, which PyTorch Inductor runs as a "
                                          "library call, not as loops")
        for buffer in computed:  # layouts first: every body indexes the buffers it loads by their layouts
            buffer.freeze_layout()
        outputs = self._outputs(computed)
        for buffer in computed:  # an in-place update (index_put, scatter) writes the storage of the buffer it mutates
            mutated = buffer.get_mutation_names()
            if mutated:
                self.names[buffer.get_name()] = self.names.get(mutated[0]) or self._storage(mutated[0], computed)
        passes = [self._pass(buffer) for buffer in computed]
        passes += [self._copy_pass(view, name) for view, name in outputs]
        for buffer in computed:
            self._storage(buffer.get_name(), computed)
        for item in passes:
            for node in item.nodes:
                if node.op in ("load", "store", "store_add", "store_reduction"):
                    node.args = (self.names[node.args[0]], *node.args[1:])
        return Program(dict(self.buffers), passes, dict(self.renaming.sources))

    def _storage(self, inductor_name: str, computed: list) -> str:
        """Our name of a computed buffer's storage: an output's, or a new workspace buffer."""
        if inductor_name not in self.names:
            buffer = next(b for b in computed if b.get_name() == inductor_name)
            self._add(inductor_name, f"ws{len(self.buffers)}", buffer.get_dtype(),
                      [buffer.get_layout().storage_size()], "workspace")
        return self.names[inductor_name]

    def _add(self, inductor_name: str, name: str, dtype: torch.dtype, size, role: str) -> None:
        total = sympy.Integer(1)
        for dim in size:
            total *= self.renaming(sympy.sympify(dim))
        self.names[inductor_name] = name
        self.buffers[name] = Buffer(name, dtype, sympy.expand(total), role)

    def _outputs(self, computed: list) -> list[tuple]:
        """Registers the outputs; returns the ones that need a copy pass (views, non-contiguous layouts)."""
        from torch._inductor import ir

        copies = []
        for number, output in enumerate(self.graph.graph_outputs):
            name = f"out{number}"
            storage = output.data if isinstance(output, (ir.TensorBox,)) else output
            storage = storage.data if isinstance(storage, ir.StorageBox) else storage
            if (isinstance(storage, ir.ComputedBuffer) and storage in computed
                    and storage.get_name() not in self.names and _contiguous(storage.get_layout())):
                self._add(storage.get_name(), name, storage.get_dtype(), storage.get_size(), "output")
            elif isinstance(storage, (ir.ComputedBuffer, ir.ReinterpretView, ir.InputBuffer)):
                copies.append((output, name))
                self._add(name, name, output.get_dtype(), output.get_size(), "output")
            else:
                raise UnsupportedFunction(f"its output {number} is {_describe(storage)}, which has no loop form")
        return copies

    def _pass(self, buffer) -> Pass:
        from torch._inductor import ir

        (sizes, reduction_sizes), body = buffer.simplify_and_reorder()
        data = buffer.data
        kind = "scan" if isinstance(data, ir.Scan) else "reduction" if reduction_sizes else "pointwise"
        if isinstance(data, ir.Sort):
            raise UnsupportedFunction("it sorts, which the loop lowering does not do")
        item = Pass(buffer.get_name(), kind, tuple(self.renaming(sympy.sympify(s)) for s in sizes),
                    tuple(self.renaming(sympy.sympify(s)) for s in reduction_sizes))
        self._record(item, lambda: body(list(index_vars(len(sizes))), list(reduction_vars(len(reduction_sizes)))))
        return item

    def _copy_pass(self, view, name: str) -> Pass:
        loader = view.make_loader()
        sizes = [sympy.sympify(s) for s in view.get_size()]
        item = Pass(name, "pointwise", tuple(self.renaming(s) for s in sizes), ())
        variables = list(index_vars(len(sizes)))
        strides = _contiguous_strides(sizes)

        def body():
            value = loader(variables)
            index = sum((v * s for v, s in zip(variables, strides)), sympy.Integer(0))
            _OpsRecorder.current.store(name, index, value)

        self._record(item, body)
        return item

    def _record(self, item: Pass, body: Callable[[], object]) -> None:
        from torch._inductor.virtualized import V

        recorder = _OpsRecorder(item, self.renaming, self.graph)
        with V.set_ops_handler(recorder):
            previous, _OpsRecorder.current = _OpsRecorder.current, recorder
            try:
                body()
            finally:
                _OpsRecorder.current = previous


def _uninitialised(buffer) -> bool:
    """Whether a computed buffer computes nothing: an empty placeholder (batch norm's reserve), or torch.empty's
    memory, which Inductor gives loop ranges of 0 whatever its size (a copy into it reads only its size)."""
    from torch._inductor import ir

    if sympy.prod(buffer.get_size()) == 0:
        return True
    ranges = getattr(buffer.data, "ranges", None)
    return isinstance(buffer.data, ir.Pointwise) and bool(ranges) and all(r == 0 for r in ranges)


def _contiguous(layout) -> bool:
    from torch._inductor import ir

    if not isinstance(layout, (ir.FixedLayout, ir.FlexibleLayout)) or layout.offset != 0:
        return False
    strides = [_without_unit_max(sympy.sympify(s)) for s in layout.stride]
    return strides == _contiguous_strides(list(layout.size)) or sympy.prod(layout.size) in (0, 1)


def _contiguous_strides(sizes: list) -> list:
    strides, running = [], sympy.Integer(1)
    for size in reversed(sizes):
        strides.append(running)
        running = running * size
    return list(reversed(strides))


def _describe(operation) -> str:
    kernel = getattr(operation, "python_kernel_name", None) or getattr(operation, "op_overload", None)
    return str(kernel) if kernel else type(operation).__name__


class _SymbolRenaming:
    """Inductor's size symbols (the shape environment's s75, ...) -> s0, s1, ... in the order the inputs' dims
    first show them; ``sources`` says where the host reads each one."""

    def __init__(self, fakes: list):
        self.mapping: dict[sympy.Symbol, sympy.Symbol] = {}
        self.sources: dict[sympy.Symbol, tuple[int, int]] = {}
        for number, fake in enumerate(fakes):
            for dim, size in enumerate(fake.shape):
                expr = size.node._expr if isinstance(size, torch.SymInt) else None
                if isinstance(expr, sympy.Symbol) and expr not in self.mapping:
                    ours = size_symbol(len(self.mapping))
                    self.mapping[expr] = ours
                    self.sources[ours] = (number, dim)

    def __call__(self, expr):
        if not hasattr(expr, "free_symbols"):
            return expr
        unknown = [s for s in expr.free_symbols if s not in self.mapping and not _loop_variable(s)]
        if unknown:
            raise UnsupportedFunction(f"its sizes depend on {sorted(map(str, unknown))}, which no input dim gives")
        return _without_unit_max(_without_identity(expr.xreplace(self.mapping)))


def _without_identity(expr):
    """Identity(x) -> x: Inductor wraps indices in Identity to keep sympy from reordering them; slopes need x."""
    from torch.utils._sympy.functions import Identity

    return expr.replace(lambda e: isinstance(e, Identity), lambda e: e.args[0]) if expr.has(Identity) else expr


def _without_unit_max(expr):
    """Max(1, n) -> n: Inductor's strides guard against empty dims, and kernels never run on empty tensors."""
    from torch.utils._sympy.functions import Max

    return expr.replace(lambda e: isinstance(e, (sympy.Max, Max)) and sympy.Integer(1) in e.args,
                        lambda e: type(e)(*[a for a in e.args if a != 1]) if len(e.args) > 2
                        else next(a for a in e.args if a != 1))


def _loop_variable(symbol: sympy.Symbol) -> bool:
    """x0.., r0.. and t0..: the index variables this module gives the loop bodies, and indirect indices."""
    return symbol.name[:1] in ("x", "r", "t") and symbol.name[1:].isdigit()


class _OpsRecorder:
    """An Inductor ops handler that records the body as our Nodes (in the pass), computing each one's dtype."""

    current: _OpsRecorder | None = None

    def __init__(self, item: Pass, renaming: _SymbolRenaming, graph):
        self.item = item
        self.rename = renaming
        self.graph = graph
        self.region = 0
        self.indirect: dict[sympy.Symbol, Node] = {}

    def _node(self, op: str, args: tuple, dtype: torch.dtype | None) -> Node:
        args = tuple(getattr(a, "value", a) if type(a).__name__ == "OpsValue" else a for a in args)
        node = Node(len(self.item.nodes), op, args, dtype, self.region)
        self.item.nodes.append(node)
        return node

    def _index(self, index) -> sympy.Expr:
        return self.rename(sympy.sympify(index))

    # -- memory
    def load(self, name: str, index) -> Node:
        return self._node("load", (name, self._index(index)), self.graph.get_dtype(name))

    def store(self, name: str, index, value, mode=None) -> Node:
        if mode not in (None, "atomic_add"):
            raise UnsupportedFunction(f"it stores with mode {mode!r} (an accumulating scatter)")
        return self._node("store_add" if mode else "store", (name, self._index(index), value), None)

    def store_reduction(self, name: str, index, value) -> Node:
        return self._node("store_reduction", (name, self._index(index), value), None)

    # -- values
    def constant(self, value, dtype: torch.dtype) -> Node:
        return self._node("constant", (value,), dtype)

    def index_expr(self, expr, dtype: torch.dtype) -> Node:
        return self._node("index_expr", (self._index(expr),), dtype)

    value_expr = index_expr

    def to_dtype(self, x: Node, dtype: torch.dtype, src_dtype=None, use_compute_types=True) -> Node:
        return self._node("to_dtype", (x, dtype), dtype)

    def to_dtype_bitcast(self, x: Node, dtype: torch.dtype, src_dtype=None) -> Node:
        return self._node("to_dtype_bitcast", (x, dtype), dtype)

    def indirect_indexing(self, value: Node, size, check=True, wrap_neg=True) -> sympy.Symbol:
        symbol = indirect_symbol(len(self.indirect))
        self.indirect[symbol] = self._node("indirect", (value, self._index(size), bool(check), bool(wrap_neg)),
                                           torch.int64)
        return symbol

    def check_bounds(self, index, size, lower, upper) -> None:
        return None  # every indirect index is checked where it is used

    def masked(self, mask: Node, body: Callable[[], Node], other) -> Node:
        number = len(self.item.regions) + 1
        self.item.regions[number] = Region(number, mask, self.region)
        outer, self.region = self.region, number
        try:
            value = body()
        finally:
            self.region = outer
        return self._node("masked", (mask, number, value, other), value.dtype)

    def reduction(self, dtype, src_dtype, reduction_type: str, value):
        if reduction_type in ("welford_reduce", "welford_combine"):
            node = self._node("reduction", (reduction_type, value), dtype)
            return tuple(self._node("getitem", (node, i), dtype) for i in range(3))
        return self._node("reduction", (reduction_type, value), dtype)

    def scan(self, dtypes, combine_fn, values):
        kind = _scan_kind(combine_fn, len(values))
        if kind == "add" and dtypes[0] in (torch.float16, torch.bfloat16):
            kind = None  # summed in float and rounded at every step, as PyTorch's CPU cumsum of half types
        if kind is None:  # a combination of several ops: recorded, evaluated step by step on the scalar unit
            kind = _combine_of(combine_fn, dtypes, self.rename, self.graph)
        node = self._node("scan", (kind, *values), dtypes[0])
        return tuple(self._node("getitem", (node, i), dtypes[i]) for i in range(len(values)))

    def sort(self, *args, **kwargs):
        raise UnsupportedFunction("it sorts, which the loop lowering does not do")

    def bucketize(self, *args, **kwargs):
        raise UnsupportedFunction("it uses bucketize, which the loop lowering does not do")

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)

        def op(*args, **kwargs):
            if kwargs:
                raise UnsupportedFunction(f"the loop lowering does not know ops.{name} with keyword arguments")
            return self._node(name, args, _result_dtype(name, args))

        return op


def _result_dtype(name: str, args: tuple) -> torch.dtype:
    tensors = [a.dtype for a in args if isinstance(a, Node) and a.dtype is not None]
    if name in _BOOL_OPS:
        return torch.bool
    if name == "where":
        tensors = [a.dtype for a in args[1:] if isinstance(a, Node)]
    if not tensors:
        raise UnsupportedFunction(f"the loop lowering cannot tell the dtype of ops.{name}")
    dtype = tensors[0]
    for other in tensors[1:]:
        dtype = torch.promote_types(dtype, other)
    if name in _FLOAT_RESULT and not dtype.is_floating_point:
        return torch.float32
    return dtype


class _Placeholder:
    def __init__(self, name):
        self.name = name


class _CombineProbe:
    """Finds which binary op a scan's combine function applies."""

    def __init__(self):
        self.ops: list[str] = []

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)

        def op(*args, **kwargs):
            self.ops.append(name)
            return _Placeholder(name)

        return op


def _scan_kind(combine_fn, count: int) -> str | None:
    """"add", "maximum" or "minimum" for a running sum, maximum or minimum of one value; None otherwise."""
    from torch._inductor.virtualized import V

    probe = _CombineProbe()
    with V.set_ops_handler(probe):
        combine_fn(tuple(_Placeholder(f"a{i}") for i in range(count)), tuple(_Placeholder(f"b{i}")
                                                                           for i in range(count)))
    if count == 1 and probe.ops in (["add"], ["maximum"], ["minimum"]):
        return probe.ops[0]
    return None


def _combine_of(combine_fn, dtypes, renaming: _SymbolRenaming, graph) -> Combine:
    """The combine function's ops, recorded as Nodes over placeholders for the state so far and the next values."""
    from torch._inductor.virtualized import V

    scratch = Pass("combine", "pointwise", (), ())
    carry = tuple(Node(i, "carry", (i,), dtype) for i, dtype in enumerate(dtypes))
    step = tuple(Node(len(dtypes) + i, "step", (i,), dtype) for i, dtype in enumerate(dtypes))
    scratch.nodes.extend((*carry, *step))
    recorder = _OpsRecorder(scratch, renaming, graph)
    with V.set_ops_handler(recorder):
        results = combine_fn(carry, step)
    results = tuple(getattr(r, "value", r) if type(r).__name__ == "OpsValue" else r for r in results)
    if scratch.regions or any(n.op in ("load", "store", "indirect", "masked", "scan", "reduction")
                              for n in scratch.nodes):
        raise UnsupportedFunction("its scan's combine function reads memory or nests regions, which the loop "
                                  "lowering does not do")
    return Combine(carry, step, tuple(scratch.nodes[2 * len(dtypes):]), results)
