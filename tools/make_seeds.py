"""Verify the seed kernels in the repository's ``cache/`` directory and write their index.

A seed is a hand-written AscendC kernel for a pattern users hit often (RMS norm, layer norm,
softmax, GELU, SwiGLU's gate, add + RMS norm). For each seed this script:

1. captures the PyTorch function on its example inputs (one example per rank pattern the seed
   is published for), which gives the task key and the canonical graph text;
2. reads the kernel source from ``cache/<source>.cpp``, puts back the code it shares with other seeds
   (its ``// @part NAME`` lines, from ``cache/parts/NAME.inc``) and writes the seed's settings (dtype,
   epsilon) into its ``// <<config ... // >>config`` region (`torch_ascendgen.cache.seed_source`);
3. verifies it on the simulator with the full input sets the pipeline uses (normal, edge and
   non-finite values, tail shapes, a shape spread over more blocks than cores);
4. estimates its NPU time on the simulator at the example shapes and compares it with every
   variant the built-in generator proposes for the same task;
5. publishes it: a record in ``cache/seeds.json`` under the task key (source, config, the sha256
   of the kernel they make, the meta above), from which `torch_ascendgen.cache.SeedStore` derives
   the seed's cache entry. The index is all this script writes.

It refuses to publish a seed that fails verification or is not faster than the built-in
generator's best variant. A run over all seeds writes an index of exactly the passing ones (stale
records go), so ``cache/seeds.json`` holds exactly what this script vouches for; a run over some
seeds replaces only their records.

    python tools/make_seeds.py              # verify, compare and publish every seed
    python tools/make_seeds.py --check      # verify and compare only; publish nothing
    python tools/make_seeds.py rms_norm_f16 softmax_f32

tests/pipeline/test_seeds.py imports this module: ``SEEDS`` and ``seed_tasks`` are its interface.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import torch_ascendgen  # noqa: E402
from torch_ascendgen.cache import SEED_INDEX, seed_record, seed_source, write_seed_index  # noqa: E402
from torch_ascendgen.capture import KernelTask, capture  # noqa: E402
from torch_ascendgen.evaluate.verify import task_input_sets, verify_loaded  # noqa: E402
from torch_ascendgen.generators.builtin.generator import generate_builtin  # noqa: E402
from torch_ascendgen.records import ENTRY, Options  # noqa: E402
from torch_ascendgen.targets.runtime import ContractKernel, ShapeDeclined  # noqa: E402

SOURCES = REPO / "cache"
SOC = "Ascend910B2"


# ---- the functions the seeds compute ------------------------------------------------------------------


def rms_norm(x, weight, eps=1e-6):
    """LlamaRMSNorm.forward: statistics in float, the result cast back, then scaled."""
    return (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * weight


def rms_norm_eps5(x, weight):
    return rms_norm(x, weight, 1e-5)


def add_rms_norm(x, residual, weight):
    return rms_norm(x + residual, weight)


def add_rms_norm_eps5(x, residual, weight):
    return rms_norm(x + residual, weight, 1e-5)


def layer_norm(x, weight, bias):
    return F.layer_norm(x, (x.shape[-1],), weight, bias)


def softmax(x):
    return F.softmax(x, -1)


def softmax_upcast(x):
    """Attention probabilities as LlamaAttention (eager) computes them: in float32, cast back."""
    return F.softmax(x, -1, dtype=torch.float32).to(x.dtype)


def gelu(x):
    return F.gelu(x)


def silu_mul(gate, up):
    """The gate of SwiGLU (LlamaMLP: down_proj(act_fn(gate_proj(x)) * up_proj(x)))."""
    return F.silu(gate) * up


# ---- the seeds ------------------------------------------------------------------------------------------


def _randn(*shape, dtype=torch.float32, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _inputs(*shapes, dtype):
    return tuple(_randn(*shape, dtype=dtype, seed=i) for i, shape in enumerate(shapes))


@dataclass(frozen=True)
class Seed:
    """One seed kernel: a function, the source that computes it, and example inputs per rank pattern."""

    name: str
    function: Callable
    source: str  # cache/<source>.cpp
    config: str  # the text of the source's config region
    examples: tuple[tuple[torch.Tensor, ...], ...] = field(repr=False)
    description: str = ""

    @property
    def source_file(self) -> str:
        return f"{self.source}.cpp"

    def source_text(self, root: Path = SOURCES) -> str:
        """The kernel: the source with this seed's config, as `SeedStore` derives it."""
        return seed_source(root, self.source_file, self.config)


