"""Build: kernel source -> a loadable simulator library, once per content.

The build directory is named by a sha256 over everything that can change the library: the
source, the entry, the simulator headers, the compiler and the flags. It is built under a
temporary name and renamed into place, under a file lock, so concurrent processes build a
kernel once and never see half a build; ``build.json`` is written last and marks it complete.

What does not depend on the kernel is built once per machine, toolchain and simulator version
(`sim_support`): the launch runtime (``sim/launch.cpp``) as an object file linked into every
kernel, and, with GCC, a precompiled header of the simulator API, so that a kernel build parses
and compiles only the kernel.

The kernel source is untrusted (a model may have written it): its compiler runs in the build
sandbox (toolchain.UntrustedBuild), reading only the toolchain, the simulator headers, the support
directory and its staging directory; a failed build's error holds only the diagnostics about
``kernel.cpp``. ``build.log`` keeps the compiler's whole output for people; it is never sent to a model.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from filelock import FileLock

from torch_ascendgen import config
from torch_ascendgen._paths import sim_include_dir
from torch_ascendgen.errors import KernelArgumentError, KernelBuildError
from torch_ascendgen.targets.toolchain import (
    KERNEL_FILE,
    KERNEL_FLAGS,
    LIBRARY_FILE,
    MANIFEST_FILE,
    UntrustedBuild,
    compile_shared,
    compiler_identity,
    cpu_flags,
    is_gcc,
    kernel_optimisation,
    publish,
    staged,
    tree_digest,
)

EXPORT_FILE = "export.cpp"

# The build appends this after the kernel source: it exports the entry through the launch ABI.
# sim/dump_switch.h comes after the kernel: the ASCENDC_DUMP switch the kernel set (the prelude cannot see it).
EXPORT_SHIM = ('#include "sim/launch_stub.h"\n#include "{kernel}"\n#include "sim/dump_switch.h"\n'
               '#include "sim/launch.h"\nASCENDC_SIM_EXPORT_KERNEL({entry})\n')

# What the precompiled header holds: everything a kernel and its export shim include.
PRELUDE_FILE = "sim_prelude.h"
PRELUDE = '#include "kernel_operator.h"\n#include "sim/launch.h"\n'
LAUNCH_SOURCE = "sim/launch.cpp"
LAUNCH_OBJECT = "launch.o"
# A support entry is ~50 MB (the precompiled header) and every change of the simulator headers
# makes a new one: keep the few most recently used, and none unused for ten minutes.
SUPPORT_KEEP = 3
SUPPORT_IDLE_S = 600.0


@dataclass(frozen=True)
class SimBuild:
    """A built simulator kernel library."""

    entry: str
    key: str
    directory: Path
    library: Path
    seconds: float  # compile time; 0.0 when it came from the cache
    cached: bool
    header_names: tuple[tuple[str, str], ...] = ()  # (staged path, the name the kernel includes it by)


@dataclass(frozen=True)
class SimSupport:
    """The per-machine part of every kernel build: the launch runtime and the precompiled header."""

    key: str
    directory: Path
    launch_object: Path
    prelude: Path | None  # passed with -include (its .gch beside it); None when the compiler has none
    seconds: float  # build time; 0.0 when it came from the cache


@functools.cache
def sim_headers_digest() -> str:
    return tree_digest(sim_include_dir())


def compile_flags() -> tuple[str, ...]:
    """Flags for compiling kernels, the launch runtime and the precompiled header (never -shared)."""
    return (*KERNEL_FLAGS, *kernel_optimisation(config.cxx()), *cpu_flags(), "-fvisibility=hidden")


def build_flags() -> tuple[str, ...]:
    return (*compile_flags(), "-shared")


def support_key() -> str:
    parts = {"headers": sim_headers_digest(), "compiler": compiler_identity(config.cxx()), "flags": compile_flags()}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def build_key(source: str, entry: str, headers: Mapping[str, str] | None = None) -> str:
    parts = {
        "source": source,
        "entry": entry,
        "local_headers": sorted((headers or {}).items()),
        "headers": sim_headers_digest(),
        "compiler": compiler_identity(config.cxx()),
        "flags": build_flags(),
        "support": support_key(),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def builds_root() -> Path:
    return config.cache_dir() / "sim" / "builds"


def build_sim_kernel(source: str, entry: str, headers: Mapping[str, str] | None = None) -> SimBuild:
    """Compile ``source`` with the simulator headers; reuse an identical earlier build.

    ``headers``: the kernel's own headers, by the path its ``#include "..."`` lines name them relative to the
    kernel's directory (``../`` first allowed, as in ``"../common/util.h"``), and their text."""
    layout = header_layout(headers or {})
    names = tuple(layout.names.items())
    key = build_key(source, entry, headers)
    directory = builds_root() / key[:2] / key
    if _complete(directory):
        return SimBuild(entry, key, directory, directory / LIBRARY_FILE, 0.0, True, names)
    support = sim_support()
    directory.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(directory) + ".lock"):
        if _complete(directory):
            return SimBuild(entry, key, directory, directory / LIBRARY_FILE, 0.0, True, names)
        seconds = _build_into(directory, source, entry, support, layout)
    return SimBuild(entry, key, directory, directory / LIBRARY_FILE, seconds, False, names)


