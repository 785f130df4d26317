"""The pipeline: a captured task -> a verified kernel, from the seeds, the cache, or a fresh search.

    seeds (repository cache/) ─┐
    disk cache (by full key) ──┼─► hit: load
    generate → search ─────────┘   miss: publish the winner (under the key's lock: once per machine)

Generators (``Options.generator``): "builtin" searches the seed and the built-in generator's
candidates; "llm" also asks the model (llm_generator.py), the built-in winner being the baseline to
beat; "auto" is "builtin", and when that yields no verified kernel and a model is configured, the
model. The cache key names the model and the prompt version whenever the model takes part.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
from tqdm import tqdm

from torch_ascendgen import config
from torch_ascendgen.cache import LIBRARY_FILE, CacheEntry, KernelCache, SeedStore, cache_key
from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import AscendGenWarning, ModelUnavailable, UnsupportedFunction
from torch_ascendgen.evaluate.search import SearchResult, search
from torch_ascendgen.evaluate.verify import Tolerance, task_input_sets, verify_loaded
from torch_ascendgen.generators.builtin.generator import VERSION as BUILTIN_VERSION
from torch_ascendgen.generators.builtin.generator import fallback_builtin as generate_fallback
from torch_ascendgen.generators.builtin.generator import generate_builtin as generate
from torch_ascendgen.generators.llm.prompts import PROMPT_VERSION
from torch_ascendgen.records import GENERATORS, Options
from torch_ascendgen.targets.target import Target, resolve_target
from torch_ascendgen.trust import recheck, untrusted
from torch_ascendgen.version import __version__


@dataclass(frozen=True)
class CompiledKernel:
    """A verified kernel ready to run, and where it came from."""

    entry: CacheEntry
    runner: Callable  # a target's kernel (ContractKernel, NpuKernel), or a served one (a model's: sandboxed)
    origin: str  # "cache", "seed" or "search"
    target: Target
    verified_shapes: set = field(default_factory=set, compare=False)

    @property
    def host_runner(self) -> Callable:
        """The kernel called with CPU tensors (verification's input sets), whatever device it runs on."""
        return self.target.host_runner(self.runner)


def _cache(cache_dir: Path | None) -> KernelCache:
    return KernelCache(cache_dir / "kernels" if cache_dir else None, shared_roots=config.shared_cache_dirs())


def compile_task(task: KernelTask, reference: Callable, options: Options,
                 target: Target | None = None) -> CompiledKernel:
    """The kernel for ``task`` on ``target`` (default: the simulator of ``options.soc``): cached, seeded or
    searched for now. ``reference``: the original function (taking the captured call's tensors, or the task's
    inputs: KernelTask.reference). Raises UnsupportedFunction."""
    reference = task.reference(reference)
    if options.generator not in GENERATORS:
        raise UnsupportedFunction(f"generator {options.generator!r} is unknown; use one of {', '.join(GENERATORS)}")
    target = target or resolve_target(options.target, options.soc, [torch.device("cpu")])
    cache = _cache(options.cache_dir)
    if options.generator == "llm":
        try:
            entry, origin = _model_entry(task, reference, options, target, cache, with_baseline=True)
        except ModelUnavailable as exc:
            _without_model(task, exc)
            key = _builtin_key(task, target)
            entry, origin = _cached(cache, key, lambda: _create(task, reference, options, target, cache, key))
    else:
        entry, origin = _builtin_or_model_entry(task, reference, options, target, cache)
    runner, served = _load(entry, task, target, cache)
    if served:  # a model's kernel: checked again before first use
        recheck(runner, reference, task.traced_shapes, options.tolerance)
    shapes = {tuple(map(tuple, s)) for s in entry.meta.get("verified_shapes", [])}
    return CompiledKernel(entry, runner, origin, target, shapes)


def _cached(cache: KernelCache, key: str, create: Callable[[], tuple[CacheEntry, str]]) -> tuple[CacheEntry, str]:
    """The entry under ``key``, or ``create()``'s (under the key's lock: once per machine)."""
    entry = cache.lookup(key)
    if entry is None:
        with cache.lock(key):
            entry = cache.lookup(key)
            if entry is None:
                return create()
    return entry, "cache"


def _builtin_or_model_entry(task: KernelTask, reference: Callable, options: Options, target: Target,
                            cache: KernelCache) -> tuple[CacheEntry, str]:
    """"builtin": the built-in generator's kernel. "auto": that, else the model's when one is configured."""
    key = _builtin_key(task, target)
    known_model = _known_model(options) if options.generator == "auto" and _model_url(options) else ""
    if known_model and cache.lookup(key) is None:  # a function only the model could do: its kernel, if kept
        entry = cache.lookup(_model_key(task, target, known_model))
        if entry is not None:
            return entry, "cache"
    try:
        return _cached(cache, key, lambda: _create(task, reference, options, target, cache, key))
    except UnsupportedFunction as exc:
        if options.generator == "builtin" or not _model_url(options):
            raise
        builtin_failure = str(exc)
    try:
        return _model_entry(task, reference, options, target, cache, with_baseline=False)
    except (UnsupportedFunction, ModelUnavailable) as exc:
        raise UnsupportedFunction(f"the built-in generator failed ({builtin_failure}), and so did the model: "
                                  f"{exc}") from None


def _builtin_key(task: KernelTask, target: Target) -> str:
    return cache_key(task.key, target.identity, BUILTIN_VERSION)


def _model_url(options: Options) -> str:
    return options.llm_url or config.llm_url()


def _model_entry(task: KernelTask, reference: Callable, options: Options, target: Target, cache: KernelCache,
                 with_baseline: bool) -> tuple[CacheEntry, str]:
    """The model's kernel (the built-in one as the baseline to beat when ``with_baseline``). Raises
    ModelUnavailable when the server does not answer and no model name is known to look up."""
    from torch_ascendgen.generators.llm.client import ModelClient, ModelSettings

    if not _model_url(options):
        raise UnsupportedFunction(f"generator 'llm' needs a model server: set {config.LLM_URL_ENV} (e.g. "
                                  "http://127.0.0.1:8000/v1 after `vllm serve MODEL`) or pass llm_url=")
    client = ModelClient(ModelSettings.from_config(options.llm_url, options.llm_model))
    model = _served_model(client)
    key = _model_key(task, target, model)
    return _cached(cache, key, lambda: _create_with_model(task, reference, options, target, cache, key, client,
                                                          with_baseline))


def _model_key(task: KernelTask, target: Target, model: str) -> str:
    return cache_key(task.key, target.identity, f"{BUILTIN_VERSION}+llm:{model}:{PROMPT_VERSION}")


def _models_file() -> Path:
    return config.cache_dir() / "models.json"


def _remembered_models() -> dict:
    try:
        return json.loads(_models_file().read_text())
    except (OSError, ValueError):
        return {}


def _known_model(options: Options) -> str:
    """The model's name without asking the server: configured, or the one this URL served last."""
    return options.llm_model or config.llm_model() or _remembered_models().get(_model_url(options), "")


def _served_model(client) -> str:
    """The model's name from the server (remembered per URL), or, when the server is down, the one it served
    last, so that its cached kernels are still found."""
    try:
        model = client.model
    except ModelUnavailable:
        model = _remembered_models().get(client.settings.url, "")
        if not model:
            raise
        return model
    if _remembered_models().get(client.settings.url) != model:
        models = {**_remembered_models(), client.settings.url: model}
        try:
            _models_file().parent.mkdir(parents=True, exist_ok=True)
            staging = _models_file().with_suffix(f".{os.getpid()}.tmp")
            staging.write_text(json.dumps(models, indent=1))
            os.replace(staging, _models_file())
        except OSError:
            pass  # remembering is an optimisation
    return model


def _create(task: KernelTask, reference: Callable, options: Options, target: Target, cache: KernelCache,
            key: str) -> tuple[CacheEntry, str]:
    result = _builtin_search(task, reference, options, target)
    winner = result.winner
    if winner is None:
        reasons = "; ".join(f"{r.candidate.label}: {r.failure}" for r in result.records)
        raise UnsupportedFunction(f"no candidate kernel passed verification ({reasons})")
    return _publish(cache, key, task, reference, target, result, winner, {}, options.tolerance), _origin(winner)


def _builtin_search(task: KernelTask, reference: Callable, options: Options, target: Target,
                    worker=None) -> SearchResult:
    """The seed kernel (if any) and the built-in generator's candidates, searched."""
    seed = SeedStore().lookup(task.key)
    candidates = [_seed_candidate(seed)] if seed else []
    candidates += generate(task, options.variants)
    result = _search_with_progress(task, reference, candidates, options, target, worker)
    fallback = [] if result.winner is not None else generate_fallback(task, options.variants, candidates)
    if fallback:  # every template kernel failed: the general lowering's turn
        more = _search_with_progress(task, reference, fallback, options, target, worker)
        result = SearchResult(result.records + more.records)
    return result


def _create_with_model(task: KernelTask, reference: Callable, options: Options, target: Target, cache: KernelCache,
                       key: str, client, with_baseline: bool) -> tuple[CacheEntry, str]:
    with target.candidate_worker() as worker:  # one child runs the baseline and every round's candidates
        baseline = SearchResult(())
        if with_baseline:
            try:
                baseline = _builtin_search(task, reference, options, target, worker)
            except UnsupportedFunction:
                pass  # no built-in kernel: the model is the only route
        return _ask_model(task, reference, options, target, cache, key, client, baseline, worker)


def _ask_model(task: KernelTask, reference: Callable, options: Options, target: Target, cache: KernelCache, key: str,
               client, baseline: SearchResult, worker) -> tuple[CacheEntry, str]:
    from torch_ascendgen.generators.llm.loop import generate_with_model

    def evaluate(candidates):
        return list(_search_with_progress(task, reference, candidates, options, target, worker).records)

    try:
        outcome = generate_with_model(task, reference, options, target.soc, baseline.winner, evaluate, client)
    except ModelUnavailable as exc:
        if baseline.winner is None:
            raise UnsupportedFunction(str(exc)) from None
        _without_model(task, exc)
        return _publish_builtin(cache, task, reference, target, options.tolerance, baseline), _origin(baseline.winner)
    result = SearchResult(baseline.records + outcome.records)
    winner = result.winner
    if winner is None:
        raise UnsupportedFunction(_model_failure(outcome))
    provenance = {id(r): p for r, p in zip(outcome.records, outcome.provenance)}
    if outcome.server_failed and id(winner) not in provenance:
        _without_model(task, outcome.stopped)
        return _publish_builtin(cache, task, reference, target, options.tolerance, baseline), _origin(winner)
    llm = {**provenance.get(id(winner), {"model": outcome.model, "prompt_version": PROMPT_VERSION}),
           "winner_is_model": id(winner) in provenance, "task_tokens": outcome.tokens,
           "transcript": str(outcome.transcript)}
    return (_publish(cache, key, task, reference, target, result, winner, {"llm": llm}, options.tolerance),
            _origin(winner))


def _without_model(task: KernelTask, reason) -> None:
    warnings.warn(f"torch_ascendgen: {task.name} runs the built-in generator's kernel without the model: {reason}; "
                  "the model is asked again in the next process", AscendGenWarning, stacklevel=2)


def _publish_builtin(cache: KernelCache, task: KernelTask, reference: Callable, target: Target,
                     tolerance: Tolerance | None, baseline: SearchResult) -> CacheEntry:
    """The built-in winner under the built-in key: the server failed, so the model is asked again next time."""
    key = _builtin_key(task, target)
    return _publish(cache, key, task, reference, target, baseline, baseline.winner, {}, tolerance)


def _model_failure(outcome) -> str:
    tried = len(outcome.records)
    last = outcome.records[-1].failure if outcome.records else "no reply contained a kernel that could be built"
    last = last if len(last) < 600 else last[:600] + " ..."
    stopped = f"; {outcome.stopped}" if outcome.stopped else ""
    return (f"the model {outcome.model} produced no kernel that passed verification ({tried} built{stopped}); "
            f"last failure: {last}; the exchange is in {outcome.transcript}")


def _publish(cache: KernelCache, key: str, task: KernelTask, reference: Callable, target: Target,
             result: SearchResult, winner, extra: dict, tolerance: Tolerance | None) -> CacheEntry:
    build = winner.build  # the library verified in the search: published as it is, never built again
    model_written = extra.get("llm", {}).get("winner_is_model", False)
    if target.times_against_original and not model_written:  # timing it here would run a model's host code here
        extra = {**extra, "npu_timing": _against_original(task, reference, build, target, tolerance)}
    library = build.library
    meta = {**_meta(task, target, result, winner), **extra}
    return cache.publish(key, {"kernel.cpp": winner.candidate.source.encode(), LIBRARY_FILE: library}, meta)


def _against_original(task: KernelTask, reference: Callable, build, target: Target,
                      tolerance: Tolerance | None) -> dict:
    """The winner and the original function timed on the device the same way in one run (Target.
    time_against_original). A speed-up above measure.SUSPICIOUS_SPEEDUP is believed only after the kernel passes
    again on fresh inputs."""
    kernel = target.load_trusted(build, "", task)  # verified in the child: trusted enough to load here
    (normal, *_) = task_input_sets(task)
    try:
        comparison = target.time_against_original(kernel, reference, normal.tensors)
    except RuntimeError as exc:
        raise UnsupportedFunction(f"timing its kernel against the original on the NPU failed: {exc}") from None
    timing = {"kernel_ns": comparison.kernel.time_ns, "original_ns": comparison.original.time_ns,
              "speedup": comparison.speedup, "kernel_spread_ns": comparison.kernel.spread_ns,
              "original_spread_ns": comparison.original.spread_ns, "samples": comparison.kernel.samples}
    if comparison.suspicious:
        fresh = task_input_sets(task, generic=not task.specialized)
        verdict = verify_loaded(reference, target.host_runner(kernel), fresh, tolerance)
        if not verdict.ok:
            raise UnsupportedFunction(f"its fastest kernel timed {comparison.speedup:.0f}x faster than the original "
                                      f"and then failed verification on fresh inputs: {verdict.reason}")
        timing["suspicious_speedup_reverified"] = True
    return timing


def _origin(winner) -> str:
    return "seed" if winner.candidate.generator == "seed" else "search"


def _seed_candidate(seed: CacheEntry):
    from torch_ascendgen.records import Candidate

    return Candidate(seed.source, "seed", {"seed": seed.key[:12]}, seed.meta.get("description", "seed kernel"))


def _search_with_progress(task, reference, candidates, options: Options, target: Target, worker=None) -> SearchResult:
    sets = task_input_sets(task, generic=not task.specialized)
    with tqdm(total=len(candidates), desc=f"torch_ascendgen: {task.name}", unit="kernel", delay=1.0,
              disable=not options.progress, leave=False) as bar:
        def advance(record):
            bar.set_postfix_str(("ok " if record.ok else "failed ") + record.candidate.label[:40], refresh=False)
            bar.update(1)
        return search(task, reference, candidates, sets, options.tolerance, target, progress=advance, worker=worker)


def _meta(task: KernelTask, target: Target, result: SearchResult, winner) -> dict:
    passed = list(dict.fromkeys(winner.verdict.passed_shapes)) if winner.verdict else []
    return {
        "task": task.graph_text, "name": task.name, "category": task.category,
        "inputs": [s.text() for s in task.inputs], "outputs": [s.text() for s in task.outputs],
        "target": target.describe(), "generator": winner.candidate.generator,
        "project_version": __version__, "winner": winner.summary(),
        "candidates": [r.summary() for r in result.records],
        "verified_shapes": [list(map(list, shapes)) for shapes in passed], "created": time.time(),
        "failed_shapes": [[list(map(list, shapes)), reason] for shapes, reason in winner.failed_shapes],
        "verify_seed": winner.verdict.seed if winner.verdict else None,  # config.VERIFY_SEED_ENV reproduces the sets
    }


def _load(entry: CacheEntry, task: KernelTask, target: Target, cache: KernelCache) -> tuple[object, bool]:
    """The kernel from the entry's own library (one load path for hits and fresh results), and whether it is
    served: run in this process when our generator wrote it, else by the target's sandboxed serving worker
    (trust.untrusted). A shared root's library is never loaded here: a kernel of ours from there is built here
    from its source."""
    shared = entry.directory != cache.directory(entry.key)
    distrust = untrusted(entry, task, shared)
    library = None if shared and not distrust else entry.library
    return target.load(entry, task, library, served=bool(distrust)), bool(distrust)


def verify_shape(compiled: CompiledKernel, reference: Callable, tensors: list[torch.Tensor], options: Options,
                 domains: Sequence | None = None) -> None:
    """A kernel runs at new shapes only after passing there (recorded for every process). ``tensors`` are its
    inputs (the task's constants included); ``domains``: their integer values' domains at this call (default: the
    task's). Raises UnsupportedFunction when its tiling declines the shapes or its results are wrong there."""
    shapes = tuple(tuple(t.shape) for t in tensors)
    if shapes in compiled.verified_shapes:
        return
    failed = _failed_at(compiled.entry, shapes)
    if failed:
        raise UnsupportedFunction(f"its kernel failed verification at shapes {list(map(list, shapes))} when it was "
                                  f"made, so it never runs there: {failed}")
    try:
        compiled.runner.plan(tensors)
    except ValueError as exc:
        raise UnsupportedFunction(f"its kernel cannot take shapes {list(map(list, shapes))}: {exc}") from None
    sets = task_input_sets(compiled.runner.task, shapes, domains=domains)
    verdict = verify_loaded(reference, compiled.host_runner, sets, options.tolerance)
    if not verdict.ok:
        raise UnsupportedFunction(f"its kernel failed verification at shapes {list(map(list, shapes))}: "
                                  f"{verdict.reason}")
    record_verified_shape(compiled, shapes, options.cache_dir)


def _failed_at(entry: CacheEntry, shapes: tuple) -> str:
    """Why the entry's kernel failed at ``shapes`` in its search ("" when it did not)."""
    listed = [list(map(list, shapes))]
    return next((reason for failed, reason in entry.meta.get("failed_shapes", []) if [failed] == listed), "")


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
