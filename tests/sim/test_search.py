"""The search's isolation: candidates compile in the parent and run one after another in one worker
child; a candidate that crashes, hangs or fails to build costs only itself.

Worker tests call standard-library functions (importable in the child by module and name). Every
child imports torch (through the package), a few seconds each on a loaded machine, so the tests
start few children.
"""

from __future__ import annotations

import operator
import os
import time

import pytest
import torch
import torch.nn.functional as F

from torch_ascendgen.capture import capture
from torch_ascendgen.errors import KernelCrashError, KernelTimeoutError
from torch_ascendgen.evaluate.search import search
from torch_ascendgen.evaluate.verify import make_input_sets
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.records import Candidate
from torch_ascendgen.targets import sandbox
from torch_ascendgen.targets.sandbox import Worker
from torch_ascendgen.targets.target import sim_target


def test_a_worker_runs_every_call_in_one_child_and_returns_results_and_errors():
    with Worker(os.getpid, 60) as worker:
        pid = worker.call(os.getpid, timeout=60)
        assert pid != os.getpid()
        assert worker.call(operator.add, 2, 3, timeout=60) == 5
        with pytest.raises(ValueError):
            worker.call(int, "not a number", timeout=60)
        assert worker.call(os.getpid, timeout=60) == pid
        assert worker.calls_in_child == 4  # the call that raised was answered too


def test_a_crash_or_a_hang_fails_that_call_and_the_next_call_gets_a_new_child():
    with Worker(os.getpid, 60) as worker:
        first = worker.call(os.getpid, timeout=60)
        with pytest.raises(KernelCrashError, match="SIGABRT"):
            worker.call(os.abort, timeout=60, what="the aborting call")
        assert worker.calls_in_child == 0
        second = worker.call(os.getpid, timeout=60)
        started = time.perf_counter()
        with pytest.raises(KernelTimeoutError, match="did not finish within 1.0 s"):
            worker.call(time.sleep, 60, timeout=1.0)
        assert time.perf_counter() - started < 30
        third = worker.call(os.getpid, timeout=60)
    assert len({first, second, third}) == 3
    for pid in (first, second, third):  # every child was stopped
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_failing_warm_up_fails_every_call_without_restarting(monkeypatch):
    starts = []
    monkeypatch.setattr(sandbox._Child, "__init__", lambda self, *a, _init=sandbox._Child.__init__:
                        starts.append(1) or _init(self, *a))
    with Worker(abs, 60) as worker:  # abs() without an argument raises TypeError
        for _ in range(2):
            with pytest.raises(TypeError):
                worker.call(os.getpid, timeout=60)
    assert len(starts) == 1


def swiglu(gate, up):
    return F.gelu(gate, approximate="tanh") * up


def _task_and_good():
    task = capture(swiglu, [torch.randn(8, 64), torch.randn(8, 64)])
    return task, generate_builtin(task, 1)[0]


def _variant(good: Candidate, extra: str, label: str, prelude: str = "") -> Candidate:
    source = prelude + good.source.replace("GET_TILING_DATA(t, tiling);", "GET_TILING_DATA(t, tiling); " + extra)
    return Candidate(source, "test", {label: 1})


def test_build_errors_and_static_initialiser_crashes_cost_only_their_candidate():
    task, good = _task_and_good()
    broken = _variant(good, "this is not C++;", "broken")
    aborts = Candidate("#include <cstdlib>\nstatic int boom = (std::abort(), 0);\n" + good.source, "test",
                       {"static_abort": 1})
    sets = make_input_sets(task.inputs, task.traced_shapes)
    result = search(task, swiglu, [broken, aborts, good], sets, None, sim_target("Ascend910B2"))
    failed_build, crashed, passed = result.records
    assert "building kernel" in failed_build.failure and "failed" in failed_build.failure
    assert "refused" in crashed.failure and "when the library is loaded" in crashed.failure  # audited, never run
    assert passed.ok and result.winner is passed and passed.verdict.passed_shapes


def test_a_crash_after_other_candidates_is_confirmed_in_a_fresh_child(monkeypatch):
    starts = []
    monkeypatch.setattr(sandbox._Child, "__init__", lambda self, *a, _init=sandbox._Child.__init__:
                        starts.append(1) or _init(self, *a))
    task, good = _task_and_good()
    crash = _variant(good, "*(volatile int*)nullptr = 1;", "crash")
    again = Candidate(good.source + "\n// the same kernel, another build\n", "test", {"again": 1})
    sets = make_input_sets(task.inputs, task.traced_shapes)
    result = search(task, swiglu, [good, crash, again], sets, None, sim_target("Ascend910B2"))
    first, crashed, last = result.records
    assert first.ok and last.ok and "SIGSEGV" in crashed.failure
    assert len(starts) == 3  # good and crash; crash again, alone; then the last one
    assert [r.measurement.time_ns for r in (first, last)] == [first.measurement.time_ns] * 2