def sim_support() -> SimSupport:
    """The launch runtime object and precompiled header for this toolchain; built on first use."""
    key = support_key()
    directory = config.cache_dir() / "sim" / "support" / key
    if (directory / MANIFEST_FILE).is_file():
        return _load_support(directory, key, 0.0)
    directory.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(directory) + ".lock"):
        if (directory / MANIFEST_FILE).is_file():
            return _load_support(directory, key, 0.0)
        seconds = _build_support(directory)
    _prune_support(directory.parent)
    return _load_support(directory, key, seconds)


def _load_support(directory: Path, key: str, seconds: float) -> SimSupport:
    os.utime(directory / MANIFEST_FILE)  # marks it used, for _prune_support
    manifest = json.loads((directory / MANIFEST_FILE).read_text())
    prelude = directory / PRELUDE_FILE if manifest["precompiled_header"] else None
    return SimSupport(key, directory, directory / LAUNCH_OBJECT, prelude, seconds)


def _prune_support(root: Path) -> None:
    """Delete support entries of other header versions beyond the SUPPORT_KEEP most recently used."""
    used = {}
    for entry in root.iterdir():
        try:
            used[entry] = (entry / MANIFEST_FILE).stat().st_mtime
        except OSError:  # a lock file, a build under way, or an entry another process just pruned
            continue
    for entry in sorted(used, key=used.__getitem__, reverse=True)[SUPPORT_KEEP:]:
        if time.time() - used[entry] > SUPPORT_IDLE_S:
            shutil.rmtree(entry, ignore_errors=True)


def _build_support(directory: Path) -> float:
    with staged(directory) as staging:
        started = time.perf_counter()
        include = f"-I{sim_include_dir()}"
        (staging / PRELUDE_FILE).write_text(PRELUDE)
        precompiled = is_gcc(config.cxx())
        launch_args = [*compile_flags(), include, "-c", str(sim_include_dir() / LAUNCH_SOURCE), "-o", LAUNCH_OBJECT]
        header_args = [*compile_flags(), include, "-x", "c++-header", PRELUDE_FILE, "-o", PRELUDE_FILE + ".gch"]
        with ThreadPoolExecutor(max_workers=1) as pool:  # two compilers at once: neither needs the other
            launch = pool.submit(compile_shared, launch_args, staging, "the simulator launch runtime")
            if precompiled:
                compile_shared(header_args, staging, "the simulator's precompiled header")
            launch.result()
        seconds = time.perf_counter() - started
        manifest = {"seconds": seconds, "precompiled_header": precompiled, "flags": compile_flags(),
                    "compiler": compiler_identity(config.cxx())}
        publish(staging, directory, manifest)
        return seconds


def _complete(directory: Path) -> bool:
    return (directory / MANIFEST_FILE).is_file() and (directory / LIBRARY_FILE).is_file()


