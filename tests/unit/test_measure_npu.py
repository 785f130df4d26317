"""NPU timing (measure_npu, compare_npu) against a fake torch.npu whose events read a fake device clock.

The fake "kernels" advance the clock by fixed per-call costs, the flush buffer advances it by a
large cost of its own, and events read the clock when recorded: every figure below is exact. The
fake also enforces torch_npu's rules that matter here: events are recorded on the current stream
and their elapsed time is read only after a synchronize.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys

import pytest
import torch

from torch_ascendgen.targets import measure
from torch_ascendgen.targets.measure import (
    L2_FLUSH_BYTES,
    SUSPICIOUS_SPEEDUP,
    Measurement,
    compare_npu,
    measure_npu,
    measure_sim,
    npu_flush_buffer,
)

FLUSH_NS = 7_000_000  # far above every kernel cost: any leak into a sample would show


class FakeNpu:
    """The parts of torch.npu the timing uses, on a clock that only the fakes advance."""

    def __init__(self) -> None:
        self.now = 0
        self.log: list[str] = []
        self.stream = object()
        self.events: list = []
        npu = self

        class Event:
            def __init__(self, enable_timing: bool = False) -> None:
                assert enable_timing, "an event without enable_timing has no elapsed time"
                self.at: int | None = None
                self.complete = False
                npu.events.append(self)

            def record(self, stream=None) -> None:
                assert stream is npu.stream, "events must be recorded on the current stream"
                self.at = npu.now
                npu.log.append("record")

            def elapsed_time(self, end: Event) -> float:
                assert self.complete and end.complete, "elapsed time read before synchronize"
                assert end.at >= self.at
                return (end.at - self.at) / 1e6  # milliseconds, as torch_npu returns

        self.Event = Event

    def synchronize(self, device=None) -> None:
        self.log.append("sync")
        for event in self.events:
            event.complete = event.at is not None

    def current_stream(self, device=None):
        return self.stream

    def kernel(self, name: str, costs_ns: list[int]):
        """A callable whose i-th call costs costs_ns[i] of device time (the last cost repeats)."""
        remaining = list(costs_ns)

        def run() -> None:
            self.now += remaining.pop(0) if len(remaining) > 1 else remaining[0]
            self.log.append(name)

        return run


class FlushBuffers:
    """The flush_buffer factory: counts allocations and zero_() calls, each zero_() costing FLUSH_NS."""

    def __init__(self, npu: FakeNpu) -> None:
        self.npu = npu
        self.allocated: list[int] = []
        self.flushes = 0

    def __call__(self, nbytes: int) -> FlushBuffers:
        self.allocated.append(nbytes)
        return self

    def zero_(self) -> FlushBuffers:
        self.flushes += 1
        self.npu.now += FLUSH_NS
        self.npu.log.append("flush")
        return self


def fake() -> tuple[FakeNpu, FlushBuffers]:
    npu = FakeNpu()
    return npu, FlushBuffers(npu)


def test_median_and_spread_exclude_warmup_and_flush():
    npu, buffers = fake()
    # slow first call (warm-up), then five timed calls, one of them an outlier
    run = npu.kernel("k", [9_000_000, 100_000, 110_000, 5_000_000, 120_000, 130_000])
    result = measure_npu(run, npu, warmup=1, repeats=5, flush_buffer=buffers)
    assert result.method == "npu-events"
    assert result.sample_ns == pytest.approx((100_000, 110_000, 5_000_000, 120_000, 130_000))
    assert result.time_ns == pytest.approx(120_000)  # the median: the 5 ms outlier does not move it
    assert result.spread_ns == pytest.approx(130_000 - 110_000)  # interquartile range
    assert result.samples == 5
    assert max(result.sample_ns) < FLUSH_NS  # no flush inside a timed interval
    assert buffers.allocated == [L2_FLUSH_BYTES]  # one buffer, 192 MiB, for all calls
    assert buffers.flushes == 1 + 5  # before every call, warm-up included


def test_without_warmup_the_slow_first_call_is_a_sample():
    npu, buffers = fake()
    run = npu.kernel("k", [9_000_000, 100_000])
    result = measure_npu(run, npu, warmup=0, repeats=2, flush_buffer=buffers)
    assert result.sample_ns == pytest.approx((9_000_000, 100_000))


def test_call_order_flush_events_and_synchronisation():
    npu, buffers = fake()
    measure_npu(npu.kernel("k", [100]), npu, warmup=2, repeats=3, flush_buffer=buffers)
    warm = ["flush", "k"]
    timed = ["flush", "record", "k", "record"]  # the flush is queued before the start event
    assert npu.log == warm * 2 + ["sync"] + timed * 3 + ["sync"]  # no sync between timed calls


def test_compare_interleaves_rounds_alternating_who_goes_first():
    npu, buffers = fake()
    compare_npu(npu.kernel("K", [100]), npu.kernel("O", [200]), npu, warmup=2, repeats=3, flush_buffer=buffers)
    calls = [entry for entry in npu.log if entry in ("K", "O")]
    assert calls == ["K", "O", "O", "K"] + ["K", "O", "O", "K", "K", "O"]
    assert buffers.flushes == 2 * (2 + 3)
    assert buffers.allocated == [L2_FLUSH_BYTES]  # one buffer shared by both


def test_compare_speedup_and_suspicious_flag():
    npu, buffers = fake()
    kernel = npu.kernel("K", [5_000_000, 100_000, 90_000, 100_000, 110_000])
    found = compare_npu(kernel, npu.kernel("O", [1_100_000]), npu, warmup=1, repeats=4, flush_buffer=buffers)
    assert found.kernel.time_ns == pytest.approx(100_000)
    assert found.original.time_ns == pytest.approx(1_100_000)
    assert found.speedup == pytest.approx(11.0)
    assert found.suspicious  # above KernelBench's 10x: the caller verifies again on fresh inputs


def test_exactly_ten_times_faster_is_not_suspicious():
    npu, buffers = fake()
    found = compare_npu(npu.kernel("K", [100_000]), npu.kernel("O", [1_000_000]), npu, warmup=1, repeats=3,
                        flush_buffer=buffers)
    assert SUSPICIOUS_SPEEDUP == 10.0
    assert found.speedup == 10.0
    assert not found.suspicious
    slower = compare_npu(npu.kernel("K", [300_000]), npu.kernel("O", [200_000]), npu, warmup=0, repeats=1,
                         flush_buffer=buffers)
    assert slower.speedup == pytest.approx(2 / 3) and not slower.suspicious


def test_flush_bytes_zero_times_with_a_warm_cache():
    npu, buffers = fake()
    result = measure_npu(npu.kernel("k", [100]), npu, warmup=1, repeats=2, flush_bytes=0, flush_buffer=buffers)
    assert buffers.allocated == [] and buffers.flushes == 0
    assert result.sample_ns == pytest.approx((100, 100))


@pytest.mark.parametrize("options", [{"repeats": 0}, {"warmup": -1}, {"flush_bytes": -1}])
def test_rejects_impossible_counts(options):
    npu, buffers = fake()
    with pytest.raises(ValueError, match="NPU timing needs"):
        measure_npu(npu.kernel("k", [100]), npu, flush_buffer=buffers, **options)


def test_never_imports_torch_npu(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch_npu", None)  # any `import torch_npu` now raises ImportError
    # a second, private copy of the module executed under the block (reload would swap the classes
    # that other modules already imported)
    spec = importlib.util.spec_from_file_location("_measure_without_torch_npu", measure.__file__)
    reloaded = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, reloaded)  # dataclasses look their module up there
    spec.loader.exec_module(reloaded)
    npu, buffers = fake()
    reloaded.measure_npu(npu.kernel("k", [100]), npu, warmup=1, repeats=2, flush_buffer=buffers)
    reloaded.compare_npu(npu.kernel("K", [100]), npu.kernel("O", [200]), npu, warmup=1, repeats=2,
                         flush_buffer=buffers)
    assert sys.modules["torch_npu"] is None


def test_default_flush_buffer_is_torch_empty_on_the_npu(monkeypatch):
    calls = []
    monkeypatch.setattr(torch, "empty", lambda *args, **kwargs: calls.append((args, kwargs)) or "buffer")
    assert npu_flush_buffer(L2_FLUSH_BYTES) == "buffer"
    assert calls == [((L2_FLUSH_BYTES,), {"dtype": torch.uint8, "device": "npu"})]
    for function in (measure_npu, compare_npu):
        parameters = inspect.signature(function).parameters
        assert parameters["flush_buffer"].default is npu_flush_buffer
        assert parameters["flush_bytes"].default == 192 * 2**20
        assert (parameters["warmup"].default, parameters["repeats"].default) == (10, 100)


def test_simulator_measurement_unchanged():
    old = Measurement(5.0, "sim-estimate", 2.0)
    assert (old.samples, old.spread_ns, old.sample_ns) == (0, 0.0, ())
    result = measure_sim(lambda: None, 42.0, repeats=2)
    assert result.time_ns == 42.0 and result.method == "sim-estimate" and result.cpu_ns >= 0
