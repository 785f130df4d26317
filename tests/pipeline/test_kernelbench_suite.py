"""The KernelBench-format suite (benchmarks/kernelbench_suite): the first 58 problem files are well formed, and
the runner gives correct results end to end, kernel or fallback.

The full suite is a benchmark (python benchmarks/kernelbench_suite/run.py); here three representative
problems run through the runner (an elementwise activation, a row-wise softmax and a row norm), one problem with
its own list of cases (integer floor division and remainder at several ranks and dtypes, a zero-size case), and
one more through main() (a cumulative sum, which fell back when this was written). Whatever each becomes, kernel
or fallback, its results must be right. The model-porting problems' files (those listing CASES) are checked
without kernels in tests/unit/test_kernelbench_problems.py.
"""

import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest
import torch

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "kernelbench_suite" / "run.py"


def _load_runner():
    spec = importlib.util.spec_from_file_location("kernelbench_suite_run", RUN)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module


suite = _load_runner()
PROBLEMS = suite.discover()
FIRST = [p for p in PROBLEMS if p.category in suite.FIRST_CATEGORIES]
MAX_ELEMENTS = 1 << 20  # per tensor: the simulator runs every block of every kernel on the CPU


def test_suite_covers_every_category():
    by_category = {c: [p for p in PROBLEMS if p.category == c] for c in suite.CATEGORIES}
    assert len(PROBLEMS) >= 40
    assert {p.category for p in PROBLEMS} == set(suite.CATEGORIES), "problems sit in the listed categories only"
    assert len(FIRST) == 58, "the first 58 problems stay as they are"
    assert all(len(group) >= 5 for group in by_category.values()), {c: len(g) for c, g in by_category.items()}
    assert len({p.id for p in PROBLEMS}) == len(PROBLEMS)


@pytest.mark.parametrize("problem", FIRST, ids=lambda p: p.id)
def test_problem_format(problem):
    assert re.fullmatch(r"\d\d_[a-z0-9_]+", problem.name), "files are named <nn>_<name>.py"
    module = suite.load(problem)
    assert isinstance(module.Model, type) and issubclass(module.Model, torch.nn.Module)
    init_inputs = module.get_init_inputs()
    assert isinstance(init_inputs, (list, tuple))
    model = suite.build_model(module, seed=0)
    inputs = suite.case_inputs(module, None, seed=0)
    assert isinstance(inputs, list) and inputs
    assert any(isinstance(x, torch.Tensor) for x in inputs)
    for x in inputs:
        assert isinstance(x, (torch.Tensor, int, float)), f"input of type {type(x).__name__}"
        if isinstance(x, torch.Tensor):
            assert x.device.type == "cpu" and x.is_contiguous()
            assert x.numel() <= MAX_ELEMENTS, f"{list(x.shape)} is too large for the simulator"
    with torch.inference_mode():
        out = model(*inputs)
        again = model(*suite.case_inputs(module, None, seed=0))
    leaves = torch.utils._pytree.tree_leaves(out)
    assert leaves and all(isinstance(t, torch.Tensor) for t in leaves)
    assert not any(t.is_floating_point() and not torch.isfinite(t).all() for t in leaves), "reference is not finite"
    assert suite.compare(again, out) == "", "the same seed must give the same inputs and output"


def test_compare_catches_wrong_results():
    x = torch.randn(64, 33)
    assert suite.compare(x.clone(), x) == ""
    assert suite.compare(x + 1e-6, x) == ""
    assert "differs at 1 of" in suite.compare(torch.where(torch.arange(x.numel()).view_as(x) == 5, x + 0.1, x), x)
    assert "float16" in suite.compare(x.half(), x)
    assert "[64, 33]" in suite.compare(x.t().contiguous(), x)
    nan = x.clone()
    nan[3, 4] = math.nan
    assert suite.compare(nan, nan.clone()) == ""
    assert "differs" in suite.compare(nan, x)
    assert suite.compare((x, x[0]), (x, x[0])) == ""
    assert "structure" in suite.compare((x,), x)
    assert suite.compare(torch.tensor([1, 2]), torch.tensor([1, 3])).startswith("output 0 differs")


@pytest.fixture(scope="module")
def kernel_cache():
    """Kept between test runs (under the test build cache), so only a first run generates kernels."""
    from torch_ascendgen import config

    return config.cache_dir() / "kernelbench_suite"


@pytest.mark.parametrize("problem_id", ["activation/01_relu", "activation/05_softmax", "normalization/06_l2_norm"])
def test_end_to_end_results_are_correct(problem_id, kernel_cache):
    problem = next(p for p in PROBLEMS if p.id == problem_id)
    result = suite.run_problem(problem, variants=1, cache_dir=kernel_cache)
    assert result.status in ("kernel", "fallback"), result.reason
    assert result.correct, result.mismatch
    if result.status == "fallback":
        assert result.reason and "no kernel was used" not in result.reason
    else:
        assert result.winner and result.est_npu_us and result.est_npu_us > 0
    assert len(result.cases) == suite.DRAWS and result.total_s >= result.first_call_s > 0 and result.eager_s > 0


def test_a_problem_runs_over_its_cases_and_says_why_each_fell_back(kernel_cache):
    """Every case is covered or says why not (the decorator warns once per reason; the route says it for every
    case); the zero-size case has nothing to compute: its outputs are made empty, without a launch."""
    problem = next(p for p in PROBLEMS if p.id == "integer_logic/06_floor_divide_remainder")
    result = suite.run_problem(problem, variants=1, cache_dir=kernel_cache)
    module = suite.load(problem)
    assert len(result.cases) == len(module.CASES) and result.correct, result.mismatch
    assert [c.status for c in result.cases if "[0]" in c.label] in (["empty"], ["kernel"])
    for case in result.cases:
        assert case.status in ("kernel", "empty", "fallback"), case
        if case.status == "fallback":
            assert case.reason and "no warning said why" not in case.reason, case


def test_main_reports_and_scores(tmp_path, capsys):
    code = suite.main(["--only", "math/02_cumsum", "--cache-dir", str(tmp_path), "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert "correct results:  1/1 (100%)" in out
    assert ("verified kernels: 1/1" in out) == (code == 0)
    assert "math " in out and "all " in out
    assert (tmp_path / "r.json").exists()
    assert suite.main(["--only", "no such problem"]) == 2
