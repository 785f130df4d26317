"""Run functions in a child process with time and memory limits, inside a kernel-enforced sandbox, so
that a kernel that crashes, hangs, allocates without bound, corrupts memory or attacks the machine
costs that child, never the caller.

Two forms: ``run_in_child`` runs one call in a child of its own; a ``Worker`` is one child that
runs many calls in turn, each with its own time limit, so that a series of calls pays for one
interpreter start (importing torch takes seconds). When a worker's child crashes or overruns a
limit, that call fails and the next call starts a new child.

The child is a fresh interpreter, not a fork: the caller may hold threads and locks, and its main
script must not be re-imported. Its first act, while it has one thread and before torch is
imported, is to confine itself (confinement.py: Landlock, seccomp, no capabilities, resource
limits) with its scratch directory as the only place it may write; ``TORCH_ASCENDGEN_SANDBOX=off``
leaves only the resource limits. Everything it needs from the cache (the runtime module, kernel
libraries) is built by the caller beforehand: the child only reads it.

Calls and results travel through files of the scratch directory: pickles, with every tensor's
storage set apart. A storage of ``SHARED_TENSOR_BYTES`` or more travels as a file of its own. The
caller writes its arguments' storages into files that the child maps (no copy in the child, and the
caller's own tensors are never mapped into the child). The child writes its results' storages into
files that the caller copies into fresh memory (one copy, no pickling): the worker lives on and may
run another candidate, so nothing the caller keeps may stay mapped to a file the child can write.

Whatever the child wrote is read as hostile: its pickles may name only data classes (exceptions,
the package's dataclasses, a few plain types), tensors are rebuilt from checked descriptions, and
its files are opened without following links and only when they are regular files.
"""

from __future__ import annotations

import ctypes
import dataclasses
import enum
import importlib
import io
import os
import pickle
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import torch

from torch_ascendgen import config
from torch_ascendgen.errors import ChildTraceback, KernelCrashError, KernelTimeoutError
from torch_ascendgen.targets import confinement
from torch_ascendgen.targets.confinement import Policy, Protections

SHARED_TENSOR_BYTES = 1 << 20  # a tensor storage at least this big travels as a file of its own

_ORPHANED_EXIT = 70  # a child that outlived the process that started it
_RAW_POINTER_HINT = ("an access through a raw pointer (in a checked launch, any raw GM or UB access, in bounds or "
                     "not); the simulator, its cost model and its race checks see GM only through GlobalTensor/"
                     "DataCopy: use DataCopy/DataCopyPad, or GlobalTensor::GetValue/SetValue for scalars")
_SIGNAL_HINTS = {
    signal.SIGSEGV: _RAW_POINTER_HINT,
    signal.SIGBUS: _RAW_POINTER_HINT,
    signal.SIGABRT: "abort() or a failed assert, or an exception that escaped a kernel thread",
    signal.SIGKILL: "killed by the system, probably for running out of memory",
    signal.SIGFPE: "an integer division by zero",
    signal.SIGSYS: "a system call of another architecture, which the sandbox forbids",
}

# The child's first lines: confinement.py loaded by its path under its own name (so that the package's
# later imports find it), applied, and only then the package (and torch) imported.
_BOOT = """\
import importlib.util, sys
spec = importlib.util.spec_from_file_location("torch_ascendgen.targets.confinement", sys.argv[1])
module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
module.confine(module.Policy.from_json(sys.argv[2]))
from torch_ascendgen.targets.sandbox import _child_entry
_child_entry(sys.argv[2:])
"""


def _child_command(policy: Policy, *args: str) -> list[str]:
    """The command that starts a child, confined by ``policy``, that runs ``_child_entry([policy, *args])``."""
    return [sys.executable, "-c", _BOOT, confinement.__file__, policy.to_json(), *args]


