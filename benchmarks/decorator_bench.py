"""@ascend_kernel costs, side by side in one run:

1. per-call overhead of a decorated function on a cache hit, against calling its op directly
   (target: under 5 us more);
2. time to first result in a fresh process with a warm cache, against a fresh process running
   torch.compile on the same function with its own warm cache (target: faster);
3. a cold first call of a new function with 4 variants in a fresh process (target: under 15 s
   here): an empty kernel cache on a machine that has used torch_ascendgen before; then with the
   candidates' simulator builds on disk too; then the first use on a new machine (an empty cache
   directory: it also builds the runtime module and the simulator's support library, once per
   machine and toolchain);
4. per-call cost of a model-written kernel served by the sandboxed worker (serve.py: shared memory and a
   pipe), against the same kernel called in-process, on small tensors so that the overhead dominates.

    python benchmarks/decorator_bench.py
    python benchmarks/decorator_bench.py --only overhead    # just 1., in-process (one cold compile)
    python benchmarks/decorator_bench.py --only served      # just 4.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FUNCTION = """
import torch, torch.nn.functional as F
def swiglu(gate, up):
    return F.silu(gate) * up
"""

FIRST_RESULT = """
import time
started = time.perf_counter()
{setup}
gate, up = torch.randn(64, 512), torch.randn(64, 512)
with torch.inference_mode():
    out = fast(gate, up)
print("SECONDS", time.perf_counter() - started)
"""

ASCENDGEN_SETUP = FUNCTION + ("from torch_ascendgen import ascend_kernel\n"
                              "fast = ascend_kernel(swiglu, variants={variants})")
COMPILE_SETUP = FUNCTION + "fast = torch.compile(swiglu)"
COLD_SETUP = FUNCTION + ("from torch_ascendgen import ascend_kernel\n"
                         "fast = ascend_kernel(swiglu, variants=4, cache_dir={cache_dir!r})")
PER_MACHINE_SETUP = ("from torch_ascendgen.targets.sim.build import sim_support\n"
                     "from torch_ascendgen.targets.runtime import runtime_module\n"
                     "runtime_module()\nsim_support()\n")
OVERHEAD_TARGET_US = 5.0


def fresh_process(setup: str, environment: dict) -> float:
    code = textwrap.dedent(FIRST_RESULT.format(setup=setup))
    done = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, cwd=ROOT,
                          timeout=900)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return float(next(line.split()[1] for line in done.stdout.splitlines() if line.startswith("SECONDS")))


@dataclass(frozen=True)
class Overhead:
    """Per-call times (us) of the decorated function and of its op, measured in back-to-back pairs."""

    decorated: list[float]
    direct: list[float]

    def differences_us(self) -> list[float]:
        return sorted(d - o for d, o in zip(self.decorated, self.direct))

    def rows(self) -> list[tuple[str, str, str]]:
        differences = self.differences_us()
        overhead = statistics.median(differences)
        quarter = len(differences) // 4
        return [
            ("per-call, decorated (cache hit): median / min", _median_min(self.decorated), ""),
            ("per-call, its op called directly: median / min", _median_min(self.direct), ""),
            (f"  overhead: median of {len(differences)} paired differences", f"{overhead:9.1f} us",
             "PASS" if overhead < OVERHEAD_TARGET_US else f"FAIL (target < {OVERHEAD_TARGET_US:g} us)"),
            ("  overhead: middle half of the paired differences",
             f"{differences[quarter]:.1f} to {differences[-quarter - 1]:.1f} us", ""),
        ]


def _median_min(samples: list[float]) -> str:
    return f"{statistics.median(samples):.1f} / {min(samples):.1f} us"


def per_call_overhead(cache_dir: str, pairs: int = 4000) -> Overhead:
    from torch_ascendgen import ascend_kernel
    from torch_ascendgen.targets.runtime import kernel_op

    def swiglu(gate, up):
        return F.silu(gate) * up

    fast = ascend_kernel(swiglu, variants=1, cache_dir=cache_dir, progress=False)
    gate, up = torch.randn(8, 64), torch.randn(8, 64)
    with torch.inference_mode():
        fast(gate, up)
        op = kernel_op(fast.kernels()[0])
        flat = [gate.reshape(-1), up.reshape(-1)]  # the kernel's own (collapsed, 1-D) shapes
        decorated, direct = _paired_us(lambda: fast(gate, up), lambda: op(flat), pairs)
    return Overhead(decorated, direct)


@dataclass(frozen=True)
class Served:
    """Per-call times (us) of one kernel served by the worker and called in-process, in back-to-back pairs."""

    served: list[float]
    in_process: list[float]
    worker_starts: int

    def rows(self) -> list[tuple[str, str, str]]:
        differences = sorted(s - i for s, i in zip(self.served, self.in_process))
        ratio = statistics.median(self.served) / statistics.median(self.in_process)
        return [
            ("per-call, model kernel served by the sandboxed worker: median / min", _median_min(self.served), ""),
            ("per-call, the same kernel in-process: median / min", _median_min(self.in_process), ""),
            (f"  serving cost: median of {len(differences)} paired differences",
             f"{statistics.median(differences):9.1f} us", f"ratio {ratio:.2f}x"),
        ]


def served_overhead(cache_dir: str, pairs: int = 2000) -> Served:
    """The swiglu kernel (8x64 float32) called as the worker serves a model's kernel, and in-process."""
    from torch_ascendgen import ascend_kernel
    from torch_ascendgen.targets.sim.serving import ServedKernel, serving_worker

    def swiglu(gate, up):
        return F.silu(gate) * up

    fast = ascend_kernel(swiglu, variants=1, cache_dir=cache_dir, progress=False)
    gate, up = torch.randn(8, 64), torch.randn(8, 64)
    with torch.inference_mode():
        fast(gate, up)
        gate, up = gate.reshape(-1), up.reshape(-1)  # the kernel's own (collapsed, 1-D) shapes
        compiled = fast.kernels()[0]
        in_process = compiled.runner
        entry = compiled.entry
        served = ServedKernel(entry.library, entry.source, entry.key, in_process.task, in_process.soc)
        torch.testing.assert_close(served(gate, up), in_process(gate, up), rtol=0, atol=0)
        served_us, in_process_us = _paired_us(lambda: served(gate, up), lambda: in_process(gate, up), pairs)
    return Served(served_us, in_process_us, serving_worker().starts)


