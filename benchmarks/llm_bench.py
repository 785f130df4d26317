"""The model generator's throughput through the whole pipeline, with a scripted model server:
candidates built and verified per minute with TORCH_ASCENDGEN_LLM_CONCURRENCY=1 and =4, side by
side in one run.

The fake server (tests/fake_openai.py) answers every request after a fixed latency with correct
kernels: the built-in generator's variants for the task, each with a comment that makes its
source new (so every candidate is really built, never a build-cache hit). Each configuration runs
the same functions through `@ascend_kernel(generator="llm")` with its own kernel cache: the
built-in baseline (its builds warmed beforehand, so both configurations pay the same), then the
model's loop: `samples` kernels in one request, then `opt_rounds` optimisation rounds in which every
sample asks again (these requests run in parallel, at most `concurrency` at a time).

Throughput is counted over the model loop (from its first prompt to its end, read from the task's
transcript); end-to-end seconds include capture and the baseline.

    python benchmarks/llm_bench.py
    python benchmarks/llm_bench.py --latency 2 --samples 4 --opt-rounds 2 --functions 2
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai import FakeOpenAIServer, repeat  # noqa: E402
from torch_ascendgen import (
    ascend_kernel,
    config,  # noqa: E402
)
from torch_ascendgen.capture import capture  # noqa: E402
from torch_ascendgen.generators.builtin.generator import generate_builtin as generate  # noqa: E402
from torch_ascendgen.generators.llm.transcript import read  # noqa: E402

CONCURRENCIES = (1, 4)


def swiglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    return F.silu(gate) * up


def scaled_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.relu(x * 0.5 + y)


def softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


FUNCTIONS: list[tuple[Callable, Callable[[], list[torch.Tensor]]]] = [
    (swiglu, lambda: [torch.randn(64, 512), torch.randn(64, 512)]),
    (scaled_relu, lambda: [torch.randn(32, 1024), torch.randn(32, 1024)]),
    (softmax, lambda: [torch.randn(64, 256)]),
]


@dataclass(frozen=True)
class Run:
    """One configuration's counts and times over all functions."""

    concurrency: int
    built: int
    verified: int
    requests: int
    loop_s: float
    total_s: float

    def per_minute(self, count: int) -> float:
        return 60.0 * count / self.loop_s if self.loop_s > 0 else 0.0


class CorrectKernels:
    """The fake model: every choice is one of the current task's built-in kernels, made unique."""

    def __init__(self, latency_s: float, tag: str):
        self.latency_s = latency_s
        self.tag = tag
        self.sources: list[str] = []
        self._counter = itertools.count()

    def __call__(self, request: dict) -> dict:
        choices = [{"content": self._reply(), "finish_reason": "stop"} for _ in range(int(request.get("n") or 1))]
        return {"choices": choices, "delay": self.latency_s}

    def _reply(self) -> str:
        number = next(self._counter)
        source = self.sources[number % len(self.sources)]
        return f"Here is the kernel.\n```cpp\n// llm_bench {self.tag} reply {number}\n{source}\n```\n"


def builtin_sources(function: Callable, tensors: list[torch.Tensor], variants: int) -> list[str]:
    return [candidate.source for candidate in generate(capture(function, tensors, function.__name__), variants)]


def warm_baseline(variants: int) -> None:
    """Build the built-in kernels once, so each configuration's baseline costs the same (build-cache hits)."""
    with tempfile.TemporaryDirectory(prefix="llm-bench-warm-") as cache_dir:
        for function, make_inputs in FUNCTIONS:
            kernel = ascend_kernel(function, generator="builtin", variants=variants, cache_dir=cache_dir,
                                   strict=True, progress=False)
            kernel(*make_inputs())


