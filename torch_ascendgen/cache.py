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

Seeds (`SeedStore`) are the same `CacheEntry` objects, keyed by the task key alone: they hold no
library and are valid for any target, so they are built and verified on first use. They are not
stored as entries: each seed's source exists once, beside an index that says which task keys it
serves and with which configuration, and the entries are derived from the two (see `SeedStore`).
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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from filelock import FileLock

from torch_ascendgen import config, version

SOURCE_FILE = "kernel.cpp"
LIBRARY_FILE = "kernel.so"
META_FILE = "meta.json"
MANIFEST_FILE = "manifest.json"
MANIFEST_FORMAT = 1
SEED_INDEX = "seeds.json"
SEED_INDEX_FORMAT = 1
SEED_REPOSITORY_DIR = "cache"  # where the seed folder is in the repository; meta["source"] names the file there
CONFIG_START, CONFIG_END = "// <<config\n", "// >>config"
PART_MARKER = "// @part "  # a line of a seed source: the part of that name stands there
PARTS_DIR, PART_SUFFIX = "parts", ".inc"  # a part is <seed folder>/parts/<name>.inc

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
    parts = {"task": task_key, "target": target, "generator": generator, "project": version.__version__}
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
    """Seed kernels shipped with the project, keyed by task key. Read-only.

    ``<root>/seeds.json`` (written by tools/make_seeds.py) maps each task key to a record: ``source``, a
    kernel source file beside the index (its shared code in ``<root>/parts``, see `with_parts`); ``config``, the text
    written into its config region (`with_config`; None for a source without one); ``sha256`` of the kernel that makes;
    and ``meta``. The entry of a key is derived from its record on every lookup; its ``directory`` is the seed folder. A
    record whose kernel does not match its sha256 (an edited source, a damaged index) is skipped with a
    `CacheCorruptionWarning`, like a damaged read-only entry.
    """

    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root is not None else seeds_dir()

    def lookup(self, task_key: str) -> CacheEntry | None:
        record = self._records().get(task_key)
        return None if record is None else self._entry_or_skip(task_key, record)

    def all(self, category: str | None = None) -> list[CacheEntry]:
        """Every intact seed (optionally only those whose meta["category"] is ``category``), by key."""
        entries = (self._entry_or_skip(key, record) for key, record in sorted(self._records().items()))
        return [e for e in entries if e is not None and (category is None or e.meta.get("category") == category)]

    def _records(self) -> dict:
        path = self.root / SEED_INDEX
        if not path.exists():
            return {}
        try:
            index = json.loads(path.read_text(encoding="utf-8"))
            if index["format"] != SEED_INDEX_FORMAT:
                raise ValueError(f"format {index['format']!r}; this version reads format {SEED_INDEX_FORMAT}")
            if not isinstance(index["seeds"], dict):
                raise TypeError(f"its seeds are a {type(index['seeds']).__name__}, not an object")
            return index["seeds"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            warnings.warn(f"torch_ascendgen: skipping the seed index {path} ({type(exc).__name__}: {exc}); "
                          "rebuild it with `python tools/make_seeds.py`", CacheCorruptionWarning, stacklevel=3)
            return {}

    def _entry_or_skip(self, key: str, record: dict) -> CacheEntry | None:
        try:
            return self._entry(key, record)
        except _CorruptEntry as exc:
            warnings.warn(f"torch_ascendgen: skipping damaged seed {key[:12]} of {self.root / SEED_INDEX} ({exc})",
                          CacheCorruptionWarning, stacklevel=3)
            return None

    def _entry(self, key: str, record: dict) -> CacheEntry:
        try:
            source = seed_source(self.root, record["source"], record["config"])
            if _text_sha256(source) != record["sha256"]:
                raise _CorruptEntry(f"{record['source']} with its config does not match the sha256 in {SEED_INDEX}; "
                                    "rebuild the index with `python tools/make_seeds.py`")
            meta = {**record["meta"], "source": f"{SEED_REPOSITORY_DIR}/{record['source']}", "config": record["config"]}
        except _CorruptEntry:
            raise
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise _CorruptEntry(f"{type(exc).__name__}: {exc}") from exc
        return CacheEntry(key, self.root, source, None, dict(sorted(meta.items())))


def with_config(text: str, config: str) -> str:
    """``text`` with the lines between ``// <<config`` and ``// >>config`` replaced by ``config``.

    A seed's source is written once for every configuration it serves (dtype, epsilon); this makes the kernel
    of one. ValueError when ``text`` has no config region.
    """
    if CONFIG_START not in text or CONFIG_END not in text:
        raise ValueError(f"the source has no config region (`{CONFIG_START.strip()}` ... `{CONFIG_END}`)")
    start, end = text.index(CONFIG_START) + len(CONFIG_START), text.index(CONFIG_END)
    return text[:start] + config.rstrip("\n") + "\n" + text[end:]


def with_parts(text: str, root: Path) -> str:
    """``text`` with each line ``// @part NAME`` replaced by the whole of ``<root>/parts/NAME.inc``.

    Code that several seeds share (the row reductions, the tiling model) is written once, in a part, and
    every kernel is still one self-contained source: the screen and the build allow no ``#include`` but
    kernel_operator.h. A part is inserted as it is (it carries its own indentation) and holds no markers.
    ValueError for a marker without a valid name, a missing part or a marker in a part.
    """
    lines = text.splitlines(keepends=True)
    return "".join(_part(Path(root), line) if line.lstrip().startswith(PART_MARKER) else line for line in lines)


def _part(root: Path, marker: str) -> str:
    name = marker.strip()[len(PART_MARKER):].strip()
    path = root / PARTS_DIR / (name + PART_SUFFIX)
    if not name.replace("_", "").isalnum() or not name.isascii():
        raise ValueError(f"`{marker.strip()}` does not name a part (letters, digits and _ only)")
    if not path.is_file():
        raise ValueError(f"`{marker.strip()}` names a part that is not there: {path}")
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n") or any(line.lstrip().startswith(PART_MARKER) for line in text.splitlines()):
        raise ValueError(f"part {path} must end with a line break and hold no `{PART_MARKER.strip()}` lines")
    return text


def seed_source(root: Path, name: str, config: str | None) -> str:
    """The kernel of seed source ``name`` (a file in ``root``): its parts expanded (`with_parts`), then
    ``config`` in its config region. The one derivation of a seed's kernel, for `SeedStore` and make_seeds."""
    if not name or name != Path(name).name or name.startswith("."):
        raise ValueError(f"seed source {name!r} is not a plain file name in {root}")
    text = with_parts((Path(root) / name).read_text(encoding="utf-8"), root)
    return text if config is None else with_config(text, config)


def seed_record(root: Path, name: str, config: str | None, meta: dict) -> dict:
    """The index record of seed source ``name`` (in ``root``) with ``config``; ``meta`` without its
    "source" and "config" fields, which the record holds."""
    source = seed_source(root, name, config)
    rest = {k: v for k, v in meta.items() if k not in ("source", "config")}
    return {"source": name, "config": config, "sha256": _text_sha256(source), "meta": rest}


def write_seed_index(root: Path, records: Mapping[str, dict]) -> Path:
    """Replace ``<root>/seeds.json`` with ``records`` (task key -> `seed_record`), atomically."""
    index = {"format": SEED_INDEX_FORMAT, "seeds": dict(records)}
    path = Path(root) / SEED_INDEX
    _replace_file(path, (json.dumps(index, indent=1, sort_keys=True) + "\n").encode())
    return path


def entry_directory(root: Path, key: str) -> Path:
    return Path(root) / key[:2] / key


def seeds_dir() -> Path:
    """The seed folder (sources and index): ``torch_ascendgen/seeds`` when installed, ``cache/`` at the repository
    root in a source tree."""
    package = Path(__file__).resolve().parent
    installed = package / "seeds"
    return installed if installed.is_dir() else package.parent / SEED_REPOSITORY_DIR


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


def _text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
