"""Run the KernelBench-format problem suite through ``@ascend_kernel``: coverage, correctness and time per problem.

    python benchmarks/kernelbench_suite/run.py                      # every problem, every case, cold kernel cache
    python benchmarks/kernelbench_suite/run.py --only norm          # problems whose "category/name" contains "norm"
    python benchmarks/kernelbench_suite/run.py --category rope,moe  # whole categories
    python benchmarks/kernelbench_suite/run.py --max-cases 2        # a quick subset: each problem's first 2 cases
    python benchmarks/kernelbench_suite/run.py --check              # eager only: every case runs, no kernels
    python benchmarks/kernelbench_suite/run.py --json out.json      # also write the results (and every case) as JSON

Each problem is one file under ``problems/<category>/`` written the way KernelBench writes its level-1
problems: ``class Model(nn.Module)``, ``get_inputs()`` and ``get_init_inputs()``. A problem may also list
the shapes and dtypes it is tested at, the way real operator test lists do:

    CASES = [((4, 128), torch.float32), ((0, 128), torch.float16), ((), torch.bfloat16), ...]

    def get_inputs(case=CASES[0]):      # one case's inputs; get_inputs() alone is the first case
        shape, dtype = case
        return [torch.randn(shape, dtype=dtype)]

A case is whatever that file's ``get_inputs`` understands (usually a shape and a dtype); the runner only
passes it back. ``get_init_inputs()`` builds one model for all of a problem's cases, so a model's parameters
have one size and the cases vary the forward's inputs (ranks 0 to 8, zero-size and size-1 dimensions,
float32/float16/bfloat16 and the integer types, where the function admits them). Integer index inputs are
valid for their case (in range; unique where the operation needs it). Every case runs in eager PyTorch on
the CPU (``--check`` and tests/unit/test_kernelbench_problems.py check that). A file without ``CASES`` (the
first 58 problems) is one case, drawn ``DRAWS`` times with different seeds.

For each problem the runner builds the model once, wraps its ``forward`` with ``ascend_kernel`` once, and
calls the wrapped forward on every case in order under ``torch.inference_mode()`` (so a kernel that serves
several cases, ranks or shapes is reused, as in a model), comparing each result with the original forward's
(shape, dtype, NaN positions; ``torch.allclose`` with KernelBench's tolerances, 1e-4 for float32 and 1e-2 for
float16/bfloat16, the looser one when half-precision inputs feed a float32 output; integer and bool outputs
exactly). A case is:

- *kernel*: the call ran a verified kernel and raised no AscendGenWarning;
- *empty*: an input is empty and so is every output: the original ran because there is nothing to compute
  (the decorator's rule); it counts as covered;
- *view*: every output is a view of an input (a reshape, a permute, an unbind): the original ran because there
  is nothing to compute either (eager's views copy nothing; the decorator's rule); it counts as covered;
- *fallback*: the original function ran, with the reason (the warning's, or the one the decorator gave that
  signature before: it warns once per reason, so later cases are read from its dispatch table);
- *error*: the wrapped call raised.

A case is *covered* when it is kernel, empty or view; a problem is *kernel* when every case is covered, *correct* when
every case's result matched. The report gives, per problem, its covered cases, the first call's time (capture,
generation, build, verification) and the total over all cases; per category (and for the first 58 problems and
the model-porting ones apart) the share of kernel problems, covered cases and correct problems; and the totals
against the goals (issue 15): a verified kernel for at least 85% of the problems, correct results for all.

By default the kernel cache is a fresh temporary directory, so every problem's first call measures
generation. Simulator builds are still cached by source content in the usual build cache; ``--cold-builds``
points that at the temporary directory too (the first problem then also pays for the simulator's support
library and runtime module).
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
FIRST_CATEGORIES = ("activation", "broadcast", "reduce", "normalization", "loss", "math")  # 58 problems, one case
PORTING_CATEGORIES = (  # model-porting functions with their own lists of shapes and dtypes (issue 15)
    "glu_activation", "rope", "norm_fused", "quant", "moe", "softmax_variants", "integer_logic", "movement",
    "indexing", "scan_sort", "loss_int_targets", "pooling_interp", "multi_domain",
)
CATEGORIES = FIRST_CATEGORIES + PORTING_CATEGORIES
KERNEL_GOAL, CORRECT_GOAL = 0.85, 1.00
DRAWS = 3  # a problem without CASES: get_inputs() drawn this many times (the first call builds the kernel)
TOLERANCES = {torch.float32: (1e-4, 1e-4), torch.float16: (1e-2, 1e-2), torch.bfloat16: (1e-2, 1e-2),
              torch.float64: (1e-7, 1e-7)}
FLOAT8_RTOL = 0.125  # float8 outputs (quantisers) are compared in float32, within one step of e4m3's mantissa
COVERED = ("kernel", "empty", "view")  # the case statuses that count as covered (see the module docstring)

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
class CaseResult:
    """One call of the wrapped forward on one case's inputs."""

    label: str  # the inputs, e.g. "float16[2,0,64] int64[2]"
    status: str  # "kernel", "empty", "view", "fallback" or "error" (see the module docstring)
    correct: bool
    seconds: float  # the wrapped call (the first case's includes capture, generation, build and verification)
    eager_seconds: float  # the original forward on the same inputs
    reason: str = ""  # why the original ran, or what the wrapped call raised
    mismatch: str = ""  # what was wrong with the result


