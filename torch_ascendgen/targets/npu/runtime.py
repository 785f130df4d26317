"""NPU runtime: the pybind11 module that loads bisheng-built kernel libraries and launches them
on the current torch_npu stream, through torch_npu's task queue (csrc/runtime/npu_runtime.cpp).

It is built with the host C++ compiler once per machine, compiler, Python, torch, torch_npu and
CANN into the cache directory, the way torch_npu's own ``NpuExtension`` builds extensions, and
imported from there. Nothing here imports torch_npu or needs CANN until an NPU kernel is asked for:
then every way that can fail is an `NpuUnavailable` naming the cause and the fix.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import torch
import torch.utils.cpp_extension as cpp_extension
from filelock import FileLock

from torch_ascendgen import config
from torch_ascendgen._paths import csrc_dir
from torch_ascendgen.errors import NpuUnavailable
from torch_ascendgen.targets.npu.build import NPU_ABI_VERSION
from torch_ascendgen.targets.runtime import ShapeDeclined, nothing_to_compute, output_shapes
from torch_ascendgen.targets.soc import get_soc
from torch_ascendgen.targets.toolchain import compiler_identity, trim_log

if TYPE_CHECKING:
    from torch_ascendgen.targets.npu.cann import CannToolkit

MODULE_NAME = "ascendgen_npu_runtime"

# What torch's cpp_extension passes to every extension (BuildExtension on Linux), plus
# -fvisibility=hidden as for the simulator's runtime: only the module's init function is exported.
# The launch ABI's version comes from npu_build.py, which writes the launcher exporting it.
COMPILE_FLAGS = ("-O2", "-fPIC", "-fvisibility=hidden", "-DTORCH_API_INCLUDE_EXTENSION_H",
                 f"-DTORCH_EXTENSION_NAME={MODULE_NAME}", f"-DASCENDGEN_NPU_ABI_VERSION={NPU_ABI_VERSION}")
LINK_FLAGS = ("-shared",)
# torch_npu's NpuExtension links c10, torch, torch_cpu, torch_python and torch_npu
# (torch_npu/utils/cpp_extension.py); the runtime also calls ACL itself (aclrtMalloc, aclrtMemcpy, ...).
LIBRARIES = ("-ltorch_npu", "-lascendcl", "-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python")


def cxx_standard() -> str:
    """The C++ standard torch's own extension builds use: C++20 from torch 2.12 on (its ATen headers
    require it; pytorch/pytorch#176659 moved cpp_extension's default), C++17 before (torch_npu's
    releases for torch 2.1 to 2.11 build with it)."""
    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    return "-std=c++20" if (major, minor) >= (2, 12) else "-std=c++17"


def pybind11_abi_flags() -> list[str]:
    """The PYBIND11_COMPILER_TYPE/STDLIB/BUILD_ABI defines torch's extension builds pass, so the module's
    pybind11 internals match torch's. Torch up to 2.5 returns them; later ones return none and warn that
    pybind11 handles this itself."""
    flags = getattr(cpp_extension, "_get_pybind11_abi_build_flags", None)
    if flags is None:
        return []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return list(flags())


def npu_include_dirs(torch_npu_dir: Path) -> list[Path]:
    """torch_npu's headers and the ACL/HCCL headers it ships (the directories NpuExtension adds)."""
    include = Path(torch_npu_dir) / "include"
    return [include, include / "third_party" / "acl" / "inc", include / "third_party" / "hccl" / "inc"]


def npu_runtime_command(toolkit: CannToolkit, torch_npu_dir: Path, source: Path, output: Path | str) -> list[str]:
    """The exact compiler command that builds the runtime module ``output`` from ``source``.

    Include order: torch's, Python's, torch_npu's (with its bundled ACL headers, which its own
    headers include), then CANN's: ``<acl/acl.h>`` resolves to the copy torch_npu's headers use.
    """
    abi = f"-D_GLIBCXX_USE_CXX11_ABI={int(bool(torch._C._GLIBCXX_USE_CXX11_ABI))}"
    includes = [*cpp_extension.include_paths(), sysconfig.get_paths()["include"], *npu_include_dirs(torch_npu_dir),
                *toolkit.include_dirs]
    library_dirs = [*cpp_extension.library_paths(), Path(torch_npu_dir) / "lib", *toolkit.library_dirs]
    return [config.cxx(), cxx_standard(), *COMPILE_FLAGS, abi, *pybind11_abi_flags(), *(f"-I{d}" for d in includes),
            str(source), *LINK_FLAGS, "-o", str(output), *(f"-L{d}" for d in library_dirs), *LIBRARIES]


