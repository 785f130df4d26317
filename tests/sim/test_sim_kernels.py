"""Every kernel in tests/kernels, run on the simulator and compared with torch (cases: sim_cases.py).

Each kernel is built once per session (compile_kernel also caches builds on disk by content).
A launch must leave its inputs unchanged and write every output element (outputs start as NaN
or an integer sentinel). Kernels that break a hardware rule must raise SimulatorError.
"""

from __future__ import annotations

import functools
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from sim_cases import CASES, KERNEL_DIR, NEGATIVE_CASES, Case, kernel_source, param_id, seed_for

simulator = pytest.importorskip("torch_ascendgen.targets.sim.simulator")
errors = pytest.importorskip("torch_ascendgen.errors")


@functools.cache
def kernel_for(kernel: str, entry: str):
    source = kernel_source(kernel)
    return simulator.compile_kernel(source, entry=entry, filename=f"tests/kernels/{kernel}.cpp")


@pytest.fixture(scope="session", autouse=True)
def prebuild_kernels(request):
    """Compile the selected tests' kernels up front, one g++ per CPU; the tests then load them from
    the build cache. A kernel that fails to build is left for its own tests to report.
    """
    try:
        from torch_ascendgen.targets.sim.build import build_sim_kernel
    except ImportError:
        return
    wanted = set()
    for item in request.session.items:
        if getattr(item, "module", None) is not sys.modules[__name__]:
            continue  # other files' "case" parameters are other things
        case = getattr(getattr(item, "callspec", None), "params", {}).get("case")
        if case is not None:
            wanted.add((case.kernel, case.entry_name))
    jobs = [(kernel_source(kernel), entry) for kernel, entry in sorted(wanted)]
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        for future in [pool.submit(build_sim_kernel, source, entry) for source, entry in jobs]:
            try:
                future.result()
            except Exception:  # reported by the kernel's own tests
                pass


def _params():
    for case in CASES:
        for param in case.params:
            reason = case.xfail_reason(param)
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            yield pytest.param(case, param, id=f"{case.kernel}[{param_id(param)}]", marks=marks)


@pytest.mark.parametrize("case, param", list(_params()))
def test_kernel_matches_torch(case: Case, param) -> None:
    kernel = kernel_for(case.kernel, case.entry_name)
    gen = torch.Generator().manual_seed(seed_for(case.kernel, param))
    launch = case.build(param, gen)
    inputs_before = {i: launch.args[i].clone() for i in launch.inputs}

    report = kernel.launch(launch.block_dim, *launch.args, soc=launch.soc)
    assert report.estimated_ns > 0 and report.cores, "the report should carry a time estimate and core counters"

    for i, before in inputs_before.items():
        assert torch.equal(launch.args[i], before), f"{case.kernel}: input {i} was modified by the kernel"
    for check in launch.checks:
        actual = check.actual(launch.args)
        expected = check.expected
        assert actual.shape == expected.shape, f"{check.name}: shape {tuple(actual.shape)} != {tuple(expected.shape)}"
        assert actual.dtype == expected.dtype, f"{check.name}: dtype {actual.dtype} != {expected.dtype}"
        torch.testing.assert_close(actual, expected, rtol=check.tol.rtol, atol=check.tol.atol, equal_nan=False,
                                   msg=lambda m, name=check.name: f"{case.kernel} [{param_id(param)}] {name}: {m}")


@pytest.mark.parametrize("case", NEGATIVE_CASES, ids=lambda c: c.test_id)
def test_rule_violation_is_reported(case) -> None:
    kernel = kernel_for(case.kernel, case.entry_name)
    with pytest.raises(errors.SimulatorError) as info:
        kernel.launch(case.block_dim, *case.make_args(), soc=case.soc)
    err = info.value
    assert err.kind == case.kind, f"expected a {case.kind} report, got {err.kind}: {err.message}"
    assert err.message and err.block >= 0
    if err.file.endswith(f"{case.kernel}.cpp"):
        assert err.line > 0 and err.source_line.strip(), "the report should point at the kernel line"


def test_every_kernel_file_has_a_case() -> None:
    covered = {c.kernel for c in CASES} | {c.kernel for c in NEGATIVE_CASES}
    files = {p.stem for p in KERNEL_DIR.glob("*.cpp")}
    assert files == covered, (
        f"kernels without a case: {sorted(files - covered)}; cases without a file: {sorted(covered - files)}"
    )
    assert len(files) >= 32
