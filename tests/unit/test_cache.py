"""The kernel cache: key, entry format, corruption handling, atomic publish, locking, seeds."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
import warnings
from pathlib import Path

import pytest

import torch_ascendgen
from torch_ascendgen.cache import (
    LIBRARY_FILE,
    MANIFEST_FILE,
    META_FILE,
    SOURCE_FILE,
    CacheCorruptionWarning,
    KernelCache,
    SeedStore,
    cache_key,
    seed_record,
    write_seed_index,
)

SOURCE = '#include "kernel_operator.h"\n// kernel\n'
LIBRARY = bytes(range(256)) * 16
META = {"task": "in0: f32[s0]", "winner": "builtin-0", "verified_shapes": [[8]], "category": "elementwise"}
KEY = cache_key("task", "sim-1 g++-13", "builtin-1")


def files() -> dict[str, bytes]:
    return {SOURCE_FILE: SOURCE.encode(), LIBRARY_FILE: LIBRARY}


def counting_create(counter: Path, source: str = SOURCE, delay_s: float = 0.0):
    def create():
        with open(counter, "a") as f:
            f.write(f"{os.getpid()}\n")
        time.sleep(delay_s)
        return {SOURCE_FILE: source.encode(), LIBRARY_FILE: LIBRARY}, dict(META)
    return create


def calls(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    return {str(p.relative_to(root)): (p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else b"")
            for p in sorted(root.rglob("*"))}


# --- the key ---------------------------------------------------------------------------------

def test_key_is_sha256_and_changes_with_every_part(monkeypatch):
    base = cache_key("task", "target", "generator")
    assert len(base) == 64 and int(base, 16) >= 0
    assert cache_key("task", "target", "generator") == base
    assert cache_key("task2", "target", "generator") != base
    assert cache_key("task", "target2", "generator") != base
    assert cache_key("task", "target", "generator2") != base
    assert cache_key("tas", "ktarget", "generator") != base  # parts do not run into each other
    monkeypatch.setattr(torch_ascendgen.version, "__version__", "99.0")
    assert cache_key("task", "target", "generator") != base


# --- publish and lookup ----------------------------------------------------------------------

def test_publish_then_lookup_roundtrip(tmp_path):
    cache = KernelCache(tmp_path)
    assert cache.lookup(KEY) is None
    published = cache.publish(KEY, files(), META)
    assert published.directory == tmp_path / KEY[:2] / KEY
    found = cache.lookup(KEY)
    assert found == published
    assert found.source == SOURCE and found.meta == META
    assert found.library is not None and found.library.read_bytes() == LIBRARY
    manifest = json.loads((found.directory / MANIFEST_FILE).read_text())
    assert set(manifest["files"]) == {SOURCE_FILE, LIBRARY_FILE, META_FILE}
    assert manifest["files"][LIBRARY_FILE]["size"] == len(LIBRARY)


def test_entry_without_library_and_files_copied_from_paths(tmp_path):
    source = tmp_path / "winner.cpp"
    source.write_text(SOURCE)
    entry = KernelCache(tmp_path / "kernels").publish(KEY, {SOURCE_FILE: source}, META)
    assert entry.library is None and entry.source == SOURCE


def test_publish_rejects_bad_file_names(tmp_path):
    cache = KernelCache(tmp_path)
    for bad in ({LIBRARY_FILE: LIBRARY}, {SOURCE_FILE: b"", META_FILE: b"{}"}, {SOURCE_FILE: b"", "../x": b""}):
        with pytest.raises(ValueError):
            cache.publish(KEY, bad, META)
    assert not (tmp_path / KEY[:2] / KEY).exists()


def test_publish_keeps_the_entry_published_first(tmp_path):
    first = KernelCache(tmp_path).publish(KEY, files(), META)
    second = KernelCache(tmp_path).publish(KEY, {SOURCE_FILE: b"// other\n"}, {"winner": "other"})
    assert second == first and second.source == SOURCE
    assert not [p for p in first.directory.parent.iterdir() if p.name.endswith(".tmp")]


# --- corruption ------------------------------------------------------------------------------

def truncate_library(d: Path):
    (d / LIBRARY_FILE).write_bytes(LIBRARY[:100])


def garble_meta(d: Path):
    (d / META_FILE).write_text('{"task": ')


def remove_source(d: Path):
    (d / SOURCE_FILE).unlink()


def flip_byte(d: Path):
    data = bytearray((d / LIBRARY_FILE).read_bytes())
    data[1000] ^= 0x01
    (d / LIBRARY_FILE).write_bytes(bytes(data))


def remove_manifest(d: Path):
    (d / MANIFEST_FILE).unlink()


@pytest.mark.parametrize("damage", [truncate_library, garble_meta, remove_source, flip_byte, remove_manifest])
def test_damaged_entry_is_set_aside_and_rebuilt(tmp_path, damage):
    cache = KernelCache(tmp_path / "kernels")
    counter = tmp_path / "calls"
    entry = cache.get_or_create(KEY, counting_create(counter))
    assert calls(counter) == 1
    damage(entry.directory)
    with pytest.warns(CacheCorruptionWarning, match="damaged"):
        rebuilt = cache.get_or_create(KEY, counting_create(counter, source="// rebuilt\n"))
    assert calls(counter) == 2
    assert rebuilt.source == "// rebuilt\n" and rebuilt.directory == entry.directory
    aside = [p.name for p in entry.directory.parent.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].startswith(KEY + ".corrupt-")
    assert cache.lookup(KEY) == rebuilt


# --- atomicity -------------------------------------------------------------------------------

def test_a_failing_create_leaves_no_entry(tmp_path):
    cache = KernelCache(tmp_path / "kernels")

    def crash():
        raise RuntimeError("generator died")

    with pytest.raises(RuntimeError, match="generator died"):
        cache.get_or_create(KEY, crash)
    assert cache.lookup(KEY) is None
    assert not cache.directory(KEY).exists()
    assert cache.get_or_create(KEY, counting_create(tmp_path / "calls")).source == SOURCE


def test_a_crash_while_writing_leaves_no_entry_and_no_temporary(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    with pytest.raises(FileNotFoundError):  # kernel.cpp is written, then copying the library fails
        cache.publish(KEY, {SOURCE_FILE: SOURCE.encode(), LIBRARY_FILE: tmp_path / "missing.so"}, META)
    assert cache.lookup(KEY) is None
    assert [p.name for p in cache.directory(KEY).parent.iterdir()] == []


def test_a_killed_writers_temporary_is_ignored(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    leftover = cache.directory(KEY).with_name(f".{KEY}.999999.deadbeef.tmp")
    leftover.mkdir(parents=True)
    (leftover / SOURCE_FILE).write_text("// half written")
    assert cache.lookup(KEY) is None
    assert cache.publish(KEY, files(), META).source == SOURCE


# --- two processes ---------------------------------------------------------------------------

def _cold_start(root: str, counter: str, barrier, results) -> None:
    cache = KernelCache(Path(root))
    barrier.wait()
    entry = cache.get_or_create(KEY, counting_create(Path(counter), delay_s=0.5))
    results.put((str(entry.directory), entry.source, entry.meta))


def test_two_processes_cold_starting_generate_once(tmp_path):
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    counter = tmp_path / "calls"
    processes = [context.Process(target=_cold_start, args=(str(tmp_path / "kernels"), str(counter), barrier, results))
                 for _ in range(2)]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=60) for _ in processes]
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    assert calls(counter) == 1
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == str(tmp_path / "kernels" / KEY[:2] / KEY)


# --- shared read-only roots ------------------------------------------------------------------

def test_shared_roots_are_consulted_first_and_never_written(tmp_path):
    shared = tmp_path / "shared"
    KernelCache(shared).publish(KEY, {SOURCE_FILE: b"// team\n"}, {"winner": "team"})
    other = cache_key("other", "t", "g")
    KernelCache(shared).publish(other, files(), META)
    flip_byte(shared / other[:2] / other)
    before = snapshot(shared)

    cache = KernelCache(tmp_path / "own", shared_roots=[shared])
    cache.publish(KEY, files(), META)  # an own entry for the same key: the shared one still wins
    assert cache.lookup(KEY).source == "// team\n"
    assert cache.lookup(KEY).directory == shared / KEY[:2] / KEY
    updated = cache.update_meta(KEY, lambda meta: {**meta, "verified_shapes": [[3]]})
    assert updated.meta["verified_shapes"] == [[3]]
    with pytest.warns(CacheCorruptionWarning, match="skipping"):
        rebuilt = cache.get_or_create(other, counting_create(tmp_path / "calls"))
    assert rebuilt.directory == tmp_path / "own" / other[:2] / other

    assert snapshot(shared) == before


# --- update_meta -----------------------------------------------------------------------------

def test_update_meta_keeps_the_manifest_valid(tmp_path):
    cache = KernelCache(tmp_path)
    entry = cache.publish(KEY, files(), META)
    library_manifest = json.loads((entry.directory / MANIFEST_FILE).read_text())["files"][LIBRARY_FILE]

    def add_shape(meta):
        meta["verified_shapes"].append([1024])
        return meta

    updated = cache.update_meta(KEY, add_shape)
    assert updated.meta["verified_shapes"] == [[8], [1024]]
    assert META["verified_shapes"] == [[8]]  # the update got a copy
    found = cache.lookup(KEY)  # checks every checksum
    assert found is not None and found.meta == updated.meta and found.source == SOURCE
    assert json.loads((entry.directory / MANIFEST_FILE).read_text())["files"][LIBRARY_FILE] == library_manifest
    assert sorted(p.name for p in entry.directory.iterdir()) == sorted([SOURCE_FILE, LIBRARY_FILE, META_FILE,
                                                                         MANIFEST_FILE])
    with pytest.raises(KeyError):
        cache.update_meta(cache_key("absent", "t", "g"), add_shape)


# --- seeds -----------------------------------------------------------------------------------

def test_seeds_are_found_by_task_key(tmp_path):
    seeds_root = tmp_path / "seeds"
    seeds_root.mkdir()
    (seeds_root / "add.cpp").write_text("// add\n")
    (seeds_root / "softmax.cpp").write_text("// softmax\n")
    write_seed_index(seeds_root, {"a" * 64: seed_record(seeds_root, "add.cpp", None, {"category": "elementwise"}),
                                  "b" * 64: seed_record(seeds_root, "softmax.cpp", None, {"category": "softmax"})})
    seeds = SeedStore(seeds_root)
    seed = seeds.lookup("a" * 64)
    assert seed is not None and seed.source == "// add\n" and seed.library is None
    assert seeds.lookup("c" * 64) is None
    assert [e.key for e in seeds.all()] == ["a" * 64, "b" * 64]
    assert [e.source for e in seeds.all(category="softmax")] == ["// softmax\n"]


def test_the_repository_seeds_are_intact():
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheCorruptionWarning)
        entries = SeedStore().all()
    for entry in entries:
        assert entry.library is None and "category" in entry.meta
