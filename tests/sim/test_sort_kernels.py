"""The built-in generator's sorting, top-k and histogram kernels (generators/builtin/sort.py, histc.py;
csrc/templates/sort.cpp, histc.cpp) against torch's CPU results: values bit for bit, indices exactly.

Each kernel is captured, generated and built once for the module (in parallel); every case then runs on rows of
small integers (many ties), of NaN (both signs), zeros of both signs and infinities among normal values, at
lengths that are not multiples of 32, several rows to a tile, rows longer than one chunk (merged through the
workspace, or kept best-k), and more rows than cores. Torch's order among equal values is std::sort's and
std::nth_element's (tests/unit/test_torch_tie_order.py); the kernels reproduce it exactly or decline the shape.
"""

from __future__ import annotations

import pytest
import torch

from generated_kernels import build_cases, full_verification
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import ShapeDeclined, UnsupportedFunction
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.targets.runtime import ContractKernel

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16
SHORT = [(37, 300), (3, 7), (2, 33), (61, 64), (5, 2048)]  # 37 x 300: two rows a tile, tiles on several cores
LONG = [(3, 2049), (2, 5000)]                              # longer than one 2048-element chunk
VALUES = ("ties", "specials", "negative_nan", "sparse_nan")


def sort_desc_stable(x):
    return torch.sort(x, dim=-1, descending=True, stable=True)


CASES = {
    # long rows, fewer than the cores: several blocks share a row (SyncAll); 50 long rows: a block each
    "topk_f32": (lambda x: torch.topk(x, 4), F32, SHORT + LONG + [(1, 40000)]),
    "topk_smallest_bf16": (lambda x: torch.topk(x, 3, largest=False), BF16, SHORT + LONG + [(50, 2100), (1, 40000)]),
    "topk_values_f16": (lambda x: torch.topk(x, 5).values, F16, SHORT[:1] + [(4, 9)] + LONG[:1]),
    # k * 64 > n: std::nth_element's order, the row whole in UB (up to 2 chunks); k * 64 <= n: a streamed heap
    "topk_k100_indices_f32": (lambda x: torch.topk(x, 100)[1], F32, [(4, 100), (3, 101), (3, 3000), (2, 4096),
                                                                     (1, 6401)]),
    # sorted=False: std::nth_element's arrangement where k * 64 > n (the scalar unit's), partial_sort's elsewhere
    "topk_unsorted_f32": (lambda x: torch.topk(x, 6, sorted=False), F32, [(37, 300), (3, 7), (4, 100), (2, 3000),
                                                                          (3, 2049)]),
    "sort_stable_desc_f32": (sort_desc_stable, F32, SHORT + LONG + [(1, 9000)]),
    "sort_stable_asc_bf16": (lambda x: torch.sort(x, stable=True), BF16, SHORT + LONG),
    "sort_stable_values_f16": (lambda x: torch.sort(x, stable=True).values, F16, SHORT[:2] + LONG[:1]),
    "sort_unstable_desc_f16": (lambda x: torch.sort(x, descending=True), F16, SHORT + [(4, 16), (4, 17)] + LONG),
    "argsort_f32": (torch.argsort, F32, SHORT + [(4, 17)]),
    "sort_trailing_ones_f32": (lambda x: torch.sort(x, dim=1, stable=True), F32, [(3, 40, 1), (2, 3000, 1)]),
    "sort_1d_bf16": (lambda x: torch.sort(x, stable=True, descending=True), BF16, [(100,), (5000,)]),
    "histc_f32": (lambda x: torch.histc(x, 10, -1, 1), F32, [(37, 300), (3, 7), (1, 1), (300, 1000)]),
    "histc_many_bins_f32": (lambda x: torch.histc(x, 300, -2.5, 3.3), F32, [(37, 300), (3, 7)]),
}


@pytest.fixture(scope="module")
def kernels():
    cases = {name: (fn, [torch.randn(shapes[0]).to(dtype)]) for name, (fn, dtype, shapes) in CASES.items()}
    return build_cases(cases, lambda task: generate_builtin(task, 1)[0])


def values(kind: str, shape, dtype: torch.dtype, generator: torch.Generator) -> torch.Tensor:
    if kind == "ties":
        return torch.randint(-3, 4, shape, generator=generator).to(dtype)
    x = torch.randn(shape, generator=generator).to(dtype)
    pick = torch.rand(shape, generator=generator)
    if kind == "specials":
        x[pick < 0.1] = float("nan")
        x[(pick >= 0.1) & (pick < 0.2)] = 0.0
        x[(pick >= 0.2) & (pick < 0.3)] = -0.0
        x[(pick >= 0.3) & (pick < 0.35)] = float("inf")
        x[(pick >= 0.35) & (pick < 0.4)] = -float("inf")
    elif kind == "sparse_nan":  # a few NaN in each chunk: blocks sharing a row each have their own
        x[pick < 1 / 256] = float("nan")
    else:  # NaN with its sign bit set (x86's default NaN) among positive NaN and +inf
        x[pick < 0.2] = float("nan")
        x[pick < 0.1] = -x[pick < 0.1]
        x[(pick >= 0.3) & (pick < 0.5)] = float("inf")
    return x


