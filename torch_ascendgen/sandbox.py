"""Run a function in a child process with a time limit, so that a kernel that crashes, hangs or
corrupts memory costs that child, never the caller.

The child is a fresh interpreter (``python -m torch_ascendgen.sandbox``), not a fork: the caller
may hold threads and locks, and its main script must not be re-imported. The call and its result
travel as pickles in files of a temporary directory (copies: the child never writes the caller's
memory, and whatever the kernel prints cannot corrupt the result).
"""

from __future__ import annotations

import importlib
import pickle
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

from .errors import KernelCrashError, KernelTimeoutError


def run_in_child(function: Callable, *args: Any, timeout: float, what: str = "kernel run") -> Any:
    """``function(*args)`` in a child process; its result, or its exception re-raised here.

    ``function`` must be importable by module and name. Raises KernelTimeoutError after
    ``timeout`` seconds (the child is killed) and KernelCrashError when the child dies without
    answering.
    """
    with tempfile.TemporaryDirectory(prefix="ascendgen-child-") as folder:
        call_path, result_path = Path(folder) / "call.pkl", Path(folder) / "result.pkl"
        call_path.write_bytes(pickle.dumps((function.__module__, function.__qualname__, args)))
        command = [sys.executable, "-m", "torch_ascendgen.sandbox", str(call_path), str(result_path)]
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise KernelTimeoutError(
                f"{what} did not finish within {timeout:.1f} s and was stopped (an endless loop, or a wait that "
                "nothing satisfies)"
            ) from None
        if not result_path.is_file():
            tail = output.decode(errors="replace")[-2000:].strip()
            raise KernelCrashError(
                f"{what} crashed its child process ({_describe_exit(process.returncode)})"
                + (f"; its last output:\n{tail}" if tail else "")
            )
        status, value = pickle.loads(result_path.read_bytes())
    if status == "error":
        raise value
    return value


def _describe_exit(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _child_main(call_path: str, result_path: str) -> None:
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
    _child_main(sys.argv[1], sys.argv[2])
