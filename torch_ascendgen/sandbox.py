"""Run functions in a child process with time and memory limits, so that a kernel that crashes,
hangs, allocates without bound or corrupts memory costs that child, never the caller.

Two forms: ``run_in_child`` runs one call in a child of its own; a ``Worker`` is one child that
runs many calls in turn, each with its own time limit, so that a series of calls pays for one
interpreter start (importing torch takes seconds). When a worker's child crashes or overruns a
limit, that call fails and the next call starts a new child.

The child is a fresh interpreter (``python -m torch_ascendgen.sandbox``), not a fork: the caller
may hold threads and locks, and its main script must not be re-imported. Calls and results
travel as pickles in files of a temporary directory (copies: the child never writes the caller's
memory); the child's own output goes to a file, of which only the tail is read.
"""

from __future__ import annotations

import importlib
import os
import pickle
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from . import config
from .errors import KernelCrashError, KernelTimeoutError

_SIGNAL_HINTS = {
    signal.SIGSEGV: "an access through a raw pointer outside the tensors; index GM only through "
                    "GlobalTensor/DataCopy so the simulator can check it",
    signal.SIGBUS: "an access through a raw pointer outside the tensors; index GM only through "
                   "GlobalTensor/DataCopy so the simulator can check it",
    signal.SIGABRT: "abort() or a failed assert, or an exception that escaped a kernel thread",
    signal.SIGKILL: "killed by the system, probably for running out of memory",
    signal.SIGFPE: "an integer division by zero",
}


def run_in_child(function: Callable, *args: Any, timeout: float, what: str = "kernel run") -> Any:
    """``function(*args)`` in a child process; its result, or its exception re-raised here.

    ``function`` must be importable by module and name. Raises KernelTimeoutError after
    ``timeout`` seconds (the child and anything it started are killed) and KernelCrashError when
    the child dies without answering.
    """
    with tempfile.TemporaryDirectory(prefix="ascendgen-child-") as folder:
        call_path, result_path, log_path = (Path(folder) / name for name in ("call.pkl", "result.pkl", "output.log"))
        call_path.write_bytes(pickle.dumps((function.__module__, function.__qualname__, args)))
        command = [sys.executable, "-m", "torch_ascendgen.sandbox", str(call_path), str(result_path),
                   str(config.run_memory_bytes())]
        with open(log_path, "wb") as log:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                raise _overran(what, timeout) from None
            finally:
                _kill_group(process)  # nothing the kernel started outlives the run
        if not result_path.is_file():
            raise _crash(what, process.returncode, _tail(log_path))
        status, value = pickle.loads(result_path.read_bytes())
    if status == "error":
        raise value
    return value


def _overran(what: str, timeout: float) -> KernelTimeoutError:
    return KernelTimeoutError(f"{what} did not finish within {timeout:.1f} s and was stopped (an endless loop, or a "
                              "wait that nothing satisfies)")


def _crash(what: str, code: int | None, tail: str) -> KernelCrashError:
    return KernelCrashError(f"{what} crashed its child process ({_describe_exit(code)})"
                            + (f"; its last output:\n{tail}" if tail else ""))


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _tail(path: Path, limit: int = 2000, offset: int = 0) -> str:
    """The last ``limit`` bytes of the file, from ``offset`` on."""
    with open(path, "rb") as handle:
        handle.seek(max(offset, path.stat().st_size - limit))
        return handle.read().decode(errors="replace").strip()