@dataclass
class Result:
    problem: str
    category: str
    status: str  # "kernel" (every case covered), "fallback" or "error" (a wrapped call raised)
    correct: bool
    first_call_s: float
    total_s: float = 0.0  # the wrapped calls over all cases
    eager_s: float = 0.0  # the original forward over all cases
    reason: str = ""  # why cases fell back, or what was wrong
    mismatch: str = ""  # the first wrong case, when not correct
    origin: str = ""  # kernel: "search", "cache" or "seed"
    winner: str = ""  # kernel: the first kernel's winning candidate
    est_npu_us: float | None = None  # kernel: the cost model's estimate for that winner at its traced shapes
    kernels: int = 0  # distinct kernels the problem's cases used (one kernel may serve several cases)
    warnings: list[str] = field(default_factory=list)
    cases: list[CaseResult] = field(default_factory=list)

    @property
    def covered_cases(self) -> int:
        return sum(c.status in COVERED for c in self.cases)


# ---- problems ---------------------------------------------------------------------------------------------


def discover(only: str | None = None, root: Path = PROBLEMS, categories: list[str] | None = None) -> list[Problem]:
    """Every problem file, in category order then file order; ``only`` filters on the "category/name" id,
    ``categories`` on the category's exact name."""
    problems = []
    for category in sorted({p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))},
                           key=lambda c: (CATEGORIES.index(c) if c in CATEGORIES else len(CATEGORIES), c)):
        if categories and category not in categories:
            continue
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


def cases_of(module: types.ModuleType) -> list:
    """The problem's cases: its ``CASES``, or (a file without them) ``DRAWS`` draws of ``get_inputs()``."""
    if hasattr(module, "CASES"):
        return list(module.CASES)
    return [None] * DRAWS


def case_inputs(module: types.ModuleType, case, seed: int) -> list:
    """One case's inputs, drawn after seeding torch's generator."""
    torch.manual_seed(seed)
    return list(module.get_inputs() if case is None else module.get_inputs(case))


