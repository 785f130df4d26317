"""Shared by the generator tests: cases captured, generated and built once, then fully verified."""

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import torch

from torch_ascendgen.capture import KernelTask, capture
from torch_ascendgen.evaluate.verify import Verdict, task_input_sets, verify_loaded
from torch_ascendgen.records import ENTRY, Candidate
from torch_ascendgen.targets.runtime import ContractKernel
from torch_ascendgen.targets.sim.simulator import compile_kernel


def build_cases(cases: dict, candidate: Callable[[KernelTask], Candidate]) -> dict:
    """name -> (task, kernel): every case captured and generated once, built in parallel (one compiler per core)."""
    generated = {}
    for name, (function, inputs) in cases.items():
        task = capture(function, inputs)
        generated[name] = (task, candidate(task))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        kernels = pool.map(lambda item: compile_kernel(item[1].source, ENTRY, contract=True), generated.values())
        return {name: (task, kernel) for (name, (task, _)), kernel in zip(generated.items(), kernels)}


def full_verification(function: Callable, task: KernelTask, kernel) -> Verdict:
    """The verifier's every input set (mixed-sign, edge, inf/NaN, tails, many blocks), in this process, against
    ``function`` as the task takes its inputs (a collapsed task's: KernelTask.reference)."""
    runner = ContractKernel(kernel, task, "Ascend910B2")
    sets = task_input_sets(task, generic=not task.specialized)
    return verify_loaded(task.reference(function), runner, sets, None)


def assert_same_as_torch(function: Callable, task: KernelTask, kernel, inputs: list, signs: bool = False) -> None:
    """The kernel's outputs on ``inputs`` are ``function``'s bit for bit (dtype, values, NaN where it has NaN; with
    ``signs``, the sign of every non-NaN float too: zeros keep theirs)."""
    got = ContractKernel(kernel, task, "Ascend910B2")(*inputs)
    expected = tuple(torch.utils._pytree.tree_leaves(function(*inputs)))
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype
        torch.testing.assert_close(g, e, rtol=0, atol=0, equal_nan=True)
        if signs and e.is_floating_point():
            assert torch.equal(torch.signbit(g)[~e.isnan()], torch.signbit(e)[~e.isnan()]), inputs
