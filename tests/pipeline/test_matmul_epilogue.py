"""A matrix product and the work after it as one kernel (generators/builtin/matmul.py, csrc/templates/matmul.cpp):
@ascend_kernel and torch.compile(backend="ascendgen") on a Linear + bias + activation and on attention scores
(batched matmul + scale + softmax) give one verified kernel whose results match eager, in float32, float16 and
bfloat16, at shapes with tails and with batch dims; where the generator declines (K past the Matmul API's limit,
rows too long to keep whole, integer matrices) the function's own result comes back, with the reason.

Kernels are built once per session (one kernel cache for the module; the simulator's builds are shared)."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from torch_ascendgen import ascend_kernel, last_report
from torch_ascendgen.errors import AscendGenWarning
from torch_ascendgen.generators.builtin.matmul import VERSION as MATMUL_VERSION

TOLERANCES = {torch.float32: (1e-4, 1e-5), torch.float16: (2e-3, 2e-3), torch.bfloat16: (1.6e-2, 1e-2)}


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("matmul_kernels")


def linear_gelu(x, w, b):
    return F.gelu(F.linear(x, w, b))


def linear_silu(x, w, b):
    return F.silu(F.linear(x, w, b))


def attention_scores(q, k):
    return torch.softmax((q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1])), dim=-1)


def scaled_bmm_softmax(q, k):
    return torch.softmax(torch.bmm(q, k.transpose(1, 2)) * 0.125, dim=-1)


def close_to_eager(got: torch.Tensor, expected: torch.Tensor) -> None:
    """Within the dtype's tolerance of eager, and no further from the float64 product than eager is (plus that)."""
    rtol, atol = TOLERANCES[expected.dtype]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    torch.testing.assert_close(got, expected, rtol=rtol, atol=atol)


def matmul_kernel(fast) -> None:
    (kernel,) = fast.kernels()
    winner = kernel.entry.meta["winner"]
    assert winner["ok"] and winner["variant"]["template"] == "matmul"
    assert kernel.entry.meta["generator"].startswith("builtin")


CASES = [
    (linear_gelu, torch.float32, [(2, 37, 64), (48, 64), (48,)]),  # 74 rows, N = 48: tails everywhere
    (linear_gelu, torch.float16, [(19, 40), (24, 40), (24,)]),
    (linear_silu, torch.bfloat16, [(3, 5, 72), (40, 72), (40,)]),
    (attention_scores, torch.float16, [(2, 3, 20, 32), (2, 3, 24, 32)]),  # batch dims, N = 24
    (scaled_bmm_softmax, torch.float32, [(3, 33, 16), (3, 50, 16)]),
]


@pytest.mark.parametrize(("function", "dtype", "shapes"), CASES,
                         ids=[f"{f.__name__}-{str(d)[6:]}" for f, d, _ in CASES])
def test_the_decorated_function_is_one_verified_matmul_kernel(cache_dir, function, dtype, shapes):
    fast = ascend_kernel(function, strict=True, variants=1, cache_dir=cache_dir, progress=False)
    tensors = [torch.randn(shape).to(dtype) for shape in shapes]
    close_to_eager(fast(*tensors), function(*tensors))
    matmul_kernel(fast)


def test_the_kernel_serves_another_batch_and_row_count(cache_dir):
    fast = ascend_kernel(linear_gelu, strict=True, variants=1, cache_dir=cache_dir, progress=False)
    first = [torch.randn(2, 37, 64), torch.randn(48, 64), torch.randn(48)]
    close_to_eager(fast(*first), linear_gelu(*first))
    other = [torch.randn(5, 130, 64), torch.randn(48, 64), torch.randn(48)]  # 650 rows: many units and blocks
    close_to_eager(fast(*other), linear_gelu(*other))
    assert fast.route(*other) == ("kernel", "")
    matmul_kernel(fast)


@pytest.mark.parametrize(("function", "tensors", "reason"), [
    (lambda a, b: torch.relu(a @ b), [torch.randn(2, 70000), torch.randn(70000, 16)], "K up to 65535"),
    (lambda a, b: torch.softmax(a @ b, -1), [torch.randn(4, 32), torch.randn(32, 1100)], "whole rows"),
    (lambda a, b: (a @ b) * 2, [torch.randint(-4, 4, (8, 16), dtype=torch.int32),
                                torch.randint(-4, 4, (16, 8), dtype=torch.int32)], "float32, float16 and bfloat16"),
])
def test_where_the_generator_declines_the_original_result_comes_back_with_the_reason(cache_dir, function, tensors,
                                                                                     reason):
    fast = ascend_kernel(function, variants=1, cache_dir=cache_dir, progress=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = fast(*tensors)
    assert torch.equal(got, function(*tensors))
    assert any(issubclass(w.category, AscendGenWarning) and reason in str(w.message) for w in caught)
    assert not fast.kernels()


class LinearAct(nn.Module):
    def __init__(self, d=64, hidden=96):
        super().__init__()
        self.fc = nn.Linear(d, hidden)

    def forward(self, x):
        return F.gelu(self.fc(x))


class Scores(nn.Module):
    def forward(self, q, k):
        return attention_scores(q, k)


@pytest.mark.parametrize(("model", "inputs", "ops", "dtype"), [
    (LinearAct, lambda: (torch.randn(2, 37, 64),), {"aten.mm.default", "aten.add.Tensor", "aten.gelu.default"},
     torch.float32),
    (LinearAct, lambda: (torch.randn(3, 21, 64),), {"aten.mm.default", "aten.add.Tensor", "aten.gelu.default"},
     torch.float16),
    (Scores, lambda: (torch.randn(2, 3, 20, 32), torch.randn(2, 3, 24, 32)),
     {"aten.bmm.default", "aten.mul.Tensor", "aten._softmax.default"}, torch.float32),
], ids=["linear-bias-gelu", "linear-bias-gelu-half", "bmm-scale-softmax"])
def test_torch_compile_fuses_the_product_and_its_epilogue_into_one_kernel(cache_dir, model, inputs, ops, dtype):
    torch._dynamo.reset()
    torch.manual_seed(0)
    module = model().to(dtype).eval()
    tensors = tuple(t.to(dtype) for t in inputs())
    compiled = torch.compile(module, backend="ascendgen",
                             options={"variants": 1, "progress": False, "cache_dir": str(cache_dir)})
    with torch.no_grad():
        close_to_eager(compiled(*tensors), module(*tensors))
    report = last_report()
    (region,) = report.regions
    assert region.kernel and ops <= set(region.ops), region.reason
    assert region.kernel_ns < region.eager_ns  # one kernel against the product's and the epilogue's launches
    torch._dynamo.reset()


def test_torch_compile_runs_a_product_too_wide_for_the_kernel_eagerly_and_fuses_what_follows(cache_dir):
    class Wide(nn.Module):
        def forward(self, a, b):
            return torch.relu(a @ b) * 2

    torch._dynamo.reset()
    module, tensors = Wide(), (torch.randn(4, 32), torch.randn(32, 2048))
    compiled = torch.compile(module, backend="ascendgen",
                             options={"variants": 1, "progress": False, "cache_dir": str(cache_dir)})
    with torch.no_grad():
        close_to_eager(compiled(*tensors), module(*tensors))
    assert all("aten.mm.default" not in region.ops for region in last_report().regions)
    torch._dynamo.reset()


def test_the_matmul_kernels_are_the_built_in_generators():
    assert MATMUL_VERSION.startswith("builtin-")  # trusted to run in-process (trust.py)
