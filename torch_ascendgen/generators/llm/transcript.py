"""Transcript: every exchange with the model for one task, one JSON line each, so a user can see why a
kernel was or was not produced.

    <cache dir>/transcripts/<task key[:16]>/<utc timestamp>-<pid>.jsonl

One file per task and run: two tasks never share a file, and a lock keeps threads from
interleaving a line.
"""

from __future__ import annotations

import json
import os
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from torch_ascendgen import config
from torch_ascendgen.capture import KernelTask


class Transcript:
    """An append-only JSONL record of one task's model exchanges."""

    def __init__(self, task: KernelTask, directory: Path | None = None):
        root = Path(directory) if directory is not None else config.cache_dir() / "transcripts"
        folder = root / task.key[:16]
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
        self._path = _new_file(folder, f"{stamp}-{os.getpid()}")
        self._lock = threading.Lock()
        self.record("task", name=task.name, task_key=task.key, graph=task.graph_text)

    @property
    def path(self) -> Path:
        return self._path

    def record(self, kind: str, **fields) -> None:
        """Append one line: ``kind`` ("prompt", "reply", "feedback", "verdict", ...) and its fields."""
        line = json.dumps({"time": time.time(), "kind": kind, **fields}, default=str) + "\n"
        with self._lock, open(self._path, "a", encoding="utf-8") as file:
            file.write(line)


def _new_file(folder: Path, stem: str) -> Path:
    """A file of its own: ``stem.jsonl``, or ``stem-1.jsonl``... when another run of this task took it."""
    for index in range(1000):
        path = folder / (f"{stem}.jsonl" if index == 0 else f"{stem}-{index}.jsonl")
        try:
            with open(path, "x", encoding="utf-8"):
                return path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free transcript name for {stem} in {folder}")


def read(path: Path) -> list[dict]:
    """The records of a transcript file, in order."""
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line]
