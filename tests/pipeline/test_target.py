"""Target selection by the inputs' device, and the NPU target's cache identity (no NPU here: the NPU
pieces are stood in by a fake toolkit and a monkeypatched torch_npu version)."""

from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from torch_ascendgen.errors import AscendGenError, UnsupportedFunction
from torch_ascendgen.targets import target
from torch_ascendgen.targets.npu import cann
from torch_ascendgen.targets.npu.cann import CannToolkit
from torch_ascendgen.targets.target import Target, resolve_target, sim_target

CPU = torch.device("cpu")


@dataclass(frozen=True)
class FakeNpuDevice:
    """Stands in for torch.device("npu", index), which needs torch_npu's device registration."""

    index: int
    type: str = "npu"

    def __str__(self):
        return f"npu:{self.index}"


def npu_device(index=0):
    return FakeNpuDevice(index)


def toolkit(version="8.5.0"):
    return CannToolkit(Path("/opt/cann"), version, Path("/bin/true"), (Path("/opt/cann/include"),), (), "test")


def test_cpu_inputs_run_on_the_simulator_of_the_named_or_default_soc(monkeypatch):
    monkeypatch.delenv("TORCH_ASCENDGEN_SOC", raising=False)
    assert resolve_target("auto", None, [CPU]) == Target("sim", "Ascend910B2")
    assert resolve_target("sim", "Ascend310P3", [CPU]) == Target("sim", "Ascend310P3")
    assert resolve_target("auto", None, [CPU]).device == CPU


def test_an_unknown_or_old_soc_is_refused_with_the_known_names():
    with pytest.raises(AscendGenError, match="first-generation Ascend 910"):
        sim_target("Ascend910B")
    with pytest.raises(AscendGenError, match="known SoCs: Ascend910B1"):
        sim_target("Ascend911")


@pytest.mark.parametrize("option, devices, message", [
    ("npu", [CPU], "target='npu' runs tensors on an NPU, and these are on the CPU; move them with .to('npu')"),
    ("sim", [npu_device()], "target='sim' runs CPU tensors on the simulator, and these are on the NPU"),
    ("auto", [CPU, npu_device()], "its tensors are on cpu, npu; kernels run CPU tensors"),
    ("auto", [torch.device("meta")], "its tensors are on meta"),
    ("gpu", [CPU], "target 'gpu' is unknown; use one of auto, sim, npu"),
], ids=["npu-option-cpu-inputs", "sim-option-npu-inputs", "mixed", "meta", "unknown-option"])
def test_what_cannot_work_is_refused_with_the_reason_and_the_fix(option, devices, message):
    with pytest.raises(UnsupportedFunction, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        resolve_target(option, None, devices)


def test_npu_inputs_on_two_devices_are_refused(monkeypatch):
    with pytest.raises(UnsupportedFunction, match="several NPUs"):
        resolve_target("auto", None, [npu_device(0), npu_device(1)])


def test_npu_inputs_without_torch_npu_fall_back_with_the_missing_piece_named(monkeypatch):
    monkeypatch.setattr(cann, "_import_failure", None)
    monkeypatch.setitem(__import__("sys").modules, "torch_npu", None)  # an import of it fails here
    with pytest.raises(UnsupportedFunction, match="the NPU target is unavailable: .*torch_npu"):
        resolve_target("auto", None, [npu_device()])


def test_the_npu_target_reads_its_soc_from_the_device_and_refuses_another(monkeypatch):
    monkeypatch.setattr(cann, "torch_npu_module", lambda: SimpleNamespace())
    monkeypatch.setattr(cann, "require_cann", toolkit)
    monkeypatch.setattr(cann, "current_soc", lambda index: "Ascend910B4")
    assert target.npu_target(1) == Target("npu", "Ascend910B4", 1, toolkit())
    with pytest.raises(AscendGenError, match="soc='Ascend910B2' was asked for, but NPU 1 is a Ascend910B4"):
        target.npu_target(1, "Ascend910B2")


def test_the_npu_identity_carries_soc_cann_torch_npu_and_bisheng_flags(monkeypatch):
    versions = {"torch_npu": "2.13.0"}
    monkeypatch.setattr(cann, "torch_npu_version", lambda: versions["torch_npu"])
    npu = Target("npu", "Ascend910B2", 0, toolkit())
    identity = npu.identity
    assert identity.startswith("npu|Ascend910B2|cann 8.5.0|torch_npu 2.13.0|")
    assert "--npu-arch=dav-2201" in identity and "-O2" in identity
    assert Target("npu", "Ascend910B3", 0, toolkit()).identity != identity
    assert Target("npu", "Ascend910B2", 0, toolkit("9.0.0")).identity != identity
    assert Target("npu", "Ascend910B2", 3, toolkit()).identity == identity  # the device index is not a build input
    versions["torch_npu"] = "2.13.0.post1"
    assert npu.identity != identity
    assert sim_target("Ascend910B2").identity.startswith("sim|Ascend910B2|")


def test_an_unusable_npu_toolkit_makes_the_call_run_the_original_with_a_warning(monkeypatch, tmp_path):
    """NpuUnavailable anywhere on the NPU path (a toolkit too old, a runtime module that does not build) is a
    fallback with the reason, never an exception out of the user's call."""
    import torch_ascendgen.frontends.decorator as api
    from torch_ascendgen import AscendGenWarning, ascend_kernel
    from torch_ascendgen.errors import NpuUnavailable

    def unusable(*args):
        raise NpuUnavailable("CANN 7.0.0 at /opt/cann is too old")

    monkeypatch.setattr(api, "resolve_target", unusable)
    fast = ascend_kernel(torch.relu, cache_dir=tmp_path, progress=False)
    x = torch.randn(4, 8)
    with pytest.warns(AscendGenWarning, match="runs as the original function: CANN 7.0.0 at /opt/cann is too old"):
        torch.testing.assert_close(fast(x), torch.relu(x))
    with pytest.raises(NpuUnavailable):
        ascend_kernel(torch.relu, cache_dir=tmp_path, progress=False, strict=True)(x)
