"""Kernel-launch samples on the simulator: a kernel .cpp, a host main.cpp and their local headers, built and run
unmodified.

    sample = build_sample(read_sample(Path("add_custom")))            # the NPU (ACL) branch
    run = run_sample(sample, {"input/input_x.bin": x.numpy().tobytes(), ...})
    z = run.files["output/output_z.bin"]

The build rewrites the launch syntax that is not C++ (``kernel<<<blockDim, l2ctrl, stream>>>(args)``) into a call
of the simulator's launch (``csrc/ascendc_sim/host/sim_host/kernel_launch.h``), writes the headers the NPU build
generates for ``ACLRT_LAUNCH_KERNEL(kernel)`` (``aclrtlaunch_<kernel>.h``), and compiles everything with the ACL
runtime shim (``host/acl/acl.h``) and the CPU-debug API (``host/tikicpulib.h``) into one library, in the build
sandbox. ``cpu_debug=True`` defines ``ASCENDC_CPU_DEBUG`` (the sample's CPU-debug branch: GmAlloc, ICPU_RUN_KF).

The sample is untrusted code: it runs in a sandboxed child, its working directory a fresh folder holding the input
files; its ``main`` is called there (``exit`` returns to the runner), with its stdout and stderr in files. What comes
back: the exit status, stdout, stderr, the files it wrote, the launches, the kernel diagnostics and host API misuse
the shim reported (file and line), and the kernels' debug text. A crash or a run past the time limit raises
KernelCrashError or KernelTimeoutError, carrying the sample's output as ``stdout``/``stderr``.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock

from torch_ascendgen import config
from torch_ascendgen._paths import sim_include_dir
from torch_ascendgen.errors import KernelArgumentError, KernelBuildError, KernelCrashError, KernelTimeoutError
from torch_ascendgen.targets.sandbox import Worker
from torch_ascendgen.targets.sim.build import build_flags, compile_flags, sim_headers_digest, sim_support, support_key
from torch_ascendgen.targets.sim.launch_syntax import rewrite_launches
from torch_ascendgen.targets.soc import get_soc
from torch_ascendgen.targets.toolchain import (
    MANIFEST_FILE,
    compiler_identity,
    publish,
    run_untrusted,
    staged,
    trim_log,
)

SAMPLE_LIBRARY = "sample.so"
RUNTIME_SOURCE = "host/sim_host/runtime.cpp"
SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++")
OUTPUT_CAP_BYTES = 1 << 20  # of stdout and stderr each, kept from the end
FILES_CAP_BYTES = 1 << 30  # of the files the sample wrote, brought back in all
_WARM_UP_S = 120.0


@dataclass(frozen=True)
class SampleBuild:
    """A kernel-launch sample built for the simulator."""

    key: str
    directory: Path
    library: Path
    cpu_debug: bool
    sources: Mapping[str, str] = field(repr=False)
    seconds: float  # build time; 0.0 when it came from the cache


@dataclass(frozen=True)
class SampleDiagnostic:
    """A kernel's rule violation (its kind, e.g. gm_out_of_bounds), or a host API misuse (kind host_api_misuse),
    with the sample file and line it happened at; ``block`` is -1 for the host."""

    kind: str
    file: str
    line: int
    block: int
    where: str  # the kernel, or the host API called
    message: str


@dataclass(frozen=True)
class SampleLaunch:
    kernel: str
    block_dim: int
    ok: bool
    estimated_ns: float


@dataclass(frozen=True)
class SampleRun:
    """What one run of a sample did."""

    exit_status: int
    stdout: str
    stderr: str
    files: dict[str, bytes] = field(repr=False)  # what it created or changed in its working directory
    launches: list[SampleLaunch]
    diagnostics: list[SampleDiagnostic]
    debug_text: str = ""


# ---- reading and rewriting the sample ----------------------------------------------------------------------


def read_sample(directory: Path) -> dict[str, str]:
    """The sample's C++ files (sources and headers, below ``directory``) by relative path."""
    suffixes = (*SOURCE_SUFFIXES, ".h", ".hpp", ".hh", ".inc")
    return {str(p.relative_to(directory)): p.read_text() for p in sorted(directory.rglob("*"))
            if p.is_file() and p.suffix in suffixes}


_ENTRY = re.compile(r'(?:extern\s+"C"\s+)?__global__\s+(?:__aicore__\s+|__vector__\s+|inline\s+)*void\s+'
                    r"([A-Za-z_]\w*)\s*\(([^)]*)\)\s*\{")


