"""Search: build, run, verify and time every candidate; the fastest correct one wins.

Candidates are compiled here, a few at a time (``config.search_workers()``): compiling runs
g++ on the source and needs no isolation from it. They run in one child process (a
``sandbox.Worker``, started first, so that its torch import overlaps the builds), one after the
other, each on every verification input set within its own time limit. The child returns the
outputs; this process compares them with the original function's. A candidate that crashes or
hangs the child costs only itself: it is recorded as such and the next candidate gets a new
child. A crash in a child that had run other candidates first is retried once in a fresh child,
so that memory an earlier candidate corrupted is never blamed on a later one. Only expected
failures (does not build, breaks a hardware rule, wrong result) make a candidate lose; anything
else is raised.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import torch

from . import config
from .build import SimBuild
from .npu_build import NpuBuild
from .capture import KernelTask
from .errors import (AscendGenError, KernelBuildError, KernelCrashError, KernelTimeoutError, LibraryRefused,
                     SimulatorError)
from .generate import ENTRY, Candidate
from .library_audit import audit_library
from .measure import Measurement, measure_sim
from .runtime import build_runtime_module, runtime_module_path
from .sandbox import Worker
from .target import Target
from .verify import InputSet, Tolerance, Verdict, check, seed_text

NPU_WARMUP, NPU_REPEATS = 5, 50  # a candidate's timing on the NPU (the winner is timed again against the original)
_EXPECTED_FAILURES = (KernelBuildError, LibraryRefused, SimulatorError, KernelCrashError, KernelTimeoutError,
                      ValueError)


@dataclass(frozen=True)
class CandidateRecord:
    """What happened to one candidate."""

    candidate: Candidate
    verdict: Verdict | None  # None when it never produced outputs
    failure: str  # why it lost ("" when it passed)
    measurement: Measurement | None
    seconds: float  # wall time to build, run and check it

    @property
    def ok(self) -> bool:
        return not self.failure

    def summary(self) -> dict:
        return {"label": self.candidate.label, "variant": self.candidate.variant, "ok": self.ok,
                "failure": self.failure, "time_ns": self.measurement.time_ns if self.measurement else None,
                "cpu_ns": self.measurement.cpu_ns if self.measurement else None, "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class SearchResult:
    records: tuple[CandidateRecord, ...]

    @property
    def winner(self) -> CandidateRecord | None:
        passing = [r for r in self.records if r.ok]
        return min(passing, key=lambda r: r.measurement.time_ns) if passing else None


def candidate_worker(target: Target) -> Worker:
    """The child process candidates run in; one can serve several searches (the model's repair rounds). The
    runtime module the child loads is built here, while the child starts: the sandboxed child cannot write the
    cache."""
    start_limit = config.build_timeout_s() + config.run_timeout_s()
    if target.is_npu:  # no address-space limit: the NPU runtime reserves large virtual ranges for device memory
        from .npu_runtime import build_npu_runtime_module

        library = build_npu_runtime_module()
        log_dir = config.ascend_log_dir()
        with contextlib.suppress(OSError):  # when it cannot be made, the child's CANN logs nothing
            log_dir.mkdir(parents=True, exist_ok=True)
        return Worker(prepare_npu_child, start_limit, "the process that runs candidates on the NPU", memory_bytes=0,
                      profile="npu", writable=(str(log_dir),), warm_up_args=(str(library),))
    library = runtime_module_path()
    building = None if library.is_file() else _in_background(build_runtime_module)  # once per machine
    return Worker(prepare_child, start_limit, "the process that runs candidates", warm_up_args=(str(library),),
                  prerequisite=building)


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


def search(task: KernelTask, reference: Callable, candidates: Sequence[Candidate], input_sets: Sequence[InputSet],
           tolerance: Tolerance | None, target: Target, progress: Callable[[CandidateRecord], None] | None = None,
           worker: Worker | None = None, budget_s: float | None = None) -> SearchResult:
    """Evaluate every candidate against ``reference``: built in parallel here, run in a child process
    (``worker``'s, kept running for the caller; else one of its own) on ``target``. Once ``budget_s`` seconds
    (default: config.signature_budget_s(); 0: none) have passed, the candidates left are recorded as not
    evaluated, naming the setting."""
    if worker is None:
        with candidate_worker(target) as own:
            return search(task, reference, candidates, input_sets, tolerance, target, progress, own, budget_s)
    portable = task.portable()
    budget_s = config.signature_budget_s() if budget_s is None else budget_s
    started = time.monotonic()
    records = []
    with ThreadPoolExecutor(max_workers=config.search_workers()) as pool:
        worker.start()  # it imports torch while the candidates compile (no-op when it is running)
        builds = [pool.submit(_build, candidate, task, target) for candidate in candidates]
        try:
            for candidate, build in zip(candidates, builds):
                if budget_s and time.monotonic() - started > budget_s:
                    records.append(_over_budget(candidate, budget_s))
                else:
                    records.append(_evaluate(worker, portable, reference, candidate, build, input_sets, tolerance,
                                             target))
                if progress:
                    progress(records[-1])
        finally:
            for build in builds:
                build.cancel()  # after an unexpected error: do not wait for builds nobody will run
    return SearchResult(tuple(records))


def _over_budget(candidate: Candidate, budget_s: float) -> CandidateRecord:
    return CandidateRecord(candidate, None, f"not evaluated: the search for this signature used up its time budget "
                                            f"of {budget_s:g} s (raise {config.SIGNATURE_BUDGET_ENV} to allow more)",
                           None, 0.0)


def build_kernel(source: str, task: KernelTask, target: Target) -> SimBuild | NpuBuild:
    """``source``'s library for ``target``, not loaded (its static initialisers must not run in this process).
    Raises KernelBuildError for the source's faults, NpuUnavailable for the toolkit's."""
    if target.is_npu:
        from .npu_build import compile_npu_kernel

        gm_args = len(task.inputs) + len(task.outputs) + 2  # + workspace, tiling
        return compile_npu_kernel(source, gm_args, target.soc, target.toolkit)
    from .simulator import compile_kernel

    return compile_kernel(source, ENTRY, contract=True).build


def _build(candidate: Candidate, task: KernelTask, target: Target) -> tuple[SimBuild | NpuBuild | Exception, float]:
    """The candidate's library, audited before anything loads it (library_audit.py), or why not."""
    started = time.perf_counter()
    try:
        built: SimBuild | NpuBuild | Exception = build_kernel(candidate.source, task, target)
        if not target.is_npu:
            audit_library(built.library)
    except _EXPECTED_FAILURES as exc:
        built = exc
    return built, time.perf_counter() - started


def _evaluate(worker: Worker, task: KernelTask, reference: Callable, candidate: Candidate, build: Future,
              input_sets: Sequence[InputSet], tolerance: Tolerance | None, target: Target) -> CandidateRecord:
    built, build_seconds = build.result()
    started = time.perf_counter()

    def record(verdict: Verdict | None, failure: str, measurement: Measurement | None = None) -> CandidateRecord:
        return CandidateRecord(candidate, verdict, failure, measurement,
                               build_seconds + time.perf_counter() - started)

    if isinstance(built, Exception):
        return record(None, _describe(built))
    try:
        runs = _run_isolated(worker, built, candidate, task, input_sets, target)
    except _EXPECTED_FAILURES as exc:
        return record(None, _describe(exc))
    if target.is_npu and any(run.error and not run.declined for run in runs):
        worker.restart()  # a fault can leave the device context unusable: the next candidate gets a new child
    if runs[0].declined:
        return record(None, f"it declines the traced shapes ({runs[0].error})")
    passed: list = []
    for input_set, run in zip(input_sets, runs):
        if run.declined:
            continue  # a shape the kernel refuses runs as the original function; nothing to verify
        verdict = _verdict(reference, input_set, run, tolerance)
        if not verdict.ok:
            return record(verdict, verdict.reason)
        passed += verdict.passed_shapes
    return record(dataclasses.replace(verdict, passed_shapes=tuple(passed)), "", runs[0].measurement)


def _run_isolated(worker: Worker, build: SimBuild | NpuBuild, candidate: Candidate, task: KernelTask,
                  input_sets: Sequence[InputSet], target: Target) -> list["SetRun"]:
    """run_candidate in the worker's child. A crash counts only in a child that ran nothing before:
    an earlier candidate may have corrupted that child's memory."""
    def call() -> list[SetRun]:
        if target.is_npu:
            return worker.call(run_npu_candidate, build, task, list(input_sets), target,
                               timeout=config.run_timeout_s(), what=f"candidate {candidate.label}")
        return worker.call(run_candidate, build, candidate.source, task, list(input_sets), target.soc,
                           timeout=config.run_timeout_s(), what=f"candidate {candidate.label}")

    shared = worker.calls_in_child > 0
    try:
        return call()
    except KernelCrashError:
        if not shared:
            raise
    return call()  # the crashed child is gone: this runs in a fresh one


def _verdict(reference: Callable, input_set: InputSet, run: "SetRun", tolerance: Tolerance | None) -> Verdict:
    where = f"input set '{input_set.name}'{seed_text(input_set)}"
    if run.error:
        return Verdict(False, f"{where}: {run.error}", kind="raised", input_set=input_set.name, seed=input_set.seed)
    if run.modified_inputs:
        return Verdict(False, f"{where}: the kernel modified its inputs {list(run.modified_inputs)}",
                       kind="modified_input", input_set=input_set.name, seed=input_set.seed)
    outputs = run.outputs
    verdict = check(reference, lambda *_: outputs, input_set, tolerance)
    for repeat in run.repeats if verdict.ok else ():
        again = check(reference, lambda *_: repeat.outputs, input_set, tolerance)
        if not again.ok:
            return dataclasses.replace(again, reason=(
                f"input set '{input_set.name}': launch {repeat.launch} (block order seed {repeat.block_order_seed}) "
                "gave different results from the first launch on the same inputs: the kernel keeps state between "
                f"launches, or its blocks race. {again.reason}"))
    return verdict


def _describe(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) < 4000 else text[:4000] + " ..."


# ---- in the child ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Repeat:
    """A later launch on an input set whose outputs differ bitwise from the first launch's."""

    launch: int  # the launch's number in the candidate's run, from 1
    block_order_seed: int
    outputs: tuple[torch.Tensor, ...]


@dataclass(frozen=True)
class SetRun:
    """A candidate's run on one input set, as the child saw it."""

    outputs: tuple[torch.Tensor, ...] = ()
    modified_inputs: tuple[int, ...] = ()
    error: str = ""
    measurement: Measurement | None = None
    declined: bool = False  # the kernel's tiling refused these shapes
    repeats: tuple[Repeat, ...] = ()  # later launches that gave other outputs (at most MAX_REPEATS_KEPT)


# Repeated launches (run_candidate): static state shows after some launches, and results that depend on
# which block runs first show under another block order. Each launch is on fresh clones, with a block order
# drawn at random (the seed is in the failure reason, so it reproduces).
TOTAL_LAUNCHES = 24  # per candidate, the first launch on each input set included
REPEAT_ELEMENTS = 1 << 20  # input elements the extra launches may process in all: they go mostly to small sets
MAX_REPEATS_KEPT = 3  # differing outputs per input set sent back to be checked


def prepare_child(runtime_library: str) -> None:
    """The worker child's warm-up: what every candidate run needs, imported before the first; the runtime module
    is the one the parent built (the sandbox cannot write the cache, nor run the compiler that names it)."""
    from . import simulator  # noqa: F401
    from .runtime import runtime_module, use_runtime_module

    while not Path(runtime_library).is_file():  # the parent may still be building it (candidate_worker)
        time.sleep(0.05)
    use_runtime_module(runtime_library)
    runtime_module()


def run_candidate(build: SimBuild, source: str, task: KernelTask, input_sets: list[InputSet],
                  soc: str) -> list[SetRun]:
    """Load ``build`` and run it on every input set (on clones), then again on the sets in turn (repeat_plan),
    each time in another block order; stops at the first error. Launches are checked (SimKernel.launch): a
    raw-pointer access kills this process after reporting where."""
    from .runtime import ContractKernel, ShapeDeclined
    from .simulator import SimKernel

    kernel = ContractKernel(SimKernel(build, source, "kernel.cpp"), task, soc, checked=True)
    runs = []
    for input_set in input_sets:
        clones = [t.clone() for t in input_set.tensors]
        try:
            outputs, report = kernel.run(*clones)
        except ShapeDeclined as exc:
            runs.append(SetRun(error=str(exc), declined=True))
            continue
        except (SimulatorError, ValueError, AscendGenError) as exc:
            runs.append(SetRun(error=f"{type(exc).__name__}: {exc}"))
            break
        modified = tuple(i for i, (a, b) in enumerate(zip(input_set.tensors, clones)) if not _same_bits(a, b))
        measurement = measure_sim(lambda: kernel.run(*clones), report.estimated_ns, repeats=1) if not runs else None
        runs.append(SetRun(outputs, modified, "", measurement))
    if runs and (runs[-1].declined or not runs[-1].error):  # no launch failed
        _launch_again(kernel, input_sets, runs)
    return runs


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
    import secrets

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
        except (SimulatorError, ValueError, AscendGenError) as exc:
            runs[index] = dataclasses.replace(run, error=f"{where}: {type(exc).__name__}: {exc}")
            return
        modified = tuple(i for i, (a, b) in enumerate(zip(input_sets[index].tensors, clones)) if not _same_bits(a, b))
        if modified:
            runs[index] = dataclasses.replace(run, modified_inputs=modified)
            return
        differs = any(not _same_bits(a, b) for a, b in zip(run.outputs, outputs))
        if differs and len(run.repeats) < MAX_REPEATS_KEPT:
            runs[index] = dataclasses.replace(run, repeats=(*run.repeats, Repeat(launch, seed, outputs)))


def prepare_npu_child(npu_runtime_library: str) -> None:
    """The NPU worker child's warm-up: torch_npu imported and the NPU runtime module the parent built loaded."""
    from .cann import torch_npu_module
    from .npu_runtime import npu_runtime_module, use_npu_runtime_module

    torch_npu_module()
    use_npu_runtime_module(npu_runtime_library)
    npu_runtime_module()


def run_npu_candidate(build: NpuBuild, task: KernelTask, input_sets: list[InputSet], target: Target) -> list[SetRun]:
    """Run ``build`` on the NPU on every input set (copied to the device; outputs copied back); the first set's
    launches timed with NPU events. Stops at the first error."""
    from .cann import torch_npu_module
    from .measure import measure_npu
    from .npu_runtime import NpuKernel
    from .runtime import ShapeDeclined

    torch_npu_module()
    npu = torch.npu
    npu.set_device(target.device)
    kernel = NpuKernel(build, task, target.soc)
    runs = []
    for input_set in input_sets:
        on_device = [t.to(target.device) for t in input_set.tensors]
        try:  # a fault on the device surfaces at a synchronisation or a copy: every launch and copy is in here
            outputs = kernel(*on_device)
            npu.synchronize()
            host = tuple(output.cpu() for output in outputs)
            modified = tuple(i for i, (a, b) in enumerate(zip(input_set.tensors, on_device))
                             if not _same_bits(a, b.cpu()))
            measurement = (measure_npu(lambda: kernel(*on_device), npu, warmup=NPU_WARMUP, repeats=NPU_REPEATS)
                           if not runs else None)
        except ShapeDeclined as exc:
            runs.append(SetRun(error=str(exc), declined=True))
            continue
        except (ValueError, RuntimeError, AscendGenError) as exc:
            runs.append(SetRun(error=f"{type(exc).__name__}: {exc}"))
            break
        runs.append(SetRun(host, modified, "", measurement))
    return runs


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))


def verify_in_process(reference: Callable, runner: Callable, input_sets: Sequence[InputSet],
                      tolerance: Tolerance | None) -> Verdict:
    """verify() for a trusted, already loaded kernel: shapes its tiling declines are skipped, not failed."""
    from .runtime import ShapeDeclined
    from .verify import verify

    passed: list = []
    verdict = Verdict(False, "no input set had shapes the kernel accepts", kind="raised")
    for input_set in input_sets:
        try:
            runner.plan(input_set.tensors)
        except ShapeDeclined:
            continue
        verdict = verify(reference, runner, [input_set], tolerance)
        if not verdict.ok:
            return verdict
        passed += verdict.passed_shapes
    return dataclasses.replace(verdict, passed_shapes=tuple(passed)) if passed else verdict
