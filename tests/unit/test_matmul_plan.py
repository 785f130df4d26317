"""The built-in generator's matmul plan (generators/builtin/matmul.py): which captured graphs are a matrix product
with work after it, how the operands lie in the inputs, what the epilogue is, where the generator declines and why;
the host tiling in Python against the TCubeTiling page's limits; the partitioner's matmul regions. Nothing launches.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from torch_ascendgen.capture.trace import capture
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin import matmul
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.generators.builtin.matmul import cube_tiling, plan_matmul


def linear_gelu(x, w, b):
    return F.gelu(F.linear(x, w, b))


def scores(q, k):
    return torch.softmax((q @ k.transpose(-2, -1)) * 0.125, dim=-1)


def residual(x, w, r):
    return torch.relu(x @ w) + r


def epilogue_ops(plan) -> list[str]:
    return [str(n.target) for n in plan.epilogue.graph.graph.nodes if n.op == "call_function"]


def test_a_linear_on_3d_input_is_one_product_with_its_bias_and_gelu_as_epilogue():
    task = capture(linear_gelu, [torch.randn(2, 37, 64), torch.randn(48, 64), torch.randn(48)])
    plan = plan_matmul(task)
    assert (plan.a, plan.b, plan.trans_b, plan.b_batched, plan.batch_dims) == (0, 1, True, False, 0)
    assert plan.traced == (1, 74, 48, 64)
    assert plan.epilogue_inputs == (2,)  # the bias
    assert epilogue_ops(plan) == ["aten.add.Tensor", "aten.gelu.default"]
    assert plan.c_dtype == torch.float32 and plan.k_source == (0, 2)


def test_attention_scores_keep_their_batch_dims_and_read_k_transposed():
    task = capture(scores, [torch.randn(2, 3, 20, 32).half(), torch.randn(2, 3, 24, 32).half()])
    plan = plan_matmul(task)
    assert (plan.trans_b, plan.b_batched, plan.batch_dims, plan.traced) == (True, True, 2, (6, 20, 24, 32))
    assert epilogue_ops(plan) == ["aten.mul.Tensor", "aten._softmax.default"]
    assert plan.c_dtype == torch.float16  # a product eager rounds to half before the scale


def test_an_addmm_keeps_c_in_float_until_its_bias_is_added():
    task = capture(linear_gelu, [torch.randn(5, 64).half(), torch.randn(48, 64).half(), torch.randn(48).half()])
    assert plan_matmul(task).c_dtype == torch.float32


def test_a_residual_is_a_full_input_of_the_epilogue():
    task = capture(residual, [torch.randn(33, 40), torch.randn(40, 50), torch.randn(33, 50)])
    plan = plan_matmul(task)
    assert (plan.trans_b, plan.epilogue_inputs) == (False, (2,))
    (candidate, *_) = generate_builtin(task, 1)
    assert candidate.generator == matmul.VERSION
    assert "REGIST_MATMUL_OBJ" in candidate.source and "KERNEL_TYPE_MIX_AIC_1_2" in candidate.source
    assert '#include "lib/matmul_intf.h"' in candidate.source


def test_a_graph_without_a_product_has_no_plan():
    assert plan_matmul(capture(lambda x: torch.relu(x) * 2, [torch.randn(4, 8)])) is None


@pytest.mark.parametrize(("function", "tensors", "reason"), [
    (lambda a, b: a @ b, [torch.randint(-4, 4, (8, 16), dtype=torch.int32),
                          torch.randint(-4, 4, (16, 8), dtype=torch.int32)], "float32, float16 and bfloat16"),
    (lambda a, b: a @ b, [torch.randn(2, 70000), torch.randn(70000, 16)], "K up to 65535"),
    (lambda a, b: torch.softmax(a @ b, -1), [torch.randn(4, 32), torch.randn(32, 1100)], "whole rows"),
    (lambda a, b: (a @ b) @ b, [torch.randn(16, 16), torch.randn(16, 16)], "2 matrix products"),
    (lambda a, b: a.t() @ b, [torch.randn(16, 8), torch.randn(16, 8)], "transposed or strided"),
    (lambda a, b: torch.cumsum(a @ b, -1), [torch.randn(16, 8), torch.randn(8, 8)], "cumsum"),
])
def test_the_generator_declines_with_the_reason(function, tensors, reason):
    task = capture(function, tensors)
    with pytest.raises(UnsupportedFunction, match=reason):
        generate_builtin(task, 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize(("batch", "m", "n", "k"), [(1, 74, 48, 64), (6, 20, 24, 32), (1, 1024, 1024, 1024),
                                                    (1, 4096, 1000, 300), (3, 1, 1, 1), (1, 17, 513, 65535)])
def test_the_host_tiling_keeps_the_tcubetiling_limits(batch, m, n, k, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    t = cube_tiling(batch, m, n, k, dtype, vector_cores=48, tile=1024 if n <= 1024 else 2048)
    assert t is not None
    assert t["baseM"] % 16 == 0 and t["baseN"] % 16 == 0 and t["baseK"] % 16 == 0
    assert t["baseN"] >= n  # whole rows in a block
    assert t["baseM"] * t["baseK"] * size * t["dbL0A"] <= matmul.L0A_BYTES
    assert t["baseK"] * t["baseN"] * size * t["dbL0B"] <= matmul.L0B_BYTES
    assert t["baseM"] * t["baseN"] * 4 <= matmul.L0C_BYTES
    assert t["shareL1Size"] <= matmul.L1_BYTES and t["depthA1"] % t["stepKa"] == 0
    assert t["singleCoreM"] % t["baseM"] == 0 and t["singleCoreM"] * t["mChunks"] >= m
    assert 1 <= t["usedCoreNum"] <= 24 and 2 * t["usedCoreNum"] * t["unitsPerWorker"] >= t["units"]
    assert t["units"] == batch * t["mChunks"]


def test_the_host_tiling_declines_what_does_not_fit():
    assert cube_tiling(1, 16, 1025, 64, torch.float16, 48) is None  # a row past the UB block of C
    assert cube_tiling(1, 16, 64, 65536, torch.float16, 48) is None  # K past the ND limit
    assert cube_tiling(1, 16, 1024, 64, torch.float32, 48, tile=512) is None  # a row past the epilogue's tile


def test_the_partitioner_puts_a_linear_and_its_activation_in_one_region():
    from torch._decomp import core_aten_decompositions
    from torch.fx.experimental.proxy_tensor import make_fx

    from torch_ascendgen.frontends.dynamo.addmm import split_addmm
    from torch_ascendgen.frontends.dynamo.partition import epilogue_of, partition

    def model(x, w, b, w2):
        return F.linear(F.silu(F.linear(x, w, b)), w2)

    tensors = [torch.randn(2, 8, 64), torch.randn(96, 64), torch.randn(96), torch.randn(32, 96)]
    graph = make_fx(model, decomposition_table=core_aten_decompositions())(*tensors)
    split_addmm(graph)
    regions = partition(graph)
    names = [[str(n.target) for n in nodes] for nodes in regions]
    first = names[0]
    assert "aten.mm.default" in first and "aten.sigmoid.default" in first and "aten.add.Tensor" in first
    assert sum("aten.mm.default" in r for r in names) == 1  # the second product has nothing to fuse: eager
    epilogue, start = epilogue_of(regions[0])
    assert str(start.target) == "aten.view.default"  # the product viewed back to 3-D, as the epilogue reads it
    assert [str(n.target) for n in epilogue] == ["aten.add.Tensor", "aten.sigmoid.default", "aten.mul.Tensor"]


def test_the_partitioner_leaves_a_product_too_wide_for_the_kernel_eager():
    from torch.fx.experimental.proxy_tensor import make_fx

    from torch_ascendgen.frontends.dynamo.partition import partition

    graph = make_fx(lambda a, b: torch.relu(a @ b) * 2)(torch.randn(4, 32), torch.randn(32, 2048))
    regions = partition(graph)
    assert [[str(n.target) for n in nodes] for nodes in regions] == [["aten.relu.default", "aten.mul.Tensor"]]
