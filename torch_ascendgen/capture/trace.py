"""Tracing: a PyTorch function and example inputs -> a KernelTask.

The function is traced to core ATen with symbolic shapes, so a dimension of size 1 (or 0) is kept as it is (the
broadcast pattern) and every other dimension becomes a symbol; dimensions the computation requires to be equal
share one symbol, and sizes it computes are size text over the symbols ("s0 + s1", "s1 // 2"; sizes.py). What the
trace assumed about the sizes (a reshape that divides a size, a slice that needs room) becomes the task's guards.
Tensors the function makes from literals (``torch.tensor([...])`` in its body) become extra inputs, the task's
constants; one it holds instead of taking (a global) is refused, since its values may change. The canonical text
names inputs, nodes and symbols by position, so the same computation always gives the same text, whatever the
variable names or sizes. Only when a size or a guard cannot be written that way is the task specialised to the
traced shapes. Integer inputs' values are recorded (domains.py), and a computation that treats groups of its
dimensions alike is collapsed to fewer (collapse.py).
"""

from __future__ import annotations

import functools
import logging
import operator
import re
import threading
from collections.abc import Callable
from typing import Any

import sympy
import torch
import torch.fx
import torch.fx.experimental._config as fx_config
import torch.utils._pytree as pytree
from torch._decomp import core_aten_decompositions
from torch._subclasses.fake_tensor import FakeTensor
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils._python_dispatch import TorchDispatchMode

from torch_ascendgen.capture import collapse, domains, sizes
from torch_ascendgen.capture.bags import bag_decompositions
from torch_ascendgen.capture.fake_quant import fake_quant_decompositions
from torch_ascendgen.capture.selection import selection_decompositions
from torch_ascendgen.capture.sized import SIZED_OPS, sized_decompositions
from torch_ascendgen.capture.task import (
    CallPattern,
    KernelTask,
    TensorSpec,
    ValueDomain,
    constant_digest,
    value_domains,
)
from torch_ascendgen.errors import NotExpressible, NothingToCompute, ReturnsViews, UnsupportedFunction

logger = logging.getLogger("torch_ascendgen")

_CATEGORY_OPS = (
    ("matmul", {"aten.mm.default", "aten.bmm.default", "aten.addmm.default"}),
    ("softmax", {"aten._softmax.default", "aten._log_softmax.default"}),
    ("norm", {"aten.native_layer_norm.default", "aten.rsqrt.default", "aten.linalg_vector_norm.default"}),
    ("reduction", {"aten.sum.dim_IntList", "aten.sum.default", "aten.mean.dim", "aten.mean.default",
                   "aten.amax.default", "aten.amin.default", "aten.prod.dim_int", "aten.prod.default",
                   "aten.max.dim", "aten.min.dim", "aten.var.correction", "aten.var_mean.correction"}),
    ("other", {"aten.cumsum.default", "aten.cumprod.default"}),
)


def capture(function: Callable, tensors: list[torch.Tensor], name: str = "", specialize: bool = False) -> KernelTask:
    """Trace ``function(*tensors)`` to core ATen and describe it.

    ``function`` takes only tensors; the caller binds everything else (Python numbers, module
    parameters) beforehand. Raises UnsupportedFunction when the function cannot become a kernel. With
    ``specialize``, the task holds for these tensors' shapes only (its kernel may use them as numbers).
    """
    if not tensors:
        raise UnsupportedFunction("it takes no tensor inputs")
    graph, returned = _traced(function, tensors)
    _check_pure(graph)
    constants = _lift_constants(graph)
    task = _task(graph, tensors, constants, name or getattr(function, "__qualname__", "function"), returned,
                 symbolic=not specialize)
    return task if task.data_dependent else (_collapsed(task) or task)


# make_fx keeps its tracer in module globals (torch.fx's CURRENT_PATCHER among them): two threads tracing
# at once break each other's trace, so traces take turns; generation and search still run in parallel.
_TRACING = threading.Lock()