def runtime_source() -> Path:
    return csrc_dir() / "runtime" / "npu_runtime.cpp"


# ---- the module, built once per machine and toolchain ----------------------------------------------


_handed: Path | None = None  # the file a sandboxed child was handed (use_npu_runtime_module)


def use_npu_runtime_module(library: str) -> None:
    """Make npu_runtime_module() load ``library``, built by the caller, without naming it first: its name comes
    from running the compiler, which a sandboxed child cannot do."""
    global _handed
    _handed = Path(library)


@functools.cache
def npu_runtime_module() -> ModuleType:
    """The NPU runtime extension, built on first use; `NpuUnavailable` when torch_npu, CANN or the
    build is missing or broken."""
    from torch_ascendgen.targets.npu import cann  # lazily: nothing NPU-related runs at ``import torch_ascendgen``

    cann.torch_npu_module()  # first: the module's libraries must be loaded before ours
    return _import(_handed or build_npu_runtime_module())


def build_npu_runtime_module() -> Path:
    """The NPU runtime extension's file, built first if needed, not loaded; `NpuUnavailable` as above."""
    from torch_ascendgen.targets.npu import cann

    torch_npu = cann.torch_npu_module()
    toolkit = cann.require_cann()
    torch_npu_dir = Path(torch_npu.__file__).resolve().parent
    filename = MODULE_NAME + sysconfig.get_config_var("EXT_SUFFIX")
    command = npu_runtime_command(toolkit, torch_npu_dir, runtime_source(), filename)
    key = _module_key(command, cann.torch_npu_version(), toolkit.version)
    directory = config.cache_dir() / "npu_runtime" / key
    library = directory / filename
    if not library.is_file():
        directory.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(directory) + ".lock"):
            if not library.is_file():
                _build(directory, command)
    return library


def _module_key(command: list[str], torch_npu_version: str, cann_version: str) -> str:
    """sha256 over everything that changes the module: its source, the command (paths, flags), the
    compiler, Python, torch, torch_npu and CANN."""
    digest = hashlib.sha256(runtime_source().read_bytes())
    digest.update(json.dumps([command, compiler_identity(command[0]), sys.version, torch.__version__,
                              torch_npu_version, cann_version]).encode())
    return digest.hexdigest()[:32]


def _build(directory: Path, command: list[str]) -> None:
    """Compile into a staging directory and rename it into place; a failure leaves ``<key>.log``."""
    staging = directory.with_name(f".{directory.name}.{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    log_path = directory.with_name(directory.name + ".log")
    try:
        _compile(command, staging, log_path)
        shutil.rmtree(directory, ignore_errors=True)
        os.replace(staging, directory)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _compile(command: list[str], cwd: Path, log_path: Path) -> None:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=config.build_timeout_s())
    except subprocess.TimeoutExpired as exc:
        raise NpuUnavailable(
            f"building the NPU runtime module took longer than {config.build_timeout_s():.0f} s "
            f"(raise {config.BUILD_TIMEOUT_ENV} if the machine is slow)") from exc
    except OSError as exc:
        raise NpuUnavailable(f"cannot run the C++ compiler {command[0]!r}: {exc}. Install g++ or point "
                             f"{config.CXX_ENV} at a C++ compiler.") from exc
    if done.returncode != 0:
        log_path.write_text(" ".join(command) + "\n\n" + done.stdout + done.stderr)
        raise NpuUnavailable(
            f"building the NPU runtime module against torch_npu and CANN failed (full log: {log_path}):\n"
            f"{trim_log(done.stdout + done.stderr)}\n"
            "Fix: check that torch_npu matches torch and CANN (same release line), and that CANN's set_env.sh "
            "was sourced.")


