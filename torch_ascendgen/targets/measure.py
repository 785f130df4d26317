"""Measure: how fast a verified kernel is.

On the simulator the ranking figure is the cost model's estimate of NPU time; the CPU time of the
simulated launch is recorded for information and never used to rank (it measures the simulator,
not the kernel). On an NPU the figure is device time from events (the NPU target).

NPU timing follows torch_npu's event API (``torch_npu/npu/streams.py``: ``Event(enable_timing=True)``,
``record(stream)``, ``elapsed_time(end)`` in milliseconds; ``torch_npu/npu/utils.py``:
``synchronize()``, ``current_stream()``). The device module (``torch.npu``) is passed in, so this
module never imports torch_npu and runs in tests with a fake one.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from torch_ascendgen.records import Measurement

SUSPICIOUS_SPEEDUP = 10.0  # KernelBench's flag: faster than this over the original is checked again
L2_FLUSH_BYTES = 192 * 2**20  # the flush Ascend timing uses (ASCENDC.md): evicts the last call's data from L2
_NS_PER_MS = 1e6


@dataclass(frozen=True)
class NpuComparison:
    """A kernel and the original function it replaces, timed the same way in the same run."""

    kernel: Measurement
    original: Measurement
    speedup: float  # original median / kernel median
    suspicious: bool  # speedup > SUSPICIOUS_SPEEDUP: verify again on fresh inputs before believing it


class NpuDevice(Protocol):
    """What the timing uses of ``torch.npu`` (torch_npu's device module)."""

    Event: Callable[..., Any]

    def synchronize(self, device: Any = None) -> None: ...

    def current_stream(self, device: Any = None) -> Any: ...


def measure_sim(run: Callable[[], object], estimated_ns: float, repeats: int = 3) -> Measurement:
    """A simulator measurement: the estimate, plus the median CPU time of ``repeats`` launches."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter_ns()
        run()
        samples.append(time.perf_counter_ns() - started)
    return Measurement(estimated_ns, "sim-estimate", float(statistics.median(samples)))


def npu_flush_buffer(nbytes: int) -> Any:
    """The L2 flush buffer on the current NPU (torch_npu registers the "npu" device type on import)."""
    import torch

    return torch.empty(nbytes, dtype=torch.uint8, device="npu")


def measure_npu(run: Callable[[], object], device: NpuDevice, *, warmup: int = 10, repeats: int = 100,
                flush_bytes: int = L2_FLUSH_BYTES,
                flush_buffer: Callable[[int], Any] = npu_flush_buffer) -> Measurement:
    """Device time of ``run()``: the median of ``repeats`` calls, each with a cold L2.

    ``run`` must launch its work on the current stream (the NPU runtime does, through OpCommand):
    events time only that stream. ``warmup`` calls first (first-call costs: op compilation, tiling
    upload, allocator growth) are never timed. Before every call, warm-ups included, a
    ``flush_bytes`` buffer (allocated once by ``flush_buffer``) is zeroed on the same stream, before
    the start event, so its time never enters a sample; ``flush_bytes=0`` times with a warm L2.
    """
    (samples,) = _time_rounds([run], device, warmup, repeats, flush_bytes, flush_buffer)
    return _summary(samples)


def compare_npu(kernel_run: Callable[[], object], original_run: Callable[[], object], device: NpuDevice, *,
                warmup: int = 10, repeats: int = 100, flush_bytes: int = L2_FLUSH_BYTES,
                flush_buffer: Callable[[int], Any] = npu_flush_buffer) -> NpuComparison:
    """The kernel against the original function, timed as ``measure_npu`` does, in alternating rounds.

    Round i calls both once: kernel first in even rounds, original first in odd ones, so clock or
    thermal drift and any cost of following the other call fall on both alike. The speed-up is the
    ratio of the medians.

    Contract: ``suspicious`` (speed-up above ``SUSPICIOUS_SPEEDUP``) is not a verdict. Such
    speed-ups are more often a kernel that skips work which the verification inputs did not expose
    (returns an input, caches a result, specialises on the seen values) than a real win, so the
    caller must verify the kernel again on freshly generated inputs (a new seed, never the timed
    tensors) and reject it if that fails; if it passes, the figure stands.
    """
    kernel, original = _time_rounds([kernel_run, original_run], device, warmup, repeats, flush_bytes, flush_buffer)
    kernel_m, original_m = _summary(kernel), _summary(original)
    speedup = original_m.time_ns / kernel_m.time_ns if kernel_m.time_ns > 0 else math.inf
    return NpuComparison(kernel_m, original_m, speedup, speedup > SUSPICIOUS_SPEEDUP)


class _EventTimer:
    """Flushes L2 and brackets calls with events on the current stream; reads the times at the end.

    There is one synchronisation after all timed calls, not one per call: with a sync per call the
    device idles while the host launches the next call, and the start event, already executed, would
    count that host launch time. Unsynchronised, the host queues flush, start, call, end ahead of the
    device (the 192 MB flush alone keeps it busy long enough), so each interval holds device work only.
    """

    def __init__(self, device: NpuDevice, flush_bytes: int, flush_buffer: Callable[[int], Any]):
        self._device = device
        self._stream = device.current_stream()
        self._buffer = flush_buffer(flush_bytes) if flush_bytes > 0 else None
        self._pending: list[tuple[int, Any, Any]] = []

    def warm(self, run: Callable[[], object]) -> None:
        self._flush()
        run()

    def time(self, index: int, run: Callable[[], object]) -> None:
        self._flush()
        start, end = self._device.Event(enable_timing=True), self._device.Event(enable_timing=True)
        start.record(self._stream)
        run()
        end.record(self._stream)
        self._pending.append((index, start, end))

    def collect(self, count: int) -> list[list[float]]:
        """Per run, its samples in ns in call order; elapsed times are read only once all are complete."""
        self._device.synchronize()
        samples: list[list[float]] = [[] for _ in range(count)]
        for index, start, end in self._pending:
            samples[index].append(start.elapsed_time(end) * _NS_PER_MS)
        return samples

    def _flush(self) -> None:
        if self._buffer is not None:
            self._buffer.zero_()


def _time_rounds(runs: Sequence[Callable[[], object]], device: NpuDevice, warmup: int, repeats: int,
                 flush_bytes: int, flush_buffer: Callable[[int], Any]) -> list[list[float]]:
    """``warmup`` untimed rounds, then ``repeats`` timed rounds, each calling every run once."""
    if warmup < 0 or repeats < 1 or flush_bytes < 0:
        raise ValueError(f"NPU timing needs warmup >= 0, repeats >= 1, flush_bytes >= 0 "
                         f"(got {warmup}, {repeats}, {flush_bytes})")
    timer = _EventTimer(device, flush_bytes, flush_buffer)
    for round_index in range(warmup):
        for index in _round_order(len(runs), round_index):
            timer.warm(runs[index])
    device.synchronize()  # warm-up finished before the first timed call is queued
    for round_index in range(repeats):
        for index in _round_order(len(runs), round_index):
            timer.time(index, runs[index])
    return timer.collect(len(runs))


def _round_order(count: int, round_index: int) -> list[int]:
    """Calls in listed order in even rounds, reversed in odd ones."""
    order = list(range(count))
    return order if round_index % 2 == 0 else order[::-1]


def _summary(samples_ns: list[float]) -> Measurement:
    """Median and interquartile range: one slow call (a preemption, a clock change) moves neither."""
    spread = 0.0
    if len(samples_ns) > 1:
        first, _, third = statistics.quantiles(samples_ns, n=4, method="inclusive")
        spread = third - first
    return Measurement(float(statistics.median(samples_ns)), "npu-events", samples=len(samples_ns),
                       spread_ns=spread, sample_ns=tuple(samples_ns))
