"""Checked launches and repeated launches: what a model-written kernel cannot get past the search.

In a checked launch (the search's child) the kernel's GM and UB addresses are inaccessible: only the
simulator's API reaches the data, so a raw-pointer access faults and is reported with the argument, the
offset and the kernel's line. The child launches each candidate again in other block orders, so static
state and order-dependent results show. The adversarial kernels are in tests/diag_kernels/
(adversarial_add.cpp: one per MODE; atomic_colsum.cpp: correct, but its rounding depends on block order).
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
import torch

from torch_ascendgen.capture import capture
from torch_ascendgen.errors import KernelCrashError
from torch_ascendgen.evaluate.search import search
from torch_ascendgen.evaluate.verify import make_input_sets
from torch_ascendgen.records import Candidate
from torch_ascendgen.targets.sim.candidate import REPEAT_ELEMENTS, TOTAL_LAUNCHES, repeat_plan
from torch_ascendgen.targets.sim.simulator import compile_kernel
from torch_ascendgen.targets.soc import get_soc
from torch_ascendgen.targets.target import sim_target

KERNELS = Path(__file__).resolve().parents[1] / "diag_kernels"
ADVERSARIAL = (KERNELS / "adversarial_add.cpp").read_text()
RAW_HINT = "use DataCopy/DataCopyPad, or GlobalTensor::GetValue/SetValue for scalars"
MODES = {"ok": 0, "raw_write_past_output": 1, "raw_read_past_input": 2, "raw_in_bounds": 3, "raw_shared_write": 4,
         "static_counter": 5, "order_dependent": 6}


def add_one(x):
    return x + 1


def colsum(x):
    return x.sum(0)


def marked_line(case: str) -> int:
    """The line of ``// <- case`` in the candidate's source (one #define line in front of the file)."""
    for number, text in enumerate(ADVERSARIAL.splitlines(), start=2):
        if text.rstrip().endswith(f"// <- {case}"):
            return number
    raise LookupError(case)


@pytest.fixture(scope="module")
def adversarial_records() -> dict:
    task = capture(add_one, [torch.randn(4096)])
    candidates = [Candidate(f"#define MODE {mode}\n" + ADVERSARIAL, "test", {name: 1}) for name, mode in MODES.items()]
    result = search(task, add_one, candidates, make_input_sets(task.inputs, task.traced_shapes), None,
                    sim_target("Ascend910B2"))
    return dict(zip(MODES, result.records))


@pytest.mark.parametrize("case, access, place", [
    ("raw_write_past_output", "wrote to",
     "byte 16384 of kernel argument 1 (output 0), which has 16384 bytes: past its end"),
    ("raw_read_past_input", "read from",
     "byte 16384 of kernel argument 0 (input 0), which has 16384 bytes: past its end"),
    ("raw_in_bounds", "read from", "of kernel argument 0 (input 0), which has 16384 bytes: in bounds"),
    ("raw_shared_write", "read from", "byte 0 of kernel argument 0 (input 0), which has 16384 bytes: in bounds"),
])
def test_raw_gm_access_is_refused_with_the_argument_offset_and_line(adversarial_records, case, access, place):
    record = adversarial_records[case]
    assert not record.ok
    assert f"killed by SIGSEGV at kernel.cpp:{marked_line(case)} (in ascendgen_kernel)" in record.failure
    assert f"{access} GM through a raw pointer: " in record.failure and place in record.failure
    assert RAW_HINT in record.failure
    assert "ascendgen-fault-pc" not in record.failure  # the library's path stays here


def test_static_state_and_block_order_dependence_are_refused(adversarial_records):
    counter = adversarial_records["static_counter"]
    assert not counter.ok
    assert re.search(r"launch (\d+) \(block order seed \d+\) gave different results from the first launch on the "
                     r"same inputs: the kernel keeps state between launches, or its blocks race", counter.failure)
    assert int(re.search(r"launch (\d+)", counter.failure).group(1)) > 10
    order = adversarial_records["order_dependent"]
    assert not order.ok  # on the first launch when another block happened to start first, else on a repeat
    assert "block order seed" in order.failure or "differs at" in order.failure