def _environment(policy: Policy, scratch: str) -> dict[str, str]:
    """A child's environment: the allowed names only (no API key; confinement.allowed_environment), its scratch
    directory as HOME, and this process's cache directory (HOME no longer finds it)."""
    return confinement.allowed_environment(os.environ, policy.profile, scratch,
                                           {config.CACHE_DIR_ENV: str(config.cache_dir())})


def run_in_child(function: Callable, *args: Any, timeout: float, what: str = "kernel run") -> Any:
    """``function(*args)`` in a child process; its result, or its exception re-raised here.

    ``function`` must be importable by module and name. Raises KernelTimeoutError after
    ``timeout`` seconds (the child and anything it started are killed) and KernelCrashError when
    the child dies without answering.
    """
    with tempfile.TemporaryDirectory(prefix="ascendgen-child-") as folder:
        root = Path(folder)
        _send(root / "call.pkl", (function.__module__, function.__qualname__, args), root, SHARED_TENSOR_BYTES)
        log_path = root / "output.log"
        policy = Policy(config.sandbox(), "cpu", (folder,), config.run_memory_bytes())
        with _new_file(log_path) as log:
            process = subprocess.Popen(_child_command(policy, folder), stdin=subprocess.DEVNULL, stdout=log,
                                       stderr=subprocess.STDOUT, start_new_session=True,
                                       env=_environment(policy, folder))
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                raise _overran(what, timeout) from None
            finally:
                _kill_group(process)  # nothing the kernel started outlives the run
        result_path = root / _RESULT_FILE
        if not result_path.is_file():
            raise _crash(what, process.returncode, _tail(log_path))
        status, value = _receive(result_path, root, what)
    if status == "error":
        raise _child_error(value, what)
    return value


def _overran(what: str, timeout: float) -> KernelTimeoutError:
    return KernelTimeoutError(f"{what} did not finish within {timeout:.1f} s and was stopped (an endless loop, or a "
                              "wait that nothing satisfies)")


def _crash(what: str, code: int | None, tail: str) -> KernelCrashError:
    from torch_ascendgen.targets.sim.faults import (
        fault_location,  # a checked launch's fault report names the code's offset
    )

    where, tail = fault_location(tail)
    exit = _describe_exit(code, hint=not where) + (f" at {where}" if where else "")
    return KernelCrashError(f"{what} crashed its child process ({exit})"
                            + (f"; its last output:\n{tail}" if tail else ""))


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _tail(path: Path, limit: int = 2000, offset: int = 0) -> str:
    """The last ``limit`` bytes of the file, from ``offset`` on."""
    try:
        with _open_from_child(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(offset, size - limit))
            return handle.read(limit).decode(errors="replace").strip()
    except OSError:
        return ""


def _describe_exit(code: int | None, hint: bool = True) -> str:
    """``hint``: add what the signal usually means (not when the child's own report says what happened)."""
    if code is not None and code < 0:
        try:
            sig = signal.Signals(-code)
        except ValueError:
            return f"killed by signal {-code}"
        hint = _SIGNAL_HINTS.get(sig) if hint else None
        return f"killed by {sig.name}" + (f": {hint}" if hint else "")
    return f"exit code {code}"