def kernel_entries(text: str) -> list[tuple[str, list[str]]]:
    """(name, parameter declarations) of each non-template kernel entry ``text`` defines."""
    entries = []
    for match in _ENTRY.finditer(text):
        head = text[max(0, match.start() - 200):match.start()]
        if re.search(r"template\s*<[^;{}]*>\s*$", head):
            continue
        params = [p.strip() for p in match.group(2).split(",") if p.strip() and p.strip() != "void"]
        entries.append((match.group(1), params))
    return entries


def _host_parameter(declaration: str, index: int) -> tuple[str, str]:
    """(the parameter as aclrtlaunch_<kernel> declares it, its name): pointers and GM_ADDR become void*."""
    words = re.findall(r"[A-Za-z_]\w*", declaration)
    name = words[-1] if len(words) > 1 else f"arg{index}"
    if "*" in declaration or "GM_ADDR" in declaration:
        return f"void* {name}", name
    return declaration.replace("__gm__", "").strip(), name


def launch_header(name: str, params: list[str]) -> str:
    """The header the NPU build generates for ACLRT_LAUNCH_KERNEL(name): aclrtlaunch_<name>.h."""
    declared = ", ".join(["uint32_t blockDim", "aclrtStream stream",
                          *(_host_parameter(p, i)[0] for i, p in enumerate(params))])
    return (f"// Generated by the simulator's sample build for ACLRT_LAUNCH_KERNEL({name}).\n#pragma once\n"
            f'#include <cstdint>\n#include "acl/acl.h"\nuint32_t aclrtlaunch_{name}({declared});\n'
            "#ifndef ACLRT_LAUNCH_KERNEL\n#define ACLRT_LAUNCH_KERNEL(kernel_func) aclrtlaunch_##kernel_func\n#endif\n")


def _launch_definition(name: str, params: list[str]) -> str:
    host = [_host_parameter(p, i) for i, p in enumerate(params)]
    declared = ", ".join(["uint32_t blockDim", "aclrtStream stream", *(h[0] for h in host)])
    passed = ", ".join(h[1] for h in host)
    return (f"uint32_t aclrtlaunch_{name}({declared}) {{\n"
            f'    return ascendc_sim_host::kernel_call({name}, "{name}", blockDim, nullptr, stream)({passed});\n}}\n')


def _unit(path: str, text: str) -> tuple[str, bool]:
    """The wrapper a source file is compiled through (it includes the file, so its lines and name stay) and
    whether the file needed the launch support."""
    entries = kernel_entries(text)
    needs_launch = "ascendc_sim_host::kernel_call" in text or bool(entries)
    lines = ['#include "sim_host/kernel_launch.h"', '#include "acl/acl.h"'] if needs_launch else []
    lines.append(f'#include "{Path(path).name}"')
    lines += [_launch_definition(name, params) for name, params in entries]
    return "\n".join(lines) + "\n", needs_launch


# ---- the build ---------------------------------------------------------------------------------------------


def _check_path(path: str) -> None:
    pure = Path(path)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts:
        raise KernelArgumentError(f"sample file {path!r}: give paths relative to the sample, without '..'")


def sample_key(sources: Mapping[str, str], cpu_debug: bool) -> str:
    parts = {"sources": dict(sorted(sources.items())), "cpu_debug": cpu_debug, "headers": sim_headers_digest(),
             "compiler": compiler_identity(config.cxx()), "flags": build_flags(), "support": support_key()}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def build_sample(sources: Mapping[str, str], *, cpu_debug: bool = False) -> SampleBuild:
    """Build the sample (relative path -> text) into a library, or reuse an identical earlier build."""
    for path in sources:
        _check_path(path)
    if not any(Path(p).suffix in SOURCE_SUFFIXES for p in sources):
        raise KernelArgumentError("the sample has no C++ source file (.cpp)")
    key = sample_key(sources, cpu_debug)
    directory = config.cache_dir() / "sim" / "samples" / key[:2] / key
    seconds = 0.0
    if not (directory / MANIFEST_FILE).is_file():
        directory.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(directory) + ".lock"):
            if not (directory / MANIFEST_FILE).is_file():
                seconds = _build_into(directory, sources, cpu_debug)
    return SampleBuild(key, directory, directory / SAMPLE_LIBRARY, cpu_debug, dict(sources), seconds)


