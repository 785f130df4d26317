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

With --real-server the model is a real one: llama.cpp's OpenAI-compatible server (tests/llama_server.py)
serving a tiny random-weight model written for the run, a fresh server per configuration. Its replies are
noise, so every candidate is rejected at the screen and each sample is repaired `rounds` times: the table
shows the requests and screened candidates per minute that the real protocol sustains (llama-cpp-python's
server answers one request at a time, whatever the client's concurrency).

    python benchmarks/llm_bench.py
    python benchmarks/llm_bench.py --latency 2 --samples 4 --opt-rounds 2 --functions 2
    python benchmarks/llm_bench.py --real-server --samples 4 --rounds 2 --max-tokens 256
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
from dataclasses import astuple, dataclass
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
    judged: int
    built: int
    verified: int
    requests: int
    loop_s: float
    total_s: float

    def per_minute(self, count: int) -> float:
        return 60.0 * count / self.loop_s if self.loop_s > 0 else 0.0


@dataclass(frozen=True)
class LoopCounts:
    """What the model loops' transcripts record: candidates judged (the screen's verdicts included), built and
    verified, replies, failed requests, and seconds from first prompt to "done"."""

    judged: int = 0
    built: int = 0
    verified: int = 0
    replies: int = 0
    errors: int = 0
    seconds: float = 0.0

    def __add__(self, other: LoopCounts) -> LoopCounts:
        return LoopCounts(*(mine + theirs for mine, theirs in zip(astuple(self), astuple(other))))


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
    started = time.perf_counter()
    with FakeOpenAIServer(repeat(model)) as server:

        def prepare(function: Callable, tensors: list[torch.Tensor]) -> None:
            model.sources = builtin_sources(function, tensors, variants)

        counts = run_functions(server.url, functions, variants, prepare)
        requests = len(server.requests)
    return Run(concurrency, counts.judged, counts.built, counts.verified, requests, counts.seconds,
               time.perf_counter() - started)


def run_real_configuration(concurrency: int, functions: int, variants: int, model: Path) -> Run:
    """One configuration against a fresh llama.cpp server (its start is not counted)."""
    from llama_server import LlamaServer

    os.environ[config.LLM_CONCURRENCY_ENV] = str(concurrency)
    with LlamaServer(model) as server:
        started = time.perf_counter()
        counts = run_functions(server.url, functions, variants, lambda function, tensors: None)
        total_s = time.perf_counter() - started
    # llama.cpp's server sends one choice per request: each request left one reply, or one error, behind
    return Run(concurrency, counts.judged, counts.built, counts.verified, counts.replies + counts.errors,
               counts.seconds, total_s)


def run_functions(url: str, functions: int, variants: int,
                  prepare: Callable[[Callable, list[torch.Tensor]], None]) -> LoopCounts:
    """The first ``functions`` through ``@ascend_kernel(generator="llm")`` against ``url``, with a cache of
    their own; their model loops' counts, added up."""
    total = LoopCounts()
    with tempfile.TemporaryDirectory(prefix="llm-bench-") as cache_dir:
        transcripts = Path(cache_dir) / "transcripts"
        for function, make_inputs in FUNCTIONS[:functions]:
            tensors = make_inputs()
            prepare(function, tensors)
            kernel = ascend_kernel(function, generator="llm", variants=variants, cache_dir=cache_dir, strict=True,
                                   progress=False, llm_url=url)
            kernel(*tensors)
            total = total + loop_counts(transcripts)
            clear_transcripts(transcripts)
    return total


def loop_counts(transcripts: Path) -> LoopCounts:
    """The counts over every transcript under ``transcripts``."""
    total = LoopCounts()
    for path in transcripts.rglob("*.jsonl"):
        records = read(path)
        verdicts = [r for r in records if r["kind"] == "verdict"]
        built = [r for r in verdicts if r.get("stage") not in ("screen", "build")]
        times = [r["time"] for r in records if r["kind"] in ("prompt", "done")]
        total = total + LoopCounts(len(verdicts), len(built), sum(1 for r in built if r.get("ok")),
                                   sum(1 for r in records if r["kind"] == "reply"),
                                   sum(1 for r in records if r["kind"] == "error"),
                                   max(times) - min(times) if len(times) == 2 else 0.0)
    return total


def clear_transcripts(transcripts: Path) -> None:
    for path in transcripts.rglob("*.jsonl"):
        path.unlink()


def table(runs: list[Run]) -> str:
    rows = [
        ("model requests", lambda r: f"{r.requests}"),
        ("candidates judged", lambda r: f"{r.judged}"),
        ("candidates built", lambda r: f"{r.built}"),
        ("candidates verified", lambda r: f"{r.verified}"),
        ("model-loop seconds", lambda r: f"{r.loop_s:.1f}"),
        ("requests per minute", lambda r: f"{r.per_minute(r.requests):.1f}"),
        ("judged per minute", lambda r: f"{r.per_minute(r.judged):.1f}"),
        ("built per minute", lambda r: f"{r.per_minute(r.built):.1f}"),
        ("verified per minute", lambda r: f"{r.per_minute(r.verified):.1f}"),
        ("end-to-end seconds", lambda r: f"{r.total_s:.1f}"),
    ]
    header = f"{'':<22}" + "".join(f"{f'concurrency={r.concurrency}':>17}" for r in runs)
    lines = [header] + [f"{name:<22}" + "".join(f"{cell(r):>17}" for r in runs) for name, cell in rows]
    for what, count in (("requests", lambda r: r.requests), ("verified", lambda r: r.verified)):
        if len(runs) == 2 and runs[0].per_minute(count(runs[0])) > 0:
            speedup = runs[1].per_minute(count(runs[1])) / runs[0].per_minute(count(runs[0]))
            lines.append(f"{f'speed-up ({what})':<22}{'':>17}{speedup:>16.2f}x")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=2.0, help="seconds the fake model takes per reply")
    parser.add_argument("--samples", type=int, default=4, help="TORCH_ASCENDGEN_LLM_SAMPLES")
    parser.add_argument("--opt-rounds", type=int, default=2, help="TORCH_ASCENDGEN_LLM_OPT_ROUNDS")
    parser.add_argument("--functions", type=int, default=len(FUNCTIONS), help=f"how many of {len(FUNCTIONS)}")
    parser.add_argument("--variants", type=int, default=2, help="built-in variants (the baseline, the replies)")
    parser.add_argument("--real-server", action="store_true",
                        help="ask llama.cpp's server with a tiny random-weight model instead of the fake")
    parser.add_argument("--rounds", type=int, default=2, help="TORCH_ASCENDGEN_LLM_ROUNDS (repairs; --real-server)")
    parser.add_argument("--max-tokens", type=int, default=256, help="TORCH_ASCENDGEN_LLM_MAX_TOKENS (--real-server)")
    args = parser.parse_args()
    os.environ[config.LLM_SAMPLES_ENV] = str(args.samples)
    os.environ[config.LLM_OPT_ROUNDS_ENV] = str(args.opt_rounds)
    if args.real_server:
        runs = real_server_runs(args)
    else:
        print(f"fake model: {args.latency:g} s per reply, {args.samples} samples, {args.opt_rounds} optimisation "
              f"rounds, {args.functions} functions, {config.search_workers()} search workers", flush=True)
        warm_baseline(args.variants)
        runs = [run_configuration(c, args.functions, args.latency, args.variants) for c in CONCURRENCIES]
    print(table(runs))


def real_server_runs(args: argparse.Namespace) -> list[Run]:
    from llama_server import write_noise_model

    os.environ[config.LLM_ROUNDS_ENV] = str(args.rounds)
    os.environ[config.LLM_MAX_TOKENS_ENV] = str(args.max_tokens)
    print(f"llama.cpp's server, a tiny random-weight model: {args.samples} samples, {args.rounds} repair rounds, "
          f"max_tokens {args.max_tokens}, {args.functions} functions", flush=True)
    warm_baseline(args.variants)
    with tempfile.TemporaryDirectory(prefix="llm-bench-model-") as model_dir:
        model = write_noise_model(Path(model_dir) / "noise.gguf")
        return [run_real_configuration(c, args.functions, args.variants, model) for c in CONCURRENCIES]


if __name__ == "__main__":
    main()
