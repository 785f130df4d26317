"""The built-in sort template (csrc/templates/sort.cpp) along a dim that is not the last, and unstable sorts of rows
longer than one chunk, against torch's CPU results: values bit for bit, indices exactly, ties in torch's order.

Along a dim followed by others (inner > 1), a tile holds whole slabs (n * inner elements, read and written
contiguously) or some columns of one slab (strided copies), turned into rows and back in UB. Long unstable sorts go
out in the stable order, then are redone in std::sort's order by the scalar unit in the workspace where the row has
equal values; torch sorts 1-D integer tensors of 32768 elements and more ascending by a stable radix sort.
"""

from __future__ import annotations

import pytest
import torch

from generated_kernels import build_cases
from torch_ascendgen.errors import ShapeDeclined
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.targets.runtime import ContractKernel

F32, F16, BF16, I64, I32, I8 = torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int8

CASES = {
    # (5, 7, 9) and (3, 40, 33): whole slabs to a tile (the last tile partial); (2, 100, 70): columns of a slab
    "sort_stable_dim1_desc_f16": (lambda x: torch.sort(x, dim=1, descending=True, stable=True), F16,
                                  [(5, 7, 9), (3, 40, 33), (2, 100, 70)]),
    "sort_stable_dim0_i32": (lambda x: torch.sort(x, dim=0, stable=True), I32, [(100, 3), (7, 50), (64, 1)]),
    "sort_unstable_dim0_f32": (lambda x: torch.sort(x, dim=0), F32, [(100, 3), (40, 17), (33, 100)]),
    "topk_dim1_i64": (lambda x: torch.topk(x, 3, dim=1), I64, [(4, 30, 5), (2, 100, 40)]),
    "argsort_dim0_i8": (lambda x: torch.argsort(x, dim=0), I8, [(20, 6), (50, 33)]),
    "topk_smallest_dim0_bf16": (lambda x: torch.topk(x, 2, dim=0, largest=False), BF16, [(20, 6), (50, 70)]),
    # longer than one chunk, unstable: with and without equal values
    "sort_unstable_long_f32": (torch.sort, F32, [(2, 32000), (3, 2049)]),
    "sort_unstable_long_desc_f16": (lambda x: torch.sort(x, descending=True), F16, [(2, 2049), (1, 5000)]),
    "argsort_long_i64": (torch.argsort, I64, [(2, 4096), (3, 2049)]),
    "argsort_1d_i64": (torch.argsort, I64, [(5000,), (40000,)]),  # 40000: torch's radix sort, stable
    "sort_unstable_long_desc_i32": (lambda x: torch.sort(x, descending=True), I32, [(2, 5000), (2, 40000)]),
}


@pytest.fixture(scope="module")
def kernels():
    cases = {name: (fn, [torch.zeros(shapes[0], dtype=dtype)]) for name, (fn, dtype, shapes) in CASES.items()}
    return build_cases(cases, lambda task: generate_builtin(task, 1)[0])


def values(kind: str, shape, dtype: torch.dtype, generator: torch.Generator) -> torch.Tensor:
    if kind == "ties":
        return torch.randint(-3, 4, shape, generator=generator).to(dtype)
    numel = torch.Size(shape).numel()
    if kind == "distinct":  # a permutation: no equal values (the stable order is std::sort's)
        x = torch.randperm(numel, generator=generator).reshape(shape)
        return (x.float() / numel * 20 - 10).to(dtype) if dtype.is_floating_point else x.to(dtype)
    if not dtype.is_floating_point:
        info = torch.iinfo(dtype)
        return torch.randint(info.min, info.max, shape, generator=generator, dtype=dtype)
    x = torch.randn(shape, generator=generator).to(dtype)
    pick = torch.rand(shape, generator=generator)
    x[pick < 0.1] = float("nan")
    x[(pick >= 0.1) & (pick < 0.2)] = -0.0
    x[(pick >= 0.2) & (pick < 0.25)] = float("inf")
    return x


def bits(t: torch.Tensor) -> torch.Tensor:
    return t.view({2: torch.int16, 4: torch.int32}[t.element_size()]) if t.is_floating_point() else t


@pytest.mark.parametrize("name", list(CASES))
def test_kernel_matches_torch_exactly(kernels, name):
    function, dtype, shapes = CASES[name]
    task, kernel = kernels[name]
    runner = ContractKernel(kernel, task, "Ascend910B2")
    generator = torch.Generator().manual_seed(5)
    for shape in shapes:
        for kind in ("ties", "distinct", "specials"):
            x = values(kind, shape, dtype, generator)
            expected = function(x)
            expected = expected if isinstance(expected, tuple) else (expected,)
            got = runner.run(x)[0]
            for index, (g, e) in enumerate(zip(got, expected)):
                assert torch.equal(bits(g), bits(e)), f"{name} {list(shape)} {kind}: output {index} differs"


def test_columns_too_narrow_for_whole_blocks_are_declined(kernels):
    task, kernel = kernels["sort_stable_dim0_i32"]  # 300 rows: 4 to a tile, 16 bytes of a slab's 40 columns
    runner = ContractKernel(kernel, task, "Ascend910B2")
    with pytest.raises(ShapeDeclined):
        runner.plan([torch.empty(1, dtype=I32).expand(300, 40)])
