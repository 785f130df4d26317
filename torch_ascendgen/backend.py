"""The ``torch.compile`` backend: ``torch.compile(model, backend="ascendgen", options={...})``.

Each graph dynamo hands over goes one way:

    dynamo graph ──► aot_autograd (inference) ──► core-ATen graph ──► regions ──► kernels / eager
                     (functionalized, the same                        (partition)   (the decorator's
                      decompositions as capture)                                     pipeline and cache)

- Graphs that need autograd (an input requires grad while grad is enabled) run unchanged, with a
  log line: kernels are inference-only until backward kernels exist.
- Partitioning (``partition``): ops the built-in generator lowers (elementwise, reductions, softmax,
  norms, losses) are grown greedily into regions along producer -> consumer edges, as long as a region
  keeps one reduction domain and shapes the templates take (full, per-row, whole-row, one-element), and
  never so that a region would both feed and depend on an eager op. ``addmm`` is split into ``mm`` and
  a bias add, so the bias joins the elementwise work after a Linear. Views, matmuls, attention's bmm
  and everything else stay eager. Regions with fewer than ``min_region_ops`` ops stay eager.
- Each region is a small ATen function; it is captured with capture.capture (the decorator's capture),
  so the same computation has the same cache key whichever way it arrives, and compiled with
  pipeline.compile_task. A region that gets no verified kernel stays eager, with one log line.
- At run time a region runs its kernel on shapes it has passed verification at; a new shape is verified
  first (shape-generic kernels), a new rank or broadcast pattern is captured and compiled again, and
  anything else runs the region's ATen ops eagerly. Results are never wrong.
- A report per graph (``last_report()``, printed with ``options={"report": True}``): which regions became
  kernels, which stayed eager and why, and each region's estimated NPU time against eager's.
"""

from __future__ import annotations

import copy
import itertools
import logging
import operator
import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.fx
from torch.fx.passes.utils.fuser_utils import fuse_as_graphmodule, fuse_by_partitions, topo_sort

from . import config, guard
from .capture import capture
from .errors import AscendGenError, AscendGenWarning, UnsupportedFunction
from .builtin_generator import lowered_ops, reduction_ops
from .pipeline import CompiledKernel, Options, compile_task, verify_shape
from .runtime import kernel_op
from .target import Target, resolve_target

logger = logging.getLogger("torch_ascendgen")

# An eager op is a kernel launch too, priced with the simulator cost model's own assumptions (cost_model.h), so a
# region's kernel and its eager ops are compared on one scale: the launch, one block dispatched per 16 KB of its
# result (up to the vector cores), one GM read latency, and its bytes at the HBM bandwidth. Its compute is not
# counted: the estimate is a lower bound, and a kernel must beat it.
EAGER_LAUNCH_NS = 3000.0
EAGER_BLOCK_DISPATCH_NS = 40.0
EAGER_BLOCK_BYTES = 16 * 1024
GM_READ_LATENCY_CYCLES = 900.0
REGION_PREFIX = "ascendgen_region_"

# The options torch.compile(..., options={...}) takes: the decorator's, plus the backend's own two.
DECORATOR_OPTIONS = ("variants", "target", "generator", "rtol", "atol", "strict", "cache_dir", "soc", "progress",
                     "llm_url", "llm_model")
BACKEND_OPTIONS = ("min_region_ops", "report")

_FLOAT_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
_FREE_OPS = {"getitem", "aten.expand.default", "aten.clone.default"}  # no data moved in eager, no region op


@dataclass(frozen=True)
class BackendSettings:
    """What torch.compile's ``options`` asked for: the pipeline's Options and the backend's own."""

    options: Options = field(default_factory=Options)
    min_region_ops: int = field(default_factory=config.min_region_ops)
    report: bool = field(default_factory=config.compile_report)


def parse_options(options: dict | None) -> BackendSettings:
    """``options`` as the decorator reads its keyword arguments (unset ones from the environment, config.py).
    Raises ValueError naming any unknown option and the known ones."""
    given = dict(options or {})
    unknown = sorted(set(given) - set(DECORATOR_OPTIONS) - set(BACKEND_OPTIONS))
    if unknown:
        raise ValueError(f"torch_ascendgen backend: unknown option(s) {', '.join(map(repr, unknown))}; it takes "
                         f"{', '.join(DECORATOR_OPTIONS + BACKEND_OPTIONS)}")
    try:
        pipeline = Options.from_arguments(**{name: given[name] for name in DECORATOR_OPTIONS if name in given})
    except ValueError as exc:
        raise ValueError(f"torch_ascendgen backend: {exc}") from None
    minimum = int(given["min_region_ops"]) if given.get("min_region_ops") is not None else config.min_region_ops()
    if minimum < 1:
        raise ValueError(f"torch_ascendgen backend: min_region_ops must be at least 1, not {minimum}")
    report = bool(given["report"]) if given.get("report") is not None else config.compile_report()
    return BackendSettings(pipeline, minimum, report)


