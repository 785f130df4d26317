"""Compile AscendC kernel source for the CPU simulator and launch it on CPU tensors.

    kernel = compile_kernel(source, entry="add_custom")
    report = kernel.launch(8, x, y, z)             # in this process
    report = kernel.launch_isolated(8, x, y, z)    # in a child process with a time limit

Arguments map one to one onto the kernel's parameters: a contiguous CPU tensor (or bytes, for
tiling data) for each GM_ADDR, None for a null pointer, Python numbers for scalar parameters
and bytes or a ctypes structure for a struct passed by value.
"""

from __future__ import annotations

import ctypes
import functools
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from torch_ascendgen import config
from torch_ascendgen.errors import KernelArgumentError, KernelCrashError, SimulatorError
from torch_ascendgen.targets.runtime import build_runtime_module, load_library, use_runtime_module
from torch_ascendgen.targets.sandbox import run_in_child
from torch_ascendgen.targets.sim.build import SimBuild, build_sim_kernel
from torch_ascendgen.targets.sim.launch_syntax import rewrite_launches
from torch_ascendgen.targets.sim.list_tensor import ListOf
from torch_ascendgen.targets.soc import get_soc

CONTRACT_EXPORT = '\n#include "sim/contract_export.h"\n'  # after the source: line numbers stay

ARG_POINTER, ARG_INT, ARG_UINT, ARG_FLOAT, ARG_STRUCT = range(5)
_KIND_NAMES = {ARG_POINTER: "pointer (GM_ADDR)", ARG_INT: "signed integer", ARG_UINT: "unsigned integer",
               ARG_FLOAT: "floating-point", ARG_STRUCT: "struct"}

_ENTRY_RE = re.compile(
    r'extern\s+"C"\s+(?:__global__\s+|__aicore__\s+|__vector__\s+|__cube__\s+|inline\s+)*void\s+([A-Za-z_]\w*)\s*\('
)
# A template kernel entry (template <typename T> __global__ __aicore__ void add_kernel(...)): built by naming one
# instantiation, compile_kernel(source, entry="add_kernel<float>").
_TEMPLATE_ENTRY_RE = re.compile(
    r"template\s*<[^;{}]*>\s*(?:__global__\s+|__aicore__\s+|__vector__\s+|__cube__\s+|inline\s+)+void\s+"
    r"([A-Za-z_]\w*)\s*\("
)
_ENTRY_NAME_RE = re.compile(r"[A-Za-z_]\w*(?:<[\w :,<>*]*>)?")  # a C identifier, or one template instantiation

DEBUG_TAIL_CHARS = 600  # of a failed launch's debug text quoted in its error message

SUPPORTED_DTYPES = {torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.uint8,
                    torch.int16, torch.int32, torch.int64, torch.bool}


@dataclass(frozen=True)
class RunReport:
    """What one launch did: per-core counters, the estimated NPU time and the kernel's debug text (AscendC::printf,
    PRINTF, DumpTensor, DumpAccChkPoint: that launch's only, lines tagged ``[block N]``)."""

    soc: str
    block_dim: int
    estimated_ns: float  # cost-model estimate of the NPU time, launch overhead included
    launch_ns: float
    hbm_bound_ns: float  # the chip's GM bandwidth floor for the bytes moved
    cores: list[dict] = field(repr=False)
    debug_text: str = field(default="", repr=False)

    @property
    def gm_bytes(self) -> int:
        return sum(c["gm_to_ub_bytes"] + c["ub_to_gm_bytes"] for c in self.cores)

    def vector_ops(self) -> dict[str, tuple[int, int]]:
        """Instructions and repeats per op, summed over cores."""
        total: dict[str, tuple[int, int]] = {}
        for core in self.cores:
            for name, (instrs, repeats) in core["vector_ops"].items():
                before = total.get(name, (0, 0))
                total[name] = (before[0] + instrs, before[1] + repeats)
        return total


@dataclass(frozen=True)
class Tiling:
    """What a contract kernel's host tiling function returned for one set of shapes."""

    data: bytes  # the TilingData bytes
    block_dim: int  # 0: the kernel cannot handle these shapes
    workspace_bytes: int