def _norm_examples(hidden, dtype, extra_full=0, extra_vectors=0):
    """[tokens, hidden] and [batch, seq, hidden] inputs, ``extra_full`` more like them, and a [hidden]
    weight (and ``extra_vectors`` more like it)."""
    vectors = [(hidden,)] * (1 + extra_vectors)
    rank2 = _inputs(*[(64, hidden)] * (1 + extra_full), *vectors, dtype=dtype)
    rank3 = _inputs(*[(2, 32, hidden)] * (1 + extra_full), *vectors, dtype=dtype)
    return rank2, rank3


def _softmax_examples(dtype):
    """Attention scores [batch, heads, queries, keys], and [rows, classes]."""
    return _inputs((2, 8, 128, 128), dtype=dtype), _inputs((256, 1000), dtype=dtype)


def _elementwise_examples(hidden, dtype, count):
    """``count`` inputs of [tokens, hidden], and of [batch, seq, hidden]."""
    return _inputs(*[(32, hidden)] * count, dtype=dtype), _inputs(*[(2, 16, hidden)] * count, dtype=dtype)


SEEDS: tuple[Seed, ...] = (
    Seed("rms_norm_f16", rms_norm, "rms_norm", "using T = half;\nconstexpr float EPS = 1e-06f;",
         _norm_examples(4096, torch.float16), "RMS norm (Llama form, eps 1e-6) over the last dim, float16"),
    Seed("rms_norm_f16_eps1e-5", rms_norm_eps5, "rms_norm", "using T = half;\nconstexpr float EPS = 1e-05f;",
         _norm_examples(4096, torch.float16), "RMS norm (Llama form, eps 1e-5) over the last dim, float16"),
    Seed("rms_norm_f32", rms_norm, "rms_norm", "using T = float;\nconstexpr float EPS = 1e-06f;",
         _norm_examples(4096, torch.float32), "RMS norm (Llama form, eps 1e-6) over the last dim, float32"),
    Seed("rms_norm_f32_eps1e-5", rms_norm_eps5, "rms_norm", "using T = float;\nconstexpr float EPS = 1e-05f;",
         _norm_examples(4096, torch.float32), "RMS norm (Llama form, eps 1e-5) over the last dim, float32"),
    Seed("add_rms_norm_f16", add_rms_norm, "add_rms_norm", "using T = half;\nconstexpr float EPS = 1e-06f;",
         _norm_examples(4096, torch.float16, extra_full=1),
         "residual add, then RMS norm (Llama form, eps 1e-6) over the last dim, float16"),
    Seed("add_rms_norm_f16_eps1e-5", add_rms_norm_eps5, "add_rms_norm",
         "using T = half;\nconstexpr float EPS = 1e-05f;",
         _norm_examples(4096, torch.float16, extra_full=1),
         "residual add, then RMS norm (Llama form, eps 1e-5) over the last dim, float16"),
    Seed("layer_norm_f32", layer_norm, "layer_norm", "using T = float;\nconstexpr float EPS = 1e-05f;",
         _norm_examples(768, torch.float32, extra_vectors=1),
         "layer norm over the last dim with weight and bias, float32"),
    Seed("layer_norm_f16", layer_norm, "layer_norm", "using T = half;\nconstexpr float EPS = 1e-05f;",
         _norm_examples(768, torch.float16, extra_vectors=1),
         "layer norm over the last dim with weight and bias, float16 (computed in float)"),
    Seed("gelu_f32", gelu, "gelu", "using T = float;", _elementwise_examples(3072, torch.float32, 1),
         "GELU, exact (erf) form, float32"),
    Seed("silu_mul_f16", silu_mul, "silu_mul", "using T = half;", _elementwise_examples(11008, torch.float16, 2),
         "SwiGLU gate: silu(gate) * up, float16"),
    Seed("silu_mul_f32", silu_mul, "silu_mul", "using T = float;", _elementwise_examples(11008, torch.float32, 2),
         "SwiGLU gate: silu(gate) * up, float32"),
    Seed("softmax_f32", softmax, "softmax", "using T = float;", _softmax_examples(torch.float32),
         "softmax over the last dim, float32"),
    Seed("softmax_f16", softmax, "softmax", "using T = half;", _softmax_examples(torch.float16),
         "softmax over the last dim, float16 (computed in float)"),
    Seed("softmax_f16_upcast", softmax_upcast, "softmax", "using T = half;", _softmax_examples(torch.float16),
         "softmax over the last dim in float32 of float16 scores, cast back to float16 (Llama eager attention)"),
)