# ---- the report ----------------------------------------------------------------------------------------


@dataclass
class RegionReport:
    """One region of a graph: its ops, whether it runs as a kernel, and the estimated times."""

    name: str
    ops: list[str]
    kernel: bool
    reason: str = ""  # why it stayed eager
    origin: str = ""  # "cache", "seed" or "search" (kernels)
    key: str = ""  # the task key (capture.KernelTask.key)
    kernel_ns: float | None = None  # the simulator's estimate at the graph's shapes (NPU: the entry's timing)
    eager_ns: float = 0.0  # bytes each op moves at the SoC's HBM bandwidth, plus a launch per op
    too_small: bool = False  # fewer ops than min_region_ops
    seconds: float = 0.0  # compile time (capture, cache or search, verification at the graph's shapes)

    def line(self) -> str:
        ops = ", ".join(op.replace("aten.", "").replace(".default", "") for op in self.ops)
        if self.kernel:
            kernel = f"{self.kernel_ns / 1000:8.2f} us" if self.kernel_ns is not None else "       ? us"
            return (f"  {self.name:<22} kernel ({self.origin:<6}, {self.seconds:5.1f} s) {kernel}  vs eager "
                    f"{self.eager_ns / 1000:8.2f} us  [{ops}]")
        return f"  {self.name:<22} eager: {self.reason}  [{ops}]"


@dataclass
class CompileReport:
    """What the backend did with one graph."""

    graph: str
    seconds: float = 0.0
    passthrough: str = ""  # why the whole graph runs unchanged
    regions: list[RegionReport] = field(default_factory=list)
    other_eager_ns: float = 0.0  # estimate of the ops in no kernel (they run eagerly either way)
    soc: str = ""

    @property
    def kernels(self) -> list[RegionReport]:
        return [r for r in self.regions if r.kernel]

    @property
    def compiled_ns(self) -> float:
        """The graph's estimate with the kernels: kernels where there are, eager estimates elsewhere."""
        return self.other_eager_ns + sum(r.kernel_ns if r.kernel_ns is not None else r.eager_ns for r in self.kernels)

    @property
    def eager_ns(self) -> float:
        return self.other_eager_ns + sum(r.eager_ns for r in self.kernels)

    def text(self) -> str:
        if self.passthrough:
            return f"torch_ascendgen backend, {self.graph}: runs unchanged: {self.passthrough}"
        lines = [f"torch_ascendgen backend, {self.graph}: {len(self.kernels)} of {len(self.regions)} region(s) "
                 f"became kernels in {self.seconds:.2f} s (estimated NPU time on {self.soc}: kernels from the "
                 "simulator's cost model; eager as one launch per op, its blocks' dispatch and its bytes at the "
                 "HBM bandwidth; a region whose kernel is not faster stays eager)"]
        lines += [region.line() for region in self.regions]
        lines.append(f"  whole graph: {self.compiled_ns / 1000:.2f} us with kernels vs {self.eager_ns / 1000:.2f} us "
                     f"eager ({self.other_eager_ns / 1000:.2f} us of it in ops that run eagerly either way)")
        return "\n".join(lines)


_REPORTS: list[CompileReport] = []
_REPORTS_LOCK = threading.Lock()


def last_report() -> CompileReport | None:
    """The report of the most recent graph the backend compiled in this process."""
    with _REPORTS_LOCK:
        return _REPORTS[-1] if _REPORTS else None


def reports() -> list[CompileReport]:
    """The reports of every graph compiled in this process (oldest first; the last 100)."""
    with _REPORTS_LOCK:
        return list(_REPORTS)


def _keep(report: CompileReport, settings: BackendSettings) -> None:
    with _REPORTS_LOCK:
        _REPORTS.append(report)
        del _REPORTS[:-100]
    if settings.report:
        print(report.text(), flush=True)


# ---- the backend ---------------------------------------------------------------------------------------

_GRAPH_NUMBERS = itertools.count(1)  # next() on a count is atomic: threads get distinct names


def ascendgen_backend(gm: torch.fx.GraphModule, example_inputs: list, options: dict | None = None,
                      mode: str | None = None) -> Callable:
    """The dynamo backend (registered as "ascendgen" by the package's ``torch_dynamo_backends`` entry point)."""
    settings = parse_options(options)
    name = f"graph {next(_GRAPH_NUMBERS)}"
    try:
        return _backend(gm, example_inputs, settings, name)
    except Exception as exc:  # noqa: BLE001 - default mode: the graph runs as dynamo gave it, never our exception
        if settings.options.strict:
            raise guard.typed(exc) from exc
        _warn(f"{name} runs as PyTorch eager: {guard.reason(exc)}")
        _keep(CompileReport(name, passthrough=guard.reason(exc)), settings)
        return gm.forward