def find_entry(source: str) -> str:
    """The kernel entry's name, when the source declares exactly one."""
    names = list(dict.fromkeys(_ENTRY_RE.findall(source)))
    if len(names) == 1:
        return names[0]
    templates = list(dict.fromkeys(_TEMPLATE_ENTRY_RE.findall(source)))
    if not names and templates:
        raise KernelArgumentError(
            f"the kernel entry {templates[0]} is a template: name the instantiation to build, as in "
            f"entry=\"{templates[0]}<float>\""
        )
    if not names:
        raise KernelArgumentError(
            'no kernel entry found: declare one as extern "C" __global__ __aicore__ void name(GM_ADDR ...)'
        )
    raise KernelArgumentError(f"the source declares several kernel entries ({', '.join(names)}); pass entry=")


class SimKernel:
    """A kernel built for the simulator, ready to launch."""

    def __init__(self, build: SimBuild, source: str, filename: str):
        self.build = build
        self.source = source
        self.filename = filename
        self._loaded = None

    @property
    def _library(self):
        """The library, loaded into this process on first in-process use (never by launch_isolated):
        loading runs the kernel's static initialisers, which untrusted code must not run here."""
        if self._loaded is None:
            self._loaded = load_library(str(self.build.library))
        return self._loaded

    @property
    def params(self) -> list[tuple[int, int]]:
        """(kind, size) of each kernel parameter."""
        return [tuple(a) for a in self._library.args]

    @property
    def entry(self) -> str:
        return self.build.entry

    def tiling(self, shapes: list[list[int]], soc: str | None = None) -> Tiling:
        """Run the kernel contract's host tiling function for these shapes (inputs, then outputs)."""
        profile = get_soc(soc or config.default_soc())
        if not self._library.has_tiling:
            raise KernelArgumentError(f"{self.entry} was not built with the kernel contract's tiling function")
        data, blocks, workspace = self._library.tiling(profile.vector_cores, [list(map(int, s)) for s in shapes])
        return Tiling(data, blocks, workspace)

    @staticmethod
    def idle_report(soc: str) -> RunReport:
        """The report of a launch that did not happen (every output empty: nothing to compute)."""
        return RunReport(soc, 0, 0.0, 0.0, 0.0, cores=[])

    def launch(self, block_dim: int, *args: Any, soc: str | None = None, counters: bool = True,
               checked: bool = False, block_order_seed: int = 0, labels: Sequence[str] = (),
               auto_sync: bool = False) -> RunReport:
        """Run on ``block_dim`` logical cores in this process; raise SimulatorError on a rule violation.

        ``counters=False`` leaves the report's per-core counters empty (the estimate is still made):
        a kernel op's calls need only the outputs.

        ``checked=True`` hands the kernel GM (and UB) addresses that nothing can dereference: only the
        simulator's API reaches the data, so any raw-pointer access faults, and a handler installed for
        it writes which argument, offset and code to stderr before the process dies. Use it only in an
        expendable process (a sandboxed child or worker), never in the user's. ``labels`` name the
        arguments in that report ("input 0"). ``block_order_seed``: 0 hands blocks to cores in order,
        anything else in an order drawn from it. ``auto_sync=True`` runs the kernel as bisheng builds operator and
        kernel-launch projects (--cce-auto-sync, on by default there): the compiler synchronises the scalar pipe
        with MTE2, MTE3 and V, so only the MTE2/V/MTE3 hand-overs need queues or flags; torch_ascendgen builds its
        own kernels without it."""
        profile = get_soc(soc or config.default_soc())
        if not isinstance(block_dim, int) or block_dim < 1 or block_dim > 65535:
            raise KernelArgumentError(f"block_dim must be an int from 1 to 65535, got {block_dim!r}")
        values, regions, keep_alive = self._marshal(args)
        result = self._library.run(block_dim, _sim_dict(profile), values, regions, counters, checked,
                                   block_order_seed & (2**64 - 1), list(labels), auto_sync)
        del keep_alive
        text = result.get("debug_text", "")
        if result["status"] == 1:
            raise self._diagnostic(result["diagnostic"], text)
        if result["status"] != 0:
            raise _carrying(SimulatorError(
                "launch_failed", _quote_debug_text(f"an exception escaped {self.entry} or the simulator while it ran "
                                                   f"(status {result['status']}); kernels must not throw or allocate "
                                                   "memory", text)), text)
        return RunReport(profile.name, block_dim, result["est_ns"], result["est_launch_ns"], result["est_hbm_ns"],
                         result["cores"], text)

    def launch_isolated(self, block_dim: int, *args: Any, soc: str | None = None,
                        timeout: float | None = None, checked: bool = False, auto_sync: bool = False) -> RunReport:
        """Like launch, in a child process with a time limit; tensor arguments receive the results."""
        limit = config.run_timeout_s() if timeout is None else timeout
        runtime = str(build_runtime_module())  # the sandboxed child only loads it
        what = f"kernel {self.entry}"
        launched, failure = run_in_child(_launch_in_child_keeping_text, self.build, self.source, self.filename,
                                         block_dim, list(args), soc, runtime, checked, auto_sync, timeout=limit,
                                         what=what)
        if failure is not None:
            raise _failure_from_child(failure, what)
        report, after = launched
        for before, result in zip(args, after):
            if isinstance(before, torch.Tensor):
                before.copy_(result)
        return report

    def _marshal(self, args: tuple) -> tuple[list[bytes], list[tuple[int, int, int]], list]:
        if len(args) != len(self.params):
            kinds = ", ".join(_KIND_NAMES[k] for k, _ in self.params)
            raise KernelArgumentError(f"{self.entry} takes {len(self.params)} arguments ({kinds}), got {len(args)}")
        values, regions, keep_alive = [], [], []
        for index, ((kind, size), arg) in enumerate(zip(self.params, args)):
            if kind == ARG_POINTER:
                if type(arg) is ListOf:  # built here, where the launch's tensors are
                    arg = arg.descriptor(args)
                address, nbytes, holder = _gm_buffer(arg, index, self.entry)
                keep_alive.append(holder)
                if address:
                    regions.append((address, nbytes, index))
                values.append(struct.pack("<Q", address))
            else:
                values.append(_scalar_bytes(kind, size, arg, index, self.entry))
        return values, regions, keep_alive

    def _diagnostic(self, diag: dict, debug_text: str) -> SimulatorError:
        line = diag["line"]
        from_kernel = diag["file"].endswith("kernel.cpp") or diag["file"] == self.filename
        source_line = ""
        if from_kernel and 0 < line <= len(self.source.splitlines()):
            source_line = self.source.splitlines()[line - 1]
        file = self.filename if from_kernel else dict(self.build.header_names).get(diag["file"], diag["file"])
        message = _quote_debug_text(diag["message"], debug_text)
        return _carrying(SimulatorError(diag["kind"], message, file, line, diag["block"], source_line), debug_text)