def _traced(function: Callable, tensors: list[torch.Tensor]) -> tuple[torch.fx.GraphModule, pytree.TreeSpec]:
    """The function's graph, and how its result nests (the graph's output is plain tuples and lists)."""
    returned = []

    def guarded(*flat):
        with _NoRealMutation():
            result = function(*flat)
        returned.append(pytree.tree_flatten(result)[1])
        return result

    try:
        with _TRACING:
            graph = _make_fx(guarded, tensors)
            return _functionalized(graph, tensors), returned[0]
    except UnsupportedFunction:
        raise
    except Exception as exc:  # noqa: BLE001 - any tracing failure means "cannot capture"
        raise UnsupportedFunction(f"it could not be traced to an ATen graph ({type(exc).__name__}: {exc})") from exc


def _make_fx(function: Callable, tensors) -> torch.fx.GraphModule:
    """``function`` traced with symbolic sizes; tensors it holds itself (not among ``tensors``) become get_attr
    constants of the graph. Traced outside any dynamo tracing context (the torch.compile backend captures its
    regions inside one): make_fx would take that context's fake mode, and its guards on our symbols (a view's
    sizes) would land in dynamo's shape environment, which has no source for them."""
    from torch._guards import tracing

    with fx_config.patch(use_duck_shape=False), tracing(None):
        return make_fx(function, decomposition_table=_decompositions(), tracing_mode="symbolic",
                       _allow_non_fake_inputs=True)(*tensors)


@functools.cache
def _decompositions() -> dict:
    """Core ATen's decompositions, with nll_loss's taking the byte targets eager takes (its decomposition gathers
    with them, and gather wants int64), and fake quantization's (fake_quant.py)."""
    table = dict(core_aten_decompositions())
    table.update(fake_quant_decompositions())
    table.update(selection_decompositions())
    table.update(bag_decompositions())
    table.update(sized_decompositions(table))
    for op in (torch.ops.aten.nll_loss_forward.default, torch.ops.aten.nll_loss2d_forward.default):
        if op in table:
            table[op] = _with_int64_target(table[op])
    return table


def _with_int64_target(decomposition: Callable) -> Callable:
    def decomposed(self, target, *args, **kwargs):
        if target.dtype != torch.int64:
            target = target.to(torch.int64)
        return decomposition(self, target, *args, **kwargs)
    return decomposed


class _NoRealMutation(TorchDispatchMode):
    """Stops a trace before it modifies a real tensor the function holds (a module buffer, a global).

    Tracing runs the function on fake inputs, but an in-place op on a real tensor it closes over
    (BatchNorm's running statistics) would run for real: capturing must have no side effects.
    """

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        schema = func._schema
        if schema.is_mutable:
            for argument, value in zip(schema.arguments, list(args) + [kwargs.get(a.name) for a in
                                                                   schema.arguments[len(args):]]):
                written = argument.alias_info is not None and argument.alias_info.is_write
                if written and isinstance(value, torch.Tensor) and not isinstance(value, FakeTensor):
                    raise UnsupportedFunction(
                        f"it modifies a tensor in place ({func}) that it does not take as an input (a module "
                        "buffer or a global, e.g. BatchNorm's running statistics in training mode)"
                    )
        return func(*args, **kwargs)


def _placeholders(graph: torch.fx.GraphModule) -> list[torch.fx.Node]:
    return [node for node in graph.graph.nodes if node.op == "placeholder"]


def _functionalized(graph: torch.fx.GraphModule, tensors: list[torch.Tensor]) -> torch.fx.GraphModule:
    """The graph with its in-place ops on tensors it creates itself rewritten as out-of-place ops.

    Some decompositions write their own intermediates in place (cosine_similarity clamps the norms
    it computed with clamp_min_); tracing the graph again under functionalization rewrites those.
    An in-place op on an input, or on a view of one, is refused here, naming the op.
    """
    mutations = [node for node in graph.graph.nodes if _is_mutation(node)]
    if not mutations:
        return graph
    for node in mutations:
        for value in _written_arguments(node):
            if _base(value).op != "call_function":
                raise UnsupportedFunction(
                    f"it modifies a tensor in place ({node.target}); functions that mutate their inputs or module "
                    "buffers (e.g. BatchNorm in training mode) run as the original"
                )
    return _make_fx(torch.func.functionalize(graph, remove="mutations"), tensors)


