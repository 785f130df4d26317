"""Serving: kernels a model wrote run in a long-lived sandboxed worker, never in the caller's process.

    runner = served_kernel(entry, task, soc)   # a ServedKernel: ContractKernel's interface
    outputs = runner(x, y)                     # tiled and launched in the worker; outputs are fresh tensors here

Loading a kernel library runs its static initialisers, and planning a launch runs its host tiling function:
code the model wrote. Our own generator's and the seed kernels run in-process (trust.untrusted says which is
which); every other kernel runs in one worker per process, started on first use: a fresh interpreter confined
like the candidate child (sandbox.py, confinement.py), with a scratch directory of its own, that loads the
runtime module this process built and the kernel libraries from the cache, read-only, and launches them checked
(SimKernel.launch: a raw-pointer access faults and the worker dies with a report of where).

One call: the inputs are copied into an arena (a memfd sealed against shrinking, mapped by both sides and grown
by this side only), one JSON line goes to the worker's stdin, one JSON line comes back on a pipe of its own, and
the outputs are copied out of the arena into fresh tensors, so nothing the caller keeps stays mapped to memory
the worker can write. The worker is hostile: its replies are parsed as data (JSON of checked fields, never a
pickle), and a reply that is late, malformed or out of turn stops it. A call that crashes or overruns the worker
raises KernelCrashError or KernelTimeoutError (the guard turns those into the original function's result); the
next call starts a new worker, which loads its kernels again. Tilings are cached per shape on this side.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import mmap
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from torch_ascendgen import config
from torch_ascendgen.cache import CacheEntry
from torch_ascendgen.errors import AscendGenError, KernelArgumentError, KernelCrashError, SimulatorError
from torch_ascendgen.targets import confinement
from torch_ascendgen.targets.confinement import Policy
from torch_ascendgen.targets.sandbox import (
    SHARED_TENSOR_BYTES,
    _child_command,
    _crash,
    _kill_group,
    _new_file,
    _overran,
    _send,
    _tail,
)
from torch_ascendgen.targets.sim.kernels import build_to_json

_ALIGN = 64  # every tensor in the arena starts on a cache line
_MIN_ARENA = 1 << 20
_MAX_REPLY = 1 << 20  # a longer reply line is garbage
_MAX_TEXT = 4000  # longest diagnostic text kept from the worker
_MAX_TILING = 1 << 16  # bytes of TilingData
_SEALS = getattr(fcntl, "F_SEAL_SHRINK", 2) | getattr(fcntl, "F_SEAL_SEAL", 1)


# ---- the kernel, as this process sees it ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Tiling:
    data: bytes
    block_dim: int
    workspace_bytes: int


class ServedKernel:
    """A kernel-contract kernel run by the serving worker; ContractKernel's interface (``task``, ``plan``,
    ``run``, calls). ``rechecked``: it has passed on fresh data in the worker in this process (see trust.recheck)."""

    def __init__(self, library: Path, source: str, key: str, task, soc: str, worker: ServingWorker | None = None,
                 project=None):
        self.task = task
        self.soc = soc
        self.library = Path(library)
        self.rechecked = False
        self._worker = worker or serving_worker()
        self._id = self._worker.register(self.library, source, key, project)
        self._tilings: dict[tuple, tuple] = {}

    def plan(self, inputs) -> tuple[list[tuple[int, ...]], _Tiling]:
        """Output shapes and the tiling for these inputs; ValueError (ShapeDeclined) when the kernel cannot
        take them. The tiling function runs in the worker, once per shape."""
        from torch_ascendgen.targets.runtime import ShapeDeclined, nothing_to_compute, output_shapes

        key = tuple([tuple(t.shape) for t in inputs])
        cached = self._tilings.get(key)
        if cached is None:
            shapes = output_shapes(self.task, key)
            if nothing_to_compute(key, shapes, self.task):  # every output empty: no tiling, no launch
                return self._tilings.setdefault(key, (shapes, None))
            tiling = self._worker.tiling(self._id, [*key, *shapes], self.soc)
            if tiling.block_dim == 0:
                raise ShapeDeclined(f"the kernel's tiling function declined shapes {list(map(list, key))}")
            cached = self._tilings.setdefault(key, (shapes, tiling))
        return cached

    def run(self, *inputs, counters: bool = True):
        """(outputs, a RunReport without per-core counters)."""
        from torch_ascendgen.targets.sim.simulator import RunReport

        for index, tensor in enumerate(inputs):
            if tensor.device.type != "cpu":
                raise KernelArgumentError(f"input {index} is on {tensor.device}; served kernels take CPU tensors")
        shapes, tiling = self.plan(inputs)
        if tiling is None:
            outputs = tuple(torch.empty(shape, dtype=spec.dtype) for shape, spec in zip(shapes, self.task.outputs))
            return outputs, RunReport(self.soc, 0, 0.0, 0.0, 0.0, cores=[])
        specs = [(shape, spec.dtype) for shape, spec in zip(shapes, self.task.outputs)]
        outputs, estimate = self._worker.launch(self._id, tiling, self.soc, inputs, specs, counters)
        return outputs, RunReport(self.soc, tiling.block_dim, *estimate, cores=[])

    def __call__(self, *inputs):
        return self.run(*inputs, counters=False)[0]


_SERVED: dict[tuple, ServedKernel] = {}
_SERVED_LOCK = threading.Lock()


def served_kernel(entry: CacheEntry, task, soc: str, library: Path | None = None, project=None) -> ServedKernel:
    """The process's one ServedKernel for ``entry`` on ``soc`` (its library: ``library``, else the entry's), so
    that it is re-checked once per process. By library and source too: caches in other directories may hold
    other kernels under the same key. ``project``: an operator project's ProjectBuild (project_kernel.py)."""
    library = Path(library or entry.library)
    identity = (entry.key, soc, str(library), entry.source)
    with _SERVED_LOCK:
        kernel = _SERVED.get(identity)
        if kernel is None:
            kernel = _SERVED[identity] = ServedKernel(library, entry.source, entry.key, task, soc, project=project)
        return kernel


