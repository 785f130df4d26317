"""The seed kernels in cache/: found by their task's key, built, verified in full, faster than the builtin,
and stored once (cache/ holds each source and an index; the entries are derived from them).

Keys are recomputed here by capturing each seed's function on its example inputs
(tools/make_seeds.py), so a torch upgrade that changes the core-ATen decompositions, and with them
the canonical graph text and the key, fails here with the old and new graph side by side instead
of seeds silently never being found.

Each seed's estimate is compared with the built-in variant that was fastest when it was published
(its label is in the seed's meta), or with every variant when the generator no longer proposes that
one: building every variant of every task takes minutes; tools/make_seeds.py compares with all.
The pipeline tests run with one builtin variant, for the same reason.
"""

import difflib
import functools
import importlib.util
import json
import os
import shutil
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from torch_ascendgen import config
from torch_ascendgen.cache import (
    PART_MARKER,
    PART_SUFFIX,
    PARTS_DIR,
    SEED_INDEX,
    CacheCorruptionWarning,
    SeedStore,
    seed_record,
    seeds_dir,
    write_seed_index,
)
from torch_ascendgen.pipeline import Options, compile_task

REPO = Path(__file__).resolve().parents[2]


def _load_make_seeds():
    spec = importlib.util.spec_from_file_location("make_seeds", REPO / "tools" / "make_seeds.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_seeds", module)
    spec.loader.exec_module(module)
    return module


make_seeds = _load_make_seeds()
SEEDS = {seed.name: seed for seed in make_seeds.SEEDS}
CASES = [pytest.param(name, index, id=f"{name}-{index}") for name, seed in SEEDS.items()
         for index in range(len(seed.examples))]
REBUILD = "rebuild them with `python tools/make_seeds.py`"


@functools.cache
def tasks(name: str):
    return make_seeds.seed_tasks(SEEDS[name])


@functools.cache
def kernel(source: str):
    return make_seeds.build(source)


def entry_for(name: str, index: int):
    """The seed's cache/ entry for example ``index``; fails with what changed when there is none."""
    task = tasks(name)[index]
    entry = SeedStore().lookup(task.key)
    if entry is not None:
        return entry
    recorded = [e for e in SeedStore().all() if e.meta.get("name") == name
                and e.meta.get("inputs") == [s.text() for s in task.inputs]]
    message = (f"seed {name}: cache/ has no entry for key {task.key[:16]}... of its task "
               f"({', '.join(s.text() for s in task.inputs)}) under torch {torch.__version__}.")
    if recorded:
        old = recorded[0].meta
        diff = "\n".join(difflib.unified_diff(old["task"].splitlines(), task.graph_text.splitlines(),
                                              f"graph in cache/ (torch {old.get('torch_version')})",
                                              f"graph now (torch {torch.__version__})", lineterm=""))
        message += (" The canonical graph changed (torch's decompositions?), so users' tasks no longer match "
                    f"the seed:\n{diff}\n")
    pytest.fail(message + f" If the seed is still right for the new graph, {REBUILD}.")


def builtin_labels(entry, task) -> set[str] | None:
    """The builtin variant to compare with: the fastest when the seed was published, if the
    generator still proposes it; otherwise (None) all of them."""
    recorded = [b for b in entry.meta.get("estimate", {}).get("builtin", []) if b.get("time_ns")]
    if not recorded:
        return None  # every variant declined the traced shapes then; they may not now
    best = min(recorded, key=lambda b: b["time_ns"])["label"]
    return {best} if best in {c.label for c in make_seeds.builtin_candidates(task)} else None


@pytest.fixture(scope="module")
def built():
    """Every source the tests run, built at once (two compilers in parallel) and kept per source."""
    sources = set()
    for name, seed in SEEDS.items():
        for index, task in enumerate(tasks(name)):
            entry = SeedStore().lookup(task.key)
            if entry is None:
                continue  # test_seed_is_found_by_its_task_key says why
            sources.add(entry.source)
            sources.update(c.source for c in make_seeds.builtin_candidates(task, labels=builtin_labels(entry, task)))
    with ThreadPoolExecutor(max_workers=config.search_workers()) as pool:
        list(pool.map(kernel, sorted(sources)))
    return True


@pytest.mark.parametrize("name, index", CASES)
def test_seed_is_found_by_its_task_key(name, index):
    entry = entry_for(name, index)
    task = tasks(name)[index]
    assert entry.meta["name"] == name
    assert entry.meta["task"] == task.graph_text
    assert entry.meta["inputs"] == [s.text() for s in task.inputs]
    assert entry.meta["outputs"] == [s.text() for s in task.outputs]
    assert entry.source == SEEDS[name].source_text(), (
        f"seed {name}: cache/ holds another source than cache/{SEEDS[name].source}.cpp; {REBUILD}")