def _quote_debug_text(message: str, debug_text: str) -> str:
    """``message`` with the end of the launch's debug text, which the repair feedback then shows the model (a
    failed assert's message already quotes its block's own, after "printf:")."""
    if not debug_text.strip() or "printf:" in message:
        return message
    return f"{message}\nprintf: the launch's last debug output:\n{debug_text[-DEBUG_TAIL_CHARS:]}"


def _carrying(error: SimulatorError, debug_text: str) -> SimulatorError:
    """``error`` with the failed launch's whole debug text as its ``debug_text``."""
    error.debug_text = debug_text
    return error


def _failure_from_child(failure: Any, what: str) -> Exception:
    """The SimulatorError a child's launch failed with, its debug text attached again (pickling drops it)."""
    if type(failure) is tuple and len(failure) == 2 and isinstance(failure[0], SimulatorError) and (
            type(failure[1]) is str):
        return _carrying(*failure)
    return KernelCrashError(f"{what} answered with {type(failure).__name__} where a simulator error was due; only "
                            "data may come back from a kernel run")


@functools.cache
def _sim_dict(profile) -> dict:
    return profile.as_sim_dict()


def compile_kernel(source: str, entry: str | None = None, *, filename: str = "kernel.cpp",
                   contract: bool = False, headers: Mapping[str, str] | None = None) -> SimKernel:
    """Build ``source`` for the simulator (or reuse an identical earlier build) and load it.

    ``filename`` is what diagnostics call the source file. ``contract``: the source follows the
    kernel contract (generate.py), whose host tiling function is then exported too. ``headers``: the
    kernel's own headers, {path as its ``#include "..."`` names it relative to the kernel's directory: text}.
    A kernel-launch file's ``<<<>>>`` launcher compiles (never runs: the entry is launched directly).
    """
    name = entry or find_entry(source)
    if not _ENTRY_NAME_RE.fullmatch(name):
        raise KernelArgumentError(f"entry {name!r} is not a C identifier or a template instantiation (name<T>)")
    built = _launches_rewritten(source) + (CONTRACT_EXPORT if contract else "")
    local = {path: _launches_rewritten(text) for path, text in (headers or {}).items()}
    return SimKernel(build_sim_kernel(built, name, local), source, filename)


