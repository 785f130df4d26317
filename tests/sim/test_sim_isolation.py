"""Kernels that crash, hang or run away, run with launch_isolated: the caller survives, gets a
KernelCrashError / KernelTimeoutError that says what happened, and the next launch works.

Each isolated run starts a fresh interpreter that imports torch (about 2 s), so this file keeps
their number small. The kernel is tests/diag_kernels/misbehave.cpp.
"""

from __future__ import annotations

import functools
import os
import re
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

from torch_ascendgen.errors import KernelCrashError, KernelTimeoutError, SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

KERNEL = Path(__file__).resolve().parents[1] / "diag_kernels" / "misbehave.cpp"
MODES = {m.group(1): int(m.group(2)) for m in re.finditer(
    r"(\w+) = (\d+)", re.search(r"enum Mode : uint32_t \{(.*?)\};", KERNEL.read_text(), re.S).group(1))}
LENGTH = 256
GENEROUS = 120.0  # seconds for runs that should finish: a loaded machine starts interpreters slowly


@functools.cache
def kernel():
    return compile_kernel(KERNEL.read_text(), filename="misbehave.cpp")


def args(mode: str, aux=None):
    return torch.randn(LENGTH), torch.zeros(LENGTH), aux, struct.pack("<2I", LENGTH, MODES[mode])


@functools.cache
def memory_limit_of_child() -> float | None:
    """The smaller of RLIMIT_AS and RLIMIT_DATA in an isolated run (None: unlimited); the run's
    outputs must land in the caller's tensors."""
    x, y, aux, tiling = args("OK", torch.zeros(2, dtype=torch.float64))
    report = kernel().launch_isolated(1, x, y, aux, tiling, timeout=GENEROUS)
    assert report.block_dim == 1
    assert torch.equal(y, x + 1), "the outputs of an isolated run did not reach the caller's tensor"
    limits = [v for v in aux.tolist() if v >= 0]
    return min(limits) if limits else None


def test_isolated_run_writes_outputs_back() -> None:
    memory_limit_of_child()


def test_raw_write_through_null_pointer_is_a_crash_not_the_callers_death() -> None:
    with pytest.raises(KernelCrashError) as info:
        kernel().launch_isolated(1, *args("RAW_WRITE_THROUGH_NULL"), timeout=GENEROUS)
    assert "misbehave" in str(info.value) and "SIGSEGV" in str(info.value)


def test_abort_is_a_crash() -> None:
    with pytest.raises(KernelCrashError) as info:
        kernel().launch_isolated(1, *args("ABORT"), timeout=GENEROUS)
    assert "SIGABRT" in str(info.value)


def test_endless_wait_is_stopped_by_the_time_limit() -> None:
    flag = torch.zeros(8, dtype=torch.int32)
    with pytest.raises(KernelTimeoutError) as info:
        kernel().launch_isolated(1, *args("SPIN_ON_FLAG", flag), timeout=5.0)
    assert "did not finish within 5.0 s" in str(info.value)


def test_unbounded_host_allocation_is_stopped() -> None:
    limit = memory_limit_of_child()
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    # Without a memory limit in the child the runaway kernel would take the machine's memory (and
    # whatever else runs on it) before the time limit: do not run it then.
    assert limit is not None and limit <= physical / 2, (
        f"isolated runs have no memory limit (RLIMIT_AS/RLIMIT_DATA: {limit}); a kernel that allocates "
        "without bound would exhaust the machine"
    )
    with pytest.raises((KernelCrashError, SimulatorError)) as info:
        kernel().launch_isolated(1, *args("GROW_HOST_VECTOR"), timeout=GENEROUS)
    assert "memory" in str(info.value) or "bad_alloc" in str(info.value), info.value


def test_simulator_error_comes_back_with_every_field_and_the_next_launch_works() -> None:
    with pytest.raises(SimulatorError) as local:
        kernel().launch(1, *args("MISALIGNED_COPY"))
    with pytest.raises(SimulatorError) as isolated:
        kernel().launch_isolated(1, *args("MISALIGNED_COPY"), timeout=GENEROUS)
    fields = ("kind", "message", "file", "line", "block", "source_line")
    assert [getattr(isolated.value, f) for f in fields] == [getattr(local.value, f) for f in fields]
    assert isolated.value.kind == "ub_misaligned" and isolated.value.file == "misbehave.cpp"
    assert "// <- misaligned_copy" in isolated.value.source_line
    x, y, aux, tiling = args("OK", torch.zeros(2, dtype=torch.float64))
    kernel().launch(1, x, y, aux, tiling)
    assert torch.equal(y, x + 1)


# compile_kernel loads the library to read the entry's signature; a kernel's static initialisers
# run then. Run in a separate interpreter: if they run in the caller, they kill it.
STATIC_INITIALISER_CRASH = textwrap.dedent('''
    import torch
    from torch_ascendgen.errors import KernelBuildError, KernelCrashError
    from torch_ascendgen.targets.sim.simulator import compile_kernel
    source = """
    #include <cstdlib>
    #include "kernel_operator.h"
    static int table = (std::abort(), 0);
    extern "C" __global__ __aicore__ void boom(GM_ADDR x) { (void)table; }
    """
    try:
        compile_kernel(source).launch_isolated(1, torch.zeros(8), timeout=120)
    except (KernelCrashError, KernelBuildError):
        print("caller survived")
''')


def test_static_initialiser_crash_does_not_kill_the_caller() -> None:
    done = subprocess.run([sys.executable, "-c", STATIC_INITIALISER_CRASH], capture_output=True, text=True,
                          timeout=300, env=os.environ.copy())
    assert done.returncode == 0 and "caller survived" in done.stdout, (
        f"the caller died (exit {done.returncode}): compile_kernel ran the kernel's static initialisers in the "
        f"calling process\n{done.stdout[-1000:]}{done.stderr[-1000:]}"
    )


ORPHAN_SCRIPT = """
import os, sys, time
from torch_ascendgen.targets.sandbox import Worker

worker = Worker(time.time, 120, "the test's worker")
worker.start()
worker.call(time.time, timeout=120)  # the child is up and confined
print(worker._child.process.pid, flush=True)
worker.call(time.sleep, 600, timeout=900)  # the parent is killed during this call
"""


def test_a_child_whose_parent_is_killed_stops_itself(tmp_path) -> None:
    """Killing the process that started a sandboxed child (no cleanup runs) must not leave the child running: a
    spinning kernel would hold a core for good."""
    parent = subprocess.Popen([sys.executable, "-c", ORPHAN_SCRIPT], stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        time.sleep(1.0)
        assert _alive(child), "the child died before its parent"
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(child), "the child outlived its killed parent"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[-1][0] != "Z"
    except FileNotFoundError:
        return False
