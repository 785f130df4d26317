"""Run the KernelBench-format problem suite through ``@ascend_kernel`` and report what became a kernel.

    python benchmarks/kernelbench_suite/run.py                 # every problem, cold kernel cache
    python benchmarks/kernelbench_suite/run.py --only norm     # problems whose path contains "norm"
    python benchmarks/kernelbench_suite/run.py --json out.json # also write the results as JSON

Each problem is one file under ``problems/<category>/`` written the way KernelBench writes its
level-1 problems: ``class Model(nn.Module)``, ``get_inputs()`` and ``get_init_inputs()``. For each
one the runner builds the model, wraps its ``forward`` with ``ascend_kernel``, calls it under
``torch.inference_mode()`` on ``get_inputs()`` and on two more draws, and compares every result with
the original model's (shape, dtype, NaN positions, ``torch.allclose`` with KernelBench's tolerances:
1e-4 for float32, 1e-2 for float16/bfloat16). A problem counts as a *kernel* when every call ran a
verified kernel and no AscendGenWarning was raised; otherwise it is a *fallback*, with the warning's
reason. Results must be correct either way.

Goals (from the issue): a verified kernel for at least 80% of the problems, correct results for all.

By default the kernel cache is a fresh temporary directory, so every problem's first call measures
generation (capture, generate, build, verify, measure). Simulator builds are still cached by
source content in the usual build cache; ``--cold-builds`` points that at the temporary directory
too (the first problem then also pays for the simulator's support library and runtime module).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shutil
import sys
import tempfile
import time
import traceback
import types
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
PROBLEMS = HERE / "problems"
CATEGORIES = ("activation", "broadcast", "reduce", "normalization", "loss", "math")
KERNEL_GOAL, CORRECT_GOAL = 0.80, 1.00
DRAWS = 3  # get_inputs() calls per problem: the first one (timed, builds the kernel) and two more
TOLERANCES = {torch.float32: (1e-4, 1e-4), torch.float16: (1e-2, 1e-2), torch.bfloat16: (1e-2, 1e-2),
              torch.float64: (1e-7, 1e-7)}

if str(HERE.parent.parent) not in sys.path:  # run from a checkout without installing the package
    sys.path.insert(0, str(HERE.parent.parent))


@dataclass
class Problem:
    category: str
    name: str  # e.g. "05_softmax"
    path: Path

    @property
    def id(self) -> str:
        return f"{self.category}/{self.name}"


@dataclass
class Result:
    problem: str
    category: str
    status: str  # "kernel", "fallback" or "error" (the wrapped call raised)
    correct: bool
    first_call_s: float
    reason: str = ""  # why it fell back, or what was wrong
    mismatch: str = ""  # the first wrong draw, when not correct
    origin: str = ""  # kernel: "search", "cache" or "seed"
    winner: str = ""  # kernel: the winning candidate's label
    est_npu_us: float | None = None  # kernel: the cost model's estimate for the winner at the traced shapes
    eager_ms: float | None = None  # the original forward on CPU, median of the later draws
    kernel_ms: float | None = None  # the wrapped forward (simulator on CPU), median of the later draws
    warnings: list[str] = field(default_factory=list)


# ---- problems ---------------------------------------------------------------------------------------------


def discover(only: str | None = None, root: Path = PROBLEMS) -> list[Problem]:
    """Every problem file, in category order then file order; ``only`` filters on the "category/name" id."""
    problems = []
    for category in sorted({p.name for p in root.iterdir() if p.is_dir()},
                           key=lambda c: (CATEGORIES.index(c) if c in CATEGORIES else len(CATEGORIES), c)):
        for path in sorted((root / category).glob("*.py")):
            problem = Problem(category, path.stem, path)
            if only is None or only in problem.id:
                problems.append(problem)
    return problems


def load(problem: Problem) -> types.ModuleType:
    """Import a problem file as its own module (problem files share names like ``Model``)."""
    module_name = f"kernelbench_suite_{problem.category}_{problem.name}"
    spec = importlib.util.spec_from_file_location(module_name, problem.path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for attribute in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(module, attribute):
            raise AttributeError(f"{problem.path} does not define {attribute}")
    return module


def draw_inputs(module: types.ModuleType, seed: int) -> list:
    torch.manual_seed(seed)
    return list(module.get_inputs())


def build_model(module: types.ModuleType, seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return module.Model(*module.get_init_inputs())


# ---- comparing ---------------------------------------------------------------------------------------------


def compare(got, expected) -> str:
    """"" when ``got`` matches ``expected`` (same structure, shapes, dtypes, NaN/inf positions, close values)."""
    got_leaves, got_tree = torch.utils._pytree.tree_flatten(got)
    expected_leaves, expected_tree = torch.utils._pytree.tree_flatten(expected)
    if got_tree != expected_tree:
        return f"output structure {got_tree} differs from the original's {expected_tree}"
    for index, (g, e) in enumerate(zip(got_leaves, expected_leaves)):
        if not isinstance(e, torch.Tensor):
            if g != e:
                return f"output {index} is {g!r}, expected {e!r}"
            continue
        if not isinstance(g, torch.Tensor):
            return f"output {index} is a {type(g).__name__}, expected a tensor"
        if g.shape != e.shape or g.dtype != e.dtype or g.device != e.device:
            return (f"output {index} is {g.dtype}{list(g.shape)} on {g.device}, expected {e.dtype}{list(e.shape)} "
                    f"on {e.device}")
        if not e.is_floating_point():
            if not torch.equal(g, e):
                return f"output {index} differs at {int((g != e).sum())} of {e.numel()} elements (exact dtype)"
            continue
        rtol, atol = TOLERANCES.get(e.dtype, (1e-4, 1e-4))
        if not torch.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True):
            g64, e64 = g.double(), e.double()
            bad = ~torch.isclose(g64, e64, rtol=rtol, atol=atol, equal_nan=True)
            diff = (g64 - e64).abs()
            finite = torch.isfinite(diff)
            worst = float(diff[finite].max()) if finite.any() else math.nan
            first = int(bad.reshape(-1).nonzero()[0])
            return (f"output {index} differs at {int(bad.sum())} of {e.numel()} elements (rtol {rtol:g}, atol "
                    f"{atol:g}); first at flat index {first}: expected {float(e.reshape(-1)[first]):.6g}, got "
                    f"{float(g.reshape(-1)[first]):.6g}; max abs error {worst:.3g}")
    return ""


def _clone(values: list) -> list:
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


# ---- running one problem ---------------------------------------------------------------------------------


def run_problem(problem: Problem, *, variants: int = 1, cache_dir: str | Path, seed: int = 0,
                draws: int = DRAWS) -> Result:
    """Build the problem's model, run its forward through ``ascend_kernel`` on ``draws`` input draws
    and compare each result with the original forward's."""
    from torch_ascendgen.frontends.decorator import AscendGenWarning, ascend_kernel

    module = load(problem)
    model = build_model(module, seed)
    kernel_forward = ascend_kernel(type(model).forward, variants=variants, cache_dir=cache_dir, progress=False)
    wrapped = types.MethodType(kernel_forward, model)  # the original model.forward stays the reference

    result = Result(problem.id, problem.category, "kernel", True, 0.0)
    messages: list[str] = []
    eager_times, kernel_times = [], []
    for draw in range(draws):
        inputs = draw_inputs(module, seed + 1000 * draw)
        with torch.inference_mode():
            started = time.perf_counter()
            expected = model(*_clone(inputs))
            eager_s = time.perf_counter() - started
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                started = time.perf_counter()
                try:
                    got = wrapped(*_clone(inputs))
                except Exception as exc:  # noqa: BLE001 - a raising wrapper is a wrong result, recorded as such
                    elapsed = time.perf_counter() - started
                    if draw == 0:
                        result.first_call_s = elapsed
                    result.status, result.correct = "error", False
                    result.reason = f"{type(exc).__name__}: {exc}"
                    result.mismatch = f"draw {draw}: the wrapped forward raised\n{traceback.format_exc()}"
                    break
                elapsed = time.perf_counter() - started
        if draw == 0:
            result.first_call_s = elapsed
        else:
            eager_times.append(eager_s)
            kernel_times.append(elapsed)
        for warning in caught:
            if issubclass(warning.category, AscendGenWarning):
                messages.append(_reason(str(warning.message)))
            else:
                result.warnings.append(f"{warning.category.__name__}: {warning.message}")
        problem_text = compare(got, expected)
        if problem_text and result.correct:
            result.correct = False
            result.mismatch = f"draw {draw}: {problem_text}"

    if result.status != "error":
        kernels = kernel_forward.kernels()
        if messages or not kernels:
            result.status = "fallback"
            result.reason = "; ".join(dict.fromkeys(messages)) or "no kernel was used and no warning said why"
        else:
            meta = kernels[0].entry.meta
            result.origin = kernels[0].origin
            result.winner = meta.get("winner", {}).get("label", "")
            time_ns = meta.get("winner", {}).get("time_ns")
            result.est_npu_us = time_ns / 1000 if time_ns else None
    if eager_times:
        result.eager_ms = 1000 * sorted(eager_times)[len(eager_times) // 2]
        result.kernel_ms = 1000 * sorted(kernel_times)[len(kernel_times) // 2]
    return result


def _reason(message: str) -> str:
    """The reason part of "torch_ascendgen: <name> runs as the original function: <reason>"."""
    marker = "runs as the original function: "
    return message.split(marker, 1)[1] if marker in message else message


# ---- the report ------------------------------------------------------------------------------------------


def _short(text: str, width: int) -> str:
    """One line of at most ``width`` characters: the start, and for long texts also the end (where a
    child's traceback keeps its exception)."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    if width < 200:
        return text[: width - 3] + "..."
    tail = width // 3
    return text[: width - tail - 5] + " ... " + text[-tail:]


def problem_table(results: list[Result]) -> str:
    width = max([len(r.problem) for r in results] + [7])
    lines = [f"{'problem':<{width}}  {'result':<8}  {'correct':<7}  {'1st call':>8}  {'est NPU':>9}  note",
             "-" * (width + 80)]
    for r in results:
        estimate = f"{r.est_npu_us:7.1f}us" if r.est_npu_us is not None else ""
        note = r.mismatch if not r.correct else (r.reason if r.status != "kernel" else r.winner)
        lines.append(f"{r.problem:<{width}}  {r.status:<8}  {'yes' if r.correct else 'NO':<7}  "
                     f"{r.first_call_s:7.1f}s  {estimate:>9}  {_short(note, 90)}")
    return "\n".join(lines)


def summary_table(results: list[Result]) -> str:
    categories = [c for c in CATEGORIES if any(r.category == c for r in results)]
    categories += sorted({r.category for r in results} - set(categories))
    rows = [(c, [r for r in results if r.category == c]) for c in categories] + [("all", results)]
    lines = [f"{'category':<14} {'problems':>8} {'kernels':>14} {'correct':>14} {'fallbacks':>9} {'1st call s':>10}",
             "-" * 74]
    for name, group in rows:
        if name == "all":
            lines.append("-" * 74)
        n = len(group)
        kernels = sum(r.status == "kernel" for r in group)
        correct = sum(r.correct for r in group)
        seconds = sum(r.first_call_s for r in group)
        lines.append(f"{name:<14} {n:>8} {_ratio(kernels, n):>14} {_ratio(correct, n):>14} {n - kernels:>9} "
                     f"{seconds:>10.1f}")
    return "\n".join(lines)


def _ratio(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / total:.0f}%)" if total else "-"


def verdict_lines(results: list[Result]) -> tuple[list[str], bool]:
    n = len(results)
    kernels = sum(r.status == "kernel" for r in results)
    correct = sum(r.correct for r in results)
    kernel_ok = n > 0 and kernels >= KERNEL_GOAL * n
    correct_ok = n > 0 and correct >= CORRECT_GOAL * n
    lines = [f"verified kernels: {_ratio(kernels, n)}, goal >= {KERNEL_GOAL:.0%}: {'PASS' if kernel_ok else 'FAIL'}",
             f"correct results:  {_ratio(correct, n)}, goal {CORRECT_GOAL:.0%}: {'PASS' if correct_ok else 'FAIL'}"]
    return lines, kernel_ok and correct_ok


def report(results: list[Result]) -> str:
    parts = [problem_table(results), "", summary_table(results), ""]
    verdict, _ = verdict_lines(results)
    parts += verdict
    fallbacks = [r for r in results if r.status != "kernel"]
    if fallbacks:
        parts += ["", "fell back (what the generator should learn next):"]
        parts += [f"  {r.problem}: {_short(r.reason, 600)}" for r in fallbacks]
    wrong = [r for r in results if not r.correct]
    if wrong:
        parts += ["", "WRONG RESULTS:"]
        parts += [f"  {r.problem}: {_short(r.mismatch, 1000)}" for r in wrong]
    return "\n".join(parts)


# ---- command line ----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", type=int, default=1, help="kernel variants per problem (default 1)")
    parser.add_argument("--only", default=None, help="run only problems whose 'category/name' contains this")
    parser.add_argument("--cache-dir", default=None,
                        help="kernel cache directory (default: a fresh temporary one, so generation is measured cold)")
    parser.add_argument("--cold-builds", action="store_true",
                        help="also build the simulator support, runtime module and kernels from scratch")
    parser.add_argument("--seed", type=int, default=0, help="seed for the models and the input draws")
    parser.add_argument("--json", default=None, help="write the results to this JSON file")
    parser.add_argument("--list", action="store_true", help="list the problems and exit")
    args = parser.parse_args(argv)

    problems = discover(args.only)
    if args.list:
        print("\n".join(p.id for p in problems))
        return 0
    if not problems:
        print(f"no problem matches {args.only!r}", file=sys.stderr)
        return 2

    temporary = None
    if args.cache_dir is None:
        temporary = tempfile.mkdtemp(prefix="kernelbench_suite_")
        cache_dir = Path(temporary)
    else:
        cache_dir = Path(args.cache_dir)
    if args.cold_builds:
        os.environ["TORCH_ASCENDGEN_CACHE_DIR"] = str(cache_dir / "builds")
    from torch_ascendgen import config

    print(f"{len(problems)} problems, variants={args.variants}, kernel cache {cache_dir}"
          f"{' (fresh: cold generation)' if temporary else ''}, simulator builds in {config.cache_dir()}"
          f"{'' if args.cold_builds else ' (reused by content)'}", flush=True)
    results = []
    started = time.perf_counter()
    try:
        for index, problem in enumerate(problems, 1):
            try:
                result = run_problem(problem, variants=args.variants, cache_dir=cache_dir, seed=args.seed)
            except Exception as exc:  # noqa: BLE001 - a broken problem file or reference is reported, not fatal
                result = Result(problem.id, problem.category, "error", False, 0.0,
                                reason=f"{type(exc).__name__}: {exc}",
                                mismatch=f"the problem itself failed: {type(exc).__name__}: {exc}")
            results.append(result)
            label = result.status if result.correct else f"{result.status}, WRONG"
            print(f"[{index:>2}/{len(problems)}] {problem.id}: {label} ({result.first_call_s:.1f} s)"
                  + (f" - {_short(result.reason, 100)}" if result.status != "kernel" else ""), flush=True)
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
    print(f"\n{report(results)}\n\ntotal {time.perf_counter() - started:.0f} s")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump([asdict(r) for r in results], handle, indent=1)
    _, passed = verdict_lines(results)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