def _backend(gm: torch.fx.GraphModule, example_inputs: list, settings: "BackendSettings", name: str) -> Callable:
    from torch._decomp import core_aten_decompositions
    from torch._dynamo.backends.common import aot_autograd

    if torch.is_grad_enabled() and any(isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs):
        reason = ("its inputs require grad with grad enabled, and kernels are inference-only for now; it runs as "
                  "PyTorch eager (call the model under torch.no_grad() or torch.inference_mode())")
        logger.warning("torch_ascendgen backend: %s %s", name, reason)
        _keep(CompileReport(name, passthrough=reason), settings)
        return gm.forward

    def inference_compiler(graph: torch.fx.GraphModule, fake_inputs: list) -> torch.fx.GraphModule:
        from torch._subclasses.fake_tensor import unset_fake_temporarily

        with unset_fake_temporarily():  # aot_autograd calls this under its fake mode; kernels need real tensors
            return compile_graph(graph, fake_inputs, settings, name)

    # std stays one op: written as sqrt(var) it overflows where PyTorch's std (accumulated in double) does not, and
    # the graph's eager ops must compute what the model computes without the backend.
    decompositions = {op: rule for op, rule in core_aten_decompositions().items() if "std" not in str(op)}
    return aot_autograd(fw_compiler=inference_compiler, decompositions=decompositions)(gm, example_inputs)


def compile_graph(graph: torch.fx.GraphModule, example_inputs: list, settings: BackendSettings,
                  name: str = "graph") -> torch.fx.GraphModule:
    """A core-ATen inference graph with its supported regions replaced by kernels (the rest unchanged). Whatever
    goes wrong while rewriting it, the graph runs as it came (unless strict)."""
    untouched = None if settings.options.strict else copy.deepcopy(graph)  # the rewrite works in place
    try:
        return _compile_graph(graph, example_inputs, settings, name)
    except Exception as exc:  # noqa: BLE001 - eager, never wrong
        if untouched is None:
            raise guard.typed(exc) from exc
        _warn(f"{name} runs as PyTorch eager: rewriting it failed: {guard.reason(exc)}")
        _keep(CompileReport(name, passthrough=f"rewriting it failed: {guard.reason(exc)}"), settings)
        return untouched


def _compile_graph(graph: torch.fx.GraphModule, example_inputs: list, settings: BackendSettings,
                   name: str) -> torch.fx.GraphModule:
    started = time.perf_counter()
    report = CompileReport(name)
    try:
        target = resolve_target(settings.options.target, settings.options.soc, _devices(example_inputs))
    except UnsupportedFunction as exc:
        report.passthrough = str(exc)
        logger.warning("torch_ascendgen backend: %s runs as PyTorch eager: %s", name, exc)
        _keep(report, settings)
        return graph
    report.soc = target.soc
    splits = split_addmm(graph)
    kernels: list[tuple[list[torch.fx.Node], RegionRunner]] = []
    for index, nodes in enumerate(partition(graph)):
        for part, runner in _compile_with_fallback(graph, nodes, settings, target, f"{name} region {index}"):
            report.regions.append(runner.report)
            if runner.report.kernel:
                kernels.append((part, runner))
    kernels = _without_cycles(graph, kernels)
    in_kernels = {node for nodes, _ in kernels for node in nodes}
    rejoin_addmm(graph, splits, in_kernels)
    report.other_eager_ns = sum(_eager_ns(node, target) for node in graph.graph.nodes if node not in in_kernels)
    if kernels:
        fuse_by_partitions(graph, [dict.fromkeys(nodes) for nodes, _ in kernels], prefix=REGION_PREFIX)
        for index, (_, runner) in enumerate(kernels):
            setattr(graph, f"{REGION_PREFIX}{index}", runner)
        graph.recompile()
    report.seconds = time.perf_counter() - started
    _keep(report, settings)
    return graph


def _without_cycles(graph: torch.fx.GraphModule, kernels: list[tuple[list[torch.fx.Node], "RegionRunner"]],
                    ) -> list[tuple[list[torch.fx.Node], "RegionRunner"]]:
    """The kernels that can all be fused: each region on its own is acyclic, but two can feed each other through
    eager ops; such a region stays eager (kernels are accepted in graph order)."""
    accepted: list[tuple[list[torch.fx.Node], RegionRunner]] = []
    for nodes, runner in kernels:
        if _collapsed_acyclic(graph, [n for n, _ in accepted] + [nodes]):
            accepted.append((nodes, runner))
            continue
        runner.report.kernel = False
        runner.report.reason = "it and an earlier region's kernel would feed each other through eager ops"
        logger.warning("torch_ascendgen backend: %s stays eager: %s", runner.label, runner.report.reason)
    return accepted