def build_model(module: types.ModuleType, seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return module.Model(*module.get_init_inputs())


def describe(inputs: list) -> str:
    """A case's label from its inputs: "float16[2,0,64] int64[2] 3"."""
    def one(value) -> str:
        if isinstance(value, torch.Tensor):
            return f"{str(value.dtype).removeprefix('torch.')}[{','.join(map(str, value.shape))}]"
        if isinstance(value, (list, tuple)):
            return "(" + " ".join(one(v) for v in value) + ")"
        return repr(value)
    return " ".join(one(v) for v in inputs)


# ---- comparing ---------------------------------------------------------------------------------------------


def compare(got, expected, input_dtypes=()) -> str:
    """"" when ``got`` matches ``expected`` (same structure, shapes, dtypes, NaN/inf positions, close values; integer
    and bool outputs exactly). ``input_dtypes``: the inputs' dtypes, for the tolerance (see ``tolerance``)."""
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
        if e.is_complex():
            g, e = torch.view_as_real(g), torch.view_as_real(e)
        if not e.is_floating_point():
            if not torch.equal(g, e):
                return f"output {index} differs at {int((g != e).sum())} of {e.numel()} elements (exact dtype)"
            continue
        rtol, atol = tolerance(e.dtype, input_dtypes)
        if e.element_size() == 1:  # float8: no arithmetic on CPU; compare the values in float32
            g, e, rtol, atol = g.float(), e.float(), FLOAT8_RTOL, 0.0
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


def tolerance(output_dtype: torch.dtype, input_dtypes=()) -> tuple[float, float]:
    """KernelBench's (rtol, atol) for the output's dtype, or for the least precise float dtype among the inputs when
    that is looser: a float32 result computed from float16 values carries float16's rounding in eager (eager rounds
    every intermediate to its dtype; a fused kernel computes in float32 and rounds once)."""
    known = [TOLERANCES[d] for d in (output_dtype, *input_dtypes) if d in TOLERANCES]
    return max(known, default=(1e-4, 1e-4))


def _dtypes(inputs: list, model: torch.nn.Module) -> set[torch.dtype]:
    tensors = [t for t in torch.utils._pytree.tree_leaves(inputs) if isinstance(t, torch.Tensor)]
    return {t.dtype for t in [*tensors, *model.parameters(), *model.buffers()]}


def _clone(values: list) -> list:
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


# ---- running one problem ---------------------------------------------------------------------------------


def run_problem(problem: Problem, *, variants: int = 1, cache_dir: str | Path, seed: int = 0,
                max_cases: int | None = None) -> Result:
    """Build the problem's model and wrap its ``forward`` with ``ascend_kernel`` once, run every case through
    it and compare each result with the original forward's."""
    from torch_ascendgen.frontends.decorator import ascend_kernel

    module = load(problem)
    model = build_model(module, seed)
    kernel_forward = ascend_kernel(type(model).forward, variants=variants, cache_dir=cache_dir, progress=False)
    wrapped = types.MethodType(kernel_forward, model)  # the original model.forward stays the reference

    result = Result(problem.id, problem.category, "kernel", True, 0.0)
    for index, case in enumerate(cases_of(module)[:max_cases]):
        inputs = case_inputs(module, case, seed + 1000 * index)
        outcome = run_case(model, wrapped, kernel_forward, inputs, result.warnings)
        result.cases.append(outcome)
        if outcome.status == "error":
            break  # the wrapper raised: later cases would say nothing more about the generator
    _summarize(result, kernel_forward.kernels())
    return result


def run_case(model: torch.nn.Module, wrapped, kernel_forward, inputs: list, other_warnings: list[str]) -> CaseResult:
    """One case: the original forward, then the wrapped one, compared; what ran is read from the warnings and
    the decorator's dispatch table."""
    from torch_ascendgen.frontends.decorator import AscendGenWarning

    label = describe(inputs)
    with torch.inference_mode():
        reference_inputs = _clone(inputs)
        started = time.perf_counter()
        expected = model(*reference_inputs)
        eager_s = time.perf_counter() - started
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            started = time.perf_counter()
            try:
                got = wrapped(*_clone(inputs))
            except Exception as exc:  # noqa: BLE001 - a raising wrapper is a wrong result, recorded as such
                return CaseResult(label, "error", False, time.perf_counter() - started, eager_s,
                                  reason=f"{type(exc).__name__}: {exc}",
                                  mismatch=f"the wrapped forward raised\n{traceback.format_exc()}")
            seconds = time.perf_counter() - started
        route, given = _route(kernel_forward, model, _clone(inputs))  # as called: a clone can lay a view out anew
    ours = []
    for warning in caught:
        if issubclass(warning.category, AscendGenWarning):
            ours.append(_reason(str(warning.message)))
        else:
            other_warnings.append(f"{label}: {warning.category.__name__}: {warning.message}")
    outcome = CaseResult(label, "kernel", True, seconds, eager_s,
                         mismatch=compare(got, expected, _dtypes(inputs, model)))
    outcome.correct = not outcome.mismatch
    if ours:
        outcome.status, outcome.reason = "fallback", "; ".join(dict.fromkeys(ours))
    elif route == "original" and given:
        outcome.status, outcome.reason = "fallback", given
    elif route == "original" and _has_empty(inputs, model):
        empty_out = all(t.numel() == 0 for t in torch.utils._pytree.tree_leaves(expected)
                        if isinstance(t, torch.Tensor))
        outcome.status = "empty" if empty_out else "fallback"
        outcome.reason = "" if empty_out else "an input is empty, so the original ran, but an output is not empty"
    elif route == "original" and _views_of_inputs(expected, reference_inputs, model):
        outcome.status = "view"
    elif route != "kernel" or not kernel_forward.kernels():
        outcome.status, outcome.reason = "fallback", "no kernel was used and no warning said why"
    return outcome


def _route(kernel_forward, model: torch.nn.Module, inputs: list) -> tuple[str, str]:
    """What the decorated forward ran for this call's signature (``KernelFunction.route``): ("kernel", ""),
    ("original", the reason, "" when quiet) or ("unseen", "")."""
    return kernel_forward.route(model, *inputs)


def _views_of_inputs(expected, inputs: list, model: torch.nn.Module) -> bool:
    """Whether every output of the original's call shares memory with an input (or a parameter or buffer)."""
    tensors = [t for t in torch.utils._pytree.tree_leaves(inputs) if isinstance(t, torch.Tensor)]
    storages = {t.untyped_storage().data_ptr() for t in [*tensors, *model.parameters(), *model.buffers()]}
    outputs = [t for t in torch.utils._pytree.tree_leaves(expected) if isinstance(t, torch.Tensor)]
    return bool(outputs) and all(t.untyped_storage().data_ptr() in storages for t in outputs)


def _has_empty(inputs: list, model: torch.nn.Module) -> bool:
    tensors = [t for t in torch.utils._pytree.tree_leaves(inputs) if isinstance(t, torch.Tensor)]
    tensors += [*model.parameters(), *model.buffers()]
    return any(t.numel() == 0 for t in tensors)


def _summarize(result: Result, kernels: list) -> None:
    """The problem's verdict from its cases, and the first kernel's provenance."""
    cases = result.cases
    result.first_call_s = cases[0].seconds if cases else 0.0
    result.total_s = sum(c.seconds for c in cases)
    result.eager_s = sum(c.eager_seconds for c in cases)
    result.correct = bool(cases) and all(c.correct for c in cases)
    wrong = next((c for c in cases if not c.correct), None)
    if wrong is not None:
        result.mismatch = f"case {wrong.label}: {wrong.mismatch}"
    if any(c.status == "error" for c in cases):
        result.status = "error"
    elif not cases or any(c.status not in COVERED for c in cases):
        result.status = "fallback"
    reasons = dict.fromkeys(c.reason for c in cases if c.reason)
    result.reason = "; ".join(reasons) if cases else "no cases"
    result.kernels = len(kernels)
    if kernels:
        meta = kernels[0].entry.meta
        result.origin = kernels[0].origin
        result.winner = meta.get("winner", {}).get("label", "")
        time_ns = meta.get("winner", {}).get("time_ns")
        result.est_npu_us = time_ns / 1000 if time_ns else None


def _reason(message: str) -> str:
    """The reason part of "torch_ascendgen: <name> runs as the original function: <reason>"."""
    marker = "runs as the original function: "
    return message.split(marker, 1)[1] if marker in message else message


# ---- checking the problems in eager (no kernels) ---------------------------------------------------------


def check_problem(problem: Problem, seed: int = 0, max_cases: int | None = None,
                  seen: list | None = None) -> list[str]:
    """What is wrong with a problem file, run in eager only: its format, and any case that does not run or
    gives no tensor output. An empty list when it is fine. ``seen``, when given, receives every case's inputs."""
    try:
        module = load(problem)
        model = build_model(module, seed)
    except Exception as exc:  # noqa: BLE001 - reported
        return [f"{problem.id}: does not load: {type(exc).__name__}: {exc}"]
    cases = cases_of(module)
    if not cases:
        return [f"{problem.id}: CASES is empty"]
    problems = []
    for index, case in enumerate(cases[:max_cases]):
        try:
            inputs = case_inputs(module, case, seed + 1000 * index)
            if seen is not None:
                seen.append(inputs)
            with torch.inference_mode():
                outputs = model(*_clone(inputs))
        except Exception as exc:  # noqa: BLE001 - reported
            problems.append(f"{problem.id}: case {index} ({case!r}) fails in eager: {type(exc).__name__}: {exc}")
            continue
        if not any(isinstance(t, torch.Tensor) for t in torch.utils._pytree.tree_leaves(outputs)):
            problems.append(f"{problem.id}: case {index} ({describe(inputs)}) gives no tensor output")
    return problems


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
    lines = [f"{'problem':<{width}}  {'result':<8}  {'correct':<7}  {'cases':>7}  {'1st call':>8}  {'total':>7}  "
             f"{'est NPU':>9}  note", "-" * (width + 100)]
    for r in results:
        estimate = f"{r.est_npu_us:7.1f}us" if r.est_npu_us is not None else ""
        note = r.mismatch if not r.correct else (r.reason if r.status != "kernel" else r.winner)
        cases = f"{r.covered_cases}/{len(r.cases)}"
        lines.append(f"{r.problem:<{width}}  {r.status:<8}  {'yes' if r.correct else 'NO':<7}  {cases:>7}  "
                     f"{r.first_call_s:7.1f}s  {r.total_s:6.1f}s  {estimate:>9}  {_short(note, 90)}")
    return "\n".join(lines)


def summary_table(results: list[Result]) -> str:
    categories = [c for c in CATEGORIES if any(r.category == c for r in results)]
    categories += sorted({r.category for r in results} - set(categories))
    rows = [(c, [r for r in results if r.category == c]) for c in categories]
    first = [r for r in results if r.category in FIRST_CATEGORIES]
    if first and len(first) < len(results):  # both parts ran: their subtotals too
        rows += [("first 58", first), ("model-porting", [r for r in results if r.category not in FIRST_CATEGORIES])]
    rows += [("all", results)]
    header = (f"{'category':<17} {'problems':>8} {'kernel problems':>16} {'covered cases':>16} {'correct':>14} "
              f"{'1st call s':>10} {'total s':>8}")
    lines = [header, "-" * len(header)]
    for name, group in rows:
        if name in ("all", "first 58"):
            lines.append("-" * len(header))
        n = len(group)
        kernels = sum(r.status == "kernel" for r in group)
        cases = sum(len(r.cases) for r in group)
        covered = sum(r.covered_cases for r in group)
        correct = sum(r.correct for r in group)
        lines.append(f"{name:<17} {n:>8} {_ratio(kernels, n):>16} {_ratio(covered, cases):>16} "
                     f"{_ratio(correct, n):>14} {sum(r.first_call_s for r in group):>10.1f} "
                     f"{sum(r.total_s for r in group):>8.1f}")
    return "\n".join(lines)


def _ratio(count: int, total: int) -> str:
    """"count/total (p%)", the percentage rounded down (so 99.6% never shows as 100%)."""
    return f"{count}/{total} ({100 * count // total}%)" if total else "-"


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
    statuses = [c.status for r in results for c in r.cases]
    counts = ", ".join(f"{statuses.count(s)} {s}" for s in ("kernel", "empty", "view", "fallback", "error"))
    parts = [problem_table(results), "", summary_table(results), "",
             f"cases: {counts} (covered: kernel, or empty or view with nothing to compute)"]
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
    parser.add_argument("--category", default=None,
                        help=f"run only these categories, comma-separated (of: {', '.join(CATEGORIES)})")
    parser.add_argument("--max-cases", type=int, default=None, help="run only each problem's first N cases")
    parser.add_argument("--cache-dir", default=None,
                        help="kernel cache directory (default: a fresh temporary one, so generation is measured cold)")
    parser.add_argument("--cold-builds", action="store_true",
                        help="also build the simulator support, runtime module and kernels from scratch")
    parser.add_argument("--seed", type=int, default=0, help="seed for the models and the input draws")
    parser.add_argument("--json", default=None, help="write the results to this JSON file")
    parser.add_argument("--list", action="store_true", help="list the problems with their number of cases and exit")
    parser.add_argument("--check", action="store_true",
                        help="run every case in eager only (no kernels) and report problems that fail or are malformed")
    args = parser.parse_args(argv)

    categories = args.category.split(",") if args.category else None
    unknown = set(categories or ()) - set(CATEGORIES)
    if unknown:
        print(f"unknown categories {sorted(unknown)}; known: {', '.join(CATEGORIES)}", file=sys.stderr)
        return 2
    problems = discover(args.only, categories=categories)
    if not problems:
        print(f"no problem matches --only {args.only!r} --category {args.category!r}", file=sys.stderr)
        return 2
    if args.list:
        for problem in problems:
            print(f"{problem.id}  ({len(cases_of(load(problem)))} cases)")
        return 0
    if args.check:
        return _check(problems, args.seed, args.max_cases)

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
            result = _run_or_report(problem, args, cache_dir)
            results.append(result)
            label = result.status if result.correct else f"{result.status}, WRONG"
            print(f"[{index:>3}/{len(problems)}] {problem.id}: {label}, {result.covered_cases}/{len(result.cases)} "
                  f"cases ({result.first_call_s:.1f} s first, {result.total_s:.1f} s total)"
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


def _run_or_report(problem: Problem, args: argparse.Namespace, cache_dir: Path) -> Result:
    try:
        return run_problem(problem, variants=args.variants, cache_dir=cache_dir, seed=args.seed,
                           max_cases=args.max_cases)
    except Exception as exc:  # noqa: BLE001 - a broken problem file or reference is reported, not fatal
        return Result(problem.id, problem.category, "error", False, 0.0, reason=f"{type(exc).__name__}: {exc}",
                      mismatch=f"the problem itself failed: {type(exc).__name__}: {exc}")


def _check(problems: list[Problem], seed: int, max_cases: int | None) -> int:
    started = time.perf_counter()
    failures = [line for problem in problems for line in check_problem(problem, seed, max_cases)]
    cases = sum(len(cases_of(load(p))[:max_cases]) for p in problems)
    print("\n".join(failures) if failures else "every case runs in eager")
    print(f"{len(problems)} problems, {cases} cases checked in {time.perf_counter() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
