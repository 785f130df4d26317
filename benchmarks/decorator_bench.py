"""@ascend_kernel costs, side by side in one run:

1. per-call overhead of a decorated function on a cache hit, against calling its op directly
   (target: under 5 us more);
2. time to first result in a fresh process with a warm cache, against a fresh process running
   torch.compile on the same function with its own warm cache (target: faster);
3. a cold first call with 4 variants in a fresh process (target: under 15 s here).

    python benchmarks/decorator_bench.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

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

ASCENDGEN_SETUP = FUNCTION + "from torch_ascendgen import ascend_kernel\nfast = ascend_kernel(swiglu, variants={variants})"
COMPILE_SETUP = FUNCTION + "fast = torch.compile(swiglu)"


def fresh_process(setup: str, environment: dict) -> float:
    code = textwrap.dedent(FIRST_RESULT.format(setup=setup))
    done = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, cwd=ROOT,
                          timeout=900)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return float(next(line.split()[1] for line in done.stdout.splitlines() if line.startswith("SECONDS")))


def per_call_overhead(cache_dir: str) -> tuple[float, float, float]:
    from torch_ascendgen import ascend_kernel
    from torch_ascendgen.runtime import kernel_op

    def swiglu(gate, up):
        return F.silu(gate) * up

    fast = ascend_kernel(swiglu, variants=1, cache_dir=cache_dir, progress=False)
    gate, up = torch.randn(8, 64), torch.randn(8, 64)
    with torch.inference_mode():
        fast(gate, up)
        op = kernel_op(fast.kernels()[0])
        decorated = _median_us(lambda: fast(gate, up))
        direct = _median_us(lambda: op([gate, up]))
    return decorated, direct, decorated - direct


def _median_us(call, repeats: int = 7, number: int = 300) -> float:
    for _ in range(50):
        call()
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(number):
            call()
        samples.append((time.perf_counter() - started) / number * 1e6)
    return statistics.median(samples)


def main() -> None:
    with tempfile.TemporaryDirectory() as ours, tempfile.TemporaryDirectory() as inductor:
        environment = dict(os.environ, TORCH_ASCENDGEN_CACHE_DIR=ours, TORCHINDUCTOR_CACHE_DIR=inductor,
                           TORCH_ASCENDGEN_PROGRESS="0")
        cold = fresh_process(ASCENDGEN_SETUP.format(variants=4), environment)
        warm = statistics.median(fresh_process(ASCENDGEN_SETUP.format(variants=4), environment) for _ in range(3))
        fresh_process(COMPILE_SETUP, environment)  # fills inductor's cache
        compiled = statistics.median(fresh_process(COMPILE_SETUP, environment) for _ in range(3))
        decorated, direct, overhead = per_call_overhead(ours)

    rows = [
        ("per-call, decorated (cache hit)", f"{decorated:9.1f} us", ""),
        ("per-call, its op called directly", f"{direct:9.1f} us", ""),
        ("  overhead", f"{overhead:9.1f} us", "PASS" if overhead < 5.0 else "FAIL (target < 5 us)"),
        ("first result, fresh process, warm cache: ascend_kernel", f"{warm:9.2f} s", ""),
        ("first result, fresh process, warm cache: torch.compile", f"{compiled:9.2f} s",
         "PASS" if warm < compiled else "FAIL (target: faster than torch.compile)"),
        ("cold first call, 4 variants, fresh process", f"{cold:9.2f} s", "PASS" if cold < 15.0 else "FAIL (target < 15 s)"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{width}} {'value':>12}  verdict")
    for name, value, verdict in rows:
        print(f"{name:<{width}} {value:>12}  {verdict}")


if __name__ == "__main__":
    main()
