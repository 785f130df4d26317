"""Failures are typed: each way a candidate loses has its FailureKind, set where it happens; a bug of ours during a
candidate's run is never scored as the candidate losing, but surfaces (strict: raised; default: one warning and the
original's result)."""

from __future__ import annotations

import dataclasses
import warnings

import pytest
import torch
import torch.nn.functional as F

from torch_ascendgen import AscendGenWarning, ascend_kernel, config
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import AscendGenError, InternalError, ShapeDeclined
from torch_ascendgen.evaluate import search as search_module
from torch_ascendgen.evaluate.search import search
from torch_ascendgen.evaluate.verify import make_input_sets
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.generators.llm.loop import _stage
from torch_ascendgen.records import Candidate, CandidateRecord, FailureKind
from torch_ascendgen.targets import runtime
from torch_ascendgen.targets.target import sim_target


def swiglu(gate, up):
    return F.gelu(gate, approximate="tanh") * up


ENTRY_BODY = "    op.Process();\n}"


def _edited(good: Candidate, label: str, old: str, new: str) -> Candidate:
    assert old in good.source
    return Candidate(good.source.replace(old, new), "test", {label: 1})


def _candidates(good: Candidate) -> dict[FailureKind | None, Candidate]:
    """One failing kernel per kind the search can tell (the good one under None)."""
    after = lambda extra: _edited(good, extra[0], ENTRY_BODY, f"    op.Process();\n    {extra[1]}\n}}")  # noqa: E731
    return {
        FailureKind.BUILD: _edited(good, "broken", "GET_TILING_DATA(t, tiling);",
                                   "GET_TILING_DATA(t, tiling); this is not C++;"),
        FailureKind.AUDIT: Candidate("#include <cstdlib>\nstatic int boom = (std::abort(), 0);\n" + good.source,
                                     "test", {"static_abort": 1}),
        FailureKind.DECLINED: _edited(good, "declines", "if (total == 0 || total > 0xFFFFFFFFull) return 0;",
                                      "return 0;"),
        FailureKind.RUN: after(("out_of_bounds", "{ GlobalTensor<float> g; g.SetGlobalBuffer((__gm__ float*)out0, 1); "
                                                 "g.SetValue(1u << 26, 1.0f); }")),
        FailureKind.CRASH: after(("crash", "*(volatile int*)nullptr = 1;")),
        FailureKind.TIMEOUT: after(("hang", "volatile uint32_t spin = 1; while (spin) {}")),
        FailureKind.MODIFIED_INPUT: after(("writes_input", "if (GetBlockIdx() == 0) { GlobalTensor<float> g; "
                                                           "g.SetGlobalBuffer((__gm__ float*)in0, 1); "
                                                           "g.SetValue(0, 12345.0f); }")),
        FailureKind.WRONG: _edited(good, "wrong", "Muls(out0, calc[0 * TILE], 1.0f, count);",
                                   "Muls(out0, calc[0 * TILE], 2.0f, count);"),
        None: good,
    }


