"""Budgets: verification's input sets are planned to fit a memory budget from the specs alone, a signature too big
to verify is refused up front, a search stops evaluating candidates once over its time budget, and a decorated
function on big tensors keeps the caller's peak memory within the budget (measured in a child process)."""

import math
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

from torch_ascendgen import config
from torch_ascendgen.capture import KernelTask, TensorSpec
from torch_ascendgen.errors import KernelBuildError, UnsupportedFunction
from torch_ascendgen.evaluate import search as search_module
from torch_ascendgen.evaluate.budgets import Budget, output_shapes, plan_bytes, set_cost
from torch_ascendgen.evaluate.verify import make_input_sets, plan_input_sets, verify
from torch_ascendgen.records import Candidate

MB, GB = 1 << 20, 1 << 30
F32_MATRIX = (TensorSpec(torch.float32, ("s0", "s1")),)
EMBEDDING_IN = (TensorSpec(torch.float32, ("s0", "s1")), TensorSpec(torch.int64, ("s0",)))
EMBEDDING_OUT = (TensorSpec(torch.float32, (32000, "s1")),)
KERNELS = Path(__file__).resolve().parents[1] / "diag_kernels"


def _plan_cost(plans, inputs, outputs):
    return plan_bytes(set_cost(inputs, outputs, p.shapes) for p in plans)


# --- planning (pure functions, no kernels) -------------------------------------------------------


def test_a_small_function_gets_every_set_at_full_size():
    plans = plan_input_sets(F32_MATRIX, [(4, 64)], F32_MATRIX, budget=Budget(4 * GB))
    assert [p.label for p in plans] == ["normal", "edge values", "inf and nan", "magnitudes", "break points", "tail",
                                        "tail", "many blocks"]
    assert plans[-1].shapes == make_input_sets(F32_MATRIX, [(4, 64)])[-1].shapes


@pytest.mark.parametrize("budget", [768 * MB, 1 * GB, 4 * GB])
def test_the_plan_for_a_fixed_size_output_fits_every_budget(budget):
    """Embedding dense backward: 0.4 MB of inputs give a 94 MB output (32000 rows); the tails' outputs grow
    with s1 alone, which the input-only element cap never saw."""
    plans = plan_input_sets(EMBEDDING_IN, [(128, 768), (128,)], EMBEDDING_OUT, budget=Budget(budget))
    assert plans[0].label == "normal" and plans[0].shapes == ((128, 768), (128,))
    assert _plan_cost(plans, EMBEDDING_IN, EMBEDDING_OUT) <= budget
    assert any(p.label.startswith("tail") for p in plans)  # a tail of the right pattern still fits
    for plan in plans:
        (rows, width), (indices,) = plan.shapes
        assert rows == indices  # the shared symbol keeps one value


def test_a_big_traced_shape_moves_its_edge_and_nan_sets_to_a_small_shape_of_the_same_pattern():
    specs = (TensorSpec(torch.float32, ("s0", 64, "s1")), TensorSpec(torch.float32, (1, 64, 1)))
    traced = [(4096, 64, 255), (1, 64, 1)]  # 255 MB
    plans = plan_input_sets(specs, traced, specs[:1], budget=Budget(4 * GB))
    by_label = {p.label: p.shapes for p in plans}
    assert by_label["normal"] == ((4096, 64, 255), (1, 64, 1))
    for label in ("edge values", "inf and nan"):
        (s0, fixed, s1), broadcast = by_label[label]
        assert fixed == 64 and broadcast == (1, 64, 1) and s0 % 2 and s1 % 2 and 3 <= s0 < 4096 and 3 <= s1 <= 255
        assert set_cost(specs, specs[:1], by_label[label]).tensors <= 32 * MB
    assert "tail" in by_label and "many blocks" in by_label
    assert _plan_cost(plans, specs, specs[:1]) <= 4 * GB