def _collapsed_acyclic(graph: torch.fx.GraphModule, regions: list[list[torch.fx.Node]]) -> bool:
    """Whether the graph stays acyclic with each region collapsed into one node (Kahn's algorithm)."""
    group = {node: ("region", index) for index, nodes in enumerate(regions) for node in nodes}
    edges: dict = {}
    indegree: dict = {}
    for node in graph.graph.nodes:
        source = group.get(node, node)
        indegree.setdefault(source, 0)
        for user in node.users:
            sink = group.get(user, user)
            if sink != source and sink not in edges.setdefault(source, set()):
                edges[source].add(sink)
                indegree[sink] = indegree.get(sink, 0) + 1
    ready = [vertex for vertex, count in indegree.items() if count == 0]
    visited = 0
    while ready:
        vertex = ready.pop()
        visited += 1
        for sink in edges.get(vertex, ()):
            indegree[sink] -= 1
            if indegree[sink] == 0:
                ready.append(sink)
    return visited == len(indegree)


def _compile_with_fallback(graph: torch.fx.GraphModule, nodes: list[torch.fx.Node], settings: BackendSettings,
                           target: Target, label: str) -> list[tuple[list[torch.fx.Node], RegionRunner]]:
    """The region compiled; when it gets no kernel (too large a broadcast pattern for the generator, say), its
    parts without the ops that read broadcast inputs, each compiled on its own. The original's report when no
    part does better."""
    runner = _compile_region(graph, nodes, settings, target, label)
    chosen = [(nodes, runner)]
    if not runner.report.kernel and not runner.report.too_small:
        parts = [(part, _compile_region(graph, part, settings, target, f"{label}.{i}"))
                 for i, part in enumerate(_without_broadcast_sources(nodes))]
        if any(r.report.kernel for _, r in parts):
            chosen = parts
    for _, region in chosen:  # one line for each region that stays eager
        if not region.report.kernel:
            if settings.options.strict and not region.report.too_small:
                raise AscendGenError(f"torch_ascendgen backend (strict): {region.label} "
                                     f"({', '.join(region.report.ops)}) got no kernel: {region.report.reason}")
            log = logger.info if region.report.too_small else logger.warning
            log("torch_ascendgen backend: %s stays eager: %s", region.label, region.report.reason)
    return chosen


def _without_broadcast_sources(nodes: list[torch.fx.Node]) -> list[list[torch.fx.Node]]:
    """The region's connected parts once the ops that start it from a broadcast input (a bias, a row) are taken
    out: what the built-in generator is likelier to take (a loss reduced over all elements, say)."""
    members = set(nodes)
    values = [n.meta["val"] for n in nodes if isinstance(n.meta.get("val"), torch.Tensor)]
    full = max((_shape(v) for v in values), key=len, default=())
    dropped = set()
    for node in nodes:
        external = [a for a in node.all_input_nodes if a not in members]
        if len(external) == len(node.all_input_nodes) and any(
                _shape(a.meta["val"]) != full and not _ones(_shape(a.meta["val"])) for a in external):
            dropped.add(node)
    if not dropped:
        return []
    kept = [n for n in nodes if n not in dropped]
    parts: list[list[torch.fx.Node]] = []
    seen: set[torch.fx.Node] = set()
    order = {node: index for index, node in enumerate(nodes[0].graph.nodes)}
    for node in kept:
        if node in seen:
            continue
        component, stack = [], [node]
        while stack:
            current = stack.pop()
            if current in seen or current not in members or current in dropped:
                continue
            seen.add(current)
            component.append(current)
            stack += [*current.all_input_nodes, *current.users]
        component.sort(key=order.__getitem__)
        if any(_name(n) not in _FREE_OPS for n in component) and not _creates_cycle(component, order):
            parts.append(component)
    return parts


def _devices(example_inputs: list) -> set[torch.device]:
    devices = {t.device for t in example_inputs if isinstance(t, torch.Tensor)}
    return devices or {torch.device("cpu")}


# ---- rewriting: addmm -> mm + bias ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Split:
    """An addmm split by split_addmm: the product, the bias add, and the view between them (or None)."""

    product: torch.fx.Node
    added: torch.fx.Node
    view: torch.fx.Node | None
    args: tuple  # addmm's (bias, x, w)


