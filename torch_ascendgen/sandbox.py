"""Run a function in a child process with time and memory limits, so that a kernel that crashes,
hangs, allocates without bound or corrupts memory costs that child, never the caller.

The child is a fresh interpreter (``python -m torch_ascendgen.sandbox``), not a fork: the caller
may hold threads and locks, and its main script must not be re-imported. The call and its result
travel as pickles in files of a temporary directory (copies: the child never writes the caller's
memory); the child's own output goes to a file, of which only the tail is read.
"""

from __future__ import annotations

import importlib
import os
import pickle
import resource
import signal
import subprocess
import sys
import tempfile
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
                raise KernelTimeoutError(
                    f"{what} did not finish within {timeout:.1f} s and was stopped (an endless loop, or a wait "
                    "that nothing satisfies)"
                ) from None
            finally:
                _kill_group(process)  # nothing the kernel started outlives the run
        if not result_path.is_file():
            tail = _tail(log_path)
            raise KernelCrashError(f"{what} crashed its child process ({_describe_exit(process.returncode)})"
                                   + (f"; its last output:\n{tail}" if tail else ""))
        status, value = pickle.loads(result_path.read_bytes())
    if status == "error":
        raise value
    return value


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _tail(path: Path, limit: int = 2000) -> str:
    with open(path, "rb") as handle:
        handle.seek(max(0, path.stat().st_size - limit))
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


def _child_main(call_path: str, result_path: str, memory_bytes: int) -> None:
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    module_name, qualname, args = pickle.loads(Path(call_path).read_bytes())
    try:
        target = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
        outcome = ("ok", target(*args))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent
        outcome = ("error", exc)
    try:
        data = pickle.dumps(outcome)
    except Exception as exc:  # noqa: BLE001
        data = pickle.dumps(("error", RuntimeError(f"the child's result could not be pickled: {exc!r}")))
    partial = Path(result_path + ".part")
    partial.write_bytes(data)
    partial.rename(result_path)


if __name__ == "__main__":
    _child_main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
