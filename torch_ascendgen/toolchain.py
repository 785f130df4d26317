"""The host C++ compiler: who it is, the flags we build with, and running it."""

from __future__ import annotations

import functools
import hashlib
import shutil
import subprocess
from pathlib import Path

from . import config
from .errors import KernelBuildError

# -ffp-contract=off: the NPU rounds after every instruction, so a*b+c must not become an fma.
BASE_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-shared", "-pthread", "-ffp-contract=off")

# Simulator kernels are compiled (-c, or into a precompiled header) with these, then linked with
# -shared. What makes a simulated kernel fast is that the elementwise loops of the vector
# instructions are inlined and vectorised; they may run in place (dst == src), so they cannot be
# __restrict and need a run-time alias check, which GCC's -O2 cost model ("very cheap") refuses:
# -fvect-cost-model=dynamic allows it. With GCC, -O1 plus inlining of small functions and the loop
# vectoriser gives the same loops at half the compile time of -O2 (measured: 2.8 vs 5.6 billion
# compiler instructions for benchmarks/kernels/add_bench.cpp, no measurable change in run time).
KERNEL_FLAGS = ("-std=c++17", "-fPIC", "-pthread", "-ffp-contract=off")
GCC_KERNEL_OPTIMISATION = ("-O1", "-finline-small-functions", "-fstrict-aliasing", "-ftree-loop-vectorize",
                           "-fvect-cost-model=dynamic")
OTHER_KERNEL_OPTIMISATION = ("-O2",)  # clang vectorises with alias checks at -O2


def is_gcc(cxx: str) -> bool:
    """True for GCC (precompiled headers as name.h.gch, GCC-only tuning flags)."""
    identity = compiler_identity(cxx).lower()
    return "clang" not in identity and ("g++" in identity or "gcc" in identity)


def kernel_optimisation(cxx: str) -> tuple[str, ...]:
    return GCC_KERNEL_OPTIMISATION if is_gcc(cxx) else OTHER_KERNEL_OPTIMISATION


@functools.lru_cache(maxsize=None)
def compiler_identity(cxx: str) -> str:
    """A string that changes when the compiler does (part of every build key)."""
    path = shutil.which(cxx)
    if path is None:
        raise KernelBuildError(
            f"C++ compiler {cxx!r} not found. Install g++ (apt-get install g++) or point "
            f"{config.CXX_ENV} at a C++17 compiler."
        )
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True, check=False).stdout
    machine = subprocess.run([cxx, "-dumpmachine"], capture_output=True, text=True, check=False).stdout
    return f"{path}|{version.splitlines()[0] if version else ''}|{machine.strip()}"


@functools.lru_cache(maxsize=None)
def cpu_flags() -> tuple[str, ...]:
    """Vector extensions the host has and kernels may use (half conversions and wide loops)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ()
    words = set(text.split())
    return tuple(f"-m{flag}" for flag in ("avx2", "f16c") if flag in words)


def tree_digest(root: Path) -> str:
    """sha256 over every file below ``root`` (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def compile_shared(args: list[str], cwd: Path, what: str) -> str:
    """Run the compiler; return its output, or raise KernelBuildError with the trimmed log."""
    command = [config.cxx(), *args]
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=config.build_timeout_s())
    except subprocess.TimeoutExpired as exc:
        raise KernelBuildError(
            f"building {what} took longer than {config.build_timeout_s():.0f} s "
            f"(raise {config.BUILD_TIMEOUT_ENV} if the machine is slow)", command=" ".join(command)
        ) from exc
    log = done.stdout + done.stderr
    if done.returncode != 0:
        trimmed = trim_log(log)
        raise KernelBuildError(f"building {what} failed:\n{trimmed}", log=trimmed, command=" ".join(command))
    return log


def trim_log(log: str, max_lines: int = 60) -> str:
    """The compiler errors a person or a model needs: error lines with their context, no include chains."""
    lines = [line for line in log.splitlines() if not line.startswith("In file included from")
             and not line.lstrip().startswith("from ")]
    first_error = next((i for i, line in enumerate(lines) if "error" in line), 0)
    kept = lines[first_error:first_error + max_lines]
    if len(lines) - first_error > max_lines:
        kept.append(f"... ({len(lines) - first_error - max_lines} more lines)")
    return "\n".join(kept)
