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
