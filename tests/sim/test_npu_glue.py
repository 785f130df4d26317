"""The NPU search's candidate run (targets/npu/candidate.py) on the CPU: torch_npu's device module is a fake
with an event clock, the device is the CPU, and the NPU runtime's kernel is the simulator's. What this
checks is our glue: copies to and from the device, the synchronisation, the input-unchanged check, the
timing, and that a fault during any launch costs the candidate, never the caller. The NPU itself is in
tests/npu."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
import torch

from torch_ascendgen.capture import capture
from torch_ascendgen.evaluate.verify import make_input_sets
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.records import ENTRY
from torch_ascendgen.targets.npu import candidate as search
from torch_ascendgen.targets.npu import cann
from torch_ascendgen.targets.npu import runtime as npu_runtime
from torch_ascendgen.targets.npu.cann import CannToolkit
from torch_ascendgen.targets.runtime import ContractKernel, ShapeDeclined
from torch_ascendgen.targets.sim.simulator import SimKernel, compile_kernel
from torch_ascendgen.targets.target import Target

LAUNCH_NS = 1000  # what one launch takes on the fake device's clock


def scaled_add(x, y):
    return x * 2 + y


class FakeNpu:
    """torch.npu as far as the candidate run uses it: set_device, synchronize, current_stream, Event."""

    def __init__(self):
        self.clock_ns = 0
        self.devices = []
        self.synchronized = 0

    def set_device(self, device):
        self.devices.append(device)

    def synchronize(self, device=None):
        self.synchronized += 1

    def current_stream(self, device=None):
        return "stream"

    def device(self, index):
        self.devices.append(index)
        return contextlib.nullcontext()

    def Event(self, enable_timing=False):  # noqa: N802 - torch.npu.Event
        npu = self

        class Event:
            def record(self, stream=None):
                self.at = npu.clock_ns

            def elapsed_time(self, end):
                return (end.at - self.at) / 1e6

        return Event()


@pytest.fixture(scope="module")
def kernel_build():
    inputs = [torch.randn(8, 64), torch.randn(8, 64)]
    task = capture(scaled_add, inputs, name="scaled_add")
    source = generate_builtin(task, 1)[0].source
    return task, source, compile_kernel(source, ENTRY, contract=True).build


@pytest.fixture
def npu(monkeypatch, kernel_build):
    """The NPU stood in: device = CPU, torch_npu present, the runtime's kernel = the simulator's."""
    task, source, build = kernel_build
    fake = FakeNpu()
    monkeypatch.setattr(torch, "npu", fake, raising=False)
    monkeypatch.setattr(cann, "torch_npu_module", lambda: object())
    monkeypatch.setattr(Target, "device", property(lambda self: torch.device("cpu")))
    real_empty = torch.empty
    monkeypatch.setattr(torch, "empty", lambda *args, device=None, **kwargs: real_empty(
        *args, device="cpu" if device == "npu" else device, **kwargs))  # the L2 flush buffer

    class SimulatedNpuKernel:
        launches = 0
        fail_at = None  # the launch that faults, counted from 1
        decline = False
        wrong_after = None  # from this launch on, every output is zeros (a kernel that cheats once timed)

        def __init__(self, npu_build, npu_task, soc):
            assert (npu_build, npu_task, soc) == (build, task, "Ascend910B2")
            self.task = task
            self.kernel = ContractKernel(SimKernel(build, source, "kernel.cpp"), task, soc)

        def plan(self, inputs):
            return self.kernel.plan(inputs)

        def __call__(self, *inputs):
            cls = type(self)
            cls.launches += 1
            if cls.decline:
                raise ShapeDeclined("the kernel's tiling function declined these shapes")
            if cls.fail_at == cls.launches:
                raise RuntimeError("ACL stream synchronize failed, error code is 507015 (an AI Core fault)")
            fake.clock_ns += LAUNCH_NS
            outputs = self.kernel(*inputs)
            if cls.wrong_after is not None and cls.launches >= cls.wrong_after:
                return tuple(torch.zeros_like(output) for output in outputs)
            return outputs

    monkeypatch.setattr(npu_runtime, "NpuKernel", SimulatedNpuKernel)
    return fake, SimulatedNpuKernel


def run(kernel_build):
    task, _, build = kernel_build
    target = Target("npu", "Ascend910B2", 0, CannToolkit(Path("/opt/cann"), "8.5.0", None, (), (), "test"))
    sets = make_input_sets(task.inputs, task.traced_shapes)
    return sets, search.run_npu_candidate(build, task, sets, target)


def test_a_correct_kernel_returns_host_outputs_unchanged_inputs_and_an_event_timing(npu, kernel_build):
    fake, kernel = npu
    sets, runs = run(kernel_build)
    assert len(runs) == len(sets) and not any(r.error for r in runs)
    for input_set, result in zip(sets, runs):
        (out,) = result.outputs
        assert out.device.type == "cpu" and not result.modified_inputs
        torch.testing.assert_close(out, scaled_add(*input_set.tensors), equal_nan=True)
    timing = runs[0].measurement
    assert timing.method == "npu-events" and timing.time_ns == LAUNCH_NS
    assert timing.samples == search.NPU_REPEATS and all(r.measurement is None for r in runs[1:])
    assert kernel.launches == len(sets) + search.NPU_WARMUP + search.NPU_REPEATS
    assert fake.devices == [torch.device("cpu")] and fake.synchronized >= len(sets)


@pytest.mark.parametrize("fail_at", [1, 3], ids=["first-launch", "while-timing"])
def test_a_device_fault_costs_the_candidate_not_the_caller(npu, kernel_build, fail_at):
    _, kernel = npu
    kernel.fail_at = fail_at
    _, runs = run(kernel_build)
    assert len(runs) == 1 and "507015" in runs[0].error and runs[0].outputs == ()


def test_declined_shapes_are_recorded_and_the_other_sets_still_run(npu, kernel_build):
    _, kernel = npu
    kernel.decline = True
    sets, runs = run(kernel_build)
    assert len(runs) == len(sets) and all(r.declined and "declined" in r.error for r in runs)


# ---- the winner against the original (pipeline._against_original) ---------------------------------------


def against_original(kernel_build, fake, slowdown: int):
    from torch_ascendgen.pipeline import _against_original

    task, _, build = kernel_build
    target = Target("npu", "Ascend910B2", 0, CannToolkit(Path("/opt/cann"), "8.5.0", None, (), (), "test"))

    def original(x, y):
        fake.clock_ns += slowdown * LAUNCH_NS
        return scaled_add(x, y)

    return _against_original(task, original, build, target, None)


def test_the_winner_is_timed_against_the_original_on_its_own_npu(npu, kernel_build):
    fake, _ = npu
    timing = against_original(kernel_build, fake, slowdown=3)
    assert timing["kernel_ns"] == LAUNCH_NS and timing["original_ns"] == 3 * LAUNCH_NS
    assert timing["speedup"] == 3 and timing["samples"] == 100 and "suspicious_speedup_reverified" not in timing
    assert 0 in fake.devices  # under torch.npu.device(0): events and the flush buffer on that NPU


def test_a_speedup_above_ten_is_believed_only_after_fresh_inputs_pass(npu, kernel_build):
    fake, _ = npu
    timing = against_original(kernel_build, fake, slowdown=20)
    assert timing["speedup"] == 20 and timing["suspicious_speedup_reverified"] is True


def test_a_kernel_that_is_wrong_on_fresh_inputs_loses_its_suspicious_speedup(npu, kernel_build):
    from torch_ascendgen.errors import UnsupportedFunction

    fake, kernel = npu
    kernel.wrong_after = 10 + 100 + 1  # right in its 10 warm-up and 100 timed launches, wrong afterwards
    with pytest.raises(UnsupportedFunction, match="20x faster than the original and then failed verification"):
        against_original(kernel_build, fake, slowdown=20)
