"""The host C++ compiler: who it is, the flags we build with, and running it.

A build of model-written code (``UntrustedBuild``) runs in the build sandbox (confinement.py's "build"
profile): the compiler reads only its toolchain, the directories the build names and its staging
directory, writes only there, and starts with an environment of allowed names (no API key). What
comes back to the model is ``candidate_diagnostics``: messages about the candidate's own file with
their quoted source, message lines of our headers without theirs, nothing that names another file.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from torch_ascendgen import config
from torch_ascendgen.errors import KernelBuildError
from torch_ascendgen.targets import confinement

# -ffp-contract=off: the NPU rounds after every instruction, so a*b+c must not become an fma.
BASE_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-shared", "-pthread", "-ffp-contract=off")

# Simulator kernels are compiled (-c, or into a precompiled header) with these, then linked with
# -shared. What makes a simulated kernel fast is that the elementwise loops of the vector
# instructions are inlined and vectorised; they may run in place (dst == src), so they cannot be
# __restrict and need a run-time alias check, which GCC's -O2 cost model ("very cheap") refuses:
# -fvect-cost-model=dynamic allows it. With GCC, -O1 plus inlining of small functions and the loop
# vectoriser gives the same loops at half the compile time of -O2 (measured: 2.8 vs 5.6 billion
# compiler instructions for benchmarks/kernels/add_bench.cpp, no measurable change in run time).
# -g1: line tables only, so that a raw-pointer fault in a checked launch is reported with the kernel's file
# and line (search.py, addr2line); measured: +2% compile time, no change in the code.
KERNEL_FLAGS = ("-std=c++17", "-fPIC", "-pthread", "-ffp-contract=off", "-g1")
GCC_KERNEL_OPTIMISATION = ("-O1", "-finline-small-functions", "-fstrict-aliasing", "-ftree-loop-vectorize",
                           "-fvect-cost-model=dynamic")
OTHER_KERNEL_OPTIMISATION = ("-O2",)  # clang vectorises with alias checks at -O2


def is_gcc(cxx: str) -> bool:
    """True for GCC (precompiled headers as name.h.gch, GCC-only tuning flags)."""
    identity = compiler_identity(cxx).lower()
    return "clang" not in identity and ("g++" in identity or "gcc" in identity)


def kernel_optimisation(cxx: str) -> tuple[str, ...]:
    return GCC_KERNEL_OPTIMISATION if is_gcc(cxx) else OTHER_KERNEL_OPTIMISATION


@functools.cache
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


@functools.cache
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


@dataclass(frozen=True)
class UntrustedBuild:
    """A build of model-written code: what its compiler may read besides the toolchain and its working directory,
    and whose diagnostics the model sees."""

    own_file: str                    # the candidate's source, as diagnostics name it (in the working directory)
    readable: tuple[Path, ...] = ()  # our headers, the support directory
    context: tuple[Path, ...] = ()   # header directories whose message lines (never their source) the model sees
    memory_bytes: int = 0            # the compiler's RLIMIT_AS; 0: none


def compile_shared(args: list[str], cwd: Path, what: str, untrusted: UntrustedBuild | None = None) -> str:
    """Run the compiler; return its output, or raise KernelBuildError with the trimmed log.

    ``untrusted``: the build sandbox applies, and the error holds only the candidate's diagnostics."""
    command = [config.cxx(), *args]
    if untrusted is None:
        code, log = run_tool(command, cwd)
    else:
        code, log = run_untrusted(command, cwd, untrusted.readable, untrusted.memory_bytes)
    if code is None:
        raise KernelBuildError(
            f"building {what} took longer than {config.build_timeout_s():.0f} s "
            f"(raise {config.BUILD_TIMEOUT_ENV} if the machine is slow)", command=" ".join(command))
    if code != 0:
        trimmed = trim_log(log) if untrusted is None else candidate_diagnostics(
            log, untrusted.own_file, cwd, untrusted.context)
        raise KernelBuildError(f"building {what} failed:\n{trimmed}", log=trimmed, command=" ".join(command))
    return log