class Worker:
    """One child process that runs calls in turn, each within its own time limit.

    ``warm_up(*warm_up_args)`` (importable by module and name) runs first in every new child, within
    ``warm_up_timeout`` seconds: the imports and one-time setup that calls then find done. If it
    fails, this call and every later one fail the same way (a new child would too). A call that
    crashes the child or overruns its limit fails alone; the next call starts a new child.
    ``profile`` and ``writable`` (directories besides its scratch directory) shape its sandbox.
    ``prerequisite``: the caller's own work the warm-up waits for (a build); its failure is the warm-up's.
    Use as a context manager: leaving it stops the child.
    """

    def __init__(self, warm_up: Callable[[], Any], warm_up_timeout: float, what: str = "the worker process",
                 memory_bytes: int | None = None, profile: str = "cpu", writable: tuple[str, ...] = (),
                 warm_up_args: tuple = (), tensor_file_bytes: int = SHARED_TENSOR_BYTES,
                 prerequisite: Future | None = None):
        self._prerequisite = prerequisite  # work of the caller's the warm-up needs done (it fails with it)
        memory_bytes = config.run_memory_bytes() if memory_bytes is None else memory_bytes  # 0: no limit
        self._folder = Path(tempfile.mkdtemp(prefix="ascendgen-worker-"))
        self._policy = Policy(config.sandbox(), profile, (str(self._folder), *writable), memory_bytes)
        self._tensor_file_bytes = tensor_file_bytes
        _send(self._folder / _WARM_UP_FILE, (warm_up.__module__, warm_up.__qualname__, warm_up_args), self._folder,
              SHARED_TENSOR_BYTES)
        self._warm_up_timeout = warm_up_timeout
        self._what = what
        self._child: _Child | None = None
        self._children = 0
        self._jobs = 0
        self._broken: Exception | None = None  # why the warm-up failed

    @property
    def calls_in_child(self) -> int:
        """Calls the current child has answered (0 when the next call gets a fresh child)."""
        return self._child.calls if self._child else 0

    @property
    def protections(self) -> Protections | None:
        """The sandbox of the current child, as it reported it once warmed up (None before)."""
        return self._child.protections if self._child else None

    def start(self) -> None:
        """Start a child now, so that its warm-up overlaps the caller's work (a no-op if one runs)."""
        if self._child is None and self._broken is None:
            self._children += 1
            self._child = _Child(self._folder, self._children, self._policy, self._tensor_file_bytes)

    def call(self, function: Callable, *args: Any, timeout: float, what: str = "kernel run") -> Any:
        """``function(*args)`` in the child; its result, or its exception re-raised here.

        ``function`` must be importable by module and name. Raises KernelTimeoutError after
        ``timeout`` seconds (the child is stopped) and KernelCrashError when the child dies
        without answering or answers with something that is not data.
        """
        self._ready()
        self._jobs += 1
        job = self._folder / f"job-{self._jobs}.pkl"
        try:
            _send(job, (function.__module__, function.__qualname__, args), self._folder, self._tensor_file_bytes)
            status, value = self._child.run(job, timeout, what)
        except (KernelCrashError, KernelTimeoutError):
            self._stop()
            raise
        finally:
            for path in self._folder.glob(f"job-{self._jobs}.*"):
                path.unlink(missing_ok=True)
        if status == "error":
            raise _child_error(value, what)
        return value

    def restart(self) -> None:
        """Stop the current child; the next call starts a fresh one."""
        self._stop()

    def _ready(self) -> None:
        if self._broken is None:
            self.start()
            try:
                if self._prerequisite is not None:
                    self._prerequisite.result()
                status, value = self._child.warm_up(self._warm_up_timeout, self._what)
                if status == "error":
                    raise _child_error(value, self._what)
            except Exception as exc:  # noqa: BLE001 - kept, and raised for every call
                self._broken = exc
                self._stop()
        if self._broken is not None:
            raise self._broken

    def _stop(self) -> None:
        if self._child is not None:
            self._child.stop()
            self._child = None

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._stop()
        shutil.rmtree(self._folder, ignore_errors=True)


