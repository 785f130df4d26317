"""Trust: which cached kernels may run in this process, and the re-check a served kernel passes first.

Our own generator's and the seed kernels run in-process; a kernel a model wrote, or one of unknown provenance,
is served by its target's sandboxed worker (targets/sim/serving.py, targets/npu/serving.py) and re-checked on
fresh data before its first use in each process.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from torch_ascendgen.cache import CacheEntry, SeedStore
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.evaluate.verify import task_input_sets, verify_loaded
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.targets.sim.serving import ServedKernel

_TRUSTED_GENERATORS = ("builtin-",)  # prefixes of our own generator's names (generators.builtin.generator.VERSION)



def untrusted(entry: CacheEntry, task, shared: bool) -> str:
    """Why ``entry``'s kernel must not run in this process ("" when it may): a model wrote it, its provenance is
    unknown, or it comes from a shared cache root and its source is not one our generator (or a seed) makes for
    ``task``. A shared entry's own library is never trusted (the pipeline builds the source here)."""
    meta = entry.meta
    generator = meta.get("generator")
    llm = meta.get("llm")
    if isinstance(llm, dict) and llm.get("winner_is_model") is not False:
        return f"a model wrote it ({generator!r})"
    if not isinstance(generator, str) or not (generator == "seed" or generator.startswith(_TRUSTED_GENERATORS)):
        return f"its author is {generator!r}, not the built-in generator or a seed"
    if shared and not _ours(entry.source, task):
        return "it comes from a shared cache and its source is not one the built-in generator or a seed makes"
    return ""


def _ours(source: str, task) -> bool:
    """Whether ``source`` is a seed's or one the built-in generator makes for ``task`` (it is deterministic)."""
    seed = SeedStore().lookup(task.key)
    if seed is not None and seed.source == source:
        return True
    try:
        return any(candidate.source == source for candidate in generate_builtin(task, 64))
    except UnsupportedFunction:
        return False


def recheck(kernel: ServedKernel, reference: Callable, shapes: Sequence[Sequence[int]], tolerance) -> None:
    """Before its first use in this process: the kernel passes at ``shapes`` on fresh random data (a fresh seed,
    named in the failure), run in the worker and judged here (a kernel that recognises the verification child or its
    data fails). Raises UnsupportedFunction."""
    if kernel.rechecked:
        return
    sets = task_input_sets(kernel.task, shapes, seed=None)
    verdict = verify_loaded(reference, kernel, sets, tolerance)
    if not verdict.ok:
        seed = getattr(sets[0], "seed", None)
        raise UnsupportedFunction(f"its model-written kernel failed the check on fresh data in the serving process "
                                  f"at shapes {[list(s) for s in shapes]} (input seed {seed}): {verdict.reason}")
    kernel.rechecked = True
