"""Every setting read from the environment, declared once, typed, with its default.

Nothing else in the package reads ``os.environ``. Tests override a setting with
``monkeypatch.setenv``: values are read when asked for, never cached at import.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

CACHE_DIR_ENV = "TORCH_ASCENDGEN_CACHE_DIR"
CXX_ENV = "TORCH_ASCENDGEN_CXX"
SOC_ENV = "TORCH_ASCENDGEN_SOC"
BUILD_TIMEOUT_ENV = "TORCH_ASCENDGEN_BUILD_TIMEOUT"
RUN_TIMEOUT_ENV = "TORCH_ASCENDGEN_RUN_TIMEOUT"
SEARCH_WORKERS_ENV = "TORCH_ASCENDGEN_SEARCH_WORKERS"
VARIANTS_ENV = "TORCH_ASCENDGEN_VARIANTS"
TARGET_ENV = "TORCH_ASCENDGEN_TARGET"
GENERATOR_ENV = "TORCH_ASCENDGEN_GENERATOR"
STRICT_ENV = "TORCH_ASCENDGEN_STRICT"
PROGRESS_ENV = "TORCH_ASCENDGEN_PROGRESS"
SHARED_CACHE_ENV = "TORCH_ASCENDGEN_SHARED_CACHE_DIRS"
RUN_MEMORY_ENV = "TORCH_ASCENDGEN_RUN_MEMORY_GB"


def _get(name: str, default: str) -> str:
    value = os.environ.get(name, "").strip()
    return value or default


def cache_dir() -> Path:
    """Root of everything torch_ascendgen writes: builds, the runtime module, kernels."""
    return Path(_get(CACHE_DIR_ENV, platformdirs.user_cache_dir("torch_ascendgen"))).expanduser()


def cxx() -> str:
    """The C++ compiler that builds simulator kernels and the runtime module."""
    return _get(CXX_ENV, _get("CXX", "g++"))


def default_soc() -> str:
    """The SoC the simulator models when the caller names none."""
    return _get(SOC_ENV, "Ascend910B2")


def build_timeout_s() -> float:
    return float(_get(BUILD_TIMEOUT_ENV, "180"))


def run_timeout_s() -> float:
    """Time limit for one isolated kernel run in a child process."""
    return float(_get(RUN_TIMEOUT_ENV, "60"))


def search_workers() -> int:
    """Candidates evaluated at once (each in its own child process)."""
    return max(1, int(_get(SEARCH_WORKERS_ENV, str(min(2, os.cpu_count() or 1)))))


def variants() -> int:
    """Kernel variants the built-in generator proposes per function."""
    return max(1, int(_get(VARIANTS_ENV, "4")))


def target() -> str:
    """"auto" (NPU when the inputs are on one, else the simulator), "sim" or "npu"."""
    return _get(TARGET_ENV, "auto")


def generator() -> str:
    return _get(GENERATOR_ENV, "auto")


def strict() -> bool:
    """Raise instead of falling back to the original function."""
    return _get(STRICT_ENV, "0").lower() in ("1", "true", "yes", "on")


def progress() -> bool:
    """Show a progress bar while a first call generates kernels."""
    return _get(PROGRESS_ENV, "1").lower() not in ("0", "false", "no", "off")


def shared_cache_dirs() -> list[Path]:
    """Read-only kernel caches consulted before the writable one (os.pathsep-separated)."""
    value = _get(SHARED_CACHE_ENV, "")
    return [Path(part).expanduser() for part in value.split(os.pathsep) if part]


def run_memory_bytes() -> int:
    """Address-space limit of an isolated kernel run's child (0: none). A child that imported torch
    and ran 48 blocks peaks near 2 GB, so the default is half the machine's memory, 4 to 8 GB."""
    value = _get(RUN_MEMORY_ENV, "")
    if value:
        return int(float(value) * (1 << 30))
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return int(min(8 << 30, max(4 << 30, physical // 2)))