def _build_into(directory: Path, sources: Mapping[str, str], cpu_debug: bool) -> float:
    support = sim_support()
    with staged(directory) as staging:
        started = time.perf_counter()
        units = _stage(staging, sources)
        branch = "-DASCENDC_CPU_DEBUG" if cpu_debug else "-DASCENDC_SIM_SAMPLE_NPU_BRANCH"
        include = [f"-I{staging}", f"-I{sim_include_dir()}", f"-I{sim_include_dir() / 'host'}"]
        objects = []
        for index, unit in enumerate([*units, str(sim_include_dir() / RUNTIME_SOURCE)]):
            objects.append(f"unit{index}.o")
            _compile([*compile_flags(), branch, *include, "-c", unit, "-o", objects[-1]], staging, support)
        _compile([*build_flags(), *objects, str(support.launch_object), "-Wl,--wrap=exit", "-o", SAMPLE_LIBRARY],
                 staging, support)
        seconds = time.perf_counter() - started
        publish(staging, directory, {"seconds": seconds, "cpu_debug": cpu_debug, "support": support.key})
        return seconds


def _stage(staging: Path, sources: Mapping[str, str]) -> list[str]:
    """Writes the sample (launches rewritten), the generated launch headers and a wrapper per source file; returns
    the wrappers."""
    units = []
    for path, text in sources.items():
        rewritten, _ = rewrite_launches(text)
        target = staging / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rewritten)
        for name, params in kernel_entries(rewritten):
            (staging / f"aclrtlaunch_{name}.h").write_text(launch_header(name, params))
        if Path(path).suffix in SOURCE_SUFFIXES:
            wrapper, _ = _unit(path, rewritten)
            unit = target.with_name(target.name + ".sim.cpp")
            unit.write_text(wrapper)
            units.append(str(unit.relative_to(staging)))
    return units


def _compile(args: list[str], staging: Path, support) -> None:
    compile_untrusted(args, staging, support, "the sample", lambda log: trim_log(log.replace(str(staging) + "/", "")))


def compile_untrusted(args: list[str], staging: Path, support, what: str, shown: Callable[[str], str]) -> None:
    """g++ ``args`` in the build sandbox (it reads the simulator headers and ``support``); the whole output kept in
    build.log; a KernelBuildError naming ``what`` with ``shown(output)`` when it fails."""
    code, log = run_untrusted([config.cxx(), *args], staging, (sim_include_dir(), support.directory),
                              config.run_memory_bytes())
    with (staging / "build.log").open("a") as kept:  # the whole output, for people
        kept.write(log)
    if code is None:
        raise KernelBuildError(f"building {what} took longer than {config.build_timeout_s():.0f} s")
    if code != 0:
        text = shown(log)
        raise KernelBuildError(f"building {what} failed:\n{text}", log=text)


# ---- the run -----------------------------------------------------------------------------------------------


class _SocProfile(ctypes.Structure):
    """SimSocProfile of launch_abi.h."""

    _fields_ = [("name", ctypes.c_char * 32), ("arch", ctypes.c_int32), ("ub_bytes", ctypes.c_uint32),
                ("vector_cores", ctypes.c_uint32), ("has_datacopy_pad", ctypes.c_uint32),
                ("clock_ghz", ctypes.c_double), ("hbm_bytes_per_ns", ctypes.c_double),
                ("core_gm_bytes_per_ns", ctypes.c_double), ("cube_cores", ctypes.c_uint32),
                ("l1_bytes", ctypes.c_uint32), ("l0a_bytes", ctypes.c_uint32), ("l0b_bytes", ctypes.c_uint32),
                ("l0c_bytes", ctypes.c_uint32), ("bt_bytes", ctypes.c_uint32), ("fb_bytes", ctypes.c_uint32)]


def run_sample(build: SampleBuild, inputs: Mapping[str, bytes] | None = None, *, args: Sequence[str] = (),
               directories: Sequence[str] = ("output",), soc: str | None = None,
               timeout: float | None = None) -> SampleRun:
    """Run the sample's main in a sandboxed child, in a fresh working directory holding ``inputs`` (relative path
    -> bytes) and the empty ``directories``; ``args`` follow the program name in argv."""
    limit = config.run_timeout_s() if timeout is None else timeout
    profile = get_soc(soc or config.default_soc()).as_sim_dict()
    with tempfile.TemporaryDirectory(prefix="ascendgen-sample-") as folder:
        root = Path(folder)
        work = root / "work"
        before = _prepare(work, inputs or {}, directories)
        with Worker(_ready, _WARM_UP_S, "the sample's child process", writable=(folder,)) as worker:
            try:
                status = worker.call(_run_in_child, str(build.library), str(root), list(args), profile,
                                     timeout=limit, what="the sample")
            except (KernelCrashError, KernelTimeoutError) as exc:
                raise _with_output(exc, root) from None
        launches, diagnostics, debug = _read_report(root / "report.tsv")
        return SampleRun(status, _tail(root / "stdout.txt"), _tail(root / "stderr.txt"), _written(work, before),
                         launches, diagnostics, debug)


