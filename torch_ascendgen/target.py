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

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

import torch

from . import config
from .errors import NpuUnavailable, UnsupportedFunction

if TYPE_CHECKING:
    from .cann import CannToolkit

TARGETS = ("auto", "sim", "npu")


@dataclass(frozen=True)
class Target:
    """Where kernels are built and run."""

    kind: str  # "sim" or "npu"
    soc: str
    device_index: int = -1  # the NPU ("npu" only)
    toolkit: CannToolkit | None = None  # the CANN toolkit that builds ("npu" only)

    @property
    def is_npu(self) -> bool:
        return self.kind == "npu"

    @property
    def device(self) -> torch.device:
        """Where the kernel's inputs and outputs live."""
        return torch.device("npu", self.device_index) if self.is_npu else torch.device("cpu")

    @property
    def identity(self) -> str:
        return _npu_identity(self.soc, self.toolkit) if self.is_npu else _sim_identity(self.soc)

    def describe(self) -> dict:
        """The target as the cache entry's metadata records it."""
        if not self.is_npu:
            return {"kind": "sim", "soc": self.soc}
        from .cann import torch_npu_version

        return {"kind": "npu", "soc": self.soc, "device": self.device_index, "cann": self.toolkit.version,
                "torch_npu": torch_npu_version()}


def sim_target(soc: str | None = None) -> Target:
    from .soc import get_soc

    name = soc or config.default_soc()
    get_soc(name)  # an unknown or old-910 name fails here, with the known names
    return Target("sim", name)


def npu_target(device_index: int, soc: str | None = None) -> Target:
    """The NPU ``device_index`` with the toolkit that builds for it. Raises NpuUnavailable naming what is
    missing (CANN, bisheng, torch_npu, the device) and the fix."""
    from .cann import current_soc, require_cann, torch_npu_module

    from .npu_build import build_mode

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
    from .cann import torch_npu_module

    return int(torch_npu_module().npu.current_device())


def _sim_identity(soc: str) -> str:
    from .build import build_flags, sim_headers_digest
    from .toolchain import compiler_identity

    return "|".join(["sim", soc, sim_headers_digest(), compiler_identity(config.cxx()), " ".join(build_flags())])


def _npu_identity(soc: str, toolkit: CannToolkit) -> str:
    from .cann import torch_npu_version
    from .npu_build import NPU_ABI_VERSION, launcher_source, npu_build_flags
    from .toolchain import compiler_identity

    launcher = hashlib.sha256(launcher_source("kernel.cpp", 3).encode()).hexdigest()[:16]
    return "|".join(["npu", soc, f"cann {toolkit.version}", f"torch_npu {torch_npu_version()}",
                     compiler_identity(str(toolkit.bisheng)), " ".join(npu_build_flags(soc, toolkit)),
                     f"launcher {launcher} abi {NPU_ABI_VERSION}"])
