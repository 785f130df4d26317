"""Search: build, run, verify and time every candidate; the fastest correct one wins.

Each candidate is built and first run in a child process with a time limit (two at a time on
this machine's two cores), on every verification input set. The child returns the outputs; the
parent compares them with the original function's, so a crash, a hang or a wrong result costs
that candidate only. Only expected failures (does not build, breaks a hardware rule, wrong
result) make a candidate lose; anything else is raised.
"""

from __future__ import annotations

import dataclasses
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Sequence

import torch

from . import config
from .capture import KernelTask
from .errors import (AscendGenError, KernelBuildError, KernelCrashError, KernelTimeoutError, SimulatorError)
from .generate import ENTRY, Candidate
from .measure import Measurement, measure_sim
from .sandbox import run_in_child
from .verify import InputSet, Tolerance, Verdict, check

_EXPECTED_FAILURES = (KernelBuildError, SimulatorError, KernelCrashError, KernelTimeoutError, ValueError)


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


def search(task: KernelTask, reference: Callable, candidates: Sequence[Candidate], input_sets: Sequence[InputSet],
           tolerance: Tolerance | None, soc: str, progress: Callable[[CandidateRecord], None] | None = None,
           ) -> SearchResult:
    """Evaluate every candidate (in parallel children) against ``reference``."""
    portable = dataclasses.replace(task, graph=None, output_tree=None)  # specs only: what a child needs

    def one(candidate: Candidate) -> CandidateRecord:
        record = _evaluate(portable, reference, candidate, input_sets, tolerance, soc)
        if progress:
            progress(record)
        return record

    with ThreadPoolExecutor(max_workers=config.search_workers()) as pool:
        return SearchResult(tuple(pool.map(one, candidates)))


def _evaluate(task: KernelTask, reference: Callable, candidate: Candidate, input_sets: Sequence[InputSet],
              tolerance: Tolerance | None, soc: str) -> CandidateRecord:
    started = time.perf_counter()
    limit = config.build_timeout_s() + config.run_timeout_s()
    try:
        runs = run_in_child(run_candidate, candidate.source, task, list(input_sets), soc, timeout=limit,
                            what=f"candidate {candidate.label}")
    except _EXPECTED_FAILURES as exc:
        return CandidateRecord(candidate, None, _describe(exc), None, time.perf_counter() - started)
    if runs[0].declined:
        return CandidateRecord(candidate, None, f"it declines the traced shapes ({runs[0].error})", None,
                               time.perf_counter() - started)
    passed: list = []
    for input_set, run in zip(input_sets, runs):
        if run.declined:
            continue  # a shape the kernel refuses runs as the original function; nothing to verify
        verdict = _verdict(reference, input_set, run, tolerance)
        if not verdict.ok:
            return CandidateRecord(candidate, verdict, verdict.reason, None, time.perf_counter() - started)
        passed += verdict.passed_shapes
    verdict = dataclasses.replace(verdict, passed_shapes=tuple(passed))
    return CandidateRecord(candidate, verdict, "", runs[0].measurement, time.perf_counter() - started)


def _verdict(reference: Callable, input_set: InputSet, run: "SetRun", tolerance: Tolerance | None) -> Verdict:
    if run.error:
        return Verdict(False, f"input set '{input_set.name}': {run.error}", kind="raised", input_set=input_set.name)
    if run.modified_inputs:
        return Verdict(False, f"input set '{input_set.name}': the kernel modified its inputs "
                              f"{list(run.modified_inputs)}", kind="modified_input", input_set=input_set.name)
    outputs = run.outputs
    return check(reference, lambda *_: outputs, input_set, tolerance)


def _describe(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) < 4000 else text[:4000] + " ..."


# ---- in the child ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetRun:
    """A candidate's run on one input set, as the child saw it."""

    outputs: tuple[torch.Tensor, ...] = ()
    modified_inputs: tuple[int, ...] = ()
    error: str = ""
    measurement: Measurement | None = None
    declined: bool = False  # the kernel's tiling refused these shapes


def run_candidate(source: str, task: KernelTask, input_sets: list[InputSet], soc: str) -> list[SetRun]:
    """Build ``source`` and run it on every input set (on clones); stops at the first error."""
    from .runtime import ContractKernel, ShapeDeclined
    from .simulator import compile_kernel

    kernel = ContractKernel(compile_kernel(source, ENTRY, contract=True), task, soc)
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
    return runs


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


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