# ---- the worker, as this process drives it -----------------------------------------------------------------


class ServingWorker:
    """The sandboxed process that serves this process's untrusted kernels; thread-safe (one call at a time).

    Started on first use, restarted on the next call after one crashed or overran it. ``calls`` and
    ``restarts`` count for reports and tests."""

    def __init__(self):
        self._lock = threading.Lock()
        self._kernels: dict[int, dict] = {}
        self._sources: dict[int, str] = {}
        self._child: _ServingChild | None = None
        self._broken: Exception | None = None  # why the worker could not start (every later call fails so)
        self.calls = 0
        self.starts = 0

    @property
    def pid(self) -> int | None:
        """The current worker process (None when none runs)."""
        return self._child.process.pid if self._child else None

    def register(self, library: Path, source: str, key: str, project=None) -> int:
        """A handle for the kernel in ``library`` (an operator project's: ``project``, its ProjectBuild); the worker
        loads it before its first use."""
        with self._lock:
            handle = len(self._kernels) + 1
            self._kernels[handle] = {"op": "load", "kernel": handle, "library": str(library), "key": key,
                                     "project": build_to_json(project) if project is not None else None}
            self._sources[handle] = source
            return handle

    def tiling(self, handle: int, shapes: list, soc: str) -> _Tiling:
        """The kernel's host tiling for ``shapes`` (inputs, then outputs), run in the worker."""
        with self._lock:
            child = self._ready(handle)
            reply = self._request(child, {"op": "tiling", "kernel": handle, "soc": soc,
                                          "shapes": [list(map(int, s)) for s in shapes]}, "its tiling function")
            return _checked_tiling(reply)

    def launch(self, handle: int, tiling: _Tiling, soc: str, inputs: Sequence[torch.Tensor],
               outputs: Sequence[tuple[tuple[int, ...], torch.dtype]], counters: bool
               ) -> tuple[tuple[torch.Tensor, ...], tuple[float, float, float]]:
        """Launch the kernel on ``inputs``; fresh output tensors of ``outputs`` (shape, dtype), and the estimate
        (ns, launch ns, HBM-bound ns)."""
        sizes = [t.numel() * t.element_size() for t in inputs] + [_nbytes(shape, dtype) for shape, dtype in outputs]
        offsets, total = _layout(sizes)
        with self._lock:
            child = self._ready(handle)
            child.arena.fit(total)
            for tensor, offset, size in zip(inputs, offsets, sizes):
                if size:
                    child.arena.bytes(offset, size).copy_(tensor.contiguous().reshape(-1).view(torch.uint8))
            described = [[offset, str(t.dtype).removeprefix("torch."), list(t.shape)] for t, offset in
                         zip(inputs, offsets)]
            described += [[offset, str(dtype).removeprefix("torch."), list(shape)] for (shape, dtype), offset in
                          zip(outputs, offsets[len(inputs):])]
            reply = self._request(child, {"op": "run", "kernel": handle, "soc": soc, "block_dim": tiling.block_dim,
                                          "tiling": tiling.data.hex(), "workspace": tiling.workspace_bytes,
                                          "arena": child.arena.size, "tensors": described, "inputs": len(inputs),
                                          "counters": counters},
                                  "its launch")
            results = []
            for (shape, dtype), offset, size in zip(outputs, offsets[len(inputs):], sizes[len(inputs):]):
                result = torch.empty(shape, dtype=dtype)
                if size:
                    result.reshape(-1).view(torch.uint8).copy_(child.arena.bytes(offset, size))
                results.append(result)
            return tuple(results), _checked_estimate(reply)

    def stop(self) -> None:
        """Stop the worker process (the next call starts a new one)."""
        with self._lock:
            self._stop()

    def _ready(self, handle: int) -> _ServingChild:
        if self._broken is not None:
            raise self._broken
        if self._child is None:
            self.starts += 1
            try:
                self._child = _ServingChild()
                self._await(self._child, None, config.build_timeout_s() + config.run_timeout_s(), "starting")
            except Exception as exc:  # noqa: BLE001 - no kernel ran yet: this environment cannot serve
                self._broken = exc
                self._stop()
                raise
        if handle not in self._child.loaded:
            source = self._child.hand_over(f"kernel-{handle}.cpp", self._sources[handle])
            self._request(self._child, {**self._kernels[handle], "source": source}, "loading its library")
            self._child.loaded.add(handle)
        return self._child

    def _request(self, child: _ServingChild, request: dict, doing: str) -> dict:
        child.sequence += 1
        offset = child.log_size()
        try:
            child.send(json.dumps({**request, "seq": child.sequence}).encode() + b"\n")
        except OSError as exc:  # it died, or stopped reading its requests (BlockingIOError)
            self._stop()
            raise _crash(f"the serving worker ({doing}: {type(exc).__name__})", child.process.poll(), "") from None
        self.calls += 1
        return self._await(child, child.sequence, config.run_timeout_s(), doing, offset)

    def _await(self, child: _ServingChild, sequence: int | None, timeout: float, doing: str,
               offset: int = 0) -> dict:
        what = f"the serving worker ({doing})"
        try:
            reply = child.reply(timeout)
        except TimeoutError:
            self._stop()
            raise _overran(what, timeout) from None
        except EOFError:
            code = child.wait_exit()
            tail = _tail(child.log_path, offset=offset)
            self._stop()
            raise _crash(what, code, tail) from None
        except ValueError as exc:
            self._stop()
            raise KernelCrashError(f"{what} answered with something that is not a reply ({exc}); it was stopped") \
                from None
        if reply.get("seq") != sequence:
            self._stop()
            raise KernelCrashError(f"{what} answered out of turn (reply {str(reply.get('seq'))[:20]!r} where "
                                   f"{sequence!r} was due); it was stopped")
        if reply.get("ok") is not True:
            raise _error_from(reply)
        return reply

    def _stop(self) -> None:
        if self._child is not None:
            self._child.stop()
            self._child = None

    def forget(self) -> None:
        """In a forked child: drop the parent's worker without stopping it (it is the parent's); close this
        copy's ends of its pipes, so that the worker still ends with the parent."""
        if self._child is not None:
            self._child.close_pipes()
        self._child = None
        self._lock = threading.Lock()


