"""Targets: where a task's kernels are built and run — the simulator of a SoC, or an NPU.

    inputs on CPU  ─► "sim": g++ against csrc/ascendc_sim, run on the CPU, ranked by the cost model
    inputs on NPU  ─► "npu": CANN's bisheng, run on that NPU through torch_npu, ranked by NPU events

The option (``@ascend_kernel(target=...)``, ``TORCH_ASCENDGEN_TARGET``) is "auto" (by the inputs'
device), "sim" or "npu"; ``resolve_target`` turns it and the inputs into a ``Target``, refusing with
the reason and the fix what cannot work. A target's ``identity`` is part of every cache key: for the
NPU the SoC, the CANN version, the torch_npu version, bisheng's identity and flags; for the simulator
the SoC, the simulator headers, the compiler and its flags.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import torch

from torch_ascendgen import config
from torch_ascendgen.cache import CacheEntry
from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import NpuUnavailable, UnsupportedFunction
from torch_ascendgen.records import TARGETS, Candidate, InputSet, SetRun

if TYPE_CHECKING:
    from torch_ascendgen.targets.npu.cann import CannToolkit
    from torch_ascendgen.targets.sandbox import Worker



@dataclass(frozen=True)
class Target:
    """Where kernels are built and run: the one interface the rest of the package sees. What differs between
    the simulator and the NPU is in targets/sim/device.py and targets/npu/device.py, which share its methods."""

    kind: str  # "sim" or "npu"
    soc: str
    device_index: int = -1  # the NPU ("npu" only)
    toolkit: CannToolkit | None = None  # the CANN toolkit that builds ("npu" only)

    @property
    def device(self) -> torch.device:
        """Where the kernel's inputs and outputs live."""
        return torch.device("npu", self.device_index) if self.kind == "npu" else torch.device("cpu")

    @property
    def on_host(self) -> bool:
        """Kernels take the caller's CPU tensors as they are (no copies to a device and back)."""
        return self.device.type == "cpu"

    @property
    def identity(self) -> str:
        """Everything about the target that can change a kernel's build or results: part of every cache key."""
        if self.kind == "npu":
            return self._backend().identity(self.soc, self.toolkit)
        return self._backend().identity(self.soc)

    @property
    def times_against_original(self) -> bool:
        """The device can time a kernel and the original function the same way (NPU events); the simulator
        estimates kernels only."""
        return self.kind == "npu"

    @property
    def restarts_after_fault(self) -> bool:
        """A failed launch can leave the device context unusable: the next candidate needs a new child."""
        return self.kind == "npu"

    def describe(self) -> dict:
        """The target as the cache entry's metadata records it."""
        if self.kind != "npu":
            return {"kind": "sim", "soc": self.soc}
        from torch_ascendgen.targets.npu.cann import torch_npu_version

        return {"kind": "npu", "soc": self.soc, "device": self.device_index, "cann": self.toolkit.version,
                "torch_npu": torch_npu_version()}

    def host_copies(self, tensors: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        """The tensors as capture and verification see them: on the CPU (kernels are traced there)."""
        return list(tensors) if self.on_host else [t.detach().cpu() for t in tensors]

    def build(self, source: str, task: KernelTask):
        """``source``'s library for this target, not loaded (its static initialisers must not run in this
        process), audited where the target audits. Raises KernelBuildError for the source's faults,
        LibraryRefused for a library the audit refuses, NpuUnavailable for the toolkit's."""
        return self._backend().build(source, task, self)

    def candidate_worker(self) -> Worker:
        """The sandboxed child candidates run in; one can serve several searches (the model's repair rounds)."""
        return self._backend().candidate_worker(self)

    def run_candidate(self, worker: Worker, built, candidate: Candidate, task: KernelTask,
                      input_sets: Sequence[InputSet]) -> list[SetRun]:
        """``built`` run in ``worker``'s child on every input set: what the child saw, for the parent to judge."""
        return self._backend().run_candidate_in(worker, built, candidate, task, input_sets, self)

    def load(self, entry: CacheEntry, task: KernelTask, library: Path | None, served: bool):
        """A cache entry's kernel, ready to call: from ``library`` (None: built here from the entry's source);
        run by the target's sandboxed serving worker when ``served``."""
        return self._backend().load(entry, task, self, library, served)

    def load_trusted(self, built, source: str, task: KernelTask):
        """A library verified in the child, loaded in this process (our own generator's kernels)."""
        return self._backend().load_trusted(built, source, task, self)

    def host_runner(self, runner) -> Callable:
        """``runner`` called with CPU tensors (verification's input sets), whatever device it runs on."""
        if self.on_host:
            return runner
        from torch_ascendgen.targets.npu.device import OnDevice

        return OnDevice(runner, self.device)

    def kernel_ns(self, runner, meta: dict, tensors: list[torch.Tensor]) -> float | None:
        """The kernel's NPU time at these shapes: the simulator's estimate, or the NPU timing its entry records."""
        return self._backend().kernel_ns(runner, meta, tensors)

    def time_against_original(self, runner, reference: Callable, inputs: Sequence[torch.Tensor]):
        """A ``measure.NpuComparison`` of the kernel and the original timed the same way on the device (where
        ``times_against_original``). Raises RuntimeError from the device."""
        if not self.times_against_original:
            raise UnsupportedFunction(f"the {self.kind} target estimates kernels only; it cannot time the original")
        return self._backend().time_against_original(runner, reference, inputs, self)

    def _backend(self) -> ModuleType:
        if self.kind == "npu":
            from torch_ascendgen.targets.npu import device
        else:
            from torch_ascendgen.targets.sim import device
        return device


def sim_target(soc: str | None = None) -> Target:
    from torch_ascendgen.targets.soc import get_soc

    name = soc or config.default_soc()
    get_soc(name)  # an unknown or old-910 name fails here, with the known names
    return Target("sim", name)


def npu_target(device_index: int, soc: str | None = None) -> Target:
    """The NPU ``device_index`` with the toolkit that builds for it. Raises NpuUnavailable naming what is
    missing (CANN, bisheng, torch_npu, the device) and the fix."""
    from torch_ascendgen.targets.npu.build import build_mode
    from torch_ascendgen.targets.npu.cann import current_soc, require_cann, torch_npu_module

    torch_npu_module()
    toolkit = require_cann()
    build_mode(toolkit)  # a toolkit too old, or of unreadable version, is refused here rather than at the build
    detected = current_soc(device_index)
    if soc and soc != detected:
        raise NpuUnavailable(f"soc={soc!r} was asked for, but NPU {device_index} is a {detected}; leave soc unset "
                             "on the NPU (it is read from the device), or use target='sim' to simulate another SoC")
    return Target("npu", detected, device_index, toolkit)


def resolve_target(option: str, soc: str | None, devices: Iterable[torch.device]) -> Target:
    """The target for a call whose tensors are on ``devices``. Raises UnsupportedFunction (the call runs as the
    original function) with the reason and the fix."""
    if option not in TARGETS:
        raise UnsupportedFunction(f"target {option!r} is unknown; use one of {', '.join(TARGETS)}")
    devices = set(devices)
    kinds = {d.type for d in devices}
    if kinds == {"cpu"}:
        if option == "npu":
            raise UnsupportedFunction("target='npu' runs tensors on an NPU, and these are on the CPU; move them with "
                                      ".to('npu') (after `import torch_npu`), or use target='sim' or 'auto'")
        return sim_target(soc)
    if kinds == {"npu"}:
        if option == "sim":
            raise UnsupportedFunction("target='sim' runs CPU tensors on the simulator, and these are on the NPU; use "
                                      "target='npu' or 'auto', or move them with .cpu()")
        if len(devices) > 1:
            raise UnsupportedFunction(f"its tensors are on several NPUs ({', '.join(sorted(map(str, devices)))}); "
                                      "a kernel runs on one: move them to one device")
        (device,) = devices
        try:
            return npu_target(_index(device), soc)
        except NpuUnavailable as exc:
            raise UnsupportedFunction(f"the NPU target is unavailable: {exc}") from None
    raise UnsupportedFunction(f"its tensors are on {', '.join(sorted(kinds))}; kernels run CPU tensors (on the "
                              "simulator) or NPU tensors (on the NPU), all on one device")


def _index(device: torch.device) -> int:
    if device.index is not None:
        return int(device.index)
    from torch_ascendgen.targets.npu.cann import torch_npu_module

    return int(torch_npu_module().npu.current_device())
