"""Big tensors to and from the sandboxed child: pickled inline (as before) next to storages in files.

    python benchmarks/sandbox_bench.py [--mb 256] [--rounds 3]

A tensor of --mb MiB goes through ``sandbox.Worker.call(operator.neg, x)``: to the child and back (the result
is as big). "inline" puts every storage into the pickle (the transport before shared files: the bytes are
copied into the pickle, written, read and unpickled on each side); "files" writes storages of 1 MiB or more
into files that the child maps and the caller copies back once. For each: the median wall time of a call,
and the caller's peak resident memory during a call above what it held before it (the tensor it sends and
the one it gets back are 2 x --mb of that). Each transport has its own warmed-up child.
"""

from __future__ import annotations

import argparse
import operator
import statistics
import time
from pathlib import Path

import torch

from torch_ascendgen.targets.sandbox import SHARED_TENSOR_BYTES, Worker


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def _reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS (Linux 4.0 and newer)


def measure(worker: Worker, tensor: torch.Tensor, rounds: int) -> tuple[float, float]:
    """(median seconds per call, median peak MiB above the resident memory before the call)."""
    seconds, peaks = [], []
    for _ in range(rounds):
        _reset_peak()
        before = _status_kb("VmRSS")
        started = time.perf_counter()
        result = worker.call(operator.neg, tensor, timeout=600)
        seconds.append(time.perf_counter() - started)
        peaks.append((_status_kb("VmHWM") - before) / 1024)
        assert result.shape == tensor.shape and result[0, 0] == -tensor[0, 0]
        del result
    return statistics.median(seconds), statistics.median(peaks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    tensor = torch.randn(options.mb, 1 << 18)  # 1 MiB a row
    transports = {"inline (before)": 1 << 62, "files (now)": SHARED_TENSOR_BYTES}
    results = {}
    for name, file_bytes in transports.items():
        with Worker(time.time, 120, tensor_file_bytes=file_bytes) as worker:
            worker.call(operator.neg, torch.ones(1, 1), timeout=120)  # start and warm up the child
            results[name] = measure(worker, tensor, options.rounds)
    print(f"{options.mb} MiB float32 through Worker.call(operator.neg) and back, median of {options.rounds}:")
    print(f"  {'transport':<16} {'seconds':>8} {'peak MiB':>9}")
    for name, (seconds, peak) in results.items():
        print(f"  {name:<16} {seconds:>8.3f} {peak:>9.0f}")
    (old_s, old_peak), (new_s, new_peak) = results.values()
    print(f"  files/inline: {new_s / old_s:.2f}x the time, {new_peak / old_peak:.2f}x the peak memory")


if __name__ == "__main__":
    main()