@pytest.fixture(scope="module")
def searched():
    """Every representative candidate, built and run once (one search) for the module."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(config.RUN_TIMEOUT_ENV, "20")
        task = capture(swiglu, [torch.randn(8, 64), torch.randn(8, 64)])
        candidates = _candidates(generate_builtin(task, 1)[0])
        sets = make_input_sets(task.inputs, task.traced_shapes)
        result = search(task, swiglu, list(candidates.values()), sets, None, sim_target("Ascend910B2"))
    return dict(zip(candidates, result.records))


@pytest.mark.parametrize("kind", [k for k in FailureKind if k not in (FailureKind.SCREEN, FailureKind.BUDGET)],
                         ids=lambda k: k.value)
def test_each_failing_kernel_is_recorded_with_its_kind(searched, kind):
    record = searched[kind]
    assert not record.ok and record.failure_kind is kind, (record.failure_kind, record.failure)


def test_a_passing_kernel_has_no_failure_kind(searched):
    record = searched[None]
    assert record.ok and record.failure_kind is None and record.summary()["failure_kind"] is None


def test_candidates_left_when_the_budget_is_spent_are_budget_failures():
    task = capture(swiglu, [torch.randn(8, 64), torch.randn(8, 64)])
    good = generate_builtin(task, 1)[0]
    sets = make_input_sets(task.inputs, task.traced_shapes)
    (record,) = search(task, swiglu, [good], sets, None, sim_target("Ascend910B2"), budget_s=1e-9).records
    assert record.failure_kind is FailureKind.BUDGET and "not evaluated" in record.failure


@pytest.mark.parametrize("kind, stage", [(FailureKind.BUILD, "build"), (FailureKind.RUN, "simulator"),
                                         (FailureKind.CRASH, "simulator"), (FailureKind.DECLINED, "simulator"),
                                         (FailureKind.WRONG, "verify"), (FailureKind.MODIFIED_INPUT, "verify")])
def test_the_repair_stage_comes_from_the_kind_not_the_sentence(kind, stage):
    # a sentence that would have read as a build failure, and a verdict that would have read as a run failure
    record = CandidateRecord(Candidate("// k", "test"), None, "building nothing", None, 0.0, failure_kind=kind)
    assert _stage(record) == stage


def test_shape_declined_is_ours_and_still_a_value_error():
    assert issubclass(ShapeDeclined, AscendGenError) and issubclass(ShapeDeclined, ValueError)
    assert runtime.ShapeDeclined is ShapeDeclined


# ---- a bug of ours in the child is not the candidate's failure
#
# The bug: input sets of another rank than the task's (as if task_input_sets were wrong). The reference takes them;
# in the child, ContractKernel.plan raises a plain ValueError (runtime.bind_symbols) before the kernel runs.

def _other_rank(input_sets):
    """The sets' tensors with a trailing 1 (swiglu's task is 1-D: every rank is one elementwise task)."""
    return [dataclasses.replace(s, tensors=tuple(t.reshape(-1, 1) for t in s.tensors)) for s in input_sets]


def test_a_value_error_of_ours_in_the_child_is_raised_as_an_internal_error_with_the_childs_traceback():
    task = capture(swiglu, [torch.randn(8, 64), torch.randn(8, 64)])
    good = generate_builtin(task, 1)[0]
    sets = _other_rank(make_input_sets(task.inputs, task.traced_shapes))
    with pytest.raises(InternalError, match="ValueError: rank 2 where the kernel was made for rank 1") as caught:
        search(task, swiglu, [good], sets, None, sim_target("Ascend910B2"))
    assert "bind_symbols" in caught.value.child_traceback and "not of the kernel" in str(caught.value)
    assert not isinstance(caught.value, search_module._EXPECTED_FAILURES)


def _decorated(tmp_path, monkeypatch, strict: bool):
    from torch_ascendgen import pipeline

    real = pipeline.task_input_sets
    monkeypatch.setattr(pipeline, "task_input_sets", lambda *a, **k: _other_rank(real(*a, **k)))

    def fn(gate, up):
        return swiglu(gate, up)
    return ascend_kernel(fn, variants=1, progress=False, strict=strict, cache_dir=tmp_path)


def test_in_strict_mode_a_bug_during_a_candidates_run_is_raised(tmp_path, monkeypatch):
    fast = _decorated(tmp_path, monkeypatch, strict=True)
    with pytest.raises(InternalError, match="rank 2 where the kernel was made for rank 1"):
        fast(torch.randn(8, 64), torch.randn(8, 64))


def test_in_default_mode_a_bug_during_a_candidates_run_warns_as_a_bug_and_returns_the_originals_result(
        tmp_path, monkeypatch):
    fast = _decorated(tmp_path, monkeypatch, strict=False)
    gate, up = torch.randn(8, 64), torch.randn(8, 64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fast(gate, up)
    assert torch.equal(result, swiglu(gate, up))
    messages = [str(w.message) for w in caught if issubclass(w.category, AscendGenWarning)]
    assert len(messages) == 1 and "rank 2 where the kernel was made for rank 1" in messages[0]
    assert "please report it" in messages[0] and "not of the kernel" in messages[0]