def run_configuration(concurrency: int, functions: int, latency_s: float, variants: int) -> Run:
    os.environ[config.LLM_CONCURRENCY_ENV] = str(concurrency)
    model = CorrectKernels(latency_s, f"c{concurrency}-{uuid.uuid4().hex[:8]}")
    built = verified = 0
    loop_s = 0.0
    started = time.perf_counter()
    with FakeOpenAIServer(repeat(model)) as server, tempfile.TemporaryDirectory(prefix="llm-bench-") as cache_dir:
        for function, make_inputs in FUNCTIONS[:functions]:
            tensors = make_inputs()
            model.sources = builtin_sources(function, tensors, variants)
            kernel = ascend_kernel(function, generator="llm", variants=variants, cache_dir=cache_dir, strict=True,
                                   progress=False, llm_url=server.url)
            kernel(*tensors)
            counts = loop_counts(Path(cache_dir) / "transcripts")
            built, verified, loop_s = built + counts[0], verified + counts[1], loop_s + counts[2]
            clear_transcripts(Path(cache_dir) / "transcripts")
        requests = len(server.requests)
    return Run(concurrency, built, verified, requests, loop_s, time.perf_counter() - started)


def loop_counts(transcripts: Path) -> tuple[int, int, float]:
    """Candidates built, candidates verified, and seconds from first prompt to "done", over the transcripts."""
    built = verified = 0
    seconds = 0.0
    for path in transcripts.rglob("*.jsonl"):
        records = read(path)
        verdicts = [r for r in records if r["kind"] == "verdict" and r.get("stage") not in ("screen", "build")]
        built += len(verdicts)
        verified += sum(1 for r in verdicts if r.get("ok"))
        times = [r["time"] for r in records if r["kind"] in ("prompt", "done")]
        seconds += max(times) - min(times) if len(times) == 2 else 0.0
    return built, verified, seconds


def clear_transcripts(transcripts: Path) -> None:
    for path in transcripts.rglob("*.jsonl"):
        path.unlink()


def table(runs: list[Run]) -> str:
    rows = [
        ("candidates built", lambda r: f"{r.built}"),
        ("candidates verified", lambda r: f"{r.verified}"),
        ("model requests", lambda r: f"{r.requests}"),
        ("model-loop seconds", lambda r: f"{r.loop_s:.1f}"),
        ("built per minute", lambda r: f"{r.per_minute(r.built):.1f}"),
        ("verified per minute", lambda r: f"{r.per_minute(r.verified):.1f}"),
        ("end-to-end seconds", lambda r: f"{r.total_s:.1f}"),
    ]
    header = f"{'':<22}" + "".join(f"{f'concurrency={r.concurrency}':>17}" for r in runs)
    lines = [header] + [f"{name:<22}" + "".join(f"{cell(r):>17}" for r in runs) for name, cell in rows]
    if len(runs) == 2 and runs[0].per_minute(runs[0].verified) > 0:
        speedup = runs[1].per_minute(runs[1].verified) / runs[0].per_minute(runs[0].verified)
        lines.append(f"{'speed-up':<22}{'':>17}{speedup:>16.2f}x")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=2.0, help="seconds the fake model takes per reply")
    parser.add_argument("--samples", type=int, default=4, help="TORCH_ASCENDGEN_LLM_SAMPLES")
    parser.add_argument("--opt-rounds", type=int, default=2, help="TORCH_ASCENDGEN_LLM_OPT_ROUNDS")
    parser.add_argument("--functions", type=int, default=len(FUNCTIONS), help=f"how many of {len(FUNCTIONS)}")
    parser.add_argument("--variants", type=int, default=2, help="built-in variants (the baseline, the replies)")
    args = parser.parse_args()
    os.environ[config.LLM_SAMPLES_ENV] = str(args.samples)
    os.environ[config.LLM_OPT_ROUNDS_ENV] = str(args.opt_rounds)
    print(f"fake model: {args.latency:g} s per reply, {args.samples} samples, {args.opt_rounds} optimisation "
          f"rounds, {args.functions} functions, {config.search_workers()} search workers", flush=True)
    warm_baseline(args.variants)
    runs = [run_configuration(c, args.functions, args.latency, args.variants) for c in CONCURRENCIES]
    print(table(runs))


if __name__ == "__main__":
    main()