class _Child:
    """A running worker child: its process, the pipe it reports on, and its output file."""

    def __init__(self, folder: Path, number: int, policy: Policy, tensor_file_bytes: int):
        self.folder = folder
        self.log_path = folder / f"output-{number}.log"
        self.calls = 0
        self.warm_up_outcome: tuple[str, Any] | None = None
        self.protections: Protections | None = None
        read_end, write_end = os.pipe()
        command = _child_command(policy, _WORKER_FLAG, str(folder), str(write_end), str(tensor_file_bytes))
        try:
            with _new_file(self.log_path) as log:
                self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                                                pass_fds=(write_end,), start_new_session=True,
                                                env=_environment(policy, str(folder)))
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)  # the child holds the only write end: end of file means it died
        self.reports = read_end
        self.pending = b""

    def warm_up(self, timeout: float, what: str) -> tuple[str, Any]:
        """The warm-up's outcome, waited for the first time."""
        if self.warm_up_outcome is None:
            if not self._await("ready", timeout, what, 0):
                raise KernelTimeoutError(f"{what} was not ready within {timeout:.1f} s (its warm-up did not finish) "
                                         "and was stopped")
            outcome, protections = _receive(self.folder / _READY_FILE, self.folder, what)
            self.protections = protections if isinstance(protections, Protections) else None
            self.warm_up_outcome = outcome
        return self.warm_up_outcome

    def run(self, job: Path, timeout: float, what: str) -> tuple[str, Any]:
        """Send ``job`` and wait for its outcome."""
        offset = self.log_path.stat().st_size
        try:
            self.process.stdin.write(job.name.encode() + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            self._crashed(what, offset)
        if not self._await(f"done {job.name}", timeout, what, offset):
            raise _overran(what, timeout)
        self.calls += 1
        return _receive(job.with_suffix(".result"), self.folder, what)

    def _await(self, message: str, timeout: float, what: str, offset: int) -> bool:
        """Wait for the child's next report (it must be ``message``); False when time ran out."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if select.select([self.reports], [], [], remaining)[0]:
                chunk = os.read(self.reports, 4096)
                if not chunk:
                    self._crashed(what, offset)
                self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        if line != message.encode():  # something in the child wrote to the report pipe
            raise KernelCrashError(f"{what} garbled its child process's reports ({line[:80]!r} where {message!r} "
                                   "was due)")
        return True

    def _crashed(self, what: str, offset: int) -> None:
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass  # it closed the pipe yet lives on; stopped by the caller, described as it is
        raise _crash(what, self.process.poll(), _tail(self.log_path, offset=offset))

    def stop(self) -> None:
        """Kill the child and anything it started (it holds no state worth a clean exit)."""
        _kill_group(self.process)
        self.process.stdin.close()
        if self.reports >= 0:
            os.close(self.reports)
            self.reports = -1


# ---- the files between the two sides -------------------------------------------------------------------
#
# A tensor travels as a persistent id: ("tensor", dtype name, shape, stride, storage offset, requires_grad,
# is a Parameter, storage), the storage being ("bytes", nbytes, data, serial) or ("file", nbytes, index): the index-th
# file of the message, named by the receiver from the message's own name (a name from the child is never a path).
# The serial keeps two storages apart that hold the same bytes (two zeroed outputs must stay two buffers).


def _send(path: Path, obj: Any, folder: Path, file_bytes: int) -> None:
    """Pickle ``obj`` into ``path`` (written under another name, then renamed), storages of ``file_bytes`` or more
    into files beside it."""
    buffer = io.BytesIO()
    _Sender(buffer, path.name, folder, file_bytes).dump(obj)
    partial = path.with_name(path.name + ".part")
    _write_new(partial, buffer.getbuffer())
    partial.rename(path)


def _storage_file(folder: Path, message: str, index: int) -> Path:
    return folder / f"{message}.tensor-{index}.bin"


def _new_file(path: Path):
    """A new file opened for writing, never through a link or a FIFO a child left under that name."""
    path.unlink(missing_ok=True)
    return open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600), "wb",
                buffering=0)


def _write_new(path: Path, data) -> None:
    with _new_file(path) as handle:
        view = memoryview(data)
        while view.nbytes:
            view = view[handle.write(view):]


def _open_from_child(path: Path):
    """``path`` opened for reading, when it is a regular file (a FIFO would block, a link would redirect)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path.name} is not a regular file")
    return open(fd, "rb", buffering=0)


def _plain_tensor(obj: Any) -> bool:
    return (type(obj) in (torch.Tensor, torch.nn.Parameter) and obj.layout == torch.strided
            and obj.device.type == "cpu" and not obj.is_quantized)


