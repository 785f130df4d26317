"""Measure: how fast a verified kernel is.

On the simulator the ranking figure is the cost model's estimate of NPU time; the CPU time of the
simulated launch is recorded for information and never used to rank (it measures the simulator,
not the kernel). On an NPU the figure is device time from events (the NPU target).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Measurement:
    """The figure candidates are ranked by, and how it was obtained."""

    time_ns: float  # estimated (simulator) or measured (NPU) kernel time
    method: str  # "sim-estimate" or "npu-events"
    cpu_ns: float = 0.0  # wall time of one simulated launch on this CPU, for information


def measure_sim(run: Callable[[], object], estimated_ns: float, repeats: int = 3) -> Measurement:
    """A simulator measurement: the estimate, plus the median CPU time of ``repeats`` launches."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter_ns()
        run()
        samples.append(time.perf_counter_ns() - started)
    return Measurement(estimated_ns, "sim-estimate", float(statistics.median(samples)))