def seed_tasks(seed: Seed) -> list[KernelTask]:
    """The captured task of each of the seed's examples."""
    return [capture(seed.function, list(example), name=seed.name) for example in seed.examples]


# ---- verification and comparison -----------------------------------------------------------------------


@dataclass(frozen=True)
class Evaluation:
    """How a seed did on one task."""

    task: KernelTask
    ok: bool
    reason: str
    passed_shapes: tuple
    input_sets: tuple[str, ...]
    seed_ns: float | None
    builtin: tuple[dict, ...]  # per built-in variant: label, and time_ns or declined/failure

    @property
    def builtin_best_ns(self) -> float | None:
        times = [b["time_ns"] for b in self.builtin if b.get("time_ns") is not None]
        return min(times) if times else None

    @property
    def faster(self) -> bool:
        best = self.builtin_best_ns
        return self.seed_ns is not None and (best is None or self.seed_ns < best)


def build(source: str):
    from torch_ascendgen.targets.sim.simulator import compile_kernel

    return compile_kernel(source, ENTRY, contract=True)


def estimate_ns(kernel, task: KernelTask, inputs, soc: str = SOC) -> float | None:
    """The simulator's estimate of NPU time for one launch on ``inputs``; None when the tiling declines them."""
    runner = ContractKernel(kernel, task, soc)
    try:
        return runner.run(*inputs)[1].estimated_ns
    except ShapeDeclined:
        return None


def builtin_candidates(task: KernelTask, variants: int | None = None, labels: set[str] | None = None) -> list:
    """The built-in generator's variants for ``task`` (what a seed competes with in the pipeline),
    or only those whose label is in ``labels``."""
    candidates = generate_builtin(task, variants or Options().variants)
    return [c for c in candidates if labels is None or c.label in labels]


def builtin_estimates(task: KernelTask, inputs, variants: int | None = None, soc: str = SOC,
                      labels: set[str] | None = None) -> list[dict]:
    """The estimate of each built-in variant (or of those labelled ``labels``) at ``inputs``."""
    results = []
    for candidate in builtin_candidates(task, variants, labels):
        ns = estimate_ns(build(candidate.source), task, inputs, soc)
        results.append({"label": candidate.label, "time_ns": ns} if ns is not None
                       else {"label": candidate.label, "time_ns": None, "declined": True})
    return results


def evaluate(seed: Seed, task: KernelTask, kernel, variants: int | None = None, soc: str = SOC,
             labels: set[str] | None = None) -> Evaluation:
    """Full verification of the seed on ``task``, and its estimate against the built-in generator's
    variants (or those labelled ``labels``)."""
    sets = task_input_sets(task, generic=not task.specialized)
    runner = ContractKernel(kernel, task, soc)
    verdict = verify_loaded(task.reference(seed.function), runner, sets, None)
    names = tuple(s.name for s in sets)
    if not verdict.ok:
        return Evaluation(task, False, verdict.reason, (), names, None, ())
    seed_ns = estimate_ns(kernel, task, sets[0].tensors, soc)
    builtin = builtin_estimates(task, sets[0].tensors, variants, soc, labels)
    return Evaluation(task, True, "", verdict.passed_shapes, names, seed_ns, tuple(builtin))