def _import(library: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(MODULE_NAME, library)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except (ImportError, OSError) as exc:
        raise NpuUnavailable(
            f"the NPU runtime module {library} does not load: {exc}.\n"
            "Fix: source CANN's set_env.sh (CANN's lib64 must be on LD_LIBRARY_PATH); after changing torch, "
            "torch_npu or CANN, delete that directory so it is rebuilt.") from exc
    return module


@functools.cache
def load_npu_library(path: str):
    """A loaded NPU kernel library (``KernelLibrary``); loaded once per process and kept."""
    return npu_runtime_module().KernelLibrary(path)


# ---- contract kernels on NPU tensors ------------------------------------------------------------------


@dataclass(frozen=True)
class NpuTiling:
    """One shape's tiling: what the host tiling function returned, and its bytes in device memory."""

    data: bytes  # the TilingData bytes
    block_dim: int
    workspace_bytes: int
    device: object  # the runtime's DeviceTiling (freed when the last launch using it is done)


class NpuKernel:
    """Runs a kernel-contract kernel built by bisheng on the NPU: allocates outputs on the inputs' device,
    tiles per shape (memoised, the tiling bytes copied to device memory once) and launches on the current
    stream through torch_npu's task queue. The same shape as runtime.ContractKernel."""

    def __init__(self, build, task, soc: str):
        self.build = build
        self.task = task
        self.soc = soc
        self._runtime = npu_runtime_module()  # NpuUnavailable here, not at the first call
        self._library = None
        self._tilings: dict[tuple, tuple[list[tuple[int, ...]], NpuTiling]] = {}

    @property
    def library(self):
        """The kernel library, loaded on first use (loading runs its static initialisers)."""
        if self._library is None:
            self._library = load_npu_library(str(self.build.library))
        return self._library

    def plan(self, inputs) -> tuple[list[tuple[int, ...]], NpuTiling]:
        """Output shapes and the tiling for these inputs; ValueError when the kernel cannot take them."""
        device = _device_index(inputs)
        key = (device, *[t.shape for t in inputs])  # a torch.Size hashes and compares as its sizes
        cached = self._tilings.get(key)
        if cached is None:
            shapes = output_shapes(self.task, key[1:])
            if nothing_to_compute(key[1:], shapes, self.task):  # every output empty: no tiling, no launch
                cached = self._tilings[key] = (shapes, None)
                return cached
            sizes = [list(map(int, s)) for s in (*key[1:], *shapes)]
            block_dim, workspace_bytes, data = self.library.tiling(sizes, get_soc(self.soc).vector_cores)
            if block_dim == 0:
                raise ShapeDeclined(f"the kernel's tiling function declined shapes {list(map(list, key[1:]))}")
            tiling = NpuTiling(data, block_dim, workspace_bytes, self._runtime.DeviceTiling(data, device))
            cached = self._tilings[key] = (shapes, tiling)
        return cached

    def run(self, *inputs, counters: bool = False):
        """(outputs, None): the NPU gives no per-launch report (``counters`` is accepted for
        ContractKernel's signature); time launches with NPU events instead."""
        inputs = [t.contiguous() for t in inputs]
        shapes, tiling = self.plan(inputs)
        device = inputs[0].device
        outputs = tuple([torch.empty(shape, dtype=spec.dtype, device=device)
                         for shape, spec in zip(shapes, self.task.outputs)])
        if tiling is None:
            return outputs, None
        workspace = (torch.empty(tiling.workspace_bytes, dtype=torch.uint8, device=device)
                     if tiling.workspace_bytes else None)
        self._runtime.launch(self.library, tiling.block_dim, inputs, list(outputs), workspace, tiling.device)
        return outputs, None

    def __call__(self, *inputs):
        return self.run(*inputs)[0]


def _device_index(inputs) -> int:
    """The NPU the launch runs on: the inputs' (the runtime checks every tensor is on it)."""
    if not inputs:
        raise ValueError("an NPU kernel needs at least one input tensor (its device picks the NPU)")
    device = inputs[0].device
    if device.type != "npu":
        raise ValueError(f"input 0 is on {device}; NPU kernels take tensors on the NPU")
    return 0 if device.index is None else int(device.index)
