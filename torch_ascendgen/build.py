"""Build: kernel source -> a loadable simulator library, once per content.

The build directory is named by a sha256 over everything that can change the library: the
source, the entry, the simulator headers, the compiler and the flags. It is built under a
temporary name and renamed into place, under a file lock, so concurrent processes build a
kernel once and never see half a build; ``build.json`` is written last and marks it complete.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from . import config
from ._paths import sim_include_dir
from .toolchain import BASE_FLAGS, compile_shared, compiler_identity, cpu_flags, tree_digest

KERNEL_FILE = "kernel.cpp"
LIBRARY_FILE = "kernel.so"
MANIFEST_FILE = "build.json"

# The build appends this after the kernel source: it exports the entry through the launch ABI.
EXPORT_SHIM = '#include "{kernel}"\n#include "sim/launch.h"\nASCENDC_SIM_EXPORT_KERNEL({entry})\n'


@dataclass(frozen=True)
class SimBuild:
    """A built simulator kernel library."""

    entry: str
    key: str
    directory: Path
    library: Path
    seconds: float  # compile time; 0.0 when it came from the cache
    cached: bool


@functools.lru_cache(maxsize=None)
def sim_headers_digest() -> str:
    return tree_digest(sim_include_dir())


def build_flags() -> tuple[str, ...]:
    return (*BASE_FLAGS, *cpu_flags(), "-fvisibility=hidden")


def build_key(source: str, entry: str) -> str:
    parts = {
        "source": source,
        "entry": entry,
        "headers": sim_headers_digest(),
        "compiler": compiler_identity(config.cxx()),
        "flags": build_flags(),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def builds_root() -> Path:
    return config.cache_dir() / "sim" / "builds"


def build_sim_kernel(source: str, entry: str) -> SimBuild:
    """Compile ``source`` with the simulator headers; reuse an identical earlier build."""
    key = build_key(source, entry)
    directory = builds_root() / key[:2] / key
    if _complete(directory):
        return SimBuild(entry, key, directory, directory / LIBRARY_FILE, 0.0, True)
    directory.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(directory) + ".lock"):
        if _complete(directory):
            return SimBuild(entry, key, directory, directory / LIBRARY_FILE, 0.0, True)
        seconds = _build_into(directory, source, entry)
    return SimBuild(entry, key, directory, directory / LIBRARY_FILE, seconds, False)


def _complete(directory: Path) -> bool:
    return (directory / MANIFEST_FILE).is_file() and (directory / LIBRARY_FILE).is_file()


def _build_into(directory: Path, source: str, entry: str) -> float:
    staging = directory.with_name(f".{directory.name}.{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        (staging / KERNEL_FILE).write_text(source)
        (staging / "export.cpp").write_text(EXPORT_SHIM.format(kernel=KERNEL_FILE, entry=entry))
        started = time.perf_counter()
        log = compile_shared(
            [*build_flags(), f"-I{sim_include_dir()}", "export.cpp", "-o", LIBRARY_FILE], staging, f"kernel {entry}"
        )
        seconds = time.perf_counter() - started
        (staging / "build.log").write_text(log)
        manifest = {"entry": entry, "seconds": seconds, "flags": build_flags(), "compiler": compiler_identity(config.cxx())}
        (staging / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1))
        shutil.rmtree(directory, ignore_errors=True)  # an incomplete leftover of a killed build
        os.replace(staging, directory)
        return seconds
    finally:
        shutil.rmtree(staging, ignore_errors=True)
