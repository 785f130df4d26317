"""The KernelBench-format problem suite (benchmarks/kernelbench_suite): every problem file loads and has the format
run.py documents, the model-porting problems (those listing CASES) number at least 150, every case runs in eager
PyTorch on the CPU and gives tensor outputs, and the cases together cover the ranks, dtypes and edge sizes real
operator test lists use. No kernel is generated here (the suite itself is run by run.py)."""

from __future__ import annotations

import importlib.util
import inspect
import sys
import warnings
from pathlib import Path

import pytest
import torch

RUNNER = Path(__file__).resolve().parents[2] / "benchmarks" / "kernelbench_suite" / "run.py"
MODEL_PORTING_MINIMUM = 150  # issue 15's "at least 150 problems"
FIRST_PROBLEMS = 58  # the original one-case problems, kept unchanged


def _load_runner():
    spec = importlib.util.spec_from_file_location("kernelbench_suite_run", RUNNER)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


run = _load_runner()


@pytest.fixture(scope="module")
def problems():
    """Every problem with its loaded module."""
    return [(problem, run.load(problem)) for problem in run.discover()]


@pytest.fixture(scope="module")
def eager(problems):
    """Every case of the model-porting problems run once in eager: the failures run.check_problem reports, and
    the inputs of every case. (The original 58 problems are unchanged; run.py --check runs them too.)"""
    failures, inputs = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. var() over an empty dim: the case is still valid PyTorch
        for problem, module in problems:
            if hasattr(module, "CASES"):
                failures += run.check_problem(problem, seen=inputs)
    return failures, inputs


def test_every_category_is_listed_in_the_runner():
    folders = {p.name for p in (RUNNER.parent / "problems").iterdir() if p.is_dir() and not p.name.startswith("_")}
    assert folders <= set(run.CATEGORIES), f"add these to CATEGORIES in run.py: {sorted(folders - set(run.CATEGORIES))}"


def test_every_problem_has_the_format(problems):
    wrong = []
    for problem, module in problems:
        if not (inspect.isclass(module.Model) and issubclass(module.Model, torch.nn.Module)):
            wrong.append(f"{problem.id}: Model is not an nn.Module")
        if not isinstance(module.get_init_inputs(), list):
            wrong.append(f"{problem.id}: get_init_inputs() does not return a list")
        if not hasattr(module, "CASES"):
            continue
        if not isinstance(module.CASES, list) or not module.CASES:
            wrong.append(f"{problem.id}: CASES is not a non-empty list")
            continue
        parameters = list(inspect.signature(module.get_inputs).parameters.values())
        if len(parameters) != 1 or parameters[0].default is not module.CASES[0]:
            wrong.append(f"{problem.id}: get_inputs must take one case, defaulting to CASES[0]")
        if "Where:" not in (module.Model.__doc__ or ""):
            wrong.append(f"{problem.id}: Model's docstring does not say where such code appears (Where: ...)")
    assert not wrong, "\n".join(wrong)


def test_at_least_150_model_porting_problems_and_the_first_58_unchanged(problems):
    with_cases = [problem.id for problem, module in problems if hasattr(module, "CASES")]
    without = [problem.id for problem, module in problems if not hasattr(module, "CASES")]
    assert len(with_cases) >= MODEL_PORTING_MINIMUM, f"{len(with_cases)} problems list CASES"
    assert len(without) == FIRST_PROBLEMS, f"{len(without)} problems without CASES, expected {FIRST_PROBLEMS}"


def test_every_case_runs_in_eager(eager):
    failures, _ = eager
    assert not failures, "\n".join(failures)


def test_the_cases_cover_ranks_dtypes_and_edge_sizes(eager):
    _, inputs = eager
    tensors = [t for case in inputs for t in torch.utils._pytree.tree_leaves(case) if isinstance(t, torch.Tensor)]
    ranks = {t.dim() for t in tensors}
    dtypes = {t.dtype for t in tensors}
    assert set(range(9)) <= ranks, f"no case has inputs of rank {sorted(set(range(9)) - ranks)}"
    wanted = {torch.float32, torch.float16, torch.bfloat16, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.uint8, torch.bool}
    assert wanted <= dtypes, f"no case has {sorted(map(str, wanted - dtypes))} inputs"
    assert any(t.numel() == 0 for t in tensors), "no case has a zero-size input"
    assert any(1 in t.shape for t in tensors), "no case has a size-1 dimension"


def test_compare_is_exact_on_integers_and_steps_float8():
    ints = torch.tensor([1, 2, 3])
    assert run.compare(ints, ints.clone()) == ""
    assert "exact dtype" in run.compare(ints, torch.tensor([1, 2, 4]))
    assert "exact dtype" in run.compare(torch.tensor([True, False]), torch.tensor([True, True]))
    fp8 = torch.tensor([1.0, 2.0, 448.0]).to(torch.float8_e4m3fn)
    assert run.compare(fp8, fp8.clone()) == ""
    assert "differs" in run.compare(torch.tensor([1.0, 2.5, 448.0]).to(torch.float8_e4m3fn), fp8)


def test_half_precision_inputs_loosen_a_float32_outputs_tolerance():
    assert run.tolerance(torch.float32, {torch.float32, torch.int64}) == (1e-4, 1e-4)
    assert run.tolerance(torch.float32, {torch.float16}) == (1e-2, 1e-2)
    assert run.tolerance(torch.bfloat16) == (1e-2, 1e-2)
    got, expected = torch.tensor([0.3628]), torch.tensor([0.3631])
    assert run.compare(got, expected) and not run.compare(got, expected, {torch.bfloat16})


def test_a_case_is_labelled_by_its_inputs():
    label = run.describe([torch.zeros(2, 0, 3, dtype=torch.float16), torch.zeros((), dtype=torch.int64), 3,
                          [torch.zeros(4)]])
    assert label == "float16[2,0,3] int64[] 3 (float32[4])"