def _is_mutation(node: torch.fx.Node) -> bool:
    schema = getattr(node.target, "_schema", None)
    return node.op == "call_function" and schema is not None and schema.is_mutable


def _written_arguments(node: torch.fx.Node) -> list:
    """The node arguments an in-place op writes to (all of its tensor arguments when unsure)."""
    schema = node.target._schema
    values = [*node.args, *(node.kwargs.get(a.name) for a in schema.arguments[len(node.args):])]
    written = [value for argument, value in zip(schema.arguments, values)
               if argument.alias_info is not None and argument.alias_info.is_write]
    nodes = [value for value in (written or values) if isinstance(value, torch.fx.Node)]
    return nodes


def _base(node: torch.fx.Node) -> torch.fx.Node:
    """The node whose memory ``node`` shares: through views and in-place ops back to their source."""
    while node.op == "call_function":
        schema = getattr(node.target, "_schema", None)
        if schema is None or not schema.returns or schema.returns[0].alias_info is None:
            return node
        node = node.args[0]
    return node


def _check_pure(graph: torch.fx.GraphModule) -> None:
    for node in graph.graph.nodes:
        if _is_mutation(node):
            raise UnsupportedFunction(
                f"it modifies a tensor in place ({node.target}); functions that mutate their inputs or module "
                "buffers (e.g. BatchNorm in training mode) run as the original"
            )


# ---- constants ---------------------------------------------------------------------------------------------


def _lift_constants(graph: torch.fx.GraphModule) -> tuple[torch.Tensor, ...]:
    """The tensors the function makes from literals (``torch.tensor([...])`` in its body: get_attr nodes that only
    ``lift_fresh_copy`` reads) turned into placeholders after the inputs, in order of first use; the copies
    ``lift_fresh_copy`` makes are dropped (the graph never writes them). Returns their values (contiguous CPU
    copies). A tensor the function holds (a global, an attribute that is not a registered buffer) is refused: its
    values may change after the capture, and a kernel must see the current ones."""
    last = _placeholders(graph)[-1]
    lifted: dict[str, torch.fx.Node] = {}
    constants = []
    for node in list(graph.graph.nodes):
        if node.op != "get_attr":
            continue
        value = _attribute(graph, node.target)
        if not isinstance(value, torch.Tensor) or isinstance(value, FakeTensor):
            raise UnsupportedFunction(f"its graph holds a {type(value).__name__} ({node.target}), which kernels "
                                      "cannot take as an input")
        if any(user.target is not torch.ops.aten.lift_fresh_copy.default for user in node.users):
            raise UnsupportedFunction(
                f"it uses a tensor it holds (a global, a closure or a module attribute: {list(value.shape)} "
                f"{value.dtype}) rather than takes: its values may change between calls; pass it as an argument, "
                "or register it as a module buffer (register_buffer), so that each call's values reach the kernel")
        if node.target not in lifted:
            with graph.graph.inserting_after(last):
                last = lifted[node.target] = graph.graph.placeholder(f"constant_{len(constants)}")
            constant = value.detach().to("cpu", copy=True).contiguous()
            last.meta["val"] = constant
            constants.append(constant)
        node.replace_all_uses_with(lifted[node.target])
        graph.graph.erase_node(node)
    for node in list(graph.graph.nodes):
        if node.op == "call_function" and node.target is torch.ops.aten.lift_fresh_copy.default \
                and node.args[0] in lifted.values():
            node.replace_all_uses_with(node.args[0])
            graph.graph.erase_node(node)
    for target in lifted:
        _drop_attribute(graph, target)
    if lifted:
        graph.recompile()
    return tuple(constants)


def _attribute(graph: torch.nn.Module, target: str):
    value = graph
    for part in target.split("."):
        value = getattr(value, part)
    return value


def _drop_attribute(graph: torch.nn.Module, target: str) -> None:
    *path, last = target.split(".")
    owner = graph
    for part in path:
        owner = getattr(owner, part)
    if hasattr(owner, last):
        delattr(owner, last)