def split_addmm(graph: torch.fx.GraphModule) -> list[_Split]:
    """``addmm(bias, x, w)`` (beta = alpha = 1) as ``mm(x, w) + bias``, so that the bias joins the elementwise
    work that follows a Linear; when the product is viewed to another shape with the same last dim (a Linear on
    3-D input), the bias is added after the view, where the next elementwise op reads it. rejoin_addmm undoes
    the splits whose add ends up in no kernel."""
    aten = torch.ops.aten
    splits = []
    for node in list(graph.graph.nodes):
        if node.op != "call_function" or node.target is not aten.addmm.default or node.kwargs:
            continue
        bias, x, w = node.args[:3]
        val = node.meta.get("val")
        if len(node.args) > 3 or not isinstance(val, torch.Tensor) or not _fusible_user(node):
            continue
        users = list(node.users)
        view = users[0] if len(users) == 1 and users[0].target is aten.view.default else None
        bias_val = bias.meta.get("val") if isinstance(bias, torch.fx.Node) else None
        one_row = isinstance(bias_val, torch.Tensor) and (bias_val.dim() == 1 or bias_val.shape[0] == 1)
        if view is not None and not (one_row and _keeps_last_dim(view, val)):
            view = None  # a bias of several rows broadcasts against the product's rows, not the view's
        with graph.graph.inserting_before(node):
            product = graph.graph.call_function(aten.mm.default, (x, w))
            product.meta["val"] = val
        anchor = view if view is not None else node
        with graph.graph.inserting_after(anchor):
            added = graph.graph.call_function(aten.add.Tensor, (anchor if view is not None else product, bias))
            added.meta["val"] = anchor.meta.get("val")
        if view is not None:
            view.replace_all_uses_with(added, delete_user_cb=lambda user: user is not added)
            view.args = (product, *view.args[1:])
        else:
            node.replace_all_uses_with(added)
        graph.graph.erase_node(node)
        splits.append(_Split(product, added, view, (bias, x, w)))
    graph.graph.lint()
    graph.recompile()
    return splits


def rejoin_addmm(graph: torch.fx.GraphModule, splits: list[_Split], in_kernels: set[torch.fx.Node]) -> None:
    """The splits whose bias add is in no kernel made addmm again (one matmul with its bias, as before)."""
    aten = torch.ops.aten
    for split in splits:
        if split.added in in_kernels:
            continue
        with graph.graph.inserting_before(split.product):
            joined = graph.graph.call_function(aten.addmm.default, split.args)
            joined.meta["val"] = split.product.meta.get("val")
        if split.view is not None:
            split.view.args = (joined, *split.view.args[1:])
            split.added.replace_all_uses_with(split.view)
        else:
            split.added.replace_all_uses_with(joined)
        graph.graph.erase_node(split.added)
        graph.graph.erase_node(split.product)
    graph.graph.lint()
    graph.recompile()


def _fusible_user(node: torch.fx.Node) -> bool:
    for user in node.users:
        if user.target is torch.ops.aten.view.default:
            return any(_fusible(u) for u in user.users)
        if _fusible(user):
            return True
    return False


def _keeps_last_dim(view: torch.fx.Node, val: torch.Tensor) -> bool:
    viewed = view.meta.get("val")
    return isinstance(viewed, torch.Tensor) and viewed.dim() >= 1 and str(viewed.shape[-1]) == str(val.shape[-1])


# ---- partitioning ----------------------------------------------------------------------------------------


_LOWERED = lowered_ops()  # the ops a region may hold
_REDUCTION_NAMES = reduction_ops()


def _name(node: torch.fx.Node) -> str:
    return "getitem" if node.target is operator.getitem else str(node.target)


def _fusible(node: torch.fx.Node) -> bool:
    """An op the built-in generator lowers, on float (or bool) tensors, with only tensors as node arguments."""
    if node.op != "call_function" or _name(node) not in _LOWERED:
        return False
    values = node.meta.get("val")
    values = values if isinstance(values, (tuple, list)) else (values,)
    if not values or not all(isinstance(v, torch.Tensor) and (v.dtype in _FLOAT_DTYPES or v.dtype == torch.bool)
                             for v in values if v is not None):
        return False
    arguments = list(node.all_input_nodes)
    if _name(node) == "getitem":
        return True
    for argument in arguments:
        value = argument.meta.get("val")
        if not isinstance(value, torch.Tensor) or value.dtype not in (*_FLOAT_DTYPES, torch.bool):
            return False
    return bool(arguments)


