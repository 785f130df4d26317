"""The simulator as a target: what ``Target`` does when its kind is "sim".

Kernels are built with g++ against csrc/ascendc_sim, audited before anything loads them, run on the CPU
(each block a logical core) and ranked by the simulator's cost-model estimate of NPU time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path

import torch

from torch_ascendgen import config
from torch_ascendgen.cache import CacheEntry
from torch_ascendgen.capture import KernelTask
from torch_ascendgen.records import DIRECT_LAUNCH_FILE, ENTRY, Candidate, InputSet, SetRun, split_files
from torch_ascendgen.targets.runtime import ContractKernel, build_runtime_module, runtime_module_path
from torch_ascendgen.targets.sandbox import Worker
from torch_ascendgen.targets.sim import library_audit  # called through the module: tests stand in for it
from torch_ascendgen.targets.sim.build import SimBuild, build_flags, sim_headers_digest
from torch_ascendgen.targets.sim.candidate import prepare_child, run_candidate
from torch_ascendgen.targets.sim.direct_kernel import build_direct
from torch_ascendgen.targets.sim.kernels import Build, kernel_for
from torch_ascendgen.targets.sim.project_kernel import build_project
from torch_ascendgen.targets.sim.serving import served_kernel
from torch_ascendgen.targets.sim.simulator import SimKernel, compile_kernel
from torch_ascendgen.targets.toolchain import compiler_identity


def identity(soc: str) -> str:
    return "|".join(["sim", soc, sim_headers_digest(), compiler_identity(config.cxx()), " ".join(build_flags())])


def build(source: str, task: KernelTask, target) -> Build:
    """``source``'s library, audited (library_audit.py) before any process loads it; for a file bundle, an operator
    project's host library and kernel (project_kernel.py) or a direct-launch submission's module (direct_kernel.py)."""
    files = split_files(source)
    if files is not None:
        return build_direct(source, task) if DIRECT_LAUNCH_FILE in files else build_project(source, task, target.soc)
    built = compile_kernel(source, ENTRY, contract=True).build
    library_audit.audit_library(built.library)
    return built


def candidate_worker(target) -> Worker:
    """The sandboxed child candidates run in. The runtime module it loads is built here, while the child starts:
    the child cannot write the cache."""
    library = runtime_module_path()
    building = None if library.is_file() else _in_background(build_runtime_module)  # once per machine
    return Worker(prepare_child, config.build_timeout_s() + config.run_timeout_s(), "the process that runs candidates",
                  warm_up_args=(str(library),), prerequisite=building)


def run_candidate_in(worker: Worker, built: SimBuild, candidate: Candidate, task: KernelTask,
                     input_sets: Sequence[InputSet], target) -> list[SetRun]:
    return worker.call(run_candidate, built, candidate.source, task, list(input_sets), target.soc,
                       timeout=config.run_timeout_s(), what=f"candidate {candidate.label}")


def load(entry: CacheEntry, task: KernelTask, target, library: Path | None, served: bool):
    """The entry's kernel: from ``library`` (None: built here from the entry's source), audited, run in this
    process, or by the sandboxed serving worker when ``served``."""
    if split_files(entry.source) is not None:  # its host code is not in the entry: built here (or found built)
        built = build(entry.source, task, target)
        if served:
            return served_kernel(entry, task, target.soc, built.library, project=built)
        return ContractKernel(kernel_for(built, entry.source), task, target.soc)
    if library is None:
        kernel = SimKernel(build(entry.source, task, target), entry.source, "kernel.cpp")
    else:
        kernel = SimKernel(SimBuild(ENTRY, entry.key, entry.directory, library, 0.0, True), entry.source, "kernel.cpp")
        # before any process loads it, whoever wrote it (SimKernel loads lazily)
        library_audit.audit_library(kernel.build.library)
    if served:
        return served_kernel(entry, task, target.soc, kernel.build.library)
    return ContractKernel(kernel, task, target.soc)


def load_trusted(built: Build, source: str, task: KernelTask, target) -> ContractKernel:
    return ContractKernel(kernel_for(built, source), task, target.soc)


def kernel_ns(runner, meta: dict, tensors: list[torch.Tensor]) -> float | None:
    """The kernel's estimated NPU time at these shapes (the cost model), else the entry's own estimate."""
    try:
        return float(runner.run(*tensors, counters=True)[1].estimated_ns)
    except Exception:  # noqa: BLE001 - the estimate is informative; the entry's own is the fallback
        return meta.get("winner", {}).get("time_ns")


def _in_background(work: Callable[[], object]) -> Future:
    """``work()`` on a thread of its own: the child imports torch meanwhile, and its first call waits for it."""
    future: Future = Future()

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for the result
            future.set_exception(exc)
    threading.Thread(target=run, name="ascendgen-runtime-build", daemon=True).start()
    return future