def _bytes_view(storage: torch.UntypedStorage) -> memoryview:
    """The storage's memory, without a copy (valid while the storage lives)."""
    if not storage.nbytes():
        return memoryview(b"")
    return memoryview((ctypes.c_char * storage.nbytes()).from_address(storage.data_ptr())).cast("B")


class _Sender(pickle.Pickler):
    def __init__(self, handle, message: str, folder: Path, file_bytes: int):
        super().__init__(handle, protocol=pickle.HIGHEST_PROTOCOL)
        self.message, self.folder, self.file_bytes = message, folder, file_bytes
        self.storages: dict[tuple[int, int], tuple] = {}

    def persistent_id(self, obj: Any) -> tuple | None:
        if not _plain_tensor(obj):
            return None
        tensor = obj.detach()
        if tensor.is_conj() or tensor.is_neg():  # lazy flags the storage does not hold
            tensor = tensor.resolve_conj().resolve_neg()
        storage = tensor.untyped_storage()
        key = (storage.data_ptr(), storage.nbytes())
        if key not in self.storages:
            self.storages[key] = self._storage_id(storage)
        return ("tensor", str(tensor.dtype).removeprefix("torch."), tuple(tensor.shape), tuple(tensor.stride()),
                tensor.storage_offset(), obj.requires_grad, type(obj) is torch.nn.Parameter, self.storages[key])

    def _storage_id(self, storage: torch.UntypedStorage) -> tuple:
        if storage.nbytes() < self.file_bytes:
            return ("bytes", storage.nbytes(), bytes(_bytes_view(storage)), len(self.storages))
        index = len([ref for ref in self.storages.values() if ref[0] == "file"])
        _write_new(_storage_file(self.folder, self.message, index), _bytes_view(storage))
        return ("file", storage.nbytes(), index)


class _Receiver(pickle.Unpickler):
    """Reads what the caller sent (trusted): storages in files are mapped, privately."""

    def __init__(self, handle, message: str, folder: Path):
        super().__init__(handle)
        self.message, self.folder = message, folder
        self.storages: dict[tuple, torch.UntypedStorage] = {}

    def persistent_load(self, pid: tuple) -> torch.Tensor:
        return _tensor(pid, self.storages, self._storage)

    def _storage(self, ref: tuple) -> torch.UntypedStorage:
        kind, nbytes, data = ref[:3]
        if kind == "file":
            return torch.UntypedStorage.from_file(str(_storage_file(self.folder, self.message, data)), False, nbytes)
        return _storage_from_bytes(data, nbytes)


class _ResultReceiver(pickle.Unpickler):
    """Reads what the child sent (hostile): only data classes, tensors copied out of checked files."""

    def __init__(self, handle, message: str, folder: Path):
        super().__init__(handle)
        self.message, self.folder = message, folder
        self.storages: dict[tuple, torch.UntypedStorage] = {}

    def find_class(self, module: str, name: str) -> Any:
        return _data_class(module, name)

    def persistent_load(self, pid: tuple) -> torch.Tensor:
        return _tensor(pid, self.storages, self._storage)

    def _storage(self, ref: tuple) -> torch.UntypedStorage:
        kind, nbytes, data = ref[:3]
        if type(nbytes) is not int or nbytes < 0:
            raise pickle.UnpicklingError(f"a storage of {nbytes!r} bytes")
        if kind == "bytes":
            return _storage_from_bytes(data, nbytes)
        if kind != "file" or type(data) is not int or data < 0:
            raise pickle.UnpicklingError(f"a storage reference {kind!r}")
        path = _storage_file(self.folder, self.message, data)
        storage = torch.UntypedStorage(nbytes)
        with _open_from_child(path) as handle:
            if os.fstat(handle.fileno()).st_size != nbytes:
                raise pickle.UnpicklingError(f"{path.name} does not hold the {nbytes} bytes its tensor needs")
            view = _bytes_view(storage)
            while view.nbytes:
                count = handle.readinto(view)
                if not count:
                    raise pickle.UnpicklingError(f"{path.name} ended early")
                view = view[count:]
        path.unlink()
        return storage