def test_correct_kernels_are_accepted_and_ranked(adversarial_records):
    good = adversarial_records["ok"]
    assert good.ok, good.failure
    assert good.verdict.passed_shapes and good.measurement.time_ns > 0


def test_atomic_accumulation_across_blocks_is_accepted_though_its_rounding_follows_block_order():
    task = capture(colsum, [torch.randn(96, 64)])
    source = (KERNELS / "atomic_colsum.cpp").read_text()
    result = search(task, colsum, [Candidate(source, "test", {"colsum": 1})],
                    make_input_sets(task.inputs, task.traced_shapes), None, sim_target("Ascend910B2"))
    assert result.records[0].ok, result.records[0].failure


# ---- one kernel, launched directly ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def scalar_ub():
    return compile_kernel((KERNELS / "scalar_ub.cpp").read_text())


def _scalar_ub_args(mode: int, length: int = 1024):
    x = torch.randn(length)
    return x, torch.zeros(length), struct.pack("<II", length, mode)


def test_a_scalar_ub_loop_is_charged_and_loses_to_the_vector_instruction(scalar_ub):
    x, y, tiling = _scalar_ub_args(1)
    scalar = scalar_ub.launch(1, x, y, tiling, soc="Ascend910B2", checked=True)
    assert torch.equal(y, x + 1)
    vector = scalar_ub.launch(1, x, y, tiling[:4] + bytes(4), soc="Ascend910B2", checked=True)
    busy_s = scalar.cores[0]["pipe_busy_ns"]["S"]
    assert busy_s == pytest.approx(2 * 1024 * 4 / get_soc("Ascend910B2").clock_ghz)  # 4 cycles per access
    assert scalar.estimated_ns > vector.estimated_ns + 0.9 * busy_s


def test_a_raw_ub_pointer_from_get_phy_addr_is_refused_in_a_checked_launch(scalar_ub):
    x, y, tiling = _scalar_ub_args(2)
    scalar_ub.launch(1, x, y, tiling)  # unchecked (our own kernels in the user's process): real UB addresses
    assert torch.equal(y, x + 1)
    with pytest.raises(KernelCrashError) as error:
        scalar_ub.launch_isolated(1, x, torch.zeros_like(y), tiling, checked=True)
    text = str(error.value)
    assert "UB through a raw pointer (an address from LocalTensor::GetPhyAddr)" in text
    assert "LocalTensor::GetValue/SetValue" in text


def test_block_order_does_not_change_a_correct_result_or_the_estimate(scalar_ub):
    add = compile_kernel((Path(__file__).resolve().parents[1] / "kernels" / "add_custom.cpp").read_text())
    x, y = torch.randn(8 * 2048), torch.randn(8 * 2048)
    estimates = set()
    for seed in (0, 1, 2 ** 63 + 5):
        z = torch.zeros_like(x)
        estimates.add(add.launch(8, x, y, z, checked=True, block_order_seed=seed).estimated_ns)
        assert torch.equal(z, x + y)
    assert len(estimates) == 1


def test_the_repeat_plan_interleaves_sets_reaches_the_launch_count_and_keeps_to_its_budget():
    sizes = [100, 5000, None, REPEAT_ELEMENTS // 2, 7]
    plan = repeat_plan(sizes, done=4)
    assert len(plan) + 4 == TOTAL_LAUNCHES and 2 not in plan
    assert plan[:4] == [0, 1, 3, 4]  # every set that ran, in turn
    assert plan.count(3) == 1  # the big set once; the small ones make up the count
    assert sum(sizes[i] for i in plan) <= REPEAT_ELEMENTS
    assert repeat_plan([REPEAT_ELEMENTS + 1], done=1) == []  # a set too large for the budget is not repeated
