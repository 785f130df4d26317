"""Compiling a region: its kernel through the shared dispatch path, its estimate against eager's, and at run time
the RegionRunner that calls the kernel at the shapes it has passed at and the region's ATen ops otherwise."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import torch
import torch.fx
from torch.fx.passes.utils.fuser_utils import fuse_as_graphmodule, topo_sort

from torch_ascendgen.errors import AscendGenError, UnsupportedFunction
from torch_ascendgen.frontends import guard
from torch_ascendgen.frontends.dispatch import Kernel, Kernels
from torch_ascendgen.frontends.dynamo.options import BackendSettings
from torch_ascendgen.frontends.dynamo.partition import FREE_OPS, epilogue_of, node_name, without_broadcast_sources
from torch_ascendgen.frontends.dynamo.report import RegionReport, warn
from torch_ascendgen.generators.builtin.matmul import PRODUCTS
from torch_ascendgen.pipeline import CompiledKernel
from torch_ascendgen.targets.target import Target

logger = logging.getLogger("torch_ascendgen")

# An eager op is a kernel launch too, priced with the simulator cost model's own assumptions (cost_model.h), so a
# region's kernel and its eager ops are compared on one scale: the launch, one block dispatched per 16 KB of its
# result (up to the vector cores), one GM read latency, and its bytes at the HBM bandwidth. Its vector compute is
# not counted: the estimate is a lower bound, and a kernel must beat it. A matrix product (mm, bmm, addmm) is priced
# as the cost model prices the cube work of a matmul kernel: one 16 x 16 x k0 fractal multiply a cycle per cube core
# (k0 = 32 bytes of the input type; cost_model.h "The cube core"), its fractals spread over every cube core, and
# the product takes the longer of that and its bytes at the HBM bandwidth (the loads overlap the multiplies).
EAGER_LAUNCH_NS = 3000.0
EAGER_BLOCK_DISPATCH_NS = 40.0
EAGER_BLOCK_BYTES = 16 * 1024
GM_READ_LATENCY_CYCLES = 900.0
CUBE_FRACTAL_ROWS = 16  # a fractal's M and N (cost_model.h)
CUBE_FRACTAL_K_BYTES = 32  # a fractal's K: 32 bytes of the input type


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
        self.kernels = Kernels(name, settings.options)
        self.dispatch: dict[tuple, Callable] = {}
        self.logged: set[str] = set()
        self.report = RegionReport(name, [node_name(n) for n in region.graph.nodes if n.op == "call_function"], False)

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
            warn(f"{self.label} runs eagerly at shapes {[list(t.shape) for t in inputs]}: its kernel failed: "
                 f"{guard.reason(exc)}")
            return self._eager(inputs)

    def prepare(self, inputs) -> Callable:
        """The handler for these inputs' shapes and layouts (the kernel where it is verified there and estimated
        not slower than the ATen ops eagerly, else those ops), remembered."""
        key = _dispatch_key(inputs)
        try:
            handler, kernel = self.kernel_handler(inputs)
            slower = _slower_than_eager(kernel.compiled, self.region, kernel.task_inputs(list(inputs)), self.target)
            if slower:
                self._log(slower, tuple(t.shape for t in inputs))
                handler = self._eager
        except Exception as exc:  # noqa: BLE001 - whatever fails (cache I/O, a build, the device): eager, never wrong
            if self.settings.options.strict:
                raise guard.typed(exc) from exc
            if isinstance(exc, AscendGenError):
                self._log(str(exc), tuple(t.shape for t in inputs))
            else:
                warn(f"{self.label} runs eagerly at shapes {[list(t.shape) for t in inputs]}: {guard.reason(exc)}")
            handler = self._eager
        self.dispatch[key] = handler
        return handler

    def kernel_handler(self, inputs) -> tuple[Callable, Kernel]:
        """The kernel's handler for these inputs' shapes (compiled, verified there), and the kernel; raises
        UnsupportedFunction (NothingToCompute for empty outputs: the region's ops make them)."""
        if any(not t.is_contiguous() for t in inputs):
            raise UnsupportedFunction("it was given non-contiguous tensors; kernels take contiguous ones")
        kernel = self.kernels.prepare(self.region, list(inputs), self.target)
        op = kernel.op
        if self.single:
            return (lambda args: op(list(args))[0]), kernel
        return (lambda args: tuple(op(list(args)))), kernel

    def _eager(self, inputs):
        return self.region(*inputs)

    def _log(self, reason: str, shapes: tuple) -> None:
        if reason not in self.logged:
            self.logged.add(reason)
            logger.warning("torch_ascendgen backend: %s runs eagerly at shapes %s: %s", self.label,
                           [list(s) for s in shapes], reason)


_TOO_SMALL = "(a kernel would move the bytes eager moves, plus a launch)"


def _why_eager(nodes: list[torch.fx.Node], inputs: list[torch.fx.Node], outputs: list[torch.fx.Node],
               settings: BackendSettings) -> str:
    """Why the region stays eager without trying a kernel ("" when a kernel is worth trying)."""
    ops = sum(1 for node in nodes if node_name(node) not in FREE_OPS and not _is_view(node))
    if ops < settings.min_region_ops:
        return f"{ops} op(s), fewer than min_region_ops={settings.min_region_ops} {_TOO_SMALL}"
    if not all(_statically_contiguous(node.meta.get("val")) for node in [*inputs, *outputs]):
        return "its inputs or outputs are not contiguous in the graph (kernels take and make contiguous tensors)"
    return ""


def _compile_region(graph: torch.fx.GraphModule, nodes: list[torch.fx.Node], settings: BackendSettings,
                    target: Target, name: str) -> RegionRunner:
    """The region as a RegionRunner, compiled at the graph's example shapes (its report filled in)."""
    region, inputs, outputs = fuse_as_graphmodule(graph, topo_sort(nodes), "AscendgenRegion", dict.fromkeys(nodes))
    runner = RegionRunner(region, settings, target, name, single_output=len(outputs) == 1)
    report = runner.report
    report.eager_ns = sum(eager_ns(node, target) for node in nodes)
    report.reason = _why_eager(nodes, inputs, outputs, settings)
    if report.reason:
        report.too_small = report.reason.endswith(_TOO_SMALL)
        return runner
    tensors = [_example(node.meta["val"]) for node in inputs]
    started = time.perf_counter()
    try:
        handler, kernel = runner.kernel_handler(tensors)
    except UnsupportedFunction as exc:
        report.reason = str(exc)
        return runner
    except Exception as exc:  # noqa: BLE001 - anything else (cache I/O, a build, the device): eager, never wrong
        if settings.options.strict:
            raise guard.typed(exc) from exc
        report.reason = guard.reason(exc)
        if not isinstance(exc, AscendGenError):
            warn(f"{name} stays eager: {report.reason}")
        return runner
    finally:
        report.seconds = time.perf_counter() - started
    compiled = kernel.compiled
    report.origin, report.key = compiled.origin, compiled.runner.task.key
    report.kernel_ns = _kernel_ns(compiled, kernel.task_inputs(tensors))
    if report.kernel_ns is None or report.kernel_ns > report.eager_ns:
        estimate = "no estimate" if report.kernel_ns is None else f"an estimated {report.kernel_ns / 1000:.2f} us"
        report.reason = (f"its kernel ({estimate}) is not faster than eager ({report.eager_ns / 1000:.2f} us "
                         "estimated) at the graph's shapes")
        return runner
    runner.dispatch[_dispatch_key(tensors)] = handler
    report.kernel = True
    return runner


def compile_with_fallback(graph: torch.fx.GraphModule, nodes: list[torch.fx.Node], settings: BackendSettings,
                          target: Target, label: str) -> list[tuple[list[torch.fx.Node], RegionRunner]]:
    """The region compiled; when it gets no kernel, a region with a matrix product tries its epilogue alone (the
    product then runs eagerly), and any other region its parts without the ops that read broadcast inputs (too large
    a broadcast pattern for the generator, say), each compiled on its own. The original's report when no part does
    better."""
    runner = _compile_region(graph, nodes, settings, target, label)
    chosen = [(nodes, runner)]
    epilogue, start = epilogue_of(nodes)
    if not runner.report.kernel and not runner.report.too_small and start is not None:
        if any(node_name(n) not in FREE_OPS for n in epilogue):
            logger.info("torch_ascendgen backend: %s (its matmul and the work after it) got no kernel: %s; the work "
                        "after it is tried alone", label, runner.report.reason)
            return compile_with_fallback(graph, epilogue, settings, target, f"{label}.epilogue")
    elif not runner.report.kernel and not runner.report.too_small:
        parts = [(part, _compile_region(graph, part, settings, target, f"{label}.{i}"))
                 for i, part in enumerate(without_broadcast_sources(nodes))]
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


def _slower_than_eager(compiled: CompiledKernel, region: torch.fx.GraphModule, tensors: list[torch.Tensor],
                       target: Target) -> str:
    """Why the kernel should not run at these shapes ("" when it may): its estimate is slower than eager's there."""
    kernel = _kernel_ns(compiled, tensors)
    eager = eager_ns_at(region, tensors, target)
    if kernel is not None and kernel <= eager:
        return ""
    estimate = "no estimate" if kernel is None else f"an estimated {kernel / 1000:.2f} us"
    return f"its kernel ({estimate}) is not faster than eager ({eager / 1000:.2f} us estimated) at these shapes"


def eager_ns_at(region: torch.fx.GraphModule, tensors: list[torch.Tensor], target: Target) -> float:
    """Eager's estimate for the region's ops at these inputs' shapes (eager_ns's rule, on fake tensors: nothing
    runs, and the region's own graph keeps its metadata)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    values: dict[torch.fx.Node, object] = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, node):
            values[node] = result = super().run_node(node)
            return result

    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        Recorder(region).run(*[mode.from_tensor(t) for t in tensors])
    return sum(_eager_op_ns(node, values, target) for node in region.graph.nodes)


def _kernel_ns(compiled: CompiledKernel, tensors: list[torch.Tensor]) -> float | None:
    """The kernel's NPU time at these shapes (the simulator's estimate, or the NPU timing of its cache entry)."""
    return compiled.target.kernel_ns(compiled.runner, compiled.entry.meta, tensors)


def eager_ns(node: torch.fx.Node, target: Target) -> float:
    """Eager's estimate for one op (see EAGER_LAUNCH_NS): a launch, its blocks' dispatch, a GM latency and its
    bytes at the HBM bandwidth. Views and getitems are free. Compute is not counted (a lower bound)."""
    return _eager_op_ns(node, {n: n.meta.get("val") for n in (node, *node.all_input_nodes)}, target)


def _eager_op_ns(node: torch.fx.Node, values: dict, target: Target) -> float:
    """eager_ns with the nodes' values (tensors, fake or real, or their metadata's) from ``values``."""
    from torch_ascendgen.targets.soc import get_soc

    if node.op != "call_function" or node_name(node) in FREE_OPS or _is_view(node):
        return 0.0
    soc = get_soc(target.soc)
    moved = sum(_bytes(values.get(a)) for a in node.all_input_nodes)
    value = values.get(node)
    written = sum(_bytes(v) for v in (value if isinstance(value, (tuple, list)) else (value,)))
    blocks = min(soc.vector_cores, max(1, -(-written // EAGER_BLOCK_BYTES)))
    traffic = (moved + written) / soc.hbm_gb_per_s  # GB/s == bytes/ns
    if node_name(node) in PRODUCTS:
        traffic = max(traffic, _cube_ns(node, values, soc))
    return EAGER_LAUNCH_NS + blocks * EAGER_BLOCK_DISPATCH_NS + GM_READ_LATENCY_CYCLES / soc.clock_ghz + traffic


def cube_ns(batch: int, m: int, n: int, k: int, dtype: torch.dtype, soc) -> float:
    """The cube units' time for ``batch`` products of [m, k] by [k, n] (see CUBE_FRACTAL_ROWS): fractals over the
    cube cores at one a cycle."""
    k0 = max(1, CUBE_FRACTAL_K_BYTES // torch.empty((), dtype=dtype).element_size())
    rows = CUBE_FRACTAL_ROWS
    fractals = batch * -(-m // rows) * -(-n // rows) * -(-k // k0)
    return -(-fractals // max(1, soc.cube_cores)) / soc.clock_ghz


def _cube_ns(node: torch.fx.Node, values: dict, soc) -> float:
    value = values.get(node)
    operands = node.args[1:3] if node_name(node) == "aten.addmm.default" else node.args[:2]
    first = values.get(operands[0]) if isinstance(operands[0], torch.fx.Node) else None
    if not isinstance(value, torch.Tensor) or not isinstance(first, torch.Tensor) or value.dim() < 2:
        return 0.0
    sizes = [_size_hint(size) for size in value.shape]
    batch = 1
    for size in sizes[:-2]:
        batch *= size
    return cube_ns(batch, sizes[-2], sizes[-1], _size_hint(first.shape[-1]), first.dtype, soc)


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
