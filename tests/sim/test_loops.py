"""The general lowering (generators/builtin/loops): functions the templates do not take, through PyTorch Inductor's
loop-level IR to one multi-pass kernel, built once per session and checked on the verifier's every input set (or,
for index inputs, on valid indices), against torch."""

import pytest
import torch
import torch.nn.functional as F

from generated_kernels import build_cases, full_verification
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import SimulatorError, UnsupportedFunction
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.generators.builtin.loops import generate_loops
from torch_ascendgen.generators.builtin.loops.inductor import program_of
from torch_ascendgen.targets.runtime import ContractKernel


def f(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def i(low, high, *shape, dtype=torch.int32):
    return torch.randint(low, high, shape, dtype=dtype)


def _rope_half(x, cos, sin):
    half = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin


def _segsum(x):
    size = x.size(-1)
    x = x[..., None].expand(*x.shape, size).masked_fill(~torch.tril(torch.ones(size, size, dtype=torch.bool), -1), 0)
    return torch.exp(torch.cumsum(x, -2).masked_fill(~torch.tril(torch.ones(size, size, dtype=torch.bool)), -torch.inf))


# Functions whose every input the verifier may draw freely: checked on its whole input-set plan.
VERIFIED = {
    "sin_cos": (lambda x: torch.sin(x) * torch.cos(x), [f(40, 80)]),
    "full_like": (lambda x: x + torch.full_like(x, 2.0), [f(4, 96)]),
    "compare_to_bool": (lambda x, y: x > y, [f(40, 80), f(40, 80)]),
    "where_compare": (lambda x, y: torch.where(x > 0, x, y), [f(40, 80), f(40, 80)]),
    "int32_arith": (lambda x, y: x + y * 3 - (x > y).to(torch.int32), [i(-1000, 1000, 500), i(-1000, 1000, 500)]),
    "int8_wraps": (lambda x, y: x + y, [i(-100, 100, 500, dtype=torch.int8), i(-100, 100, 500, dtype=torch.int8)]),
    "int8_saturating_add": (lambda x, y: (x.to(torch.int16) + y).clamp(-128, 127).to(torch.int8),
                            [i(-100, 100, 500, dtype=torch.int8), i(-100, 100, 500, dtype=torch.int8)]),
    "int16_max": (lambda x, y: torch.maximum(x, y) - torch.minimum(x, y),
                  [i(-30000, 30000, 300, dtype=torch.int16), i(-30000, 30000, 300, dtype=torch.int16)]),
    "logical": (lambda a, b: torch.logical_and(~a, b) | torch.logical_xor(a, b),
                [torch.rand(300) > 0.5, torch.rand(300) > 0.5]),
    "bitwise_and_eq": (lambda x, y: (x & y) == 0, [i(0, 9, 100), i(0, 9, 100)]),
    "floor_divide_int64": (lambda a, b: (a // b, a % b), [i(-50, 50, 300, dtype=torch.int64),
                                                         i(1, 9, 300, dtype=torch.int64)]),
    "to_int_truncates": (lambda x: (x * 100).to(torch.int32), [f(8, 64)]),
    "masked_fill": (lambda x, m: x.masked_fill(m, -1e4), [f(4, 96), torch.rand(4, 96) > 0.5]),
    "rope_half": (_rope_half, [f(2, 3, 64), f(3, 64), f(3, 64)]),
    "transpose_add": (lambda x: x.t() + 1, [f(40, 8)]),
    "rank0_exp": (lambda x: x.exp() + 1, [torch.tensor(0.5)]),
    "column_sum": (lambda x: x.sum(0), [f(40, 300)]),
    "argmax_rows": (lambda x: x.argmax(-1), [f(40, 300)]),
    "argmin_columns": (lambda x: x.argmin(0), [f(40, 300)]),
    "two_reduction_domains": (lambda x: x.sum(-1) + x.sum(0).mean(), [f(4, 8)]),
    "count_true": (lambda m: m.sum(-1), [torch.rand(40, 30) > 0.5]),
    "any_true": (lambda m: m.any(-1), [torch.rand(40, 30) > 0.9]),
    "masked_softmax": (lambda x, m: torch.softmax(x.masked_fill(~m, float("-inf")), -1),
                       [f(4, 96), torch.rand(4, 96) > 0.2]),
    "cosine_similarity": (lambda a, b: F.cosine_similarity(a, b, -1), [f(40, 30), f(40, 30)]),
    "rope_interleaved": (lambda x, cos, sin: x * cos + torch.stack([-x[..., 1::2], x[..., ::2]], -1).flatten(-2) * sin,
                         [f(2, 4, 64), f(4, 64), f(4, 64)]),
    "cumsum_over_rows": (lambda x: torch.cumsum(x, 0), [f(40, 300)]),
    "variance": (lambda x: x.var(-1), [f(40, 300)]),
    "std_over_columns": (lambda x: x.std(0), [f(40, 300)]),
    "instance_norm": (lambda x: F.instance_norm(x), [f(2, 3, 40)]),
    "layer_norm_then_int_mask": (lambda x, m: F.layer_norm(x, (x.shape[-1],)) * m, [f(8, 96), i(0, 2, 8, 96)]),
    "position_ids_from_a_mask": (lambda m: m.long().cumsum(-1) - 1, [torch.rand(4, 30) > 0.3]),
    "cumsum_along_rows_scaled": (lambda x: torch.cumsum(x, -1) * 2, [f(40, 300)]),
    "cumsum_of_a_mask_over_a_middle_dim": (lambda m: m.cumsum(1), [torch.rand(4, 30, 20) > 0.5]),
    "one_hot_cumsum_over_tokens": (lambda ids: (ids[..., None] == torch.arange(8)).long().cumsum(-2),
                                   [i(0, 8, 2, 64, dtype=torch.int64)]),  # strided stores from every core
    "int64_cumsum_along_rows": (lambda x: x.cumsum(-1) - 3, [i(-10 ** 12, 10 ** 12, 6, 300, dtype=torch.int64)]),
    "int32_cumsum_over_a_middle_dim": (lambda x: x.cumsum(1), [i(-2 ** 30, 2 ** 30, 4, 30, 5)]),
    "argmax_argmin_of_small_ints": (lambda x: (x.argmax(-1), x.argmin(1)), [i(-100, 100, 6, 40, dtype=torch.int8)]),
    "reflection_pad": (lambda x: F.pad(x, (3, 2, 1, 1), mode="reflect") * 2, [f(2, 3, 6, 9)]),
    "trunc_div_and_fmod_of_ints": (lambda a, b: (torch.div(a, b, rounding_mode="trunc"), torch.fmod(a, b)),
                                   [i(-50, 50, 300), i(1, 9, 300) * (i(0, 2, 300) * 2 - 1)]),
    "sign_of_ints": (lambda x: torch.sign(x) * 3, [i(-5, 5, 4, 40, dtype=torch.int16)]),
    "any_all_count_over_outer_dims": (lambda m: ((m == 0).any(dim=0), m.bool().all(dim=0),
                                                 torch.count_nonzero(m, dim=1)), [i(0, 2, 6, 5, 3, dtype=torch.int8)]),
    # a pooling window is a small sum Inductor unrolls: in float32, as PyTorch sums bfloat16 windows (not rounded
    # to bfloat16 after every add); odd and even sizes under ceil_mode
    "avg_pool_ceil_mode_bf16": (lambda x: F.avg_pool2d(x, 2, 2, ceil_mode=True, count_include_pad=False),
                                [f(2, 3, 7, 10, dtype=torch.bfloat16)]),
    "mamba2_segment_sums": (_segsum, [f(2, 3, 16) * 0.2]),  # a cumsum as PyTorch's double accumulator keeps it
    "max_pool_with_indices": (lambda x: F.max_pool2d(x, 2, 2, return_indices=True), [f(2, 3, 8, 12)]),
}


@pytest.fixture(scope="module")
def generated():
    return build_cases(VERIFIED, lambda task: generate_loops(task, 1, 176 * 1024)[0])


@pytest.mark.parametrize("name", sorted(VERIFIED))
def test_the_kernel_passes_the_verifier(name, generated):
    function, _ = VERIFIED[name]
    task, kernel = generated[name]
    verdict = full_verification(function, task, kernel)
    assert verdict.ok, verdict.reason


# Gathers, scatters and indexing: checked on valid indices (the verifier's draws are no indices).
def _indexed():
    return {
        "embedding": (lambda w, ids: F.embedding(ids, w), [f(10, 64), i(0, 10, 5, dtype=torch.int64)]),
        "gather_last_dim": (lambda x, ids: x.gather(1, ids), [f(4, 8), i(0, 8, 4, 3, dtype=torch.int64)]),
        "index_put_rows": (lambda x, ids, v: x.index_put((ids,), v),
                           [f(8, 4), torch.tensor([1, 3, 6]), f(3, 4)]),
        "kv_cache_update": (lambda cache, new, slots: cache.index_copy(0, slots, new),
                            [f(16, 2, 8), f(3, 2, 8), torch.tensor([4, 0, 9])]),
        "negative_index_select": (lambda x, ids: x.index_select(0, ids) * 2,
                                  [f(6, 8), torch.tensor([5, 0, 3])]),
        "index_add_rows": (lambda x, ids, src: x.index_add(0, ids, src), [f(8, 40), torch.tensor([1, 3, 1]), f(3, 40)]),
        "scatter_add_last_dim": (lambda x, ids, src: x.scatter_add(1, ids, src),
                                 [f(4, 8), i(0, 8, 4, 3, dtype=torch.int64), f(4, 3)]),
        "moe_combine": (lambda out, ids, y, w: out.index_add(0, ids, y * w[:, None]),
                        [torch.zeros(6, 16), torch.tensor([0, 2, 2, 5]), f(4, 16), torch.rand(4)]),
    }


INDEXED = _indexed()


@pytest.fixture(scope="module")
def indexed():
    return build_cases(INDEXED, lambda task: generate_loops(task, 1, 176 * 1024)[0])


@pytest.mark.parametrize("name", sorted(INDEXED))
def test_indexing_matches_torch_on_valid_indices(name, indexed):
    function, inputs = INDEXED[name]
    task, kernel = indexed[name]
    (got,) = ContractKernel(kernel, task, "Ascend910B2")(*inputs)
    # sums of repeated indices: the atomic adds of several cores come in any order
    torch.testing.assert_close(got, function(*inputs), rtol=1e-6, atol=1e-6)


def test_an_index_out_of_range_stops_the_kernel_as_torch_raises(indexed):
    task, kernel = indexed["embedding"]
    weights, ids = f(10, 64), torch.tensor([1, 10, 2])
    with pytest.raises(IndexError):
        F.embedding(ids, weights)
    with pytest.raises(SimulatorError, match="Trap"):
        ContractKernel(kernel, task, "Ascend910B2")(weights, ids)


def test_a_float32_cumsum_drops_what_a_double_accumulator_drops(generated):
    # 2**64 + 100 is 2**64 in double: eager's running sums after the huge term cancels are 0 and 1, not 100 and 101
    task, kernel = generated["cumsum_along_rows_scaled"]
    x = torch.tensor([[-34.5, 2.0 ** 64, 100.0, -(2.0 ** 64), 1.0, 3.0]] * 2)
    (got,) = ContractKernel(kernel, task, "Ascend910B2")(x)
    assert torch.equal(got, torch.cumsum(x, -1) * 2)


def test_max_pooling_indices_keep_the_last_nan_of_a_window_as_torch_does(generated):
    task, kernel = generated["max_pool_with_indices"]
    nan, inf = float("nan"), float("inf")
    windows = [[nan, nan, 1, 2], [1, nan, nan, 2], [nan, 5, 1, nan], [-inf] * 4, [inf, inf, 1, 2], [1, 3, 3, 2]]
    # (N, C, output row, output column, window row, window column) -> (N, C, H, W)
    x = torch.tensor(windows * 4).reshape(2, 3, 2, 2, 2, 2).permute(0, 1, 2, 4, 3, 5).reshape(2, 3, 4, 4)
    pooled, indices = ContractKernel(kernel, task, "Ascend910B2")(x)
    expected_pooled, expected_indices = F.max_pool2d(x, 2, 2, return_indices=True)
    assert torch.equal(indices, expected_indices)
    torch.testing.assert_close(pooled, expected_pooled, equal_nan=True, rtol=0, atol=0)


@pytest.mark.unit
def test_a_second_lowering_of_a_task_keeps_the_guards_of_the_first():
    # ceil_mode pooling at an even width: Inductor's output size holds only for even widths, a guard it makes once
    task = capture(lambda x: F.avg_pool2d(x, 2, 2, ceil_mode=True), [f(2, 3, 7, 10)])
    first = program_of(task).guards
    assert first and program_of(task).guards == first


@pytest.mark.unit
def test_the_ir_loads_through_index_expressions():
    program = program_of(capture(lambda x, y: torch.cat([x, y], 1) * 2, [f(4, 37), f(4, 13)]))
    (item,) = program.passes
    loads = [node for node in item.nodes if node.op == "load"]
    assert [node.args[0] for node in loads] == ["in0", "in1"]
    assert all(node.region for node in loads)  # each under the mask of its side of the concatenation
    assert [b.role for b in program.buffers.values()] == ["input", "input", "output"]


@pytest.mark.unit
def test_a_softmax_is_several_passes_over_workspace_buffers():
    program = program_of(capture(lambda x: torch.softmax(x, -1), [f(8, 64)]))
    assert [p.kind for p in program.passes] == ["reduction", "pointwise", "reduction", "pointwise"]
    assert len(program.workspaces()) == 3


@pytest.mark.unit
def test_what_inductor_runs_as_a_library_call_is_refused_by_name():
    with pytest.raises(UnsupportedFunction, match="aten.histc"):
        program_of(capture(lambda x: torch.histc(x, 10), [f(100)]))


@pytest.mark.unit
def test_float64_has_no_vector_form():
    with pytest.raises(UnsupportedFunction, match="float64"):
        generate_builtin(capture(lambda x: x.double().exp(), [f(8, 64)]), 1)


def test_the_templates_still_write_what_they_take():
    candidates = generate_builtin(capture(lambda a, b: F.silu(a) * b, [f(8, 64), f(8, 64)]), 2)
    assert {c.variant["template"] for c in candidates} == {"elementwise"}