def run_tool(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int | None, str]:
    """Run ``command`` in ``cwd`` within the build time limit, in a process group of its own (killed whole when
    time runs out); (its exit status, None when it ran out of time; its output, stdout and stderr merged)."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=config.build_timeout_s())
        code: int | None = process.returncode
    except subprocess.TimeoutExpired:
        code = None
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # whatever the compiler driver started goes with it
        except (ProcessLookupError, PermissionError):
            pass
    if code is None:
        output, _ = process.communicate()
    return code, output.decode("utf-8", errors="replace")


def run_untrusted(command: list[str], cwd: Path, readable: Sequence[Path] = (), memory_bytes: int = 0,
                  executable: Sequence[Path] = ()) -> tuple[int | None, str]:
    """``run_tool`` for a compiler building model-written code: in the build sandbox it reads only the toolchain of
    ``command[0]``, ``readable``, ``executable`` (which it may also run) and ``cwd``, writes only ``cwd``, and its
    environment holds only allowed names. Without a kernel sandbox (off, or not Linux) it runs as the caller's
    child with that environment."""
    program = shutil.which(command[0]) or command[0]
    command = [program, *command[1:]]
    env = confinement.allowed_environment(os.environ, "build", str(cwd))
    if config.sandbox() == "off" or sys.platform != "linux":
        return run_tool(command, cwd, env)
    policy = confinement.Policy(config.sandbox(), "build", (str(cwd),), memory_bytes, _granted(readable),
                                (*toolchain_paths(program), *_granted(executable)))
    return run_tool(confinement.launcher_command(policy, command), cwd, env)


# ---- the toolchain a confined build reads ----------------------------------------------------------------

# Where compilers and linkers find the system's headers and libraries, and what the dynamic loader reads.
SYSTEM_TOOLCHAIN = ("/usr/include", "/usr/local/include", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/usr/libexec",
                    "/lib", "/lib64", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d")
# The programs a compiler driver starts (asked for with -print-prog-name; clang answers with the bare name).
_HELPERS = ("cc1plus", "cc1", "as", "ld", "collect2", "lto-wrapper", "lto1", "nm", "strip", "objcopy", "ar")
# Never granted whole, however a toolchain names them: they hold the user's files and the machine's secrets.
_TOO_BROAD = ("/", "/etc", "/home", "/root", "/proc", "/sys", "/dev", "/run", "/var", "/tmp", "/mnt", "/media",
              "/srv", "/opt")


def toolchain_paths(program: str) -> tuple[str, ...]:
    """What a confined build by ``program`` (a compiler driver, by absolute path) may read and execute: the
    directories of its own programs, its search directories and the system's headers and libraries; paths that
    exist only, none that holds the user's files (home, the cache, the temporary directory)."""
    return tuple(p for p in _toolchain_candidates(program) if not _too_broad(p))


@functools.cache
def _toolchain_candidates(program: str) -> tuple[str, ...]:
    found = [os.path.dirname(program), os.path.dirname(os.path.realpath(program))]
    for helper in _HELPERS:
        named = _ask(program, f"-print-prog-name={helper}") or helper  # else it looks on PATH, as drivers do
        resolved = named if os.path.isabs(named) else shutil.which(named) if named else None
        if resolved and os.path.exists(resolved):
            found += [os.path.dirname(resolved), os.path.dirname(os.path.realpath(resolved))]
    for line in _ask(program, "-print-search-dirs").splitlines():
        _, _, paths = line.partition(": ")
        found += paths.lstrip("=").split(":")
    found += SYSTEM_TOOLCHAIN
    return tuple(dict.fromkeys(os.path.normpath(p) for p in found if p and os.path.isabs(p) and os.path.exists(p)))