_WORKER: ServingWorker | None = None
_WORKER_LOCK = threading.Lock()


def serving_worker() -> ServingWorker:
    """The process's serving worker (its process starts on the first call)."""
    global _WORKER
    with _WORKER_LOCK:
        if _WORKER is None:
            _WORKER = ServingWorker()
        return _WORKER


def _shutdown() -> None:
    if _WORKER is not None:
        _WORKER.stop()


def _after_fork() -> None:
    global _WORKER_LOCK
    _WORKER_LOCK = threading.Lock()
    if _WORKER is not None:
        _WORKER.forget()


atexit.register(_shutdown)
os.register_at_fork(after_in_child=_after_fork)


class _Arena:
    """A memfd mapped here and in the worker: sealed so that the worker cannot shrink it (an access past a
    shrunk file's end would kill this process), grown only here."""

    def __init__(self):
        self.fd = os.memfd_create("ascendgen-serve", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        self.size = 0
        self._map: mmap.mmap | None = None
        self._base: torch.Tensor | None = None
        self.fit(_MIN_ARENA, seal=True)

    def fit(self, nbytes: int, seal: bool = False) -> None:
        if nbytes <= self.size:
            return
        size = max(_MIN_ARENA, 1 << (nbytes - 1).bit_length())
        os.ftruncate(self.fd, size)
        if seal:
            fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, _SEALS)
        self.close_map()
        self._map = mmap.mmap(self.fd, size)
        self._base = torch.frombuffer(self._map, dtype=torch.uint8)
        self.size = size

    def bytes(self, offset: int, nbytes: int) -> torch.Tensor:
        return self._base[offset:offset + nbytes]

    def close_map(self) -> None:
        self._base = None
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:  # a view still lives; the mapping goes with it
                pass
            self._map = None

    def close(self) -> None:
        self.close_map()
        os.close(self.fd)


