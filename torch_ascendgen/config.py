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