# ---- the task ------------------------------------------------------------------------------------------------


def _task(graph: torch.fx.GraphModule, tensors: list[torch.Tensor], constants: tuple[torch.Tensor, ...],
          name: str, returned: pytree.TreeSpec, symbolic: bool = True) -> KernelTask:
    """The task at the call's own rank: symbolic where every size and guard can be written as size text, else
    specialised to the traced shapes. ``returned``: how the function's result nests (a torch.return_types tuple,
    say), which the graph's plain tuples lose."""
    outputs, tree = _outputs(graph, constants, returned)
    traced = tuple(tuple(t.shape) for t in tensors) + tuple(tuple(c.shape) for c in constants)
    unbacked = any(str(node.target) in SIZED_OPS for node in graph.graph.nodes)
    try:
        if not symbolic:
            raise NotExpressible("specialized on request")
        described = _Description(graph, symbolic=True, unbacked=unbacked)
        described.check(traced)
    except NotExpressible:
        described = _Description(graph, symbolic=False, unbacked=unbacked)
    inputs, count = described.inputs, len(tensors)
    output_specs = tuple(described.spec(value) for value in outputs)
    return KernelTask(
        name=name, graph_text=_graph_text(described, constants), inputs=inputs, outputs=output_specs,
        category=_category(graph), specialized=not described.symbolic, traced_shapes=traced, graph=graph,
        output_tree=returned if returned.num_leaves == len(outputs) else tree, guards=described.guards,
        data_dependent=unbacked,
        constants=constants, domains=tuple(_domains(graph, tensors, described)) + (None,) * len(constants),
        call=CallPattern(inputs[:count], output_specs, described.guards, tuple(s.shape for s in inputs[:count]),
                         traced[:count]))


def _outputs(graph: torch.fx.GraphModule, constants: tuple[torch.Tensor, ...] = (),
             returned: pytree.TreeSpec | None = None) -> tuple[list, Any]:
    output_node = next(node for node in graph.graph.nodes if node.op == "output")
    leaves, tree = pytree.tree_flatten(output_node.args[0])
    values = []
    for leaf in leaves:
        value = leaf.meta.get("val") if isinstance(leaf, torch.fx.Node) else leaf
        if not isinstance(value, torch.Tensor):
            raise UnsupportedFunction(f"it returns a non-tensor value ({type(value).__name__})")
        values.append(value)
    if not values:
        raise UnsupportedFunction("it returns no tensor")
    views = [isinstance(leaf, torch.fx.Node) and _aliases_input(leaf) for leaf in leaves]
    if all(views):
        raise NothingToCompute("it returns views of its inputs, which eager makes without copying")
    if any(views):
        viewed = tuple(i for i, view in enumerate(views) if view)
        raise ReturnsViews(_views_module(graph, [leaves[i] for i in viewed]), tuple(i for i, v in enumerate(views)
                           if not v), viewed, constants, returned if returned is not None else tree)
    return values, tree


def _views_module(graph: torch.fx.GraphModule, leaves: list[torch.fx.Node]) -> torch.fx.GraphModule:
    """The graph's ops that make ``leaves`` (views of its inputs) alone: a copy returning them, the rest dropped."""
    copy = torch.fx.Graph()
    mapping: dict = {}
    copy.graph_copy(graph.graph, mapping)
    copy.output(tuple(mapping[leaf] for leaf in leaves))
    copy.eliminate_dead_code()
    return torch.fx.GraphModule(graph, copy)


def _aliases_input(node: torch.fx.Node) -> bool:
    while node.op == "call_function":
        schema = getattr(node.target, "_schema", None)
        returns_alias = schema is not None and schema.returns and schema.returns[0].alias_info is not None
        if not returns_alias:
            return False
        node = node.args[0]
    return node.op == "placeholder"