def _storage_from_bytes(data: Any, nbytes: int) -> torch.UntypedStorage:
    if type(data) is not bytes or len(data) != nbytes:
        raise pickle.UnpicklingError("an inline storage whose size does not match")
    storage = torch.UntypedStorage(nbytes)
    if nbytes:
        ctypes.memmove(storage.data_ptr(), data, nbytes)
    return storage


def _tensor(pid: tuple, storages: dict, load: Callable[[tuple], torch.UntypedStorage]) -> torch.Tensor:
    """A tensor from its description; every field is checked (the description may come from the child)."""
    if type(pid) is not tuple or len(pid) != 8 or pid[0] != "tensor":
        raise pickle.UnpicklingError(f"an unknown persistent id {str(pid)[:80]!r}")
    _, dtype_name, shape, stride, offset, requires_grad, parameter, ref = pid
    dtype = getattr(torch, dtype_name, None) if type(dtype_name) is str else None
    sizes = (*shape, *stride, offset) if type(shape) is tuple and type(stride) is tuple else ("?",)
    if (not isinstance(dtype, torch.dtype) or len(shape) != len(stride) or len(shape) > 64
            or any(type(n) is not int or n < 0 for n in sizes) or type(ref) is not tuple
            or not (len(ref) == 3 or (len(ref) == 4 and type(ref[3]) is int))):
        raise pickle.UnpicklingError(f"a malformed tensor description {str(pid)[:120]!r}")
    if ref not in storages:
        storages[ref] = load(ref)
    storage = storages[ref]
    last = offset + sum((size - 1) * step for size, step in zip(shape, stride))
    if all(shape) and (last + 1) * dtype.itemsize > storage.nbytes():
        raise pickle.UnpicklingError(f"a tensor of shape {list(shape)} beyond its storage of {storage.nbytes()} bytes")
    tensor = torch.empty(0, dtype=dtype).set_(storage, offset, shape, stride)
    if parameter is True:
        return torch.nn.Parameter(tensor, requires_grad=requires_grad is True)
    return tensor.requires_grad_(True) if requires_grad is True else tensor


_PLAIN_TYPES = {"builtins": {"set", "frozenset", "bytearray", "complex", "slice", "range"},
                "collections": {"OrderedDict"}, "pathlib": {"Path", "PosixPath", "PurePosixPath"},
                "torch": {"Size", "device"}}


def _data_class(module: str, name: str) -> Any:
    """The global a child's pickle names, when it is data: an exception class, one of the package's dataclasses or
    enums, a torch dtype, layout or memory format, or a plain type. Never an import: the module must be loaded
    here already."""
    owner = sys.modules.get(module)
    value = owner
    for part in name.split("."):
        value = None if part.startswith("__") else getattr(value, part, None)
    ours = module == "torch_ascendgen" or module.startswith("torch_ascendgen.")
    if value is not None and (
            name in _PLAIN_TYPES.get(module, ())
            or (isinstance(value, type) and issubclass(value, BaseException))
            or (module == "torch" and isinstance(value, (torch.dtype, torch.layout, torch.memory_format)))
            or (ours and isinstance(value, type)
                and (dataclasses.is_dataclass(value) or issubclass(value, enum.Enum)))):
        return value
    raise pickle.UnpicklingError(f"{module}.{name} is not data")


def _child_error(value: Any, what: str) -> BaseException:
    """The exception a child answered with (``_outcome``), its traceback text attached as its ``__cause__``
    (a ChildTraceback): what is raised here for the call."""
    if type(value) is tuple and len(value) == 2 and isinstance(value[0], BaseException) and type(value[1]) is str:
        exc, text = value
        exc.__cause__ = ChildTraceback(text)
        return exc
    return KernelCrashError(f"{what} answered with {type(value).__name__} where an exception was due; only data "
                            "may come back from a kernel run")


