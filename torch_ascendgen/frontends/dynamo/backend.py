"""The ``torch.compile`` backend: ``torch.compile(model, backend="ascendgen", options={...})``.

Each graph dynamo hands over goes one way:

    dynamo graph ──► aot_autograd (inference) ──► core-ATen graph ──► regions ──► kernels / eager
                     (functionalized, the same                        (partition)   (the decorator's
                      decompositions as capture)                                     pipeline and cache)

- Graphs that need autograd (an input requires grad while grad is enabled) run unchanged, with a
  log line: kernels are inference-only until backward kernels exist.
- Partitioning (partition.py): ops the built-in generator lowers (elementwise, reductions, softmax,
  norms, losses) are grown greedily into regions along producer -> consumer edges, as long as a region
  keeps one reduction domain and shapes the templates take (full, per-row, whole-row, one-element), and
  never so that a region would both feed and depend on an eager op. ``addmm`` is split into ``mm`` and
  a bias add (addmm.py), so the bias joins the elementwise work after a Linear. A matrix product the
  matmul kernel can take (mm, bmm; a row of at most 1024 elements) starts a region with the views of its
  operands, and the work after it joins it (the kernel fuses it as the product's epilogue: a Linear's
  bias and activation, attention's scale and softmax); where that region gets no kernel, its epilogue is
  tried alone and the product runs eagerly. Other views and everything else stay eager. Regions with
  fewer than ``min_region_ops`` ops stay eager.
- Each region is a small ATen function (region.py); it gets its kernel through frontends/dispatch.py,
  the decorator's path, so the same computation has the same cache key whichever way it arrives. A
  region that gets no verified kernel stays eager, with one log line.
- At run time a region runs its kernel on shapes it has passed verification at; a new shape is verified
  first (shape-generic kernels), a new rank or broadcast pattern is captured and compiled again, and
  anything else runs the region's ATen ops eagerly. Results are never wrong.
- A report per graph (report.py; ``torch_ascendgen.last_report()``, printed with ``options={"report":
  True}``): which regions became kernels, which stayed eager and why, and each region's estimated NPU
  time against eager's.
"""

from __future__ import annotations

import copy
import itertools
import logging
import time
from collections.abc import Callable

import torch
import torch.fx
from torch.fx.passes.utils.fuser_utils import fuse_by_partitions

from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.frontends import guard
from torch_ascendgen.frontends.dynamo.addmm import rejoin_addmm, split_addmm
from torch_ascendgen.frontends.dynamo.options import BackendSettings, parse_options
from torch_ascendgen.frontends.dynamo.partition import collapsed_acyclic, partition
from torch_ascendgen.frontends.dynamo.region import RegionRunner, compile_with_fallback, eager_ns
from torch_ascendgen.frontends.dynamo.report import CompileReport, keep, warn
from torch_ascendgen.targets.target import resolve_target

logger = logging.getLogger("torch_ascendgen")

REGION_PREFIX = "ascendgen_region_"
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
        warn(f"{name} runs as PyTorch eager: {guard.reason(exc)}")
        keep(CompileReport(name, passthrough=guard.reason(exc)), settings.report)
        return gm.forward


def _backend(gm: torch.fx.GraphModule, example_inputs: list, settings: BackendSettings, name: str) -> Callable:
    from torch._decomp import core_aten_decompositions
    from torch._dynamo.backends.common import aot_autograd

    if torch.is_grad_enabled() and any(isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs):
        reason = ("its inputs require grad with grad enabled, and kernels are inference-only for now; it runs as "
                  "PyTorch eager (call the model under torch.no_grad() or torch.inference_mode())")
        logger.warning("torch_ascendgen backend: %s %s", name, reason)
        keep(CompileReport(name, passthrough=reason), settings.report)
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
        warn(f"{name} runs as PyTorch eager: rewriting it failed: {guard.reason(exc)}")
        keep(CompileReport(name, passthrough=f"rewriting it failed: {guard.reason(exc)}"), settings.report)
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
        keep(report, settings.report)
        return graph
    report.soc = target.soc
    splits = split_addmm(graph)
    kernels: list[tuple[list[torch.fx.Node], RegionRunner]] = []
    for index, nodes in enumerate(partition(graph)):
        for part, runner in compile_with_fallback(graph, nodes, settings, target, f"{name} region {index}"):
            report.regions.append(runner.report)
            if runner.report.kernel:
                kernels.append((part, runner))
    kernels = _without_cycles(graph, kernels)
    in_kernels = {node for nodes, _ in kernels for node in nodes}
    rejoin_addmm(graph, splits, in_kernels)
    report.other_eager_ns = sum(eager_ns(node, target) for node in graph.graph.nodes if node not in in_kernels)
    if kernels:
        fuse_by_partitions(graph, [dict.fromkeys(nodes) for nodes, _ in kernels], prefix=REGION_PREFIX)
        for index, (_, runner) in enumerate(kernels):
            setattr(graph, f"{REGION_PREFIX}{index}", runner)
        graph.recompile()
    report.seconds = time.perf_counter() - started
    keep(report, settings.report)
    return graph


def _without_cycles(graph: torch.fx.GraphModule, kernels: list[tuple[list[torch.fx.Node], RegionRunner]],
                    ) -> list[tuple[list[torch.fx.Node], RegionRunner]]:
    """The kernels that can all be fused: each region on its own is acyclic, but two can feed each other through
    eager ops; such a region stays eager (kernels are accepted in graph order)."""
    accepted: list[tuple[list[torch.fx.Node], RegionRunner]] = []
    for nodes, runner in kernels:
        if collapsed_acyclic(graph, [n for n, _ in accepted] + [nodes]):
            accepted.append((nodes, runner))
            continue
        runner.report.kernel = False
        runner.report.reason = "it and an earlier region's kernel would feed each other through eager ops"
        logger.warning("torch_ascendgen backend: %s stays eager: %s", runner.label, runner.report.reason)
    return accepted


def _devices(example_inputs: list) -> set[torch.device]:
    devices = {t.device for t in example_inputs if isinstance(t, torch.Tensor)}
    return devices or {torch.device("cpu")}