class _Description:
    """The graph in canonical names: its symbols renamed s0, s1, ... in order of first appearance in the inputs'
    shapes, sizes as size text over them (or, not ``symbolic``, as the traced numbers), and its guards.

    Every tensor-valued node gets ``meta["shape"]``: its shape as the task writes it. Raises NotExpressible (when
    ``symbolic``) for a size or guard that size text cannot write, or a symbol no input's size gives.
    """

    def __init__(self, graph: torch.fx.GraphModule, symbolic: bool, unbacked: bool = False):
        self.graph = graph
        self.symbolic = symbolic
        self.unbacked = unbacked  # sizes a data-dependent op makes (u0) are written by their names
        self.shape_env = _shape_env(graph)
        self.names = _symbol_names(graph, self.shape_env) if symbolic else {}
        self.symbols = {name: sympy.Symbol(canonical, integer=True, positive=True)
                        for name, canonical in self.names.items()}
        self.inputs = tuple(self.spec(node.meta["val"]) for node in _placeholders(graph))
        plain = {size for spec in self.inputs for size in spec.shape if isinstance(size, str) and size.isidentifier()}
        if symbolic and plain != set(self.names.values()):
            raise NotExpressible("a size symbol is not the size of any input")
        self.guards = self._guards() if symbolic else ()
        for node in graph.graph.nodes:
            value = node.meta.get("val")
            if isinstance(value, torch.Tensor):
                node.meta["shape"] = self.spec(value).shape

    def spec(self, value: torch.Tensor) -> TensorSpec:
        return TensorSpec(value.dtype, tuple(self.size(size) for size in value.shape))

    def size(self, size) -> int | str:
        if not isinstance(size, torch.SymInt):
            return int(size)
        expr = self.shape_env.replace(size.node.expr)  # sizes the trace pinned to a number become it
        if expr.is_Integer:
            return int(expr)
        if not self.symbolic:
            if size.node.hint is None:
                if self.unbacked:
                    return self.expr_text(expr)
                raise UnsupportedFunction(f"one of its sizes ({expr}) depends on the values of its inputs")
            return int(size.node.hint)
        return self.expr_text(expr)

    def expr_text(self, expr) -> str:
        """``expr`` as size text in the canonical symbols."""
        unknown = [s for s in expr.free_symbols if s.name not in self.symbols and not self._is_unbacked(s)]
        if unknown:
            raise NotExpressible(f"{expr} depends on {unknown[0]}, which no input's size gives (a data-dependent size)")
        symbols = {**self.symbols, **{s.name: s for s in expr.free_symbols if self._is_unbacked(s)}}
        return sizes.size_text(expr.xreplace({s: symbols[s.name] for s in expr.free_symbols}),
                               {v.name: v.name for v in symbols.values()})

    def _data_dependent(self, shape: tuple) -> bool:
        """Whether a written shape holds a size no input gives."""
        known = set(self.names.values())
        return any(isinstance(size, str) and set(re.findall(r"[A-Za-z_]\w*", size)) - known for size in shape)

    def _is_unbacked(self, symbol) -> bool:
        """A size no input gives, in a graph with a data-dependent op (its output sizes: u0, or a fresh symbol)."""
        return self.unbacked and symbol.name not in self.symbols

    def _guards(self) -> tuple[str, ...]:
        """What the trace assumed about the sizes, beyond every symbol being at least 2: its guards and runtime
        asserts (with the replacements it made applied), and the symbols' ranges where a guard narrowed them."""
        if self.shape_env is None:
            return ()
        exprs = [guard.expr for guard in self.shape_env.guards]
        exprs += [a.expr for asserts in self.shape_env.deferred_runtime_asserts.values() for a in asserts]
        texts = set()
        for expr in exprs:
            simplified = self.shape_env.simplify(expr)
            if self.unbacked and any(s.name not in self.symbols for s in simplified.free_symbols):
                continue  # about a data-dependent size: the stages' own ops check it at run time
            if simplified != sympy.true:
                texts.add(self.expr_text(simplified))
        ranges = {symbol.name: bounds for symbol, bounds in self.shape_env.var_to_range.items()}
        for name, symbol in self.symbols.items():
            bounds = ranges.get(name)
            if bounds is not None and bounds.lower.is_Integer and bounds.lower > 2:
                texts.add(f"{symbol.name} >= {int(bounds.lower)}")
            if bounds is not None and bounds.upper.is_Integer:
                texts.add(f"{symbol.name} <= {int(bounds.upper)}")
        return tuple(sorted(texts))

    def check(self, traced: tuple[tuple[int, ...], ...]) -> None:
        """The written sizes and guards agree with the trace at its own shapes (else NotExpressible)."""
        try:
            binding = sizes.bind([spec.shape for spec in self.inputs], traced)
            failed = sizes.failing(self.guards, binding)
            wrong = [node for node in self.graph.graph.nodes if isinstance(node.meta.get("val"), torch.Tensor)
                     and not self._data_dependent(node.meta["shape"]) and not _unhinted(node.meta["val"])
                     and sizes.shape(node.meta["shape"], binding) != tuple(map(_traced_size, node.meta["val"].shape))]
        except ValueError as exc:
            raise NotExpressible(f"its sizes do not evaluate at the traced shapes: {exc}") from None
        if failed is not None or wrong:
            raise NotExpressible(f"guard {failed} or the sizes of {wrong[:1]} disagree with the trace")

    def text_of(self, arg, names: dict) -> str:
        if isinstance(arg, torch.fx.Node):
            return names[arg]
        if isinstance(arg, (list, tuple)):
            inner = ", ".join(self.text_of(a, names) for a in arg)
            return f"[{inner}]" if isinstance(arg, list) else f"({inner})"
        if isinstance(arg, torch.SymInt):
            return str(self.size(arg))
        if isinstance(arg, float):
            return repr(arg)
        if isinstance(arg, torch.device):
            return "device"  # kernels are placed by the runtime; the device is part of the target key
        return repr(arg) if not isinstance(arg, torch.dtype) else str(arg)