def partition(graph: torch.fx.GraphModule) -> list[list[torch.fx.Node]]:
    """The graph's regions: lists of nodes in graph order, grown greedily from producers to consumers."""
    order = {node: index for index, node in enumerate(graph.graph.nodes)}
    new_id = itertools.count()
    region_of: dict[torch.fx.Node, int] = {}
    regions: dict[int, list[torch.fx.Node]] = {}
    for node in graph.graph.nodes:
        if not _fusible(node):
            continue
        if _name(node) == "getitem":
            source = node.args[0]
            if source in region_of:
                region_of[node] = region_of[source]
                regions[region_of[source]].append(node)
            continue
        producers = list(dict.fromkeys(region_of[a] for a in node.all_input_nodes if a in region_of))
        choices = ([producers] if len(producers) > 1 else []) + sorted(([p] for p in producers),
                                                                        key=lambda ids: -len(regions[ids[0]]))
        for ids in choices:
            merged = [n for i in ids for n in regions[i]] + [node]
            if _shapes_fit(merged) and not _creates_cycle(merged, order):
                keep = ids[0]
                for other in ids[1:]:
                    for n in regions.pop(other):
                        region_of[n] = keep
                regions[keep] = sorted(merged, key=order.__getitem__)
                region_of[node] = keep
                break
        else:
            if _name(node) in _FREE_OPS:
                continue  # a view or copy on its own is no region
            region_of[node] = next(new_id)
            regions[region_of[node]] = [node]
    result = [nodes for nodes in regions.values() if any(_name(n) != "getitem" for n in nodes)]
    return sorted(result, key=lambda nodes: order[nodes[0]])


def _creates_cycle(nodes: list[torch.fx.Node], order: dict) -> bool:
    """Whether some node outside ``nodes`` depends on one of them and feeds another (the region could then not
    run as one call)."""
    members = set(nodes)
    last = max(order[n] for n in nodes)
    stack = [u for n in nodes for u in n.users if u not in members and order[u] < last]
    seen: set[torch.fx.Node] = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for user in node.users:
            if user in members:
                return True
            if order[user] < last:
                stack.append(user)
    return False


def _shape(value) -> tuple[str, ...]:
    return tuple(str(size) for size in value.shape)


def _ones(shape: tuple[str, ...]) -> bool:
    return all(size == "1" for size in shape)


