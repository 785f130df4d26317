"""The Ascend SoCs we generate for, with the facts kernels and the cost model depend on.

Core counts and UB sizes are from CANN 8.1's platform config files (see ../shared/ASCENDC.md).
Clock, bandwidth and per-core copy rate scale the simulator's time estimate (cost_model.h); they
matter mostly relative to each other. Where each number comes from:

- clock_ghz: the AI core clock, ``[AICoreSpec] cube_freq`` of CANN's platform config
  (``<cann>/<arch>-linux/data/platform_config/<soc>.ini``) as quoted in public repositories:
  Ascend910B2 1800 MHz, Ascend910B1 and the Atlas A3 die 1850 MHz, Ascend910B4 1500 MHz.
  Ascend910B3 and Ascend910_9362 (no public quote found): assumed equal to their 48-core parts.
  Ascend310P3: derived from the Atlas 300I Duo spec sheet (280 TOPS INT8 for two chips): 140e12 /
  (8 AI cores x 16*32*16 int8 MACs x 2) = 1.07 GHz.
- hbm_gb_per_s: the chip's aggregate GM bandwidth. 910B (64 GB HBM2e) and one Atlas A3 die:
  1.6 TB/s, the figure public 910B/910C analyses use (the platform config's ddr_rate=32 bytes a
  cycle x 24 AI cores x 1.8 GHz = 1.38 TB/s agrees in magnitude). Ascend910B4 has half the HBM
  (memory_size=32 GiB): assumed half the bandwidth. Ascend310P3: LPDDR4X, 204.8 GB/s (Atlas 300I
  Pro spec sheet; the two-chip Atlas 300I Duo lists 408 GB/s).
- core_bytes_per_cycle: what one core's MTE moves a cycle, ``[AICoreMemoryRates] ddr_rate=32``
  in the Ascend910B1 and Ascend910B4 platform configs (as quoted publicly); assumed the same for the
  other parts, 310P included.
- cube buffers (l1/l0a/l0b/l0c/bt/fb bytes): ``[AICoreSpec]`` of Ascend910B2.ini as quoted publicly
  (l1_size=524288, l0_a_size=65536, l0_b_size=65536, l0_c_size=131072, bt_size=1024, fb0_size=2048),
  assumed the same for every Atlas A2/A3 part. Ascend310P3: l1_size=1048576 and L0A/L0B of 64 KiB as
  quoted publicly; its L0C of 256 KiB is an assumption (no public quote found); it has no BT or
  Fixpipe buffer (its Mmad results leave L0C through CO2 in UB).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_ascendgen.errors import AscendGenError

ARCH_A2 = "dav-2201"  # Atlas A2 / A3 (910B, 910_93): bisheng --npu-arch
ARCH_310P = "dav-m200"
# --npu-arch values: "Atlas A3/A2 训练/推理系列产品 --npu-arch=dav-2201; Atlas 推理系列产品AI Core
# --npu-arch=dav-2002" (asc-devkit v9.0.0 examples/README.md, "npu-arch编译选项说明"; v8.5.0's own
# examples pass dav-2201, and its tools/ascc asc_ast_device_analyzer.cpp gives 310P __NPU_ARCH__=2002).
# dav-m200 (soc.ARCH_310P) is the 310P's name for the older --cce-aicore-arch option, not for --npu-arch.
NPU_ARCH_FLAG = {ARCH_A2: "dav-2201", ARCH_310P: "dav-2002"}


@dataclass(frozen=True)
class SocProfile:
    name: str
    npu_arch: str
    vector_cores: int
    cube_cores: int
    ub_bytes: int
    has_datacopy_pad: bool
    has_bf16: bool  # bf16 as a storage type (moves and Cast); no SoC here has bf16 vector arithmetic
    clock_ghz: float
    hbm_gb_per_s: float  # the chip's aggregate GM bandwidth
    core_bytes_per_cycle: float  # what one core's MTE2/MTE3 moves per cycle (platform config ddr_rate)
    l1_bytes: int = 524288
    l0a_bytes: int = 65536
    l0b_bytes: int = 65536
    l0c_bytes: int = 131072
    bt_bytes: int = 1024
    fb_bytes: int = 2048

    def as_sim_dict(self) -> dict:
        """The fields the simulator's launch ABI takes (``SimSocProfile`` in launch_abi.h)."""
        return {
            "name": self.name,
            "arch": 1 if self.npu_arch == ARCH_310P else 0,
            "ub_bytes": self.ub_bytes,
            "vector_cores": self.vector_cores,
            "has_datacopy_pad": int(self.has_datacopy_pad),
            "clock_ghz": self.clock_ghz,
            "hbm_bytes_per_ns": self.hbm_gb_per_s,  # GB/s == bytes/ns
            "core_gm_bytes_per_ns": self.core_bytes_per_cycle * self.clock_ghz,
            "cube_cores": self.cube_cores,
            "l1_bytes": self.l1_bytes,
            "l0a_bytes": self.l0a_bytes,
            "l0b_bytes": self.l0b_bytes,
            "l0c_bytes": self.l0c_bytes,
            "bt_bytes": self.bt_bytes,
            "fb_bytes": self.fb_bytes,
        }


def _a2(name: str, vector_cores: int, hbm_gb_per_s: float, clock_ghz: float) -> SocProfile:
    return SocProfile(name, ARCH_A2, vector_cores, vector_cores // 2, 196608, True, True, clock_ghz, hbm_gb_per_s, 32.0)


SOCS: dict[str, SocProfile] = {
    soc.name: soc
    for soc in (
        _a2("Ascend910B1", 48, 1600.0, 1.85),
        _a2("Ascend910B2", 48, 1600.0, 1.8),
        _a2("Ascend910B3", 40, 1600.0, 1.8),
        _a2("Ascend910B4", 40, 800.0, 1.5),
        _a2("Ascend910_9391", 48, 1600.0, 1.85),
        _a2("Ascend910_9362", 40, 1600.0, 1.85),
        # 310P: vector code runs on the 8 AI cores (coupled architecture).
        SocProfile("Ascend310P3", ARCH_310P, 8, 8, 262144, False, False, 1.07, 204.8, 32.0,
                   l1_bytes=1048576, l0c_bytes=262144, bt_bytes=0, fb_bytes=0),
    )
}

_OLD_910 = {"Ascend910", "Ascend910A", "Ascend910B", "Ascend910ProA", "Ascend910ProB", "Ascend910PremiumA"}


def get_soc(name: str) -> SocProfile:
    """The profile for ``name``; a clear error for the old Ascend 910 and for unknown names."""
    if name in SOCS:
        return SOCS[name]
    known = ", ".join(SOCS)
    if name in _OLD_910:
        raise AscendGenError(
            f"{name} is the first-generation Ascend 910 (dav-1001), which torch_ascendgen does not target; "
            f"'Ascend910B' without a digit is that chip, not Atlas A2. Name the exact SoC (one of: {known})."
        )
    raise AscendGenError(f"unknown SoC {name!r}; known SoCs: {known}")
