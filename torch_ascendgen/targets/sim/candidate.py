"""A candidate's run on the simulator, in the sandboxed child (targets/sandbox.py): loaded, launched on every
input set and again in other block orders, its outputs sent back for the parent to judge."""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import KernelArgumentError, ShapeDeclined, SimulatorError
from torch_ascendgen.records import FailureKind, InputSet, Repeat, SetRun
from torch_ascendgen.targets.measure import measure_sim
from torch_ascendgen.targets.runtime import same_bits
from torch_ascendgen.targets.sim.kernels import Build

# What a kernel's own failure raises in a run (the simulator's checks, its launch arguments refused); anything else
# is a bug of ours and leaves the child as it is (search.py reports it).
KERNEL_FAILURES = (SimulatorError, KernelArgumentError)

# Repeated launches (run_candidate): static state shows after some launches, and results that depend on
# which block runs first show under another block order. Each launch is on fresh clones, with a block order
# drawn at random (the seed is in the failure reason, so it reproduces).
TOTAL_LAUNCHES = 24  # per candidate, the first launch on each input set included
REPEAT_ELEMENTS = 1 << 20  # input elements the extra launches may process in all: they go mostly to small sets
MAX_REPEATS_KEPT = 3  # differing outputs per input set sent back to be checked


def prepare_child(runtime_library: str) -> None:
    """The worker child's warm-up: what every candidate run needs, imported before the first; the runtime module
    is the one the parent built (the sandbox cannot write the cache, nor run the compiler that names it)."""
    from torch_ascendgen.targets.runtime import runtime_module, use_runtime_module
    from torch_ascendgen.targets.sim import simulator  # noqa: F401

    while not Path(runtime_library).is_file():  # the parent may still be building it (candidate_worker)
        time.sleep(0.05)
    use_runtime_module(runtime_library)
    runtime_module()


def run_candidate(build: Build, source: str, task: KernelTask, input_sets: list[InputSet],
                  soc: str) -> list[SetRun]:
    """Load ``build`` and run it on every input set (on clones), then again on the sets in turn (repeat_plan),
    each time in another block order; stops at an error on the first set (the traced shapes). Launches are checked
    (SimKernel.launch): a raw-pointer access kills this process after reporting where."""
    from torch_ascendgen.targets.runtime import ContractKernel
    from torch_ascendgen.targets.sim.kernels import kernel_for

    kernel = ContractKernel(kernel_for(build, source), task, soc, checked=True)
    runs = []
    for input_set in input_sets:
        clones = [t.clone() for t in input_set.tensors]
        try:
            _require_workspace(kernel, clones)
            outputs, report = kernel.run(*clones)
        except ShapeDeclined as exc:
            runs.append(SetRun(error=str(exc), error_kind=FailureKind.DECLINED, declined=True))
            continue
        except KERNEL_FAILURES as exc:
            runs.append(SetRun(error=f"{type(exc).__name__}: {exc}", error_kind=FailureKind.RUN))
            if len(runs) == 1:
                break  # at the traced shapes: it lost; elsewhere a model's kernel may still be kept (search.py)
            continue
        modified = tuple(i for i, (a, b) in enumerate(zip(input_set.tensors, clones)) if not same_bits(a, b))
        measurement = (measure_sim(lambda: kernel.run(*clones), report.estimated_ns, repeats=1)  # noqa: B023 - called here
                       if not runs else None)
        runs.append(SetRun(outputs, modified, "", measurement))
    if runs and (runs[0].declined or not runs[0].error):  # it ran at the traced shapes
        _launch_again(kernel, input_sets, runs)
    return runs


def _require_workspace(kernel, inputs: Sequence[torch.Tensor]) -> None:
    """Raise SimulatorError when the workspace the kernel's tiling asks for cannot be allocated here (torch would
    raise a RuntimeError or TypeError, which would read as a bug of ours): that is the kernel's fault."""
    _, tiling = kernel.plan(inputs)
    if tiling is None:  # every output empty: nothing is launched
        return
    try:
        torch.empty(tiling.workspace_bytes, dtype=torch.uint8)  # not touched: costs no memory
    except (RuntimeError, TypeError, OverflowError):
        raise SimulatorError("workspace", f"the tiling function asks for a workspace of {tiling.workspace_bytes} "
                             "bytes, more than this process can allocate; compute workspaceBytes from the shapes "
                             "(a few bytes per block usually)") from None


def repeat_plan(sizes: Sequence[int | None], done: int) -> list[int]:
    """The input sets (by index) of the launches after the first ``done``: round robin over the sets that ran
    (``sizes``: their input elements, None for the others) so that shapes and data interleave, skipping a set
    once it no longer fits in what is left of REPEAT_ELEMENTS, until TOTAL_LAUNCHES."""
    plan: list[int] = []
    left = REPEAT_ELEMENTS
    eligible = [i for i, size in enumerate(sizes) if size is not None]
    while eligible and done + len(plan) < TOTAL_LAUNCHES:
        fitting = [i for i in eligible if sizes[i] <= left]
        for i in fitting[:TOTAL_LAUNCHES - done - len(plan)]:
            plan.append(i)
            left -= sizes[i]
        eligible = [i for i in fitting if sizes[i] <= left]
    return plan


def _launch_again(kernel, input_sets: Sequence[InputSet], runs: list[SetRun]) -> None:
    """The repeated launches of run_candidate; a differing result is added to its set's run (the parent checks
    it against the reference), an error or modified input replaces the run's verdict."""
    sizes = [sum(t.numel() for t in s.tensors) if i < len(runs) and not runs[i].error else None
             for i, s in enumerate(input_sets)]
    done = sum(size is not None for size in sizes)
    for launch, index in enumerate(repeat_plan(sizes, done), start=done + 1):
        seed = secrets.randbits(63) | 1
        clones = [t.clone() for t in input_sets[index].tensors]
        run = runs[index]
        where = f"launch {launch} (block order seed {seed})"
        try:
            outputs, _ = kernel.run(*clones, counters=False, block_order_seed=seed)
        except KERNEL_FAILURES as exc:
            runs[index] = dataclasses.replace(run, error=f"{where}: {type(exc).__name__}: {exc}",
                                              error_kind=FailureKind.RUN)
            return
        modified = tuple(i for i, (a, b) in enumerate(zip(input_sets[index].tensors, clones)) if not same_bits(a, b))
        if modified:
            runs[index] = dataclasses.replace(run, modified_inputs=modified)
            return
        differs = any(not same_bits(a, b) for a, b in zip(run.outputs, outputs))
        if differs and len(run.repeats) < MAX_REPEATS_KEPT:
            runs[index] = dataclasses.replace(run, repeats=(*run.repeats, Repeat(launch, seed, outputs)))