class _ServingChild:
    """One worker process: its stdin (requests), the pipe it replies on, its arena and its scratch directory."""

    def __init__(self):
        from torch_ascendgen.targets.runtime import build_runtime_module

        runtime = str(build_runtime_module())  # the sandboxed worker only loads it
        self.folder = Path(tempfile.mkdtemp(prefix="ascendgen-serve-"))
        self.log_path = self.folder / "output.log"
        self.arena = _Arena()
        self.loaded: set[int] = set()
        self.sequence = 0
        self.pending = b""
        policy = Policy(config.sandbox(), "cpu", (str(self.folder),), config.run_memory_bytes())
        read_end, write_end = os.pipe()
        _send(self.folder / "call.pkl",
              (__name__, "_worker_main", (runtime, write_end, self.arena.fd, str(self.folder))),
              self.folder, SHARED_TENSOR_BYTES)
        try:
            with _new_file(self.log_path) as log:
                self.process = subprocess.Popen(_child_command(policy, str(self.folder)), stdin=subprocess.PIPE,
                                                stdout=log, stderr=subprocess.STDOUT,
                                                pass_fds=(write_end, self.arena.fd), start_new_session=True,
                                                env=_environment(policy, self.folder))
        except BaseException:
            os.close(read_end)
            self.arena.close()
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        finally:
            os.close(write_end)  # the worker holds the only write end: end of file means it died
        self.replies = read_end
        self.requests = self.process.stdin.fileno()
        os.set_blocking(self.requests, False)  # a worker that stops reading must not block this process

    def send(self, data: bytes) -> None:
        """One request; BlockingIOError when the pipe is full (requests are small: the worker stopped reading)."""
        view = memoryview(data)
        while view.nbytes:
            view = view[os.write(self.requests, view):]

    def hand_over(self, name: str, text: str) -> str:
        """``text`` as a new file of the scratch directory (never through a link the worker left); its name."""
        with _new_file(self.folder / name) as handle:
            handle.write(text.encode())
        return name

    def reply(self, timeout: float) -> dict:
        """The next reply line, parsed; TimeoutError, EOFError (the worker died) or ValueError (not a reply)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            if len(self.pending) > _MAX_REPLY:
                raise ValueError(f"a reply longer than {_MAX_REPLY} bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            if select.select([self.replies], [], [], remaining)[0]:
                chunk = os.read(self.replies, 1 << 16)
                if not chunk:
                    raise EOFError
                self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        try:
            reply = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"invalid JSON: {str(exc)[:80]}") from None
        if not isinstance(reply, dict):
            raise ValueError(f"a {type(reply).__name__}, not an object")
        return reply

    def log_size(self) -> int:
        try:
            return self.log_path.stat().st_size
        except OSError:
            return 0

    def wait_exit(self) -> int | None:
        try:
            return self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return None  # it closed the pipe yet lives on; stopped by the caller

    def stop(self) -> None:
        _kill_group(self.process)  # the worker and anything it started
        self.close_pipes()
        self.arena.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def close_pipes(self) -> None:
        for close in (self.process.stdin.close, lambda: os.close(self.replies)):
            try:
                close()
            except OSError:
                pass


def _environment(policy: Policy, folder: Path) -> dict[str, str]:
    """The candidate child's environment (sandbox.py): no secrets, HOME and TMPDIR in its scratch directory."""
    return confinement.allowed_environment(os.environ, policy.profile, str(folder),
                                           {config.CACHE_DIR_ENV: str(config.cache_dir())})


