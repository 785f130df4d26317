"""Cache: the winning kernel of each task, on disk, shared by every process.

An entry is a directory ``<root>/<key[:2]>/<key>/`` holding ``kernel.cpp`` (the winning source),
optionally ``kernel.so`` (its library), ``meta.json`` (the task, every candidate's verdict and
timing, the winner, the verified shapes, provenance) and ``manifest.json``, written last, which
lists every other file with its sha256 and size and so marks the entry complete.

An entry is written to a temporary directory beside its final place and renamed into place, so
no process ever sees half an entry. There is one load path, `_load`, which checks the manifest
and every checksum; fresh entries are read back through it like hits. A damaged entry is moved
aside to ``<key>.corrupt-<timestamp>`` with a warning and treated as a miss, so it is rebuilt.

A `filelock` per key makes concurrent processes that miss on the same key generate it once::

    entry = cache.get_or_create(key, lambda: (files, meta))

Seeds (`SeedStore`) use the same format, keyed by the task key alone: they hold no library and
are valid for any target, so they are built and verified on first use.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import time
import uuid
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

from filelock import FileLock

from . import config

SOURCE_FILE = "kernel.cpp"
LIBRARY_FILE = "kernel.so"
META_FILE = "meta.json"
MANIFEST_FILE = "manifest.json"
MANIFEST_FORMAT = 1

Files = Mapping[str, bytes | Path]


class CacheCorruptionWarning(UserWarning):
    """A cache or seed entry failed its checks; it is set aside (or skipped) and rebuilt."""


class _CorruptEntry(Exception):
    """Raised by `_load` with the reason an entry directory cannot be trusted."""


@dataclass(frozen=True)
class CacheEntry:
    """One complete, checked cache entry."""

    key: str
    directory: Path
    source: str  # the winning AscendC source
    library: Path | None  # None for a seed, or an entry whose library is to be rebuilt
    meta: dict = field(hash=False)


def cache_key(task_key: str, target: str, generator: str) -> str:
    """sha256 over everything that can change the kernel a task gets.

    ``task_key`` is `capture.KernelTask.key` (graph, dtypes, rank/broadcast pattern); ``target``
    names the SoC, CANN and torch_npu versions (or the simulator and compiler); ``generator``
    names the builtin lowering's version or the model and prompt version.
    """
    import torch_ascendgen  # read at call time: the package defines __version__ after its imports

    parts = {"task": task_key, "target": target, "generator": generator, "project": torch_ascendgen.__version__}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


class KernelCache:
    """The writable kernel cache under ``root``, behind optional read-only ``shared_roots``.

    Shared roots (a team's directory) are looked up first, in order, and never written: a
    damaged entry there is skipped with a warning.
    """

    def __init__(self, root: Path | None = None, shared_roots: Sequence[Path] = ()):
        self.root = Path(root) if root is not None else config.cache_dir() / "kernels"
        self.shared_roots = tuple(Path(r) for r in shared_roots)
        self._locks: dict[str, FileLock] = {}

    def directory(self, key: str, root: Path | None = None) -> Path:
        return entry_directory(self.root if root is None else root, key)

    def lookup(self, key: str) -> CacheEntry | None:
        """The complete, checked entry for ``key``, or None (a miss, or a damaged entry set aside)."""
        for root in self.shared_roots:
            entry = _load_or_skip(entry_directory(root, key), key)
            if entry is not None:
                return entry
        return self._lookup_own(key)

    def lock(self, key: str) -> FileLock:
        """The inter-process lock for ``key`` (reentrant within a thread), ``<root>/<key[:2]>/<key>.lock``."""
        if key not in self._locks:
            path = self.directory(key).with_name(key + ".lock")
            path.parent.mkdir(parents=True, exist_ok=True)
            self._locks[key] = FileLock(str(path))
        return self._locks[key]

    def get_or_create(self, key: str, create: Callable[[], tuple[Files, dict]]) -> CacheEntry:
        """The entry for ``key``; on a miss, ``create()`` gives its files and meta, once across processes."""
        entry = self.lookup(key)
        if entry is not None:
            return entry
        with self.lock(key):
            entry = self.lookup(key)
            if entry is not None:
                return entry
            files, meta = create()
            return self.publish(key, files, meta)

    def publish(self, key: str, files: Files, meta: dict) -> CacheEntry:
        """Write an entry atomically. If another process published ``key`` first, keep theirs and return it.

        ``files`` maps plain file names to contents (bytes) or files to copy (Path); it must hold
        ``kernel.cpp`` and may hold ``kernel.so``. ``meta`` must be JSON-serialisable.
        """
        _check_files(files)
        final = self.directory(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        staging = final.with_name(f".{key}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        staging.mkdir()
        try:
            for name, content in files.items():
                if isinstance(content, (bytes, bytearray)):
                    (staging / name).write_bytes(content)
                else:
                    shutil.copyfile(content, staging / name)
            (staging / META_FILE).write_text(json.dumps(meta, indent=1, sort_keys=True))
            _write_manifest(staging, key)
            try:
                os.rename(staging, final)
            except OSError:  # the final directory exists: someone else published first
                existing = self._lookup_own(key)  # sets a damaged one aside
                if existing is not None:
                    return existing
                os.rename(staging, final)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return _load(final, key)

    def update_meta(self, key: str, update: Callable[[dict], dict]) -> CacheEntry:
        """Replace the entry's meta with ``update(meta)``, under the key's lock; returns the updated entry.

        meta.json and then the manifest are each replaced atomically; a reader that catches the
        moment between the two finds a mismatch, waits for this lock and reads the entry again.
        An entry found only in a shared root is never written: the update holds for the
        returned object only. Raises KeyError when there is no entry.
        """
        with self.lock(key):
            entry = self.lookup(key)
            if entry is None:
                raise KeyError(f"no cache entry for key {key}")
            meta = update(copy.deepcopy(entry.meta))
            if entry.directory != self.directory(key):  # a shared entry
                return replace(entry, meta=meta)
            _replace_file(entry.directory / META_FILE, json.dumps(meta, indent=1, sort_keys=True).encode())
            _write_manifest(entry.directory, key)
            return _load(entry.directory, key)

    def _lookup_own(self, key: str) -> CacheEntry | None:
        """Look ``key`` up in the writable root only; a damaged entry is set aside."""
        try:
            return _load(self.directory(key), key)
        except _CorruptEntry:
            return self._set_aside(key)

    def _set_aside(self, key: str) -> CacheEntry | None:
        """Move a damaged entry to ``<key>.corrupt-<timestamp>``, unless it is whole again under the lock."""
        directory = self.directory(key)
        with self.lock(key):
            try:
                return _load(directory, key)  # another process may have fixed it meanwhile
            except _CorruptEntry as exc:
                reason = str(exc)
            stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{time.time_ns() % 1_000_000_000:09d}"
            aside = directory.with_name(f"{key}.corrupt-{stamp}")
            os.rename(directory, aside)
        warnings.warn(f"torch_ascendgen: cache entry {directory} is damaged ({reason}); moved it to {aside}, "
                      "it will be rebuilt", CacheCorruptionWarning, stacklevel=3)
        return None


class SeedStore:
    """Seed kernels shipped with the project, in the cache's entry format, keyed by task key. Read-only."""

    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root is not None else seeds_dir()

    def lookup(self, task_key: str) -> CacheEntry | None:
        return _load_or_skip(entry_directory(self.root, task_key), task_key)

    def all(self, category: str | None = None) -> list[CacheEntry]:
        """Every intact seed (optionally only those whose meta["category"] is ``category``), by key."""
        entries = []
        for manifest in sorted(self.root.glob(f"??/*/{MANIFEST_FILE}")):
            if "." in manifest.parent.name:  # not an entry (a set-aside or temporary directory)
                continue
            entry = _load_or_skip(manifest.parent, manifest.parent.name)
            if entry is not None and (category is None or entry.meta.get("category") == category):
                entries.append(entry)
        return entries


def entry_directory(root: Path, key: str) -> Path:
    return Path(root) / key[:2] / key


def seeds_dir() -> Path:
    """The seed kernels: ``torch_ascendgen/seeds`` when installed, ``cache/`` at the repository root in a source tree."""
    package = Path(__file__).resolve().parent
    installed = package / "seeds"
    return installed if installed.is_dir() else package.parent / "cache"


def _load(directory: Path, key: str) -> CacheEntry | None:
    """The one load path: None when there is no entry, the entry when every check passes, else _CorruptEntry."""
    if not directory.exists():
        return None
    try:
        manifest = json.loads((directory / MANIFEST_FILE).read_text())
        if manifest.get("key") != key:
            raise _CorruptEntry(f"the manifest names key {manifest.get('key')!r}")
        listed = manifest["files"]
        for required in (SOURCE_FILE, META_FILE):
            if required not in listed:
                raise _CorruptEntry(f"the manifest does not list {required}")
        for name, expected in listed.items():
            _check_file(directory / name, expected["size"], expected["sha256"])
        meta = json.loads((directory / META_FILE).read_text())
        if not isinstance(meta, dict):
            raise _CorruptEntry(f"{META_FILE} holds a {type(meta).__name__}, not an object")
        source = (directory / SOURCE_FILE).read_text()
    except _CorruptEntry:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _CorruptEntry(f"{type(exc).__name__}: {exc}") from exc
    library = directory / LIBRARY_FILE if LIBRARY_FILE in listed else None
    return CacheEntry(key, directory, source, library, meta)


def _load_or_skip(directory: Path, key: str) -> CacheEntry | None:
    """`_load` for read-only places: a damaged entry is skipped with a warning, never moved."""
    try:
        return _load(directory, key)
    except _CorruptEntry as exc:
        warnings.warn(f"torch_ascendgen: skipping damaged read-only entry {directory} ({exc})",
                      CacheCorruptionWarning, stacklevel=3)
        return None


def _check_file(path: Path, size: int, sha256: str) -> None:
    actual = path.stat().st_size
    if actual != size:
        raise _CorruptEntry(f"{path.name} has {actual} bytes, the manifest says {size}")
    if _sha256(path) != sha256:
        raise _CorruptEntry(f"{path.name} does not match its sha256 in the manifest")


def _check_files(files: Files) -> None:
    if SOURCE_FILE not in files:
        raise ValueError(f"a cache entry needs {SOURCE_FILE}; got {sorted(files)}")
    for name in files:
        if name in (META_FILE, MANIFEST_FILE) or not name or name != Path(name).name or name.startswith("."):
            raise ValueError(f"{name!r} cannot be a file of a cache entry (plain names only; meta goes in `meta`)")


def _write_manifest(directory: Path, key: str) -> None:
    """List every file but the manifest with its size and sha256; written last, it marks the entry complete."""
    files = {path.name: {"size": path.stat().st_size, "sha256": _sha256(path)}
             for path in sorted(directory.iterdir())
             if path.name != MANIFEST_FILE and not path.name.startswith(".") and path.is_file()}
    manifest = {"format": MANIFEST_FORMAT, "key": key, "files": files}
    _replace_file(directory / MANIFEST_FILE, json.dumps(manifest, indent=1, sort_keys=True).encode())


def _replace_file(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