def _paired_us(first: Callable, second: Callable, pairs: int) -> tuple[list[float], list[float]]:
    """Times of single calls of both, back to back, alternating which goes first: a pair sees one load and
    one cache state (the simulator's launch leaves caches cold for whichever call comes next), and the
    median of the differences ignores the pairs a context switch of this loaded machine landed in."""
    for _ in range(50):
        first()
        second()
    times: tuple[list[float], list[float]] = ([], [])
    calls = (first, second)
    collecting = gc.isenabled()
    gc.disable()
    try:
        for index in range(pairs):
            for which in ((0, 1) if index % 2 == 0 else (1, 0)):
                call = calls[which]
                started = time.perf_counter()
                call()
                times[which].append((time.perf_counter() - started) * 1e6)
    finally:
        if collecting:
            gc.enable()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["overhead", "served"], help="run one measurement only")
    only = parser.parse_args().only
    with tempfile.TemporaryDirectory() as ours, tempfile.TemporaryDirectory() as inductor:
        rows = [] if only else _first_result_rows(ours, inductor)
        if only != "served":
            rows = per_call_overhead(ours).rows() + rows
        if only != "overhead":
            rows += served_overhead(ours).rows()
    width = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{width}} {'value':>18}  verdict")
    for name, value, verdict in rows:
        print(f"{name:<{width}} {value:>18}  {verdict}")


def _first_result_rows(ours: str, inductor: str) -> list[tuple[str, str, str]]:
    environment = dict(os.environ, TORCH_ASCENDGEN_CACHE_DIR=ours, TORCHINDUCTOR_CACHE_DIR=inductor,
                       TORCH_ASCENDGEN_PROGRESS="0")
    cold = fresh_process(ASCENDGEN_SETUP.format(variants=4), environment)
    cold_builds_on_disk, cold_per_machine_built = _other_cold_calls(environment)
    warm = statistics.median(fresh_process(ASCENDGEN_SETUP.format(variants=4), environment) for _ in range(3))
    fresh_process(COMPILE_SETUP, environment)  # fills inductor's cache
    compiled = statistics.median(fresh_process(COMPILE_SETUP, environment) for _ in range(3))
    return [
        ("first result, fresh process, warm cache: ascend_kernel", f"{warm:9.2f} s", ""),
        ("first result, fresh process, warm cache: torch.compile", f"{compiled:9.2f} s",
         "PASS" if warm < compiled else "FAIL (target: faster than torch.compile)"),
        ("cold first call of a new function, 4 variants, fresh process", f"{cold_per_machine_built:9.2f} s",
         "PASS" if cold_per_machine_built < 15.0 else "FAIL (target < 15 s)"),
        ("  the same, the candidates' simulator builds already on disk", f"{cold_builds_on_disk:9.2f} s", ""),
        ("  the same on a new machine: + one-time runtime module, simulator support", f"{cold:9.2f} s",
         "(once per machine and toolchain)"),
    ]


def _other_cold_calls(environment: dict) -> tuple[float, float]:
    """The cold call again, each time with an empty kernel cache: with the simulator builds of its
    candidates on disk (those of the first cold call), and with only the per-machine parts built
    (the runtime module and the simulator support, in a new cache directory)."""
    with tempfile.TemporaryDirectory() as kernels, tempfile.TemporaryDirectory() as machine:
        builds_on_disk = fresh_process(COLD_SETUP.format(cache_dir=kernels), environment)
        prepared = dict(environment, TORCH_ASCENDGEN_CACHE_DIR=machine)
        subprocess.run([sys.executable, "-c", PER_MACHINE_SETUP], env=prepared, cwd=ROOT, check=True, timeout=900)
        per_machine_built = fresh_process(ASCENDGEN_SETUP.format(variants=4), prepared)
    return builds_on_disk, per_machine_built


if __name__ == "__main__":
    main()