def _graph_text(described: _Description, constants: tuple[torch.Tensor, ...]) -> str:
    """The canonical text: inputs (constants with their sha256), one line per op, the outputs, the guards."""
    graph = described.graph
    placeholders = _placeholders(graph)
    first_constant = len(placeholders) - len(constants)
    names: dict[torch.fx.Node, str] = {}
    lines = []
    for node in graph.graph.nodes:
        if node.op == "placeholder":
            index = len(names)
            names[node] = f"in{index}"
            line = f"{names[node]}: {described.spec(node.meta['val']).text()}"
            if index >= first_constant:
                line += f" = constant {constant_digest(constants[index - first_constant])}"
            lines.append(line)
        elif node.op == "call_function":
            names[node] = f"%{len(names) - len(placeholders)}"
            args = [described.text_of(a, names) for a in node.args]
            args += [f"{k}={described.text_of(v, names)}" for k, v in sorted(node.kwargs.items())]
            lines.append(f"{names[node]} = {_target_name(node.target)}({', '.join(args)})")
        elif node.op == "output":
            lines.append(f"return {described.text_of(node.args[0], names)}")
        else:
            raise UnsupportedFunction(f"its graph has a {node.op} node, which kernels cannot express")
    lines += [f"guard: {guard}" for guard in described.guards]
    return "\n".join(lines)