def meta_for(seed: Seed, evaluation: Evaluation, soc: str = SOC) -> dict:
    """The seed entry's meta, but "source" and "config", which its index record holds."""
    task = evaluation.task
    return {
        "category": task.category,
        "name": seed.name,
        "description": seed.description,
        "task": task.graph_text,
        "inputs": [s.text() for s in task.inputs],
        "outputs": [s.text() for s in task.outputs],
        "generator": "seed",
        "project_version": torch_ascendgen.__version__,
        "torch_version": torch.__version__.split("+")[0],
        "traced_shapes": [list(s) for s in task.traced_shapes],
        "verified": {
            "how": "torch_ascendgen.evaluate.verify.verify_loaded on task_input_sets(task, "
                   "generic=not task.specialized), default dtype tolerances, simulator",
            "soc": soc,
            "input_sets": list(evaluation.input_sets),
            "passed_shapes": [list(map(list, shapes)) for shapes in evaluation.passed_shapes],
        },
        "estimate": {
            "soc": soc,
            "shapes": [list(s) for s in task.traced_shapes],
            "seed_ns": round(evaluation.seed_ns, 1),
            "builtin_best_ns": None if evaluation.builtin_best_ns is None else round(evaluation.builtin_best_ns, 1),
            "builtin": [{**b, "time_ns": None if b["time_ns"] is None else round(b["time_ns"], 1)}
                        for b in evaluation.builtin],
        },
    }


# ---- publishing -----------------------------------------------------------------------------------------


def read_index(root: Path) -> dict:
    """The records of ``<root>/seeds.json`` by task key ({} when there is none)."""
    path = root / SEED_INDEX
    return json.loads(path.read_text(encoding="utf-8"))["seeds"] if path.exists() else {}


def record_for(seed: Seed, evaluation: Evaluation, root: Path) -> dict:
    """The seed's index record for the evaluated task."""
    return seed_record(root, seed.source_file, seed.config, meta_for(seed, evaluation))


def write_index(root: Path, records: dict, whole: bool) -> None:
    """Write ``records`` as the index; unless ``whole``, the other seeds' records stay. Says what went."""
    old = read_index(root)
    new = records if whole else {**old, **records}
    for key in sorted(old.keys() - new.keys()):
        print(f"removed {old[key]['meta'].get('name')} [{key[:12]}] from {SEED_INDEX}")
    write_seed_index(root, dict(sorted(new.items())))


def _line(seed: Seed, evaluation: Evaluation) -> str:
    shapes = " ".join("x".join(map(str, s)) for s in evaluation.task.traced_shapes)
    if not evaluation.ok:
        return f"{seed.name:24} {shapes:28} FAILED verification: {evaluation.reason}"
    best = evaluation.builtin_best_ns
    builtin = "declines" if best is None else f"{best / 1000:7.2f} us"
    ratio = "" if best is None else f"  ({best / evaluation.seed_ns:.2f}x)"
    return (f"{seed.name:24} {shapes:28} seed {evaluation.seed_ns / 1000:7.2f} us   builtin best {builtin}{ratio}"
            f"   [{evaluation.task.key[:12]}]")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="seeds to build (default: all)")
    parser.add_argument("--check", action="store_true", help="verify and compare only; publish nothing")
    parser.add_argument("--root", type=Path, default=None,
                        help="the seed folder: its sources are read and its index written "
                             "(default: the repository's cache/)")
    args = parser.parse_args(argv)
    unknown = set(args.names) - {s.name for s in SEEDS}
    if unknown:
        parser.error(f"unknown seeds {sorted(unknown)}; known: {[s.name for s in SEEDS]}")
    root = args.root or SOURCES
    chosen = [s for s in SEEDS if not args.names or s.name in args.names]
    failures = 0
    records = {}
    for seed in chosen:
        source = seed.source_text(root)
        kernel = build(source)
        for task in seed_tasks(seed):
            evaluation = evaluate(seed, task, kernel)
            print(_line(seed, evaluation), flush=True)
            if not evaluation.ok or not evaluation.faster:
                failures += 1
                if evaluation.ok:
                    print("  not published: not faster than the built-in generator's best variant", flush=True)
                continue
            records[task.key] = record_for(seed, evaluation, root)
    if not args.check:
        write_index(root, records, whole=not args.names)
    if failures:
        print(f"{failures} seed task(s) not published")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