@dataclass(frozen=True)
class HeaderLayout:
    """Where a kernel's own headers go in the staging directory: ``files`` by staging-relative path, and the
    directory standing for the kernel's own (searched by -iquote), deep enough that every ``../`` stays inside."""

    files: dict[str, str]
    kernel_dir: str | None  # None: no headers
    names: dict[str, str]  # staged path -> the name the kernel includes it by

    def named(self, text: str) -> str:
        """``text`` (a compiler log, a diagnostic) with staged header paths replaced by their include names."""
        for staged_path in sorted(self.names, key=len, reverse=True):
            text = text.replace(staged_path, self.names[staged_path])
        return text


HEADERS_DIR = "local_headers"


def header_layout(headers: Mapping[str, str]) -> HeaderLayout:
    """Validate the header names (plain relative paths, ``../`` only in front) and lay them out."""
    parts = {name: _header_parts(name) for name in headers}
    if not parts:
        return HeaderLayout({}, None, {})
    depth = max(_ups(p) for p in parts.values())
    kernel_dir = PurePosixPath(HEADERS_DIR, *(["_"] * depth))
    files, names = {}, {}
    for name, text in headers.items():
        if not isinstance(text, str):
            raise KernelArgumentError(f"header {name!r}: its text must be a str, got {type(text).__name__}")
        rest = parts[name]
        ups = _ups(rest)
        where = PurePosixPath(*kernel_dir.parts[:len(kernel_dir.parts) - ups], *rest[ups:])
        if str(where) in files:
            raise KernelArgumentError(f"header {name!r} names the same file as another header")
        files[str(where)] = text
        names[str(where)] = name
    return HeaderLayout(files, str(kernel_dir), names)


def _ups(parts: tuple[str, ...]) -> int:
    return next((i for i, part in enumerate(parts) if part != ".."), len(parts))


def _header_parts(name: str) -> tuple[str, ...]:
    parts = tuple(name.split("/")) if isinstance(name, str) else ()
    ups = _ups(parts)
    rest = parts[ups:]
    if (not rest or "\\" in name or "\0" in name or name.startswith("/")
            or any(part in ("", ".", "..") or part.startswith("-") for part in rest)):
        raise KernelArgumentError(
            f"header name {name!r} is not a plain relative path (like \"tiling.h\", \"lib/util.h\" or "
            "\"../common/util.h\")")
    return parts


def _build_into(directory: Path, source: str, entry: str, support: SimSupport, layout: HeaderLayout) -> float:
    with staged(directory) as staging:
        (staging / KERNEL_FILE).write_text(source)
        (staging / EXPORT_FILE).write_text(EXPORT_SHIM.format(kernel=KERNEL_FILE, entry=entry))
        for name, text in layout.files.items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_text(text)
        local = []
        if layout.kernel_dir is not None:
            (staging / layout.kernel_dir).mkdir(parents=True, exist_ok=True)
            local = ["-iquote", layout.kernel_dir]
        prelude = ["-include", str(support.prelude)] if support.prelude else []
        started = time.perf_counter()
        try:
            log = compile_shared(
                [*build_flags(), *local, f"-I{sim_include_dir()}", *prelude, EXPORT_FILE, str(support.launch_object),
                 "-o", LIBRARY_FILE],
                staging, f"kernel {entry}", untrusted_build(support),
            )
        except KernelBuildError as exc:
            if not layout.names:
                raise
            raise KernelBuildError(layout.named(exc.args[0]), layout.named(exc.log), exc.command) from None
        seconds = time.perf_counter() - started
        (staging / "build.log").write_text(log)
        manifest = {"entry": entry, "seconds": seconds, "flags": build_flags(),
                    "compiler": compiler_identity(config.cxx()), "support": support.key}
        publish(staging, directory, manifest)
        return seconds


def untrusted_build(support: SimSupport) -> UntrustedBuild:
    """The build sandbox of a kernel build: it reads the simulator headers and the support directory (the
    precompiled header, launch.o) besides the toolchain and its staging directory; its memory is a run's."""
    return UntrustedBuild(KERNEL_FILE, (sim_include_dir(), support.directory), (sim_include_dir(),),
                          config.run_memory_bytes())