def _layout(sizes: Sequence[int]) -> tuple[list[int], int]:
    offsets, end = [], 0
    for size in sizes:
        offsets.append(end)
        end += -(-size // _ALIGN) * _ALIGN
    return offsets, end


def _nbytes(shape: Sequence[int], dtype: torch.dtype) -> int:
    count = 1
    for size in shape:
        count *= int(size)
    return count * dtype.itemsize


def _integer(reply: dict, name: str, low: int, high: int) -> int:
    value = reply.get(name)
    if type(value) is not int or not low <= value <= high:
        raise KernelCrashError(f"the serving worker replied with {name}={str(value)[:40]!r}, not an integer from "
                               f"{low} to {high}")
    return value


def _checked_tiling(reply: dict) -> _Tiling:
    data = reply.get("data")
    if type(data) is not str or len(data) > 2 * _MAX_TILING:
        raise KernelCrashError("the serving worker replied with tiling data that is not hex text of at most "
                               f"{_MAX_TILING} bytes")
    try:
        raw = bytes.fromhex(data)
    except ValueError:
        raise KernelCrashError("the serving worker replied with tiling data that is not hex text") from None
    limit = config.run_memory_bytes() or 1 << 40
    return _Tiling(raw, _integer(reply, "blocks", 0, 65535), _integer(reply, "workspace", 0, limit))


def _checked_estimate(reply: dict) -> tuple[float, float, float]:
    values = [reply.get(name) for name in ("est_ns", "launch_ns", "hbm_ns")]
    if any(type(v) not in (int, float) for v in values):
        raise KernelCrashError("the serving worker replied with an estimate that is not three numbers")
    return tuple(float(v) for v in values)


def _text(reply: dict, name: str) -> str:
    value = reply.get(name, "")
    return value[:_MAX_TEXT] if type(value) is str else ""


def _error_from(reply: dict) -> Exception:
    """The exception the worker reported, rebuilt from checked fields (a fixed set of types)."""
    from torch_ascendgen.targets.runtime import ShapeDeclined

    kind, message = _text(reply, "type"), _text(reply, "message")
    if kind == "SimulatorError":
        line, block = reply.get("line"), reply.get("block")
        return SimulatorError(_text(reply, "kind"), message, _text(reply, "file"),
                              line if type(line) is int else 0, block if type(block) is int else -1,
                              _text(reply, "source_line"))
    if kind == "ShapeDeclined":
        return ShapeDeclined(message)
    if kind == "KernelArgumentError":
        return KernelArgumentError(message)
    return AscendGenError(f"the served kernel failed in the serving worker ({kind or 'an error'}: {message})")


# ---- in the worker -----------------------------------------------------------------------------------------


def _worker_main(runtime_library: str, reply_fd: int, arena_fd: int, folder: str) -> None:
    """The worker's loop (run by sandbox._child_main, confined): one JSON request per stdin line, one reply line
    on ``reply_fd`` each, until stdin closes."""
    from torch_ascendgen.targets.runtime import runtime_module, use_runtime_module

    use_runtime_module(runtime_library)
    runtime_module()
    state = _WorkerState(arena_fd, Path(folder))
    _reply(reply_fd, {"seq": None, "ok": True})
    for line in iter(sys.stdin.buffer.readline, b""):
        request = json.loads(line)
        try:
            answer = {"ok": True, **state.handle(request)}
        except Exception as exc:  # noqa: BLE001 - every failure goes back as data
            answer = {"ok": False, **_describe(exc)}
        _reply(reply_fd, {**answer, "seq": request["seq"]})


def _reply(fd: int, reply: dict) -> None:
    data = memoryview(json.dumps(reply).encode() + b"\n")
    while data.nbytes:
        data = data[os.write(fd, data):]


def _describe(exc: Exception) -> dict:
    from torch_ascendgen.targets.runtime import ShapeDeclined

    if isinstance(exc, SimulatorError):
        return {"type": "SimulatorError", "kind": exc.kind, "message": exc.message, "file": exc.file,
                "line": exc.line, "block": exc.block, "source_line": exc.source_line}
    kind = "ShapeDeclined" if isinstance(exc, ShapeDeclined) else type(exc).__name__
    return {"type": kind, "message": str(exc)[:_MAX_TEXT]}


class _WorkerState:
    """The worker's kernels and its mapping of the arena."""

    def __init__(self, arena_fd: int, folder: Path):
        self.arena_fd = arena_fd
        self.folder = folder
        self.size = 0
        self.base: torch.Tensor | None = None
        self.kernels: dict[int, Any] = {}

    def handle(self, request: dict) -> dict:
        op = request["op"]
        if op == "load":
            return self.load(request)
        kernel = self.kernels[request["kernel"]]
        if op == "tiling":
            tiling = kernel.tiling(request["shapes"], soc=request["soc"])
            return {"data": tiling.data.hex(), "blocks": tiling.block_dim, "workspace": tiling.workspace_bytes}
        return self.run(kernel, request)

    def load(self, request: dict) -> dict:
        from torch_ascendgen.records import ENTRY
        from torch_ascendgen.targets.sim.build import SimBuild
        from torch_ascendgen.targets.sim.simulator import SimKernel

        library = Path(request["library"])
        if request.get("project"):  # an operator project or a direct-launch submission (kernels.py)
            from torch_ascendgen.targets.sim.kernels import build_from_json, kernel_for

            self.kernels[request["kernel"]] = kernel_for(build_from_json(request["project"]), "")
            return {}
        build = SimBuild(ENTRY, request["key"], library.parent, library, 0.0, True)
        source = (self.folder / request["source"]).read_text()
        kernel = SimKernel(build, source, "kernel.cpp")
        kernel.params  # loads the library: its static initialisers run now, here
        self.kernels[request["kernel"]] = kernel
        return {}

    def run(self, kernel, request: dict) -> dict:
        self.map(request["arena"])
        tensors = [self.tensor(offset, dtype, shape) for offset, dtype, shape in request["tensors"]]
        workspace = torch.empty(request["workspace"], dtype=torch.uint8) if request["workspace"] else None
        inputs = request["inputs"]
        labels = ([f"input {i}" for i in range(inputs)] + [f"output {i}" for i in range(len(tensors) - inputs)]
                  + ["workspace", "tiling"])
        report = kernel.launch(request["block_dim"], *tensors, workspace, bytes.fromhex(request["tiling"]),
                               soc=request["soc"], counters=request["counters"], checked=True, labels=labels)
        return {"est_ns": report.estimated_ns, "launch_ns": report.launch_ns, "hbm_ns": report.hbm_bound_ns}

    def map(self, size: int) -> None:
        if size != self.size:
            self.base = None
            self.base = torch.frombuffer(mmap.mmap(self.arena_fd, size), dtype=torch.uint8)
            self.size = size

    def tensor(self, offset: int, dtype: str, shape: list[int]) -> torch.Tensor:
        kind = getattr(torch, dtype)
        count = _nbytes(shape, kind)
        if not count:
            return torch.empty(shape, dtype=kind)
        return self.base[offset:offset + count].view(kind).view(shape)