def _target_name(target) -> str:
    """An op's name in the canonical text: ATen ops as torch prints them, size arithmetic as ``operator.mul``,
    ``torch.sym_float``."""
    if target is operator.getitem:
        return "getitem"
    if isinstance(target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return str(target)
    module = getattr(target, "__module__", "") or ""
    if module in ("_operator", "operator"):
        return f"operator.{target.__name__}"
    if module.startswith("torch") and hasattr(target, "__name__"):
        return f"torch.{target.__name__}"
    return str(target)


def _shape_env(graph: torch.fx.GraphModule):
    """The trace's ShapeEnv (None when no size is symbolic)."""
    for node in graph.graph.nodes:
        value = node.meta.get("val")
        sizes_ = value.shape if isinstance(value, torch.Tensor) else [value]
        for size in sizes_:
            if isinstance(size, torch.SymInt):
                return size.node.shape_env
    return None


def _symbol_names(graph: torch.fx.GraphModule, shape_env) -> dict[str, str]:
    """Symbols renamed s0, s1, ... in order of first appearance in the inputs' shapes."""
    names: dict[str, str] = {}
    for node in _placeholders(graph):
        for size in node.meta["val"].shape:
            if isinstance(size, torch.SymInt):
                expr = shape_env.replace(size.node.expr)
                for symbol in sorted(expr.free_symbols, key=str):
                    names.setdefault(str(symbol), f"s{len(names)}")
    return names


def _category(graph: torch.fx.GraphModule) -> str:
    targets = {str(node.target) for node in graph.graph.nodes if node.op == "call_function"}
    for category, ops in _CATEGORY_OPS:
        if targets & ops:
            return category
    return "elementwise"


# ---- collapsing ------------------------------------------------------------------------------------------------


def _domains(graph: torch.fx.GraphModule, tensors: list[torch.Tensor],
             described: _Description) -> list[ValueDomain | None]:
    """Each input's value domain (integer inputs), with the sizes its values index into (when symbolic)."""
    return value_domains(tensors, [domains.index_bounds(node, described.size) if described.symbolic else ()
                                   for node in _placeholders(graph)[:len(tensors)]])


def _collapsed(task: KernelTask) -> KernelTask | None:
    """The task collapsed to fewer dimensions (collapse.py), or None when it stays at its rank."""
    if task.specialized or task.guards:
        return None
    layout = collapse.plan(task)
    if layout is None:
        return None
    try:
        collapse.check(layout)
        return _collapsed_task(task, layout)
    except Exception as exc:  # noqa: BLE001 - collapsing is an optimisation: the task at its rank is right too
        logger.debug("%s stays at rank %d: %s: %s", task.name, len(layout.full), type(exc).__name__, exc)
        return None


def _collapsed_task(task: KernelTask, layout: collapse.Plan) -> KernelTask:
    count = task.argument_count
    binding = sizes.bind([spec.shape for spec in task.call.inputs], task.traced_shapes[:count])
    group_sizes = collapse.example_sizes(layout, binding)
    placeholders = _placeholders(task.graph)
    shapes = [layout.collapsed(node, group_sizes) for node in placeholders]
    examples = [torch.zeros(shape, dtype=node.meta["val"].dtype) for shape, node in zip(shapes[:count], placeholders)]
    constants = tuple(c.reshape(shape) for c, shape in zip(task.constants, shapes[count:]))
    with _TRACING:
        graph = _make_fx(collapse.Replay(layout), [*examples, *constants])
    outputs, _ = _outputs(graph)
    described = _Description(graph, symbolic=True)
    described.check(tuple(shapes))
    if described.guards:
        raise collapse.NotCollapsible(f"the collapsed trace has guards {described.guards}")
    task_inputs = collapse.task_shapes(layout, count)
    traced = tuple(sizes.shape(shape, binding) for shape in task_inputs) + tuple(tuple(c.shape) for c in constants)
    sizes.bind([spec.shape for spec in described.inputs], traced)
    return KernelTask(
        name=task.name, graph_text=_graph_text(described, constants), inputs=described.inputs,
        outputs=tuple(described.spec(value) for value in outputs), category=_category(graph), specialized=False,
        traced_shapes=traced, graph=graph, output_tree=task.output_tree, guards=(), constants=constants,
        domains=task.domains, call=CallPattern(task.call.inputs, task.call.outputs, (), task_inputs, task.call.shapes))


def _unhinted(value: torch.Tensor) -> bool:
    """Whether a size of ``value`` has no value at the traced shapes (a data-dependent op's)."""
    return any(isinstance(size, torch.SymInt) and size.node.hint is None for size in value.shape)


def _traced_size(size) -> int:
    """A node's size at the traced shapes; UnsupportedFunction for one the trace could not know (an unbacked size:
    bincount's, nonzero's)."""
    if not isinstance(size, torch.SymInt):
        return int(size)
    if size.node.hint is None:
        raise UnsupportedFunction(f"one of its sizes ({size.node.expr}) depends on the values of its inputs")
    return int(size.node.hint)
