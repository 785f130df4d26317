"""The pipeline: a captured task -> a verified kernel, from the seeds, the cache, or a fresh search.

    seeds (repository cache/) ─┐
    disk cache (by full key) ──┼─► hit: load
    generate → search ─────────┘   miss: publish the winner (under the key's lock: once per machine)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tqdm import tqdm

from . import __version__, config
from .build import build_flags, sim_headers_digest
from .builtin_generator import VERSION as BUILTIN_VERSION
from .cache import LIBRARY_FILE, CacheEntry, KernelCache, SeedStore, cache_key
from .capture import KernelTask
from .errors import UnsupportedFunction
from .generate import ENTRY, generate
from .runtime import ContractKernel
from .search import SearchResult, search
from .toolchain import compiler_identity
from .verify import Tolerance, make_input_sets


@dataclass(frozen=True)
class Options:
    """What the decorator (or torch.compile's options) asked for."""

    variants: int = 4
    target: str = "auto"  # "auto", "sim" or "npu"
    generator: str = "auto"  # "auto" or "builtin" ("llm" comes with the model generator)
    tolerance: Tolerance | None = None  # None: dtype-aware defaults
    strict: bool = False  # raise instead of falling back to the original function
    cache_dir: Path | None = None
    soc: str | None = None  # simulated SoC; None: config.default_soc()
    progress: bool = True


@dataclass(frozen=True)
class CompiledKernel:
    """A verified kernel ready to run, and where it came from."""

    entry: CacheEntry
    runner: ContractKernel
    origin: str  # "cache", "seed" or "search"
    verified_shapes: set = field(default_factory=set, compare=False)


def _cache(cache_dir: Path | None) -> KernelCache:
    return KernelCache(cache_dir / "kernels" if cache_dir else None, shared_roots=config.shared_cache_dirs())


def target_identity(soc: str) -> str:
    return "|".join(["sim", soc, sim_headers_digest(), compiler_identity(config.cxx()), " ".join(build_flags())])


def compile_task(task: KernelTask, reference: Callable, options: Options) -> CompiledKernel:
    """The kernel for ``task``: cached, seeded or searched for now. Raises UnsupportedFunction."""
    if options.target == "npu":
        raise UnsupportedFunction("the NPU target is not available yet; use target='sim' or 'auto'")
    if options.generator not in ("auto", "builtin"):
        raise UnsupportedFunction(f"generator {options.generator!r} is not available yet; use 'builtin' or 'auto'")
    soc = options.soc or config.default_soc()
    cache = _cache(options.cache_dir)
    key = cache_key(task.key, target_identity(soc), BUILTIN_VERSION)
    entry = cache.lookup(key)
    origin = "cache"
    if entry is None:
        with cache.lock(key):
            entry = cache.lookup(key)
            if entry is None:
                entry, origin = _create(task, reference, options, soc, cache, key)
    runner = ContractKernel(_load(entry, cache, key), task, soc)
    shapes = {tuple(map(tuple, s)) for s in entry.meta.get("verified_shapes", [])}
    return CompiledKernel(entry, runner, origin, shapes)


def _create(task: KernelTask, reference: Callable, options: Options, soc: str, cache: KernelCache,
            key: str) -> tuple[CacheEntry, str]:
    seed = SeedStore().lookup(task.key)
    candidates = [_seed_candidate(seed)] if seed else []
    candidates += generate(task, options.variants)
    result = _search_with_progress(task, reference, candidates, options, soc)
    winner = result.winner
    if winner is None:
        reasons = "; ".join(f"{r.candidate.label}: {r.failure}" for r in result.records)
        raise UnsupportedFunction(f"no candidate kernel passed verification ({reasons})")
    library = _build(winner.candidate.source).build.library
    meta = _meta(task, soc, result, winner)
    entry = cache.publish(key, {"kernel.cpp": winner.candidate.source.encode(), LIBRARY_FILE: library}, meta)
    return entry, "seed" if winner.candidate.generator == "seed" else "search"


def _seed_candidate(seed: CacheEntry):
    from .generate import Candidate

    return Candidate(seed.source, "seed", {"seed": seed.key[:12]}, seed.meta.get("description", "seed kernel"))


def _search_with_progress(task, reference, candidates, options: Options, soc: str) -> SearchResult:
    sets = make_input_sets(task.inputs, task.traced_shapes, generic=not task.specialized)
    with tqdm(total=len(candidates), desc=f"torch_ascendgen: {task.name}", unit="kernel", delay=1.0,
              disable=not options.progress, leave=False) as bar:
        def advance(record):
            bar.set_postfix_str(("ok " if record.ok else "failed ") + record.candidate.label[:40], refresh=False)
            bar.update(1)
        return search(task, reference, candidates, sets, options.tolerance, soc, progress=advance)


def _meta(task: KernelTask, soc: str, result: SearchResult, winner) -> dict:
    passed = list(dict.fromkeys(winner.verdict.passed_shapes)) if winner.verdict else []
    return {
        "task": task.graph_text, "name": task.name, "category": task.category,
        "inputs": [s.text() for s in task.inputs], "outputs": [s.text() for s in task.outputs],
        "target": {"kind": "sim", "soc": soc}, "generator": winner.candidate.generator,
        "project_version": __version__, "winner": winner.summary(),
        "candidates": [r.summary() for r in result.records],
        "verified_shapes": [list(map(list, shapes)) for shapes in passed], "created": time.time(),
    }


def _build(source: str):
    from .simulator import compile_kernel

    return compile_kernel(source, ENTRY, contract=True)


def _load(entry: CacheEntry, cache: KernelCache, key: str):
    """The kernel from the entry's own library (one load path for hits and fresh results)."""
    from .build import SimBuild
    from .simulator import SimKernel

    if entry.library is None:
        return _build(entry.source)
    build = SimBuild(ENTRY, key, entry.directory, entry.library, 0.0, True)
    return SimKernel(build, entry.source, "kernel.cpp")


def record_verified_shape(compiled: CompiledKernel, shapes: tuple, cache_dir: Path | None) -> None:
    """Remember a newly verified shape in this process and in the cache entry, for every process."""
    compiled.verified_shapes.add(shapes)
    cache = _cache(cache_dir)

    def add(meta: dict) -> dict:
        known = meta.setdefault("verified_shapes", [])
        listed = [list(map(list, shapes))]
        if listed[0] not in known:
            known.append(listed[0])
        return meta

    try:
        cache.update_meta(compiled.entry.key, add)
    except KeyError:  # an entry in a read-only shared root: remembered for this process only
        pass