def test_cache_holds_only_the_seeds_of_make_seeds():
    keys = {task.key for name in SEEDS for task in tasks(name)}
    entries = SeedStore().all()
    assert entries, f"cache/ holds no seeds; {REBUILD}"
    stray = [f"{e.meta.get('name')} ({e.key[:12]})" for e in entries if e.key not in keys]
    assert not stray, f"cache/ holds entries no seed in tools/make_seeds.py produces: {stray}; {REBUILD}"
    for entry in entries:
        for field in ("category", "name", "description", "task", "inputs", "outputs", "verified", "estimate"):
            assert field in entry.meta, f"seed {entry.meta.get('name')}: meta has no {field!r}"


@pytest.mark.parametrize("name, index", CASES)
def test_seed_passes_full_verification_and_beats_the_builtin(name, index, built):
    entry = entry_for(name, index)
    task = tasks(name)[index]
    evaluation = make_seeds.evaluate(SEEDS[name], task, kernel(entry.source),
                                     labels=builtin_labels(entry, task))
    assert evaluation.ok, f"seed {name} fails verification: {evaluation.reason}"
    assert len(evaluation.passed_shapes) >= 4  # the traced shapes and the tail / many-blocks shapes
    slower = [b for b in evaluation.builtin if b.get("time_ns") is not None and b["time_ns"] <= evaluation.seed_ns]
    assert not slower, (f"seed {name} ({evaluation.seed_ns:.0f} ns estimated at {list(task.traced_shapes)}) is not "
                        f"faster than builtin {slower}")
    assert evaluation.builtin or entry.meta["estimate"]["builtin_best_ns"] is None


# The pipeline, end to end, for one seed: it is one more candidate and wins when it is fastest.
PIPELINE_CASE = ("softmax_f32", 0)


def _compile(name, index, cache_dir):
    seed, task = SEEDS[name], tasks(name)[index]
    options = Options(variants=1, cache_dir=cache_dir, progress=False, soc=make_seeds.SOC)
    return compile_task(task, seed.function, options)


def test_pipeline_picks_the_seed_when_it_is_fastest(tmp_path, built):
    compiled = _compile(*PIPELINE_CASE, tmp_path)
    assert compiled.origin == "seed"
    meta = compiled.entry.meta
    assert meta["generator"] == "seed"
    builtin = [c for c in meta["candidates"] if c["label"] != meta["winner"]["label"]]
    assert builtin and all(not c["ok"] or c["time_ns"] > meta["winner"]["time_ns"] for c in builtin)
    inputs = SEEDS[PIPELINE_CASE[0]].examples[PIPELINE_CASE[1]]
    task = tasks(PIPELINE_CASE[0])[PIPELINE_CASE[1]]
    flat = [t.reshape(shape) for t, shape in zip(inputs, task.traced_shapes)]  # the kernel's (collapsed) shapes
    got = compiled.runner(*flat)[0]
    torch.testing.assert_close(got, SEEDS[PIPELINE_CASE[0]].function(*inputs).reshape(got.shape))


def _seed_folder(root: Path, key: str, source: str, meta: dict) -> Path:
    """A seed folder holding one seed: ``source`` (with ``meta["config"]`` already in it) for ``key``."""
    root.mkdir()
    (root / "seed.cpp").write_text(source)
    write_seed_index(root, {key: seed_record(root, "seed.cpp", meta["config"], meta)})
    return root


def test_pipeline_prefers_the_builtin_over_a_slower_seed(tmp_path, monkeypatch, built):
    name, index = PIPELINE_CASE
    task = tasks(name)[index]
    seed_entry = entry_for(name, index)
    # The same kernel made slower by redundant work (multiplying by 1 changes no value, NaN and inf included).
    slow = seed_entry.source.replace("        Exp(xf, xf, count);\n", "        Exp(xf, xf, count);\n"
                                     "        for (int i = 0; i < 64; ++i) Muls(xf, xf, 1.0f, count);\n")
    assert slow != seed_entry.source
    seeds = _seed_folder(tmp_path / "seeds", task.key, slow, seed_entry.meta)
    assert SeedStore(seeds).lookup(task.key).source == slow
    monkeypatch.setattr("torch_ascendgen.pipeline.SeedStore", lambda: SeedStore(tmp_path / "seeds"))
    compiled = _compile(name, index, tmp_path / "cache")
    assert compiled.origin == "search"
    seed_record = next(c for c in compiled.entry.meta["candidates"] if c["label"].startswith("seed"))
    assert seed_record["ok"] and seed_record["time_ns"] > compiled.entry.meta["winner"]["time_ns"]


# cache/ holds each seed's source once; the entries are derived from the sources and the index.

def _index() -> dict:
    return json.loads((seeds_dir() / SEED_INDEX).read_text())["seeds"]