def _prepare(work: Path, inputs: Mapping[str, bytes], directories: Sequence[str]) -> dict[str, bytes]:
    work.mkdir()
    for path in directories:
        _check_path(path)
        (work / path).mkdir(parents=True, exist_ok=True)
    for path, data in inputs.items():
        _check_path(path)
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_bytes(bytes(data))
    return {path: bytes(data) for path, data in inputs.items()}


def _ready() -> None:
    """The worker's warm-up: nothing beyond the imports."""


@contextlib.contextmanager
def in_run_folder(root: str):
    """Host code run in ``root``/work, its stdout and stderr in ``root``'s files (the working directory and the
    streams restored afterwards: the process may run other things after)."""
    folder = Path(root)
    before = os.getcwd()
    os.chdir(folder / "work")
    saved = os.dup(1), os.dup(2)
    out = os.open(folder / "stdout.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(folder / "stderr.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.dup2(err, 2)
    try:
        yield folder
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (out, err, *saved):
            os.close(fd)
        os.chdir(before)


def _run_in_child(library: str, root: str, args: list[str], profile: dict) -> int:
    """In the child: main of the sample library, run in ``root``/work with its output in ``root``'s files."""
    with in_run_folder(root) as folder:
        sample = ctypes.CDLL(library)
        run = sample.ascendc_sample_run
        run.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(_SocProfile), ctypes.c_char_p]
        run.restype = ctypes.c_int
        argv = [b"./ascendc_kernels_bbit", *(a.encode() for a in args)]
        array = (ctypes.c_char_p * (len(argv) + 1))(*argv, None)
        soc = _SocProfile(**{**profile, "name": profile["name"].encode()})
        return int(run(len(argv), array, ctypes.byref(soc), str(folder / "report.tsv").encode()))


def _with_output(exc: Exception, root: Path) -> Exception:
    """``exc`` with the sample's stdout, stderr and diagnostics attached, and the end of its stderr in the message
    (where the shim's report of a host access to device memory is)."""
    stdout, stderr = _tail(root / "stdout.txt"), _tail(root / "stderr.txt")
    message = str(exc) + (f"\nthe sample's stderr ends:\n{stderr[-2000:]}" if stderr.strip() else "")
    error = type(exc)(message)
    error.stdout, error.stderr = stdout, stderr
    error.diagnostics = _read_report(root / "report.tsv")[1]
    return error


def _read_regular(path: Path, limit: int) -> bytes | None:
    """Up to ``limit`` bytes from the end of ``path``, when it is a regular file (the child wrote it: no links)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(fd).st_size
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        handle.seek(max(0, size - limit))
        return handle.read(limit)


def _tail(path: Path) -> str:
    data = _read_regular(path, OUTPUT_CAP_BYTES)
    return data.decode(errors="replace") if data else ""


def _written(work: Path, before: Mapping[str, bytes]) -> dict[str, bytes]:
    """The regular files below ``work`` that are new or changed, by relative path (links are not followed)."""
    files: dict[str, bytes] = {}
    total = 0
    for folder, _, names in os.walk(work):
        for name in sorted(names):
            path = Path(folder) / name
            relative = str(path.relative_to(work))
            data = _read_regular(path, FILES_CAP_BYTES - total)
            if data is None or before.get(relative) == data:
                continue
            files[relative] = data
            total += len(data)
    return files


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def _read_report(path: Path) -> tuple[list[SampleLaunch], list[SampleDiagnostic], str]:
    """The launches, diagnostics and debug text the shim recorded (runtime.cpp ``record``)."""
    launches, diagnostics, debug = [], [], []
    data = _read_regular(path, 16 << 20) or b""
    for line in data.decode(errors="replace").splitlines():
        fields = [_unescape(f) for f in line.split("\t")]
        try:
            if fields[0] == "launch" and len(fields) == 5:
                launches.append(SampleLaunch(fields[1], int(fields[2]), fields[3] == "ok", float(fields[4])))
            elif fields[0] == "diagnostic" and len(fields) == 7:
                diagnostics.append(SampleDiagnostic(fields[1], fields[2], int(fields[3]), int(fields[4]), fields[5],
                                                    fields[6]))
            elif fields[0] == "debug" and len(fields) == 3:
                debug.append(fields[2])
        except ValueError:
            continue  # a line the sample garbled
    return launches, diagnostics, "".join(debug)