def _reduction_domain(node: torch.fx.Node) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The shape a reduction reads and the dims it reduces."""
    full = _shape(node.args[0].meta["val"])
    rank = len(full)
    target = _name(node)
    if target == "aten.native_layer_norm.default":
        dims = range(rank - len(node.args[1]), rank)
    elif target in ("aten._softmax.default", "aten._log_softmax.default", "aten.max.dim", "aten.min.dim",
                    "aten.prod.dim_int", "aten.cumsum.default", "aten.cumprod.default"):
        dims = [node.args[1] % rank] if rank else []
    elif target == "aten.flip.default":
        dims = [d % rank for d in node.args[1]]
    elif target == "aten.linalg_vector_norm.default":
        given = node.args[2] if len(node.args) > 2 else node.kwargs.get("dim")
        dims = [d % rank for d in given] if given else range(rank)
    else:
        given = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
        dims = [d % rank for d in given] if given else range(rank)
    return full, tuple(sorted(set(dims)))


def _shapes_fit(nodes: list[torch.fx.Node]) -> bool:
    """Whether a region keeps shapes the templates take: one reduction domain; every value and input full, per row
    (the reduced dims kept as 1, or dropped), a whole row broadcast, or one element."""
    members = set(nodes)
    reductions = [n for n in nodes if _name(n) in _REDUCTION_NAMES]
    domains = {_reduction_domain(n) for n in reductions}
    if len(domains) > 1:
        return False
    values = [n.meta["val"] for n in nodes if isinstance(n.meta.get("val"), torch.Tensor)]
    inputs = [a.meta["val"] for n in nodes for a in n.all_input_nodes if a not in members]
    if domains:
        (full, dims), = domains
        kept = tuple("1" if i in dims else s for i, s in enumerate(full))
        dropped = tuple(s for i, s in enumerate(full) if i not in dims)
        per_row = {kept, dropped}
    else:
        full = max((_shape(v) for v in values), key=len)
        per_row = set()
    for value in values:
        shape = _shape(value)
        if shape != full and shape not in per_row and not _ones(shape):
            return False
    for value in inputs:
        shape = _shape(value)
        if shape == full or shape in per_row or _ones(shape):
            continue
        if len(shape) <= len(full) and shape == full[len(full) - len(shape):]:
            continue  # a whole row (or trailing block) broadcast over the leading dims
        return False
    return True



# ---- compiling a region ----------------------------------------------------------------------------------


class RegionRunner(torch.nn.Module):
    """One region at run time: its kernel on the shapes it has passed at, its ATen ops eagerly otherwise.

    Dispatch is by the inputs' shapes (dtypes and devices are fixed by the graph, which dynamo guards). A new
    shape is verified before the kernel runs at it; a new rank or broadcast pattern is captured and compiled
    again (the cache usually has it); whatever fails runs eagerly, with one log line.
    """

    def __init__(self, region: torch.fx.GraphModule, settings: BackendSettings, target: Target, name: str,
                 single_output: bool):
        super().__init__()
        self.region = region
        self.settings = settings
        self.target = target
        self.label = name
        self.single = single_output
        self.kernels: dict[str, CompiledKernel] = {}
        self.dispatch: dict[tuple, Callable] = {}
        self.logged: set[str] = set()
        self.report = RegionReport(name, [_name(n) for n in region.graph.nodes if n.op == "call_function"], False)

    def forward(self, *inputs):
        handler = self.dispatch.get(_dispatch_key(inputs))
        if handler is None:
            handler = self.prepare(inputs)
        if handler == self._eager:
            return handler(inputs)
        try:
            return handler(inputs)
        except Exception as exc:  # noqa: BLE001 - a kernel's failure at run time: eager from now on (guard.py)
            if self.settings.options.strict:
                raise guard.typed(exc) from exc
            self.dispatch[_dispatch_key(inputs)] = self._eager
            _warn(f"{self.label} runs eagerly at shapes {[list(t.shape) for t in inputs]}: its kernel failed: "
                  f"{guard.reason(exc)}")
            return self._eager(inputs)

    def prepare(self, inputs) -> Callable:
        """The handler for these inputs' shapes and layouts (the kernel, or the ATen ops eagerly), remembered."""
        key = _dispatch_key(inputs)
        try:
            handler, _ = self.kernel_handler(inputs)
        except Exception as exc:  # noqa: BLE001 - whatever fails (cache I/O, a build, the device): eager, never wrong
            if self.settings.options.strict:
                raise guard.typed(exc) from exc
            if isinstance(exc, AscendGenError):
                self._log(str(exc), tuple(t.shape for t in inputs))
            else:
                _warn(f"{self.label} runs eagerly at shapes {[list(t.shape) for t in inputs]}: {guard.reason(exc)}")
            handler = self._eager
        self.dispatch[key] = handler
        return handler

    def kernel_handler(self, inputs) -> tuple[Callable, CompiledKernel]:
        """The kernel's handler for these inputs' shapes (compiled, verified there); raises UnsupportedFunction."""
        if any(not t.is_contiguous() for t in inputs):
            raise UnsupportedFunction("it was given non-contiguous tensors; kernels take contiguous ones")
        compiled = self.compile(list(inputs))
        verify_shape(compiled, self.region, list(inputs), self.settings.options)
        op = kernel_op(compiled)
        if self.single:
            return (lambda args: op(list(args))[0]), compiled
        return (lambda args: tuple(op(list(args)))), compiled

    def compile(self, tensors: list[torch.Tensor]) -> CompiledKernel:
        on_host = [t.detach().cpu() for t in tensors] if self.target.is_npu else tensors
        task = capture(self.region, on_host, name=self.label)
        compiled = self.kernels.get(task.key)
        if compiled is None:
            compiled = self.kernels[task.key] = compile_task(task, self.region, self.settings.options, self.target)
        return compiled

    def _eager(self, inputs):
        return self.region(*inputs)

    def _log(self, reason: str, shapes: tuple) -> None:
        if reason not in self.logged:
            self.logged.add(reason)
            logger.warning("torch_ascendgen backend: %s runs eagerly at shapes %s: %s", self.label,
                           [list(s) for s in shapes], reason)


def _compile_region(graph: torch.fx.GraphModule, nodes: list[torch.fx.Node], settings: BackendSettings,
                    target: Target, name: str) -> RegionRunner:
    """The region as a RegionRunner, compiled at the graph's example shapes (its report filled in)."""
    region, inputs, outputs = fuse_as_graphmodule(graph, topo_sort(nodes), "AscendgenRegion", dict.fromkeys(nodes))
    runner = RegionRunner(region, settings, target, name, single_output=len(outputs) == 1)
    report = runner.report
    report.eager_ns = sum(_eager_ns(node, target) for node in nodes)
    ops = sum(1 for node in nodes if _name(node) not in _FREE_OPS)
    if ops < settings.min_region_ops:
        report.too_small = True
        report.reason = (f"{ops} op(s), fewer than min_region_ops={settings.min_region_ops} (a kernel would move "
                         "the bytes eager moves, plus a launch)")
        return runner
    if not all(_statically_contiguous(node.meta.get("val")) for node in [*inputs, *outputs]):
        report.reason = ("its inputs or outputs are not contiguous in the graph (kernels take and make contiguous "
                         "tensors)")
        return runner
    tensors = [_example(node.meta["val"]) for node in inputs]
    started = time.perf_counter()
    try:
        handler, compiled = runner.kernel_handler(tensors)
    except UnsupportedFunction as exc:
        report.reason = str(exc)
        return runner
    except Exception as exc:  # noqa: BLE001 - anything else (cache I/O, a build, the device): eager, never wrong
        if settings.options.strict:
            raise guard.typed(exc) from exc
        report.reason = guard.reason(exc)
        if not isinstance(exc, AscendGenError):
            _warn(f"{name} stays eager: {report.reason}")
        return runner
    finally:
        report.seconds = time.perf_counter() - started
    report.origin, report.key = compiled.origin, compiled.runner.task.key
    report.kernel_ns = _kernel_ns(compiled, tensors)
    if report.kernel_ns is None or report.kernel_ns > report.eager_ns:
        estimate = "no estimate" if report.kernel_ns is None else f"an estimated {report.kernel_ns / 1000:.2f} us"
        report.reason = (f"its kernel ({estimate}) is not faster than eager ({report.eager_ns / 1000:.2f} us "
                         "estimated) at the graph's shapes")
        return runner
    runner.dispatch[_dispatch_key(tensors)] = handler
    report.kernel = True
    return runner