def test_every_indexed_seed_is_what_make_seeds_derives():
    index = _index()
    assert index, f"cache/{SEED_INDEX} indexes no seeds; {REBUILD}"
    for key, record in index.items():
        seed = SEEDS[record["meta"]["name"]]
        assert (record["source"], record["config"]) == (seed.source_file, seed.config), seed.name
        entry = SeedStore().lookup(key)
        assert entry is not None and entry.key == key and entry.library is None
        assert entry.source == seed.source_text()
        assert entry.meta["source"] == f"cache/{seed.source_file}" and entry.meta["config"] == seed.config


def _lines(path: Path) -> Counter:
    return Counter(line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip())


def _shared(a: Counter, b: Counter) -> float:
    """The share of the smaller file's lines that the other file holds too."""
    return sum((a & b).values()) / max(1, min(sum(a.values()), sum(b.values())))


def _kernel_files() -> list[Path]:
    """The repository's C++ files and seed parts, cache/ included; not build output, hidden folders (.git, .cache)
    or eggs."""
    found = []
    for folder, folders, files in os.walk(REPO):
        folders[:] = [f for f in folders if not f.startswith(".") and f not in ("build", "__pycache__")
                      and not f.endswith(".egg-info")]
        found += [Path(folder) / f for f in files if Path(f).suffix in {".cpp", ".h", ".hpp", ".cc", PART_SUFFIX}]
    return sorted(found)


def test_no_seed_source_is_stored_twice():
    """Each seed source and each part (the code seeds share) is stored once: no two share more than 90% of
    their lines, nor does one of them with any other C++ file of the repository."""
    cache_dir = REPO / "cache"
    sources = sorted(cache_dir.glob("*.cpp"))
    parts = sorted((cache_dir / PARTS_DIR).iterdir())
    assert sources and parts and all(p.suffix == PART_SUFFIX for p in parts), (
        f"cache/{PARTS_DIR} holds parts (*{PART_SUFFIX}) only")
    assert sorted(p.name for p in cache_dir.iterdir()) == sorted([SEED_INDEX, PARTS_DIR, *(p.name for p in sources)]), (
        "cache/ holds the seed sources, their parts and their index, no entries (SeedStore derives them)")
    stored = sources + parts
    lines = {p: _lines(p) for p in _kernel_files()}
    pairs = {(str(a.relative_to(REPO)), str(b.relative_to(REPO))): _shared(lines[a], lines[b])
             for a in stored for b in lines if a != b and (b not in stored or a < b)}
    copies = {pair: round(share, 2) for pair, share in pairs.items() if share > 0.9}
    assert not copies, f"seed code stored again (pair: share of the smaller file's lines): {copies}"


def test_every_part_is_used_and_every_kernel_is_whole():
    """A part no seed names is dead code; a derived kernel is one source, without markers (the build allows
    no #include but kernel_operator.h)."""
    texts = [p.read_text() for p in sorted((REPO / "cache").glob("*.cpp"))]
    named = {line.strip()[len(PART_MARKER):] for text in texts for line in text.splitlines()
             if line.strip().startswith(PART_MARKER)}
    assert named == {p.stem for p in (REPO / "cache" / PARTS_DIR).glob(f"*{PART_SUFFIX}")}
    for entry in SeedStore().all():
        assert PART_MARKER not in entry.source and "#include" not in entry.source.replace(
            '#include "kernel_operator.h"', ""), entry.meta["name"]


def test_a_seed_whose_part_is_missing_is_skipped(tmp_path):
    """A part is part of the kernel: without it the seed is damaged, not served short."""
    key, record = next((k, r) for k, r in sorted(_index().items())
                       if PART_MARKER in (seeds_dir() / r["source"]).read_text())
    (tmp_path / record["source"]).write_text((seeds_dir() / record["source"]).read_text())
    shutil.copytree(seeds_dir() / PARTS_DIR, tmp_path / PARTS_DIR)
    write_seed_index(tmp_path, {key: record})
    assert SeedStore(tmp_path).lookup(key).source == SeedStore().lookup(key).source
    for part in (tmp_path / PARTS_DIR).iterdir():
        part.unlink()
    with pytest.warns(CacheCorruptionWarning, match="names a part that is not there"):
        assert SeedStore(tmp_path).lookup(key) is None


def test_an_edited_seed_source_is_skipped(tmp_path):
    """The index's sha256 catches a source changed after make_seeds vouched for it, like a damaged entry."""
    key, record = sorted(_index().items())[0]
    (tmp_path / record["source"]).write_text((seeds_dir() / record["source"]).read_text())
    shutil.copytree(seeds_dir() / PARTS_DIR, tmp_path / PARTS_DIR)
    write_seed_index(tmp_path, {key: record})
    assert SeedStore(tmp_path).lookup(key).source == SeedStore().lookup(key).source
    (tmp_path / record["source"]).write_text((seeds_dir() / record["source"]).read_text().replace("1", "2", 1))
    with pytest.warns(CacheCorruptionWarning, match="sha256"):
        assert SeedStore(tmp_path).lookup(key) is None
    with pytest.warns(CacheCorruptionWarning, match="sha256"):
        assert SeedStore(tmp_path).all() == []
