"""The built-in sort template on integer keys (csrc/templates/sort.cpp) against torch's CPU results: values and
indices exactly, equal values in torch's order.

int8, uint8, int16 and bool are exact float keys and take the float path. int32 and int64 are ranked by a stable
LSD radix sort on 16-bit digits (each exact in a float): stable sorts are that order, unstable sorts and top-k
run the float path on the ranks. Every case runs on rows of few distinct values (ties everywhere) and on rows
across the dtype's whole range with its extremes (iinfo min and max) and zero, at lengths that are not multiples
of 32, several rows to a tile, and rows longer than one chunk (int32 / int64: sorts, not top-k).
"""

from __future__ import annotations

import pytest
import torch

from generated_kernels import build_cases, full_verification
from torch_ascendgen.errors import ShapeDeclined
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.targets.runtime import ContractKernel

I64, I32, I16, I8, U8 = torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8
SHORT = [(37, 300), (3, 7), (2, 33), (5, 1024)]
LONG = [(2, 2049), (1, 5000)]  # longer than one chunk (int64 takes 1024-element chunks, the others 2048)

CASES = {
    "sort_stable_i64": (lambda x: torch.sort(x, stable=True), I64, SHORT + LONG),
    "sort_stable_desc_i64": (lambda x: torch.sort(x, descending=True, stable=True), I64, SHORT + LONG),
    "argsort_stable_i32": (lambda x: torch.argsort(x, stable=True), I32, SHORT + LONG),
    "sort_unstable_desc_i64": (lambda x: torch.sort(x, descending=True), I64, SHORT + [(4, 17)] + LONG),
    "argsort_i32": (torch.argsort, I32, SHORT + [(4, 17)] + LONG),
    "topk_i64": (lambda x: torch.topk(x, 4), I64, SHORT),
    "topk_smallest_i32": (lambda x: torch.topk(x, 3, largest=False), I32, SHORT),
    "sort_stable_desc_i16": (lambda x: torch.sort(x, descending=True, stable=True), I16, SHORT + LONG),
    "sort_i8": (torch.sort, I8, SHORT + [(4, 17)]),
    "topk_u8": (lambda x: torch.topk(x, 5), U8, SHORT + LONG),
    "sort_stable_bool": (lambda x: torch.sort(x, stable=True), torch.bool, SHORT + LONG),
}


@pytest.fixture(scope="module")
def kernels():
    cases = {name: (fn, [torch.zeros(shapes[0], dtype=dtype)]) for name, (fn, dtype, shapes) in CASES.items()}
    return build_cases(cases, lambda task: generate_builtin(task, 1)[0])


def values(kind: str, shape, dtype: torch.dtype, generator: torch.Generator) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.rand(shape, generator=generator) < (0.5 if kind == "ties" else 0.1)
    info = torch.iinfo(dtype)
    if kind == "ties":
        low = -3 if info.min < 0 else 0
        return torch.randint(low, low + 7, shape, generator=generator).to(dtype)
    if kind == "ids":  # non-negative, below 2^15: the higher 16-bit digits are all zero (their passes skipped)
        return torch.randint(0, min(info.max, 1 << 15), shape, generator=generator).to(dtype)
    if kind == "high_digits" and dtype in (torch.int32, torch.int64):  # the lowest digit all zero, the others vary
        return (torch.randint(-9, 9, shape, generator=generator) * (1 << 16)).to(dtype)
    x = torch.randint(info.min, info.max, shape, generator=generator, dtype=dtype)
    pick = torch.rand(shape, generator=generator)
    x[pick < 0.05] = info.min
    x[(pick >= 0.05) & (pick < 0.1)] = info.max
    x[(pick >= 0.1) & (pick < 0.15)] = 0
    x[(pick >= 0.15) & (pick < 0.2)] = -1 if info.min < 0 else 1
    return x


@pytest.mark.parametrize("name", list(CASES))
def test_integer_kernel_matches_torch_exactly(kernels, name):
    function, dtype, shapes = CASES[name]
    task, kernel = kernels[name]
    runner = ContractKernel(kernel, task, "Ascend910B2")
    generator = torch.Generator().manual_seed(11)
    for shape in shapes:
        for kind in ("ties", "ids", "high_digits", "full_range"):
            x = values(kind, shape, dtype, generator)
            expected = function(x)
            expected = expected if isinstance(expected, tuple) else (expected,)
            got = runner.run(x)[0]
            for index, (g, e) in enumerate(zip(got, expected)):
                assert g.dtype == e.dtype and torch.equal(g, e), f"{name} {list(shape)} {kind}: output {index} differs"


@pytest.mark.parametrize("name", ["sort_stable_desc_i64", "argsort_i32", "topk_u8"])
def test_integer_kernel_passes_the_verifiers_input_sets(kernels, name):
    task, kernel = kernels[name]
    verdict = full_verification(CASES[name][0], task, kernel)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize("name", ["topk_i64"])
def test_long_rows_of_wide_integers_are_declined_for_top_k(kernels, name):
    task, kernel = kernels[name]  # top-k's order on ranks needs the row's ranks in UB
    runner = ContractKernel(kernel, task, "Ascend910B2")
    with pytest.raises(ShapeDeclined):
        runner.plan([torch.empty(1, dtype=I64).expand(2, 2049)])
