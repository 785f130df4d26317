"""Capture: a PyTorch function and example inputs -> a KernelTask (a core-ATen graph and specs).

The function is traced with symbolic shapes, so a dimension of size 1 is kept as 1 (the
broadcast pattern) and every other dimension becomes a symbol; dimensions the computation
requires to be equal share one symbol. The canonical text names inputs, nodes and symbols by
position, so the same computation always gives the same text, whatever the variable names or
sizes. When the trace needs more than equalities between sizes (a reshape that divides a size,
say), the task is specialised to the traced shapes and says so.
"""

from __future__ import annotations

import hashlib
import operator
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import torch
import torch.fx
import torch.fx.experimental._config as fx_config
import torch.utils._pytree as pytree
from torch._decomp import core_aten_decompositions
from torch._subclasses.fake_tensor import FakeTensor
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils._python_dispatch import TorchDispatchMode

from torch_ascendgen.errors import UnsupportedFunction

_DTYPE_NAMES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.float64: "f64",
                torch.int8: "i8", torch.uint8: "u8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
                torch.bool: "bool"}

_CATEGORY_OPS = (
    ("softmax", {"aten._softmax.default", "aten._log_softmax.default"}),
    ("norm", {"aten.native_layer_norm.default", "aten.rsqrt.default", "aten.linalg_vector_norm.default"}),
    ("reduction", {"aten.sum.dim_IntList", "aten.sum.default", "aten.mean.dim", "aten.mean.default",
                   "aten.amax.default", "aten.amin.default", "aten.prod.dim_int", "aten.prod.default",
                   "aten.max.dim", "aten.min.dim", "aten.var.correction", "aten.var_mean.correction"}),
    ("other", {"aten.cumsum.default", "aten.cumprod.default"}),
)


@dataclass(frozen=True)
class TensorSpec:
    """A tensor input or output: dtype and symbolic shape (1, or a symbol like "s0")."""

    dtype: torch.dtype
    shape: tuple[int | str, ...]

    def text(self) -> str:
        return f"{_DTYPE_NAMES.get(self.dtype, str(self.dtype))}[{', '.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class KernelTask:
    """What to compute: the canonical graph, its input and output specs, and its category."""

    name: str
    graph_text: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    category: str  # "elementwise", "reduction", "softmax", "norm" or "other"
    specialized: bool  # True when the graph holds only for the traced shapes
    traced_shapes: tuple[tuple[int, ...], ...]
    graph: torch.fx.GraphModule = field(compare=False, repr=False)
    output_tree: Any = field(compare=False, repr=False)

    @property
    def key(self) -> str:
        """sha256 of what the kernel computes (the graph and the specs); the cache adds the target."""
        text = self.graph_text + ("\nshapes " + repr(self.traced_shapes) if self.specialized else "")
        return hashlib.sha256(text.encode()).hexdigest()

    def portable(self) -> KernelTask:
        """The task without its graph and output tree (they hold the caller's function): what a child needs."""
        return replace(self, graph=None, output_tree=None)


def capture(function: Callable, tensors: list[torch.Tensor], name: str = "") -> KernelTask:
    """Trace ``function(*tensors)`` to core ATen and describe it.

    ``function`` takes only tensors; the caller binds everything else (Python numbers, module
    parameters) beforehand. Raises UnsupportedFunction when the function cannot become a kernel.
    """
    if not tensors:
        raise UnsupportedFunction("it takes no tensor inputs")
    returned = []  # how the function's own result nests: the graph's output is a plain tuple where it returned
                   # a torch.return_types value (torch.sort, torch.topk, Tensor.max(dim))

    def guarded(*flat):
        with _NoRealMutation():
            result = function(*flat)
        returned.append(pytree.tree_structure(result))
        return result

    try:
        with _TRACING, fx_config.patch(use_duck_shape=False):
            graph = make_fx(guarded, decomposition_table=core_aten_decompositions(), tracing_mode="symbolic")(*tensors)
            graph = _functionalized(graph, tensors)
    except UnsupportedFunction:
        raise
    except Exception as exc:  # noqa: BLE001 - any tracing failure means "cannot capture"
        raise UnsupportedFunction(f"it could not be traced to an ATen graph ({type(exc).__name__}: {exc})") from exc
    _check_pure(graph)
    outputs, tree = _outputs(graph)
    if returned and returned[-1].num_leaves == tree.num_leaves:
        tree = returned[-1]
    symbols = _symbol_names(graph)
    _annotate_shapes(graph, symbols)
    inputs = tuple(_spec(node.meta["val"], symbols) for node in _placeholders(graph))
    return KernelTask(
        name=name or getattr(function, "__qualname__", "function"),
        graph_text=_canonical_text(graph, symbols),
        inputs=inputs,
        outputs=tuple(_spec(value, symbols) for value in outputs),
        category=_category(graph),
        specialized=not _only_simple_guards(graph),
        traced_shapes=tuple(tuple(t.shape) for t in tensors),
        graph=graph,
        output_tree=tree,
    )


# make_fx keeps its tracer in module globals (torch.fx's CURRENT_PATCHER among them): two threads tracing
# at once break each other's trace, so traces take turns; generation and search still run in parallel.
_TRACING = threading.Lock()


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
    return make_fx(torch.func.functionalize(graph, remove="mutations"), decomposition_table=core_aten_decompositions(),
                   tracing_mode="symbolic")(*tensors)


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
        schema = getattr(node.target, "_schema", None)
        if node.op == "call_function" and schema is not None and schema.is_mutable:
            raise UnsupportedFunction(
                f"it modifies a tensor in place ({node.target}); functions that mutate their inputs or module "
                "buffers (e.g. BatchNorm in training mode) run as the original"
            )


