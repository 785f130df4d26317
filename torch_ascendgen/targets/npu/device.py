"""The NPU as a target: what ``Target`` does when its kind is "npu".

Kernels are built with CANN's bisheng, run on the NPU through torch_npu's stream and ranked by NPU events.
Everything here imports torch_npu lazily: nothing NPU-related runs at ``import torch_ascendgen``.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import torch

from torch_ascendgen import config
from torch_ascendgen.cache import CacheEntry
from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import KernelBuildError
from torch_ascendgen.records import DIRECT_LAUNCH_FILE, Candidate, InputSet, SetRun, split_files
from torch_ascendgen.targets.measure import NpuComparison, compare_npu
from torch_ascendgen.targets.npu import cann, op_project
from torch_ascendgen.targets.npu import runtime as npu_runtime
from torch_ascendgen.targets.npu.build import (
    NPU_ABI_VERSION,
    NpuBuild,
    compile_npu_kernel,
    launcher_source,
    npu_build_flags,
)
from torch_ascendgen.targets.npu.candidate import prepare_npu_child, run_npu_candidate
from torch_ascendgen.targets.npu.serving import npu_served_kernel
from torch_ascendgen.targets.sandbox import Worker
from torch_ascendgen.targets.toolchain import compiler_identity


def identity(soc: str, toolkit: cann.CannToolkit) -> str:
    launcher = hashlib.sha256(launcher_source("kernel.cpp", 3).encode()).hexdigest()[:16]
    return "|".join(["npu", soc, f"cann {toolkit.version}", f"torch_npu {cann.torch_npu_version()}",
                     compiler_identity(str(toolkit.bisheng)), " ".join(npu_build_flags(soc, toolkit)),
                     f"launcher {launcher} abi {NPU_ABI_VERSION}"])


def build(source: str, task: KernelTask, target) -> NpuBuild:
    """``source``'s library (not loaded: its host code runs only where the caller decides); an operator project's
    file bundle is built by op_project.py (host library + kernel libraries in one build directory)."""
    if DIRECT_LAUNCH_FILE in (split_files(source) or {}):
        raise KernelBuildError("a MultiKernelBench direct-launch submission runs on the simulator only "
                               "(target='sim'); on the NPU, ask for the operator-project format "
                               "(TORCH_ASCENDGEN_LLM_FORMAT=op_project)")
    if op_project.is_bundle(source):
        return op_project.compile_npu_op_project(source, task, target.soc, target.toolkit)
    gm_args = len(task.inputs) + len(task.outputs) + 2  # + workspace, tiling
    return compile_npu_kernel(source, gm_args, target.soc, target.toolkit)


def candidate_worker(target) -> Worker:
    """The sandboxed NPU child; no address-space limit: the NPU runtime reserves large virtual ranges for device
    memory."""
    library = npu_runtime.build_npu_runtime_module()
    log_dir = config.ascend_log_dir()
    with contextlib.suppress(OSError):  # when it cannot be made, the child's CANN logs nothing
        log_dir.mkdir(parents=True, exist_ok=True)
    return Worker(prepare_npu_child, config.build_timeout_s() + config.run_timeout_s(),
                  "the process that runs candidates on the NPU", memory_bytes=0, profile="npu",
                  writable=(str(log_dir),), warm_up_args=(str(library),))


def run_candidate_in(worker: Worker, built: NpuBuild, candidate: Candidate, task: KernelTask,
                     input_sets: Sequence[InputSet], target) -> list[SetRun]:
    return worker.call(run_npu_candidate, built, task, list(input_sets), target,
                       timeout=config.run_timeout_s(), what=f"candidate {candidate.label}")


def load(entry: CacheEntry, task: KernelTask, target, library: Path | None, served: bool):
    """The entry's kernel: from ``library`` (None: built here from the entry's source); when ``served``, its host
    code (tiling, static initialisers) runs only in the sandboxed NPU worker."""
    if op_project.is_bundle(entry.source):  # its libraries and op.json live in its build directory
        built = build(entry.source, task, target)
    else:
        library = library or build(entry.source, task, target).library
        built = NpuBuild(entry.key, entry.directory, library, entry.directory / "build.log", 0.0, True)
    if served:
        return npu_served_kernel(built, task, target)
    return op_project.npu_kernel(built, task, target.soc)


def load_trusted(built: NpuBuild, source: str, task: KernelTask, target):
    return op_project.npu_kernel(built, task, target.soc)


def kernel_ns(runner, meta: dict, tensors: list[torch.Tensor]) -> float | None:
    """The kernel's NPU time as the cache entry recorded it (timed against the original, else in the search)."""
    timing = meta.get("npu_timing") or {}
    return timing.get("kernel_ns") or meta.get("winner", {}).get("time_ns")


def time_against_original(kernel, reference: Callable, inputs: Sequence[torch.Tensor],
                          target) -> NpuComparison:
    """The kernel and the original timed on the NPU the same way in one run (measure.compare_npu). Raises
    RuntimeError from the device."""
    on_device = [t.to(target.device) for t in inputs]
    with torch.npu.device(target.device_index):  # events, streams and the flush buffer on the kernel's NPU
        return compare_npu(lambda: kernel(*on_device), lambda: reference(*on_device), torch.npu)


class OnDevice:
    """A device kernel called with host tensors: inputs copied to ``device``, outputs copied back."""

    def __init__(self, runner, device: torch.device):
        self.runner = runner
        self.device = device
        self.task = runner.task

    def plan(self, inputs):
        return self.runner.plan([t.to(self.device) for t in inputs])

    def __call__(self, *inputs):
        on_device = [t.to(self.device) for t in inputs]
        outputs = tuple(output.cpu() for output in self.runner(*on_device))
        for index, (host, device) in enumerate(zip(inputs, on_device)):  # the verifier sees only the host copies
            if not torch.equal(host.reshape(-1).view(torch.uint8), device.cpu().reshape(-1).view(torch.uint8)):
                raise ValueError(f"the kernel modified its input {index}")
        return outputs
