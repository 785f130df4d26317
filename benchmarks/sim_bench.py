"""Simulator speed: how long a kernel takes to build, and how fast a launch runs next to torch eager.

    python benchmarks/sim_bench.py [--rounds 25] [--builds 5] [--inline-runs 1]

One table, side by side, with PASS/FAIL against the targets:
- build: median wall time of build_sim_kernel for several distinct kernel sources in a fresh
  cache directory, next to torch.utils.cpp_extension.load_inline building an equivalent C++ add
  (the usual way to JIT a CPU kernel for torch). The simulator's once-per-machine support build
  (launch runtime and precompiled header) is shown on its own line.
- A 1024 x 1024 x 1024 half matmul on the cube (issue 16: under 10 s), written with the cube instructions alone
  (tests/kernels/cube/matmul_lowlevel.cpp: Nd2Nz to L1, LoadData, Mmad over K, Fixpipe), 24 blocks of 128 x 256
  tiles: its wall time, checked against torch.
- Add over 4M float32, and a fused chain of six elementwise ops over 4M float32, against torch
  eager on the CPU (one op, and six separate ops). The kernels are AscendC (benchmarks/kernels/):
  48 blocks, double-buffered TQues, tiles of at least 16 KB. Each round allocates the output, as
  eager does; simulator and eager rounds alternate so both see the same machine load. The ratio
  is eager time / simulator time (higher is better for the simulator).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

KERNELS = Path(__file__).resolve().parent / "kernels"
N = 4 * 1024 * 1024
BLOCKS = 48  # vector cores of the Ascend910B2
ADD_TILE = 7680  # 6 buffers x 30 KB = 180 KB of UB
FUSED_TILE = 6144  # 7 buffers x 24 KB = 168 KB of UB
WARMUP = 3  # untimed rounds: thread pools, allocator caches and page tables settle
TARGET_BUILD_S = 3.0
TARGET_ADD_RATIO = 0.3
TARGET_FUSED_RATIO = 1.0
TARGET_MATMUL_S = 10.0
CUBE_MATMUL = Path(__file__).resolve().parent.parent / "tests" / "kernels" / "cube" / "matmul_lowlevel.cpp"

INLINE_ADD = """
#include <torch/extension.h>
torch::Tensor add(torch::Tensor x, torch::Tensor y) {
    auto z = torch::empty_like(x);
    const float* a = x.data_ptr<float>();
    const float* b = y.data_ptr<float>();
    float* c = z.data_ptr<float>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) c[i] = a[i] + b[i];
    return z;
}
"""


@dataclass
class Row:
    metric: str
    simulator: str
    reference: str = ""
    ratio: str = ""
    target: str = ""
    passed: bool | None = None


def tiling(n: int, tile: int, blocks: int, *extra: int) -> bytes:
    """TilingData of the benchmark kernels: length, tile, tiles per core, cores with one more, extras."""
    tiles = (n + tile - 1) // tile
    return struct.pack(f"<{4 + len(extra)}I", n, tile, tiles // blocks, tiles % blocks, *extra)


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bench_builds(count: int) -> tuple[float, list[float], list[float]]:
    """Support build seconds, and wall and compiler-CPU seconds per kernel build, for distinct sources
    (the CPU time does not grow when other work shares the machine). Run it on an empty cache."""
    from torch_ascendgen.targets.sim.build import build_sim_kernel, sim_support

    started = time.perf_counter()
    sim_support()
    support = time.perf_counter() - started
    base = (KERNELS / "add_bench.cpp").read_text()
    ops = ["Add", "Sub", "Mul", "Max", "Min", "Div"]
    wall, cpu = [], []
    for i in range(count):
        source = base.replace("AscendC::Add(", f"AscendC::{ops[i % len(ops)]}(") + f"\n// variant {i}\n"
        started, cpu_before = time.perf_counter(), children_cpu_s()
        build_sim_kernel(source, "add_bench")
        wall.append(time.perf_counter() - started)
        cpu.append(children_cpu_s() - cpu_before)
    return support, wall, cpu


def bench_load_inline(runs: int) -> list[float]:
    """Wall time of load_inline for a C++ add, each run in a fresh build directory and a fresh process."""
    script = (
        "import sys, tempfile, torch.utils.cpp_extension as ext\n"
        "with tempfile.TemporaryDirectory(prefix='ascendgen-inline-') as build:\n"
        "    ext.load_inline(name='bench_add_' + sys.argv[1], cpp_sources=sys.stdin.read(), functions=['add'],\n"
        "                    build_directory=build, verbose=False)\n"
    )
    seconds = []
    for run in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", script, f"{os.getpid()}_{run}"], input=INLINE_ADD, text=True,
                       check=True, capture_output=True)
        seconds.append(time.perf_counter() - started)
    return seconds


def interleaved(sim: Callable[[], torch.Tensor], eager: Callable[[], torch.Tensor], rounds: int):
    """Median seconds of `sim` and `eager`, alternated round by round after WARMUP untimed rounds."""
    if not torch.equal(sim(), eager()):
        raise AssertionError("the simulator's result differs from torch eager")
    for _ in range(WARMUP - 1):
        sim(), eager()
    sim_times, eager_times = [], []
    for _ in range(rounds):
        for fn, times in ((sim, sim_times), (eager, eager_times)):
            started = time.perf_counter()
            fn()
            times.append(time.perf_counter() - started)
    return statistics.median(sim_times), statistics.median(eager_times)


def bench_add(rounds: int) -> tuple[float, float]:
    from torch_ascendgen.targets.sim.simulator import compile_kernel

    kernel = compile_kernel((KERNELS / "add_bench.cpp").read_text(), filename="add_bench.cpp")
    x, y, t = torch.randn(N), torch.randn(N), tiling(N, ADD_TILE, BLOCKS, 2)  # 2 buffers a queue

    def sim() -> torch.Tensor:
        z = torch.empty_like(x)
        kernel.launch(BLOCKS, x, y, z, None, t)
        return z

    return interleaved(sim, lambda: x + y, rounds)


def bench_fused(rounds: int) -> tuple[float, float]:
    from torch_ascendgen.targets.sim.simulator import compile_kernel

    kernel = compile_kernel((KERNELS / "fused6_bench.cpp").read_text(), filename="fused6_bench.cpp")
    x, y, t = torch.randn(N), torch.randn(N), tiling(N, FUSED_TILE, BLOCKS)

    def sim() -> torch.Tensor:
        z = torch.empty_like(x)
        kernel.launch(BLOCKS, x, y, z, None, t)
        return z

    def eager() -> torch.Tensor:
        t1 = x * y
        t2 = t1 + x
        t3 = torch.maximum(t2, y)
        t4 = t3 - y
        t5 = torch.minimum(t4, x)
        return t5 * y

    return interleaved(sim, eager, rounds)


def bench_cube_matmul() -> tuple[float, float]:
    """Wall seconds of one 1024^3 half -> float matmul launch (the build excluded), and its largest error against
    torch in float64."""
    from torch_ascendgen.targets.sim.simulator import compile_kernel

    kernel = compile_kernel(CUBE_MATMUL.read_text(), "cube_matmul", filename="matmul_lowlevel.cpp")
    size = 1024
    a, b, c = torch.randn(size, size).half(), torch.randn(size, size).half(), torch.zeros(size, size)
    started = time.perf_counter()
    kernel.launch(24, a, b, c, None, 0, size, size, size, 128, 256, 64, 0)  # mode 0: half -> float, no scales
    seconds = time.perf_counter() - started
    return seconds, (c.double() - a.double() @ b.double()).abs().max().item()


def speed_row(name: str, sim_s: float, eager_s: float, target: float, rounds: int) -> Row:
    ratio = eager_s / sim_s
    return Row(f"{name} (median of {rounds})", f"{sim_s * 1e3:.2f} ms", f"eager {eager_s * 1e3:.2f} ms",
               f"{ratio:.2f}x", f">= {target}x", ratio >= target)


def print_table(rows: list[Row]) -> None:
    header = Row("metric", "simulator", "reference", "ratio", "target")
    widths = [max(len(getattr(r, f)) for r in [header, *rows])
              for f in ("metric", "simulator", "reference", "ratio", "target")]
    for r in [header, *rows]:
        cells = [r.metric, r.simulator, r.reference, r.ratio, r.target]
        verdict = "result" if r is header else ("" if r.passed is None else "PASS" if r.passed else "FAIL")
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths)) + "  " + verdict)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=25, help="timed rounds of each launch and eager run")
    parser.add_argument("--builds", type=int, default=5, help="distinct kernel sources to build")
    parser.add_argument("--inline-runs", type=int, default=1, help="load_inline builds (each takes tens of seconds)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ascendgen-bench-") as cache:
        os.environ["TORCH_ASCENDGEN_CACHE_DIR"] = cache  # config reads it on every use
        rows = run_all(args)
    print(f"torch_ascendgen simulator benchmark: torch {torch.__version__}, {torch.get_num_threads()} torch threads, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print_table(rows)
    return 0 if all(r.passed is not False for r in rows) else 1


def run_all(args: argparse.Namespace) -> list[Row]:
    support_s, build_s, build_cpu_s = bench_builds(args.builds)
    inline_s = bench_load_inline(args.inline_runs) if args.inline_runs else []
    build_median = statistics.median(build_s)
    inline_text = f"load_inline {statistics.median(inline_s):.1f} s" if inline_s else ""
    inline_ratio = f"{statistics.median(inline_s) / build_median:.0f}x faster" if inline_s else ""
    rows = [
        Row(f"build one kernel (median of {len(build_s)})", f"{build_median:.2f} s", inline_text, inline_ratio,
            f"< {TARGET_BUILD_S} s", build_median < TARGET_BUILD_S),
        Row("  compiler CPU time per kernel (median)", f"{statistics.median(build_cpu_s):.2f} s"),
        Row("  once per machine: launch runtime + PCH", f"{support_s:.2f} s"),
    ]
    rows.append(speed_row("Add, 4M float32", *bench_add(args.rounds), TARGET_ADD_RATIO, args.rounds))
    rows.append(speed_row("fused 6 ops, 4M float32", *bench_fused(args.rounds), TARGET_FUSED_RATIO, args.rounds))
    matmul_s, matmul_error = bench_cube_matmul()
    rows.append(Row("matmul 1024^3 half on the cube", f"{matmul_s:.2f} s", f"max error {matmul_error:.1e}", "",
                    f"< {TARGET_MATMUL_S:.0f} s", matmul_s < TARGET_MATMUL_S and matmul_error < 1e-2))
    return rows


if __name__ == "__main__":
    sys.exit(main())