def _receive(path: Path, folder: Path, what: str) -> Any:
    """The object the child wrote to ``path``; KernelCrashError when it is not data."""
    try:
        with _open_from_child(path) as handle:
            return _ResultReceiver(io.BytesIO(handle.read()), path.name, folder).load()
    except Exception as exc:  # noqa: BLE001 - whatever the child wrote, it cannot reach this process
        raise KernelCrashError(f"{what} answered with something this process refuses to read ({exc}); only data "
                               "may come back from a kernel run") from None
    finally:
        path.unlink(missing_ok=True)


# ---- in the child ------------------------------------------------------------------------------------

_WORKER_FLAG = "--worker"
_WARM_UP_FILE = "warm_up.pkl"
_READY_FILE = "ready.pkl"
_RESULT_FILE = "result.pkl"


def _child_entry(argv: list[str]) -> None:
    """``argv``: the policy, then the folder (one call) or the worker flag, folder, report fd and file threshold."""
    if confinement.active() is None:  # started without the boot lines: confined late, with torch imported
        confinement.confine(Policy.from_json(argv[0]))
    _stop_with_parent()
    if argv[1] == _WORKER_FLAG:
        _worker_main(argv[2], int(argv[3]), int(argv[4]))
    else:
        _child_main(argv[1])


def _stop_with_parent(period_s: float = 0.5) -> None:
    """The child ends itself once the process that started it is gone (killed, crashed): nobody else would stop
    a kernel that spins, and the child would hold a core for good. By polling the parent's pid, not by
    PR_SET_PDEATHSIG, which fires when the parent's starting thread ends, not the parent."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(period_s)
        os._exit(_ORPHANED_EXIT)
    threading.Thread(target=watch, name="ascendgen-parent-watch", daemon=True).start()


def _child_main(folder: str) -> None:
    root = Path(folder)
    module_name, qualname, args = _load(root / "call.pkl", root)
    outcome = _outcome(module_name, qualname, args)
    del args
    _write_outcome(root / _RESULT_FILE, outcome, root, SHARED_TENSOR_BYTES)


def _worker_main(folder: str, report_fd: int, file_bytes: int) -> None:
    """Warm up, then run the jobs named on stdin in turn until it closes, reporting each on ``report_fd``."""
    root = Path(folder)
    reports = os.fdopen(report_fd, "w", buffering=1)
    module_name, qualname, args = _load(root / _WARM_UP_FILE, root)
    _write_outcome(root / _READY_FILE, (_outcome(module_name, qualname, args), confinement.active()), root,
                   SHARED_TENSOR_BYTES)
    reports.write("ready\n")
    for line in iter(sys.stdin.readline, ""):
        job = root / line.strip()
        module_name, qualname, args = _load(job, root)
        outcome = _outcome(module_name, qualname, args)
        del args  # the argument files' mappings go before the results are written
        _write_outcome(job.with_suffix(".result"), outcome, root, file_bytes)
        del outcome
        reports.write(f"done {job.name}\n")


def _load(path: Path, folder: Path) -> Any:
    with open(path, "rb") as handle:
        return _Receiver(handle, path.name, folder).load()


def _outcome(module_name: str, qualname: str, args: tuple) -> tuple[str, Any]:
    try:
        target = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
        return ("ok", target(*args))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent, with its traceback
        return ("error", (exc, "".join(traceback.format_exception(exc))))


def _write_outcome(path: Path, outcome: Any, folder: Path, file_bytes: int) -> None:
    try:
        _send(path, outcome, folder, file_bytes)
    except Exception as exc:  # noqa: BLE001
        text = "".join(traceback.format_exception(exc))
        _send(path, ("error", (RuntimeError(f"the child's result could not be pickled: {exc!r}"), text)), folder,
              file_bytes)


if __name__ == "__main__":
    _child_entry(sys.argv[1:])
