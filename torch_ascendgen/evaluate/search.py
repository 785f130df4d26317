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

import dataclasses
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from torch_ascendgen import config
from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import (
    AscendGenError,
    ChildTraceback,
    InternalError,
    KernelBuildError,
    KernelCrashError,
    KernelTimeoutError,
    LibraryRefused,
    SimulatorError,
)
from torch_ascendgen.evaluate.verify import Tolerance, Verdict, judge_run
from torch_ascendgen.records import Candidate, CandidateRecord, FailureKind, InputSet, SearchResult, SetRun
from torch_ascendgen.targets.measure import Measurement
from torch_ascendgen.targets.sandbox import Worker
from torch_ascendgen.targets.target import Target

# The failures that make a candidate lose, and what each is. Anything else is a bug of ours: it is raised.
_FAILURE_KINDS = {KernelBuildError: FailureKind.BUILD, LibraryRefused: FailureKind.AUDIT,
                  SimulatorError: FailureKind.RUN, KernelCrashError: FailureKind.CRASH,
                  KernelTimeoutError: FailureKind.TIMEOUT}
_EXPECTED_FAILURES = tuple(_FAILURE_KINDS)


def search(task: KernelTask, reference: Callable, candidates: Sequence[Candidate], input_sets: Sequence[InputSet],
           tolerance: Tolerance | None, target: Target, progress: Callable[[CandidateRecord], None] | None = None,
           worker: Worker | None = None, budget_s: float | None = None) -> SearchResult:
    """Evaluate every candidate against ``reference``: built in parallel here, run in a child process
    (``worker``'s, kept running for the caller; else one of its own) on ``target``. Once ``budget_s`` seconds
    (default: config.signature_budget_s(); 0: none) have passed, the candidates left are recorded as not
    evaluated, naming the setting."""
    if worker is None:
        with target.candidate_worker() as own:
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
                           None, 0.0, failure_kind=FailureKind.BUDGET)


def _build(candidate: Candidate, task: KernelTask, target: Target) -> tuple[object, float]:
    """The candidate's library, audited before anything loads it (Target.build), or why not."""
    started = time.perf_counter()
    try:
        built = target.build(candidate.source, task)
    except _EXPECTED_FAILURES as exc:
        built = exc
    return built, time.perf_counter() - started


def _evaluate(worker: Worker, task: KernelTask, reference: Callable, candidate: Candidate, build: Future,
              input_sets: Sequence[InputSet], tolerance: Tolerance | None, target: Target) -> CandidateRecord:
    built, build_seconds = build.result()
    started = time.perf_counter()

    def record(verdict: Verdict | None, failure: str = "", kind: FailureKind | None = None,
               measurement: Measurement | None = None) -> CandidateRecord:
        return CandidateRecord(candidate, verdict, failure, measurement, build_seconds + time.perf_counter() - started,
                               None if isinstance(built, Exception) else built, kind)

    if isinstance(built, Exception):
        return record(None, _describe(built), _kind_of(built))
    try:
        runs = _run_isolated(worker, built, candidate, task, input_sets, target)
    except _EXPECTED_FAILURES as exc:
        return record(None, _describe(exc), _kind_of(exc))
    if target.restarts_after_fault and any(run.error and not run.declined for run in runs):
        worker.restart()
    if runs[0].declined:
        return record(None, f"it declines the traced shapes ({runs[0].error})", FailureKind.DECLINED)
    passed: list = []
    failed: dict = {}
    first = None
    for input_set, run in zip(input_sets, runs):
        if run.declined:
            continue  # a shape the kernel refuses runs as the original function; nothing to verify
        verdict = judge_run(reference, input_set, run, tolerance)
        first = first or verdict
        if not verdict.ok:
            kind = _verdict_kind(verdict, run)
            if not _kept_at_other_shapes(candidate, task, input_set, kind):
                return record(verdict, verdict.reason, kind)
            failed.setdefault(input_set.shapes, verdict.reason)
            continue
        passed += verdict.passed_shapes
    passed = [shapes for shapes in passed if shapes not in failed]
    return record(dataclasses.replace(first, passed_shapes=tuple(passed), failed_shapes=tuple(failed.items())),
                  measurement=runs[0].measurement)


def _kept_at_other_shapes(candidate: Candidate, task: KernelTask, input_set: InputSet, kind: FailureKind) -> bool:
    """Whether a model's kernel that failed on ``input_set`` is still kept for the shapes it passes at: it failed
    at other shapes than the traced ones, by a wrong result or a broken rule there (never by writing its inputs).
    Models in the field's formats often assume sizes that divide evenly; such a kernel runs only at shapes it passed
    at (pipeline.verify_shape), and the model is told which shapes failed."""
    return (candidate.generator.startswith("llm:") and kind in (FailureKind.WRONG, FailureKind.RUN)
            and input_set.shapes != tuple(map(tuple, task.traced_shapes)))


def _run_isolated(worker: Worker, build, candidate: Candidate, task: KernelTask,
                  input_sets: Sequence[InputSet], target: Target) -> list[SetRun]:
    """run_candidate in the worker's child. A crash counts only in a child that ran nothing before:
    an earlier candidate may have corrupted that child's memory. An exception from the child that is not one of
    ours is a bug in our code there: it is raised as an InternalError naming where in the child it happened."""
    def call() -> list[SetRun]:
        try:
            return target.run_candidate(worker, build, candidate, task, input_sets)
        except AscendGenError:
            raise
        except Exception as exc:
            raise _internal(exc, candidate) from exc

    shared = worker.calls_in_child > 0
    try:
        return call()
    except KernelCrashError:
        if not shared:
            raise
    return call()  # the crashed child is gone: this runs in a fresh one


def _internal(exc: Exception, candidate: Candidate) -> InternalError:
    """``exc`` (from the child, its traceback as its ChildTraceback cause) as a bug report: its last line of ours."""
    text = exc.__cause__.text if isinstance(exc.__cause__, ChildTraceback) else ""
    ours = [line.strip() for line in text.splitlines() if "torch_ascendgen" in line and line.strip().startswith("File")]
    where = f" ({ours[-1]})" if ours else ""
    return InternalError(f"running candidate {candidate.label} failed in its child process with "
                         f"{type(exc).__name__}: {exc}{where}; a failure of torch_ascendgen, not of the kernel", text)


def _kind_of(exc: Exception) -> FailureKind:
    return next(kind for error, kind in _FAILURE_KINDS.items() if isinstance(exc, error))


def _verdict_kind(verdict: Verdict, run: SetRun) -> FailureKind:
    """A failed verdict's kind: the child's own error kind, else modified inputs, else a wrong result."""
    if run.error:
        return run.error_kind or FailureKind.RUN
    return FailureKind.MODIFIED_INPUT if verdict.kind == "modified_input" else FailureKind.WRONG


def _describe(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) < 4000 else text[:4000] + " ..."