def bits(t: torch.Tensor) -> torch.Tensor:
    return t.view({2: torch.int16, 4: torch.int32}[t.element_size()]) if t.is_floating_point() else t


@pytest.mark.parametrize("name", list(CASES))
def test_kernel_matches_torch_bit_for_bit(kernels, name):
    function, dtype, shapes = CASES[name]
    task, kernel = kernels[name]
    runner = ContractKernel(kernel, task, "Ascend910B2")
    generator = torch.Generator().manual_seed(7)
    for shape in shapes:
        for kind in VALUES:
            x = values(kind, shape, dtype, generator)
            expected = function(x)
            expected = expected if isinstance(expected, tuple) else (expected,)
            got = runner.run(x)[0]  # with counters: the launch also checks the pipes are synchronised
            for index, (g, e) in enumerate(zip(got, expected)):
                assert torch.equal(bits(g), bits(e)), f"{name} {list(shape)} {kind}: output {index} differs"


@pytest.mark.parametrize("name", ["topk_smallest_bf16", "sort_stable_desc_f32", "sort_unstable_desc_f16", "histc_f32"])
def test_kernel_passes_the_verifiers_input_sets(kernels, name):
    function = CASES[name][0]
    task, kernel = kernels[name]
    verdict = full_verification(function, task, kernel)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(("name", "shape", "why"), [
    ("topk_f32", (2, 3), "k > n: torch raises"),
    ("topk_k100_indices_f32", (2, 4097), "std::nth_element's order for a row over two chunks"),
    ("histc_f32", (4097, 4096), "float counts are exact up to 2^24 elements"),
])
def test_shapes_the_kernel_cannot_do_exactly_are_declined(kernels, name, shape, why):
    task, kernel = kernels[name]
    runner = ContractKernel(kernel, task, "Ascend910B2")
    with pytest.raises((ShapeDeclined, ValueError)):  # the tiling declines, or the task's guards (k <= n) refuse
        runner.plan([torch.empty(1, dtype=CASES[name][1]).expand(*shape)])  # the tiling sees shapes only


def test_a_long_top_k_that_keeps_more_than_1024_entries_is_declined():
    task = capture(lambda x: torch.topk(x, 1500), [torch.randn(2, 3000)])
    candidate = generate_builtin(task, 1)[0]
    from torch_ascendgen.records import ENTRY
    from torch_ascendgen.targets.sim.simulator import compile_kernel

    runner = ContractKernel(compile_kernel(candidate.source, ENTRY, contract=True), task, "Ascend910B2")
    with pytest.raises(ShapeDeclined):
        runner.plan([torch.empty(2, 3000)])
    runner.plan([torch.empty(2, 1800)])  # one chunk: sorted whole in UB


@pytest.mark.unit
@pytest.mark.parametrize(("function", "example", "reason"), [
    (lambda x: torch.topk(x.int(), 2), torch.randn(4, 8), "computes"),
    (lambda x: torch.sort(x), torch.randn(4, 8, dtype=torch.float64), "the integer types up to 64 bits"),
    (lambda x: torch.topk(torch.softmax(x, -1), 2), torch.randn(4, 8), "aten._softmax.default around torch.topk"),
    (lambda x: torch.sort(x), torch.tensor(1.0), "zero-dimensional"),
    (lambda x: torch.histc(x, 10), torch.randn(4, 8), "min == max"),
    (lambda x: torch.histc(x, 10, -1, 1), torch.randn(4, 8).half(), "float32 inputs"),
    (lambda x: torch.histc(x, 10000, -1, 1), torch.randn(4, 8), "8192 bins"),
])
def test_the_planner_refuses_with_the_reason(function, example, reason):
    task = capture(function, [example])
    with pytest.raises(UnsupportedFunction, match=reason):
        generate_builtin(task, 1)


@pytest.mark.unit
def test_graphs_without_sorting_are_left_to_the_other_templates():
    from torch_ascendgen.generators.builtin.sort import plan_sort

    assert plan_sort(capture(lambda x: x.amax(-1), [torch.randn(4, 8)])) is None
    candidates = generate_builtin(capture(lambda x: torch.topk(x, 2), [torch.randn(4, 8)]), 3)
    assert [c.variant["template"] for c in candidates] == ["sort"] * 3