def _outputs(graph: torch.fx.GraphModule) -> tuple[list, Any]:
    output_node = next(node for node in graph.graph.nodes if node.op == "output")
    leaves, tree = pytree.tree_flatten(output_node.args[0])
    values = []
    for leaf in leaves:
        value = leaf.meta.get("val") if isinstance(leaf, torch.fx.Node) else leaf
        if not isinstance(value, torch.Tensor):
            raise UnsupportedFunction(f"it returns a non-tensor value ({type(value).__name__})")
        if isinstance(leaf, torch.fx.Node) and _aliases_input(leaf):
            raise UnsupportedFunction("it returns one of its inputs (or a view of one) instead of a new tensor")
        values.append(value)
    if not values:
        raise UnsupportedFunction("it returns no tensor")
    return values, tree


def _aliases_input(node: torch.fx.Node) -> bool:
    while node.op == "call_function":
        schema = getattr(node.target, "_schema", None)
        returns_alias = schema is not None and schema.returns and schema.returns[0].alias_info is not None
        if not returns_alias:
            return False
        node = node.args[0]
    return node.op == "placeholder"


def _symbol_names(graph: torch.fx.GraphModule) -> dict[str, str]:
    """Symbols renamed s0, s1, ... in order of first appearance in the inputs' shapes."""
    names: dict[str, str] = {}
    for node in _placeholders(graph):
        for size in node.meta["val"].shape:
            if isinstance(size, torch.SymInt):
                expr = size.node.shape_env.replace(size.node.expr)
                for symbol in sorted(expr.free_symbols, key=str):
                    names.setdefault(str(symbol), f"s{len(names)}")
    return names


def _annotate_shapes(graph: torch.fx.GraphModule, symbols: dict[str, str]) -> None:
    """Every tensor-valued node gets ``meta["shape"]``: its shape in the canonical symbols."""
    for node in graph.graph.nodes:
        value = node.meta.get("val")
        if isinstance(value, torch.Tensor):
            node.meta["shape"] = tuple(_size_text(size, symbols) for size in value.shape)


def _spec(value: torch.Tensor, symbols: dict[str, str]) -> TensorSpec:
    return TensorSpec(value.dtype, tuple(_size_text(size, symbols) for size in value.shape))


def _size_text(size, symbols: dict[str, str]) -> int | str:
    if isinstance(size, torch.SymInt):
        expr = size.node.shape_env.replace(size.node.expr)  # sizes the trace pinned to a number become it
        if expr.is_Integer:
            return int(expr)
        text = str(expr)
        for original in sorted(symbols, key=len, reverse=True):
            text = text.replace(original, symbols[original])
        return text
    return int(size)


def _canonical_text(graph: torch.fx.GraphModule, symbols: dict[str, str]) -> str:
    names: dict[torch.fx.Node, str] = {}
    lines = []
    for node in graph.graph.nodes:
        if node.op == "placeholder":
            names[node] = f"in{len(names)}"
            lines.append(f"{names[node]}: {_spec(node.meta['val'], symbols).text()}")
        elif node.op == "call_function":
            names[node] = f"%{len(names) - len(_placeholders(graph))}"
            args = [_arg_text(a, names, symbols) for a in node.args]
            args += [f"{k}={_arg_text(v, names, symbols)}" for k, v in sorted(node.kwargs.items())]
            lines.append(f"{names[node]} = {_target_name(node.target)}({', '.join(args)})")
        elif node.op == "output":
            lines.append(f"return {_arg_text(node.args[0], names, symbols)}")
        else:
            raise UnsupportedFunction(f"its graph has a {node.op} node, which kernels cannot express")
    return "\n".join(lines)


def _target_name(target) -> str:
    if target is operator.getitem:
        return "getitem"
    return str(target)


def _arg_text(arg, names: dict, symbols: dict[str, str]) -> str:
    if isinstance(arg, torch.fx.Node):
        return names[arg]
    if isinstance(arg, (list, tuple)):
        inner = ", ".join(_arg_text(a, names, symbols) for a in arg)
        return f"[{inner}]" if isinstance(arg, list) else f"({inner})"
    if isinstance(arg, torch.SymInt):
        return str(_size_text(arg, symbols))
    if isinstance(arg, float):
        return repr(arg)
    if isinstance(arg, torch.device):
        return "device"  # kernels are placed by the runtime; the device is part of the target key
    return repr(arg) if not isinstance(arg, torch.dtype) else str(arg)


def _category(graph: torch.fx.GraphModule) -> str:
    targets = {str(node.target) for node in graph.graph.nodes if node.op == "call_function"}
    for category, ops in _CATEGORY_OPS:
        if targets & ops:
            return category
    return "elementwise"


def _only_simple_guards(graph: torch.fx.GraphModule) -> bool:
    """True when the trace assumed nothing about sizes beyond "this size is not 1" and equalities."""
    for node in _placeholders(graph):
        for size in node.meta["val"].shape:
            if isinstance(size, torch.SymInt):
                shape_env = size.node.shape_env
                return all(_simple_guard(guard.expr) for guard in shape_env.guards)
    return True


def _simple_guard(expr) -> bool:
    import sympy

    if isinstance(expr, (sympy.Eq, sympy.Ne)):
        return all(isinstance(side, (sympy.Symbol, sympy.Integer)) for side in expr.args)
    if isinstance(expr, (sympy.GreaterThan, sympy.StrictGreaterThan, sympy.LessThan, sympy.StrictLessThan)):
        return all(isinstance(side, (sympy.Symbol, sympy.Integer)) for side in expr.args)
    return False