def _launches_rewritten(text: str) -> str:
    """``text`` with its ``<<<>>>`` launchers made C++ (launch_syntax.py); they compile, the entry is what runs."""
    return rewrite_launches(text)[0] if "<<<" in text else text


def _launch_in_child(build: SimBuild, source: str, filename: str, block_dim: int, args: list, soc: str | None,
                     runtime_library: str, checked: bool = False, auto_sync: bool = False):
    use_runtime_module(runtime_library)
    kernel = SimKernel(build, source, filename)
    report = kernel.launch(block_dim, *args, soc=soc, checked=checked, auto_sync=auto_sync)
    return report, [a if isinstance(a, torch.Tensor) else None for a in args]


def _launch_in_child_keeping_text(*args: Any):
    """_launch_in_child's (report, tensors), and None; or None and a failed launch's (SimulatorError, debug text):
    sent as data, as raised it would lose its debug_text on the way (pickling keeps only its constructor's)."""
    try:
        return _launch_in_child(*args), None
    except SimulatorError as exc:
        return None, (exc, exc.debug_text)


def _gm_buffer(arg: Any, index: int, entry: str) -> tuple[int, int, Any]:
    """(address, bytes, object to keep alive) for a GM_ADDR argument."""
    if arg is None:
        return 0, 0, None
    if isinstance(arg, torch.Tensor):
        if arg.device.type != "cpu":
            raise KernelArgumentError(
                f"argument {index} of {entry} is on {arg.device}; the simulator runs on CPU tensors (.cpu() it, "
                "or use the npu target)"
            )
        if not arg.is_contiguous():
            raise KernelArgumentError(f"argument {index} of {entry} is not contiguous; pass tensor.contiguous()")
        if arg.dtype not in SUPPORTED_DTYPES:
            raise KernelArgumentError(f"argument {index} of {entry} has dtype {arg.dtype}, "
                                      "which AscendC has no type for")
        return (arg.data_ptr() if arg.numel() else 0), arg.numel() * arg.element_size(), arg
    if isinstance(arg, ctypes.Structure):
        arg = bytes(arg)
    if isinstance(arg, (bytes, bytearray, memoryview)):
        data = bytes(arg)
        buffer = torch.frombuffer(bytearray(data), dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
        return (buffer.data_ptr() if data else 0), len(data), buffer
    raise KernelArgumentError(
        f"argument {index} of {entry} is a GM_ADDR parameter; pass a CPU tensor, bytes (tiling data) or None, "
        f"not {type(arg).__name__}"
    )


_INT_FORMATS = {1: "b", 2: "h", 4: "i", 8: "q"}
_FLOAT_FORMATS = {2: "e", 4: "f", 8: "d"}


def _scalar_bytes(kind: int, size: int, arg: Any, index: int, entry: str) -> bytes:
    try:
        if kind == ARG_STRUCT:
            data = bytes(arg) if isinstance(arg, (ctypes.Structure, bytes, bytearray, memoryview)) else None
            if data is None or len(data) != size:
                raise KernelArgumentError(
                    f"argument {index} of {entry} is a {size}-byte struct passed by value; pass exactly {size} bytes "
                    "or a ctypes.Structure of that size"
                )
            return data
        if kind == ARG_FLOAT:
            return struct.pack("<" + _FLOAT_FORMATS[size], float(arg))
        if isinstance(arg, float) or not isinstance(arg, (int, bool)):
            raise KernelArgumentError(f"argument {index} of {entry} is an integer parameter; got {arg!r}")
        code = _INT_FORMATS[size]
        return struct.pack("<" + (code if kind == ARG_INT else code.upper()), int(arg))
    except struct.error as exc:
        raise KernelArgumentError(f"argument {index} of {entry}: {arg!r} does not fit the parameter ({exc})") from None