def _describe_exit(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            sig = signal.Signals(-code)
        except ValueError:
            return f"killed by signal {-code}"
        hint = _SIGNAL_HINTS.get(sig)
        return f"killed by {sig.name}" + (f": {hint}" if hint else "")
    return f"exit code {code}"


class Worker:
    """One child process that runs calls in turn, each within its own time limit.

    ``warm_up`` (importable by module and name, no arguments) runs first in every new child, within
    ``warm_up_timeout`` seconds: the imports and one-time setup that calls then find done. If it
    fails, this call and every later one fail the same way (a new child would too). A call that
    crashes the child or overruns its limit fails alone; the next call starts a new child.
    Use as a context manager: leaving it stops the child.
    """

    def __init__(self, warm_up: Callable[[], Any], warm_up_timeout: float, what: str = "the worker process",
                 memory_bytes: int | None = None):
        self._memory_bytes = config.run_memory_bytes() if memory_bytes is None else memory_bytes  # 0: no limit
        self._folder = Path(tempfile.mkdtemp(prefix="ascendgen-worker-"))
        (self._folder / _WARM_UP_FILE).write_bytes(pickle.dumps((warm_up.__module__, warm_up.__qualname__)))
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

    def start(self) -> None:
        """Start a child now, so that its warm-up overlaps the caller's work (a no-op if one runs)."""
        if self._child is None and self._broken is None:
            self._children += 1
            self._child = _Child(self._folder, self._children, self._memory_bytes)

    def call(self, function: Callable, *args: Any, timeout: float, what: str = "kernel run") -> Any:
        """``function(*args)`` in the child; its result, or its exception re-raised here.

        ``function`` must be importable by module and name. Raises KernelTimeoutError after
        ``timeout`` seconds (the child is stopped) and KernelCrashError when the child dies
        without answering.
        """
        self._ready()
        self._jobs += 1
        job = self._folder / f"job-{self._jobs}.pkl"
        job.write_bytes(pickle.dumps((function.__module__, function.__qualname__, args)))
        try:
            status, value = self._child.run(job, timeout, what)
        except (KernelCrashError, KernelTimeoutError):
            self._stop()
            raise
        finally:
            job.unlink()
        if status == "error":
            raise value
        return value

    def restart(self) -> None:
        """Stop the current child; the next call starts a fresh one."""
        self._stop()

    def _ready(self) -> None:
        if self._broken is None:
            self.start()
            try:
                status, value = self._child.warm_up(self._warm_up_timeout, self._what)
                if status == "error":
                    raise value
            except Exception as exc:  # noqa: BLE001 - kept, and raised for every call
                self._broken = exc
                self._stop()
        if self._broken is not None:
            raise self._broken

    def _stop(self) -> None:
        if self._child is not None:
            self._child.stop()
            self._child = None

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._stop()
        shutil.rmtree(self._folder, ignore_errors=True)


class _Child:
    """A running worker child: its process, the pipe it reports on, and its output file."""

    def __init__(self, folder: Path, number: int, memory_bytes: int):
        self.folder = folder
        self.log_path = folder / f"output-{number}.log"
        self.calls = 0
        self.warm_up_outcome: tuple[str, Any] | None = None
        read_end, write_end = os.pipe()
        command = [sys.executable, "-m", "torch_ascendgen.sandbox", _WORKER_FLAG, str(folder),
                   str(memory_bytes), str(write_end)]
        try:
            with open(self.log_path, "wb") as log:
                self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                                                pass_fds=(write_end,), start_new_session=True)
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
            self.warm_up_outcome = pickle.loads((self.folder / _READY_FILE).read_bytes())
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
        result = job.with_suffix(".result")
        outcome = pickle.loads(result.read_bytes())
        result.unlink()
        return outcome

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


# ---- in the child ------------------------------------------------------------------------------------

_WORKER_FLAG = "--worker"
_WARM_UP_FILE = "warm_up.pkl"
_READY_FILE = "ready.pkl"


def _child_main(call_path: str, result_path: str, memory_bytes: int) -> None:
    _limit_memory(memory_bytes)
    module_name, qualname, args = pickle.loads(Path(call_path).read_bytes())
    _write_outcome(Path(result_path), _outcome(module_name, qualname, args))


def _worker_main(folder: str, memory_bytes: int, report_fd: int) -> None:
    """Warm up, then run the jobs named on stdin in turn until it closes, reporting each on ``report_fd``."""
    _limit_memory(memory_bytes)
    root = Path(folder)
    reports = os.fdopen(report_fd, "w", buffering=1)
    module_name, qualname = pickle.loads((root / _WARM_UP_FILE).read_bytes())
    _write_outcome(root / _READY_FILE, _outcome(module_name, qualname, ()))
    reports.write("ready\n")
    for line in iter(sys.stdin.readline, ""):
        job = root / line.strip()
        module_name, qualname, args = pickle.loads(job.read_bytes())
        _write_outcome(job.with_suffix(".result"), _outcome(module_name, qualname, args))
        reports.write(f"done {job.name}\n")


def _limit_memory(memory_bytes: int) -> None:
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))


def _outcome(module_name: str, qualname: str, args: tuple) -> tuple[str, Any]:
    try:
        target = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
        return ("ok", target(*args))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent
        return ("error", exc)


def _write_outcome(path: Path, outcome: tuple[str, Any]) -> None:
    try:
        data = pickle.dumps(outcome)
    except Exception as exc:  # noqa: BLE001
        data = pickle.dumps(("error", RuntimeError(f"the child's result could not be pickled: {exc!r}")))
    partial = path.with_name(path.name + ".part")
    partial.write_bytes(data)
    partial.rename(path)


if __name__ == "__main__":
    if sys.argv[1] == _WORKER_FLAG:
        _worker_main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        _child_main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
