"""Where the C++ sources live: inside the package when installed, beside it in a source tree."""

from __future__ import annotations

from pathlib import Path


def csrc_dir() -> Path:
    package = Path(__file__).resolve().parent
    for candidate in (package / "csrc", package.parent / "csrc"):
        if (candidate / "ascendc_sim" / "kernel_operator.h").is_file():
            return candidate
    raise FileNotFoundError(
        f"torch_ascendgen's C++ sources are missing (looked in {package / 'csrc'} and {package.parent / 'csrc'}); "
        "reinstall the package"
    )


def sim_include_dir() -> Path:
    return csrc_dir() / "ascendc_sim"