def test_a_specialised_big_task_with_room_for_one_more_set_gets_edge_values_and_nan_together():
    spec = TensorSpec(torch.float32, ("s0",))
    traced = [(64 * MB // 4,)]  # 64 MB in, 64 MB out
    normal_only = plan_bytes([set_cost([spec], [spec], traced[0:1])])
    budget = Budget(int(normal_only * 1.3))
    plans = plan_input_sets([spec], traced, [spec], generic=False, budget=budget)
    assert [p.label for p in plans] == ["normal", "edge values, inf and nan"]
    assert {p.shapes for p in plans} == {((64 * MB // 4,),)}
    sets = make_input_sets([spec], traced, generic=False, outputs=[spec], budget=budget)
    mixed = sets[1].tensors[0]
    assert torch.isnan(mixed).any() and torch.isinf(mixed).any() and (mixed == 0).any()
    assert ((mixed.abs() > 0) & (mixed.abs() < torch.finfo(torch.float32).tiny)).any()


def test_a_traced_shape_too_big_for_one_set_is_refused_naming_sizes_budget_and_setting():
    spec = TensorSpec(torch.float32, ("s0", "s1"))
    with pytest.raises(UnsupportedFunction) as refused:
        plan_input_sets([spec], [(16384, 16384)], [spec], budget=Budget(4 * GB))  # 1 GB in, 1 GB out
    message = str(refused.value)
    assert "[[16384, 16384]]" in message and "1.00 GB of inputs" in message and "4.00 GB" in message
    assert config.VERIFY_MEMORY_ENV in message


def test_a_set_too_big_for_the_candidate_child_names_the_child_limit():
    spec = TensorSpec(torch.float32, ("s0",))
    with pytest.raises(UnsupportedFunction, match=config.RUN_MEMORY_ENV):
        plan_input_sets([spec], [(128 * MB,)], [spec], budget=Budget(64 * GB, child=2 * GB))


def test_output_sizes_are_bound_from_symbols_and_expressions():
    specs = (TensorSpec(torch.float32, ("s0", "s1")),)
    outputs = (TensorSpec(torch.float32, ("2*s0", "s1//2", 7)), TensorSpec(torch.float32, ("s0*s1",)))
    assert output_shapes(specs, outputs, [(5, 9)]) == [(10, 4, 7), (45,)]


def test_the_default_memory_budget_protects_the_machine(monkeypatch):
    monkeypatch.delenv(config.VERIFY_MEMORY_ENV, raising=False)
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert 0 < config.verify_memory_bytes() <= min(4 * GB, physical // 4)
    monkeypatch.setenv(config.VERIFY_MEMORY_ENV, "0.5")
    assert config.verify_memory_bytes() == GB // 2


def test_planned_sets_still_catch_a_kernel_that_drops_nan():
    """The reduced plan keeps its defences: a kernel that maps NaN to 0 fails on the small inf/NaN set."""
    spec = TensorSpec(torch.float32, ("s0", "s1"))
    sets = make_input_sets([spec], [(2048, 2049)], outputs=[spec], budget=Budget(256 * MB))
    assert sets[0].shapes == ((2048, 2049),) and any("inf and nan" in s.name for s in sets)
    verdict = verify(torch.relu, lambda x: torch.relu(x).nan_to_num(0.0, posinf=math.inf, neginf=0.0), sets)
    assert not verdict.ok and "inf and nan" in verdict.input_set


# --- the search's time budget ----------------------------------------------------------------------


class _IdleWorker:
    calls_in_child = 0

    def start(self):
        pass


def test_a_search_over_its_time_budget_stops_evaluating_and_names_the_setting(monkeypatch):
    def slow_failing_build(candidate, task, target):
        time.sleep(0.3)
        return KernelBuildError(f"{candidate.label} does not build"), 0.3

    monkeypatch.setattr(search_module, "_build", slow_failing_build)
    task = KernelTask("f", "", F32_MATRIX, F32_MATRIX, "elementwise", False, ((4, 64),), None, None)
    candidates = [Candidate("", "builtin", {"n": i}, f"candidate {i}") for i in range(3)]
    result = search_module.search(task, torch.relu, candidates, [], None, None, worker=_IdleWorker(), budget_s=0.1)
    failures = [record.failure for record in result.records]
    assert "does not build" in failures[0]
    assert all(config.SIGNATURE_BUDGET_ENV in failure and "0.1 s" in failure for failure in failures[1:])
    assert result.winner is None


# --- decorated functions on big tensors: the caller's peak memory (in a child) --------------------


def _run_child(script: str, env: dict, timeout: float = 120) -> dict:
    """Run ``script`` in a fresh interpreter; it prints one line ``RESULT {...}`` read back as a dict."""
    completed = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                               timeout=timeout, env={**os.environ, **env})
    lines = [line for line in completed.stdout.splitlines() if line.startswith("RESULT ")]
    assert completed.returncode == 0 and lines, completed.stdout[-2000:] + completed.stderr[-3000:]
    return eval(lines[-1][len("RESULT "):])  # noqa: S307 - our own child's repr of a dict of numbers


_MEASURE = """
    import resource, warnings, torch
    from torch_ascendgen import AscendGenWarning, ascend_kernel

    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def run(function, *tensors):
        expected = function(*tensors)
        del expected  # the original's own peak is part of the baseline
        before = peak()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = ascend_kernel(function, progress=False)(*tensors)
        ours = [str(w.message) for w in caught if issubclass(w.category, AscendGenWarning)]
        others = [str(w.message) for w in caught if not issubclass(w.category, AscendGenWarning)]
        print("RESULT", dict(equal=bool(torch.equal(got, function(*tensors))), warnings=ours, others=others,
                             before=before, peak=peak()))
"""


def test_a_256_mb_elementwise_function_over_the_budget_runs_as_the_original_within_memory():
    result = _run_child(_MEASURE + """
    def scale_shift(x):
        return x * 0.75 + 0.25

    x = torch.randn(64 << 20)  # 256 MB
    run(scale_shift, x)
    """, {config.VERIFY_MEMORY_ENV: "1"})
    assert result["equal"] and len(result["warnings"]) == 1, result
    assert config.VERIFY_MEMORY_ENV in result["warnings"][0] and "0.25 GB of inputs" in result["warnings"][0]
    assert result["peak"] - result["before"] <= 1 * GB, result


def test_embedding_dense_backward_is_verified_within_the_budget_and_falls_back_with_one_warning():
    """A candidate that builds and runs on every planned set (and is wrong): the caller's peak growth stays
    within the budget although each set's output is 94 MB (32000 rows) for 0.4 MB of inputs."""
    kernel = (KERNELS / "zero_last_output.cpp").read_text()
    result = _run_child(_MEASURE + f"""
    import torch_ascendgen.pipeline as pipeline
    from torch_ascendgen.records import Candidate
    pipeline.generate = lambda task, variants: [Candidate({kernel!r}, "builtin", {{}}, "zeros")]
    pipeline.generate_fallback = lambda task, variants, failed: []  # one search round: the zeros kernel's

    def embedding_backward(grad, indices):
        return torch.ops.aten.embedding_dense_backward(grad, indices, 32000, -1, False)

    run(embedding_backward, torch.randn(128, 768), torch.randint(0, 32000, (128,)))
    """, {config.VERIFY_MEMORY_ENV: "1", config.SEARCH_WORKERS_ENV: "1"})
    assert result["equal"] and len(result["warnings"]) == 1, result
    assert "no candidate kernel passed verification" in result["warnings"][0], result
    assert "output 0 differs" in result["warnings"][0], result  # it ran on the sets and was compared
    assert result["peak"] - result["before"] <= 1 * GB, result