def _ask(program: str, option: str) -> str:
    try:
        done = subprocess.run([program, option], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _too_broad(path: str) -> bool:
    """``path`` is a system root, or holds the user's home, the cache or the temporary directory."""
    if path in _TOO_BROAD:
        return True
    private = (Path.home(), config.cache_dir(), Path(tempfile.gettempdir()))
    return any(_within(str(place.resolve()), path) for place in private)


def _granted(paths: Sequence[Path]) -> tuple[str, ...]:
    """``paths`` as a policy names them, without any that would open the user's files."""
    return tuple(str(p) for p in dict.fromkeys(os.path.normpath(str(p)) for p in paths) if not _too_broad(p))


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


@dataclass(frozen=True)
class BuildSandboxProbe:
    """What a confined build did here (the doctor's probe): whether it built, and whether it read a file outside."""

    builds: bool
    read_outside: bool
    log: str


def probe_build_sandbox() -> BuildSandboxProbe:
    """Build a trivial file confined as a kernel's build is, then one that includes a file outside what it may
    read (a temporary file beside its staging directory)."""
    with tempfile.TemporaryDirectory(prefix="ascendgen-build-probe-") as folder:
        staging, outside = Path(folder, "staging"), Path(folder, "outside.h")
        staging.mkdir()
        outside.write_text("int ascendgen_outside = 1;\n")
        (staging / "plain.cpp").write_text("int plain() { return 1; }\n")
        (staging / "reader.cpp").write_text(f'#include "{outside}"\nint reader() {{ return ascendgen_outside; }}\n')
        code, log = run_untrusted([config.cxx(), "-c", "plain.cpp", "-o", "plain.o"], staging)
        read, _ = run_untrusted([config.cxx(), "-c", "reader.cpp", "-o", "reader.o"], staging)
    return BuildSandboxProbe(code == 0, read == 0, log.strip())


# ---- what the model sees of a failed build ------------------------------------------------------------------

_INCLUDE_CHAIN = re.compile(r"^(In file included from |\s+from )")
# A line that locates a message: "file:L:C: error: ...", "file:L:C:   required from here", "file:(.text+0x1): ...",
# "file: In function ...". Only these: a quoted line of another file's source must never pass for one.
_LOCATION = re.compile(r"^(?P<file>[^\s:][^:]*):(?=\d+:(?:\d+:)? (?:fatal error|error|warning|note|remark|Error|"
                       r"Warning|Fatal error|Info):|\d+:(?:\d+:)?\s+(?:required|in |recursively)|\(\S+\): "
                       r"| (?:In |At |Assembler messages:))")
_TOOL_LINE = re.compile(r"^(?P<file>[^\s:]+): ")  # "/usr/bin/ld: cannot find -lfoo", "collect2: error: ..."
_TEMPORARY = re.compile(r"^cc\w{6}\.\w+$")  # the compiler driver's temporary files (in the staging directory)
_QUOTED = re.compile(r"^\s*(?:\d+|\+\+\+)?\s*\|")  # GCC's and clang's quoted source and caret lines
_TOOL = re.compile(r"^(?:[\w.]+-)*(?:ld(?:\.\w+)?|as|collect2|cc1(?:plus)?|lto-wrapper|lto1|g\+\+|gcc|c\+\+|"
                   r"clang(?:\+\+)?|bisheng|ccec?)(?:-[\d.]+)?$")
_PATH = re.compile(r"(?:^|[\s'\"`(\[=,])(?:/[\w.~+-]|\.\./)")  # an absolute or climbing path in a message
_PSEUDO_FILES = ("<command-line>", "<built-in>", "<stdin>")
_SUMMARY = re.compile(r"^(?:compilation terminated\.|\d+ (?:errors?|warnings?)(?: and \d+ warnings?)? generated\.)$")


def candidate_diagnostics(log: str, own_file: str, workdir: Path, context: Sequence[Path] = (),
                          max_lines: int = 60) -> str:
    """The compiler output a model may see: diagnostics about ``own_file`` with their quoted source and carets;
    message lines of the build's own files (in ``workdir``), of headers under ``context`` (named relative to it)
    and of the tools, without quoted source; and the count of lines about any other file, which are dropped
    whole (a file included, embedded or named by ``#line`` could be anyone's)."""
    kept: list[str] = []
    omitted = 0
    state = "neutral"  # what the last location line was about: "own", "ours" or "other"
    for line in log.splitlines():
        if _INCLUDE_CHAIN.match(line):
            continue
        if _SUMMARY.match(line):
            state = "neutral"
        tool = _TOOL_LINE.match(line)
        match = tool if tool and _TOOL.match(os.path.basename(tool.group("file"))) else _LOCATION.match(line)
        if match:
            state, shown = _origin(match.group("file"), own_file, workdir, context)
            message = _relative(line[match.end("file"):], workdir, context)
            if state != "other" and _PATH.search(message):
                state = "other"  # a message that names another file goes, with the source it quotes
            line = shown + message
        if (state == "other" or (state == "ours" and _QUOTED.match(line))
                or (state != "own" and _PATH.search(_relative(line, workdir, context)))):
            omitted += 1
        else:
            kept.append(line if state == "own" and not match else _relative(line, workdir, context))
    return _trimmed(kept, omitted, max_lines)


def _origin(name: str, own_file: str, workdir: Path, context: Sequence[Path]) -> tuple[str, str]:
    """("own", "ours" or "other", the name shown) of a location's file."""
    full = os.path.normpath(os.path.join(str(workdir), name))
    if full == os.path.normpath(os.path.join(str(workdir), own_file)):  # clang says ./kernel.cpp
        return "own", own_file if os.path.isabs(name) else name
    if name in _PSEUDO_FILES or _TOOL.match(os.path.basename(name)):
        return "ours", os.path.basename(name) if "/" in name else name
    for root in sorted((os.path.normpath(str(d)) for d in (workdir, *context)), key=len, reverse=True):
        if _within(full, root) and full != root:  # the innermost directory names it
            relative = os.path.relpath(full, root)
            real = os.path.exists(full) or (root == os.path.normpath(str(workdir)) and _TEMPORARY.match(relative))
            return ("ours", relative) if real else ("other", "")
    return "other", ""


def _relative(text: str, workdir: Path, context: Sequence[Path]) -> str:
    """``text`` with the working and header directories' paths cut (a model needs no machine paths)."""
    for root in sorted((os.path.normpath(str(d)) for d in (workdir, *context)), key=len, reverse=True):
        text = text.replace(root + "/", "")
    return text


def _trimmed(lines: list[str], omitted: int, max_lines: int) -> str:
    first_error = next((i for i, line in enumerate(lines) if "error" in line.lower()), 0)
    kept = lines[first_error:first_error + max_lines]
    if len(lines) - first_error > max_lines:
        kept.append(f"... ({len(lines) - first_error - max_lines} more lines)")
    if omitted:
        kept.append(f"({omitted} line{'s' if omitted != 1 else ''} about other files omitted)")
    return "\n".join(kept)


def trim_log(log: str, max_lines: int = 60) -> str:
    """The compiler errors a person or a model needs: error lines with their context, no include chains."""
    lines = [line for line in log.splitlines() if not line.startswith("In file included from")
             and not line.lstrip().startswith("from ")]
    first_error = next((i for i, line in enumerate(lines) if "error" in line), 0)
    kept = lines[first_error:first_error + max_lines]
    if len(lines) - first_error > max_lines:
        kept.append(f"... ({len(lines) - first_error - max_lines} more lines)")
    return "\n".join(kept)


# ---- build directories: staged beside their final name, renamed into place, the manifest written last --------

KERNEL_FILE = "kernel.cpp"
LIBRARY_FILE = "kernel.so"
MANIFEST_FILE = "build.json"


@contextlib.contextmanager
def staged(directory: Path) -> Iterator[Path]:
    """An empty staging directory beside ``directory``, removed on leaving unless ``publish`` moved it into place."""
    staging = directory.with_name(f".{directory.name}.{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        yield staging
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def publish(staging: Path, directory: Path, manifest: dict) -> None:
    """The staged build renamed into place; its manifest, written last, marks it complete."""
    (staging / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1))
    shutil.rmtree(directory, ignore_errors=True)  # an incomplete leftover of a killed build
    os.replace(staging, directory)