def _warn(message: str) -> None:
    """One AscendGenWarning (a failure of ours, not a region the generator declined: those are log lines)."""
    warnings.warn(f"torch_ascendgen backend: {message}", AscendGenWarning, stacklevel=2)


def _dispatch_key(inputs) -> tuple:
    """What decides a region's handler: each input's shape and whether it is contiguous (a permuted input must
    not reach a kernel verified on contiguous ones: its output would have other strides than eager's)."""
    return tuple([(t.shape, t.is_contiguous()) for t in inputs])


def _statically_contiguous(value) -> bool:
    if not isinstance(value, torch.Tensor):
        return False
    try:
        return bool(value.is_contiguous())
    except Exception:  # noqa: BLE001 - a symbolic layout that cannot be decided: not a kernel's
        return False


def _example(value) -> torch.Tensor:
    """A real tensor like a (fake, maybe symbolic) graph value, with random values: what capture needs."""
    shape = [_size_hint(size) for size in value.shape]
    device = torch.device("cpu") if value.device.type == "meta" else value.device
    if value.dtype == torch.bool:
        return torch.rand(shape, device=device) > 0.5
    return torch.randn(shape, device=device).to(value.dtype)


def _kernel_ns(compiled: CompiledKernel, tensors: list[torch.Tensor]) -> float | None:
    """The kernel's estimated NPU time at these shapes (simulator), or its timing in the cache entry (NPU)."""
    if compiled.target.is_npu:
        timing = compiled.entry.meta.get("npu_timing") or {}
        return timing.get("kernel_ns") or compiled.entry.meta.get("winner", {}).get("time_ns")
    try:
        return float(compiled.runner.run(*tensors, counters=True)[1].estimated_ns)
    except Exception:  # noqa: BLE001 - the estimate is informative; the entry's own is the fallback
        return compiled.entry.meta.get("winner", {}).get("time_ns")


def _eager_ns(node: torch.fx.Node, target: Target) -> float:
    """Eager's estimate for one op (see EAGER_LAUNCH_NS): a launch, its blocks' dispatch, a GM latency and its
    bytes at the HBM bandwidth. Views and getitems are free. Compute is not counted (a lower bound)."""
    from .soc import get_soc

    if node.op != "call_function" or _name(node) in _FREE_OPS or _is_view(node):
        return 0.0
    soc = get_soc(target.soc)
    moved = sum(_bytes(a.meta.get("val")) for a in node.all_input_nodes)
    value = node.meta.get("val")
    written = sum(_bytes(v) for v in (value if isinstance(value, (tuple, list)) else (value,)))
    blocks = min(soc.vector_cores, max(1, -(-written // EAGER_BLOCK_BYTES)))
    return (EAGER_LAUNCH_NS + blocks * EAGER_BLOCK_DISPATCH_NS + GM_READ_LATENCY_CYCLES / soc.clock_ghz
            + (moved + written) / soc.hbm_gb_per_s)  # GB/s == bytes/ns


def _is_view(node: torch.fx.Node) -> bool:
    schema = getattr(node.target, "_schema", None)
    return bool(schema and schema.returns and schema.returns[0].alias_info is not None)


def _bytes(value) -> int:
    if not isinstance(value, torch.Tensor):
        return 0
    count = 1
    for size in value.shape:
        count *= _size_hint(size)
    return count * value.element_size()


def _size_hint(size) -> int:
    """A size of the example inputs (a symbolic size's hint: the size dynamo traced with)."""
    from torch.fx.experimental.symbolic_shapes import optimization_hint

    return optimization_hint(size, fallback=8) if isinstance(size, torch.SymInt) else int(size)
