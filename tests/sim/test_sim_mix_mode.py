"""Mixed (AIC + AIV) launches: the kernel type a kernel declares (KERNEL_TASK_TYPE_DEFAULT, KERNEL_TASK_TYPE) decides
how many vector cores each block runs and what GetBlockIdx, GetBlockNum, GetSubBlockIdx, GetSubBlockNum and
GetTaskRatio tell them (csrc/ascendc_sim/sim/kernel_type.h cites the pages). The cube side runs too: a block's AIC
runs the kernel with ASCEND_IS_AIC true (tests/sim/test_cube_cores.py), so mixed kernels guard their vector code."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tests.kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.launch_sample import build_sample, read_sample, run_sample
from torch_ascendgen.targets.sim.op_project import OpProject
from torch_ascendgen.targets.sim.simulator import compile_kernel

A2 = "Ascend910B2"  # 48 vector cores, 24 AI Cores

# Rows split over blocks, then over the vector cores of a block (GetSubBlockIdx), as mixed-mode kernels split them.
ROWS = r"""
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t WIDTH = 64;

extern "C" __global__ __aicore__ void scale_rows(GM_ADDR x, GM_ADDR y, GM_ADDR ids, uint32_t rowsPerBlock)
{
    KERNEL_TASK_TYPE_DEFAULT(TYPE);
    if ASCEND_IS_AIC {
        return;
    }
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, WIDTH * sizeof(float));
    pipe.InitBuffer(outQ, 1, WIDTH * sizeof(float));
    const int64_t sub = GetSubBlockIdx(), subs = GetSubBlockNum();
    const int64_t block = GetBlockIdx() / subs;
    const uint32_t rows = rowsPerBlock / subs;
    GlobalTensor<float> xg, yg;
    const int64_t first = (block * rowsPerBlock + sub * rows) * WIDTH;
    xg.SetGlobalBuffer((__gm__ float*)x + first, rows * WIDTH);
    yg.SetGlobalBuffer((__gm__ float*)y + first, rows * WIDTH);
    for (uint32_t r = 0; r < rows; ++r) {
        LocalTensor<float> a = inQ.AllocTensor<float>();
        DataCopy(a, xg[r * WIDTH], WIDTH);
        inQ.EnQue(a);
        LocalTensor<float> b = inQ.DeQue<float>();
        LocalTensor<float> c = outQ.AllocTensor<float>();
        Muls(c, b, 2.0f, WIDTH);
        Adds(c, c, float(sub), WIDTH);
        inQ.FreeTensor(b);
        outQ.EnQue(c);
        LocalTensor<float> d = outQ.DeQue<float>();
        DataCopy(yg[r * WIDTH], d, WIDTH);
        outQ.FreeTensor(d);
    }
    GlobalTensor<int32_t> idg;  // one 64-byte slot per vector core: what the core was told
    idg.SetGlobalBuffer((__gm__ int32_t*)ids + GetBlockIdx() * 16, 16);
    idg.SetValue(0, int32_t(GetBlockIdx()));
    idg.SetValue(1, int32_t(GetBlockNum()));
    idg.SetValue(2, int32_t(GetSubBlockIdx()));
    idg.SetValue(3, int32_t(GetSubBlockNum()));
    idg.SetValue(4, int32_t(GetTaskRatio()));
    idg.SetValue(5, int32_t(GetTaskRation()));
    AscendC::printf("core %d\n", int32_t(GetBlockIdx()));
}
"""


def _rows_kernel(kernel_type: str):
    return compile_kernel(ROWS.replace("TYPE);", f"{kernel_type});"), "scale_rows")


@pytest.fixture(scope="module")
def mix_kernel():
    return _rows_kernel("KERNEL_TYPE_MIX_AIC_1_2")


@pytest.fixture(scope="module")
def aiv_kernel():
    return _rows_kernel("KERNEL_TYPE_AIV_ONLY")


def _run(kernel, blocks: int, rows_per_block: int, soc: str = A2, seed: int = 0):
    x = torch.randn(blocks * rows_per_block, 64)
    y = torch.full_like(x, float("nan"))
    ids = torch.full((2 * blocks * 16,), -1, dtype=torch.int32)
    report = kernel.launch(blocks, x, y, ids, rows_per_block, soc=soc, block_order_seed=seed)
    return x, y, ids.view(-1, 16)[:, :6], report


@pytest.mark.parametrize("seed", [0, 7])
def test_each_block_runs_two_vector_cores_that_split_its_rows(mix_kernel, seed):
    x, y, _, _ = _run(mix_kernel, blocks=5, rows_per_block=4, seed=seed)
    sub = torch.arange(x.shape[0]).remainder(4).div(2, rounding_mode="floor").float()  # rows 2, 3 of a block: core 1
    torch.testing.assert_close(y, x * 2 + sub[:, None])


def test_every_vector_core_reads_the_documented_indices(mix_kernel):
    _, _, ids, report = _run(mix_kernel, blocks=3, rows_per_block=2)
    expected = torch.tensor([[i, 3, i % 2, 2, 2, 2] for i in range(6)], dtype=torch.int32)
    torch.testing.assert_close(ids, expected)
    lines = sorted(report.debug_text.splitlines())
    assert lines == sorted(f"[block {i // 2} sub-block {i % 2}] core {i}" for i in range(6))


def test_the_default_vector_only_launch_is_unchanged(aiv_kernel):
    x, y, ids, report = _run(aiv_kernel, blocks=3, rows_per_block=2)
    torch.testing.assert_close(y, x * 2)
    assert sorted(report.debug_text.splitlines()) == [f"[block {i}] core {i}" for i in range(3)]
    expected = torch.tensor([[i, 3, 0, 1, 1, 1] for i in range(3)], dtype=torch.int32)
    torch.testing.assert_close(ids[:3], expected)
    assert (ids[3:] == -1).all()


def test_a_block_takes_as_long_as_its_slower_vector_core(mix_kernel, aiv_kernel):
    """Two cores splitting a block's rows finish it in about half the time one core takes; the counters add up."""
    *_, mixed = _run(mix_kernel, blocks=1, rows_per_block=16)
    *_, single = _run(aiv_kernel, blocks=1, rows_per_block=16)
    assert mixed.cores[0]["gm_to_ub_bytes"] == single.cores[0]["gm_to_ub_bytes"] == 16 * 64 * 4
    assert mixed.vector_ops()["Muls"] == single.vector_ops()["Muls"]
    assert 0.4 * single.cores[0]["est_ns"] < mixed.cores[0]["est_ns"] < 0.75 * single.cores[0]["est_ns"]


def test_both_vector_cores_writing_the_same_rows_is_a_race(mix_kernel):
    """Both cores of a block write its rows (the kernel ignores GetSubBlockIdx): a write-after-write race even
    though the values are the same, as CANN's race check reports it."""
    source = ROWS.replace("TYPE);", "KERNEL_TYPE_MIX_AIC_1_2);").replace(
        "const int64_t sub = GetSubBlockIdx(), subs = GetSubBlockNum();",
        "const int64_t sub = 0, subs = GetSubBlockNum();").replace("rowsPerBlock / subs", "rowsPerBlock")
    kernel = compile_kernel(source, "scale_rows")
    error = expect_error("gm_write_race", _run, kernel, 2, 2)
    assert "sub-block 1" in error.message and "identical values" in error.message


CUBE_WAIT = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void after_cube(GM_ADDR y)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    if ASCEND_IS_AIV {
        SyncAll<false>();  // @cube
    }
}
"""


def test_sync_all_false_waits_for_the_cube_cores_too():
    """SyncAll<false> synchronises the AIC and AIV cores (SyncAll.md): called on the AIVs only, it waits for the AICs,
    which end without calling it."""
    kernel = compile_kernel(CUBE_WAIT, "after_cube")
    error = expect_error("sync_all_deadlock", kernel.launch, 2, torch.zeros(8), soc=A2)
    assert error.line == marked_line(CUBE_WAIT, "// @cube") and "finished without calling it" in error.message


def test_mixed_types_are_refused_on_310p(mix_kernel):
    error = expect_error("unsupported_api", _run, mix_kernel, 2, 2, "Ascend310P3")
    assert "KERNEL_TYPE_MIX_AIC_1_2" in error.message


# Each vector core doubles its row into a workspace, the cores synchronise through cross-core flags, then each copies
# a partner's doubled row: the next core of the launch (mode 0) or its sibling in the block (mode 1).
SHARE = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void share(GM_ADDR x, GM_ADDR work, GM_ADDR y, uint32_t mode)
{
    KERNEL_TASK_TYPE_DEFAULT(TYPE);
    if ASCEND_IS_AIC {
        return;
    }
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, 64 * sizeof(float));
    pipe.InitBuffer(outQ, 1, 64 * sizeof(float));
    const int64_t me = GetBlockIdx(), cores = GetBlockNum() * GetSubBlockNum();
    GlobalTensor<float> xg, wg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, cores * 64);
    wg.SetGlobalBuffer((__gm__ float*)work, cores * 64);
    yg.SetGlobalBuffer((__gm__ float*)y, cores * 64);
    LocalTensor<float> a = inQ.AllocTensor<float>();
    DataCopy(a, xg[me * 64], 64);
    inQ.EnQue(a);
    a = inQ.DeQue<float>();
    LocalTensor<float> b = outQ.AllocTensor<float>();
    Muls(b, a, 2.0f, 64);
    inQ.FreeTensor(a);
    outQ.EnQue(b);
    b = outQ.DeQue<float>();
    DataCopy(wg[me * 64], b, 64);
    outQ.FreeTensor(b);
    if (mode == 0) {
        CrossCoreSetFlag<0, PIPE_MTE3>(3);
        CrossCoreWaitFlag<0, PIPE_MTE2>(3);
    } else if (mode == 1) {
        CrossCoreSetFlag<1, PIPE_MTE3>(4);
        CrossCoreWaitFlag<1, PIPE_MTE2>(4);  // @flag
    } else if (mode == 2) {
        CrossCoreWaitFlag<2, PIPE_MTE2>(5);  // @cube
    } else if (mode == 4) {
        SyncAll();
    } else if (me != 1) {
        CrossCoreSetFlag<0, PIPE_MTE3>(3);
        CrossCoreWaitFlag<0, PIPE_MTE2>(3);  // @never
    }
    const int64_t partner = mode == 1 ? (me ^ 1) : (me + 1) % cores;
    LocalTensor<float> c = inQ.AllocTensor<float>();
    DataCopy(c, wg[partner * 64], 64);
    inQ.EnQue(c);
    c = inQ.DeQue<float>();
    LocalTensor<float> d = outQ.AllocTensor<float>();
    DataCopy(d, c, 64);
    inQ.FreeTensor(c);
    outQ.EnQue(d);
    d = outQ.DeQue<float>();
    DataCopy(yg[me * 64], d, 64);
    outQ.FreeTensor(d);
}
"""


@pytest.fixture(scope="module")
def share_kernels():
    return {t: compile_kernel(SHARE.replace("TYPE);", f"KERNEL_TYPE_{t});"), "share")
            for t in ("MIX_AIC_1_2", "MIX_AIV_1_0", "AIV_ONLY")}


def _share(kernel, blocks: int, cores: int, mode: int, seed: int = 0):
    x = torch.randn(cores, 64)
    y = torch.full_like(x, float("nan"))
    kernel.launch(blocks, x, torch.zeros_like(x), y, mode, soc=A2, block_order_seed=seed)
    return x, y


@pytest.mark.parametrize("seed", [0, 3])
def test_cross_core_flags_order_the_vector_cores_of_a_block(share_kernels, seed):
    x, y = _share(share_kernels["MIX_AIC_1_2"], 4, 8, mode=1, seed=seed)
    torch.testing.assert_close(y, 2 * x[torch.arange(8) ^ 1])


@pytest.mark.parametrize("kernel_type, blocks", [("MIX_AIV_1_0", 6), ("MIX_AIC_1_2", 3)])
def test_mode_0_flags_order_every_vector_core_of_the_launch(share_kernels, kernel_type, blocks):
    x, y = _share(share_kernels[kernel_type], blocks, 6, mode=0)
    torch.testing.assert_close(y, 2 * x[(torch.arange(6) + 1) % 6])


def test_sync_all_in_a_mixed_launch_waits_for_both_vector_cores_of_every_block(share_kernels):
    x, y = _share(share_kernels["MIX_AIC_1_2"], 3, 6, mode=4, seed=11)
    torch.testing.assert_close(y, 2 * x[(torch.arange(6) + 1) % 6])
    error = expect_error("sync_all_deadlock", _share, share_kernels["MIX_AIC_1_2"], 25, 50, 4)
    assert "at most 24 blocks" in error.message  # 24 AI Cores: two vector cores each


def test_cross_core_flag_misuse_is_reported_not_hung(share_kernels):
    error = expect_error("unpaired_flag", _share, share_kernels["MIX_AIC_1_2"], 2, 4, 2)  # the AICs return at once
    assert error.line == marked_line(SHARE, "// @cube") and "the cube core of block" in error.message
    error = expect_error("unpaired_flag", _share, share_kernels["MIX_AIV_1_0"], 4, 4, 3)
    assert error.line == marked_line(SHARE, "// @never") and "waits forever" in error.message
    error = expect_error("bad_argument", _share, share_kernels["AIV_ONLY"], 2, 2, 0)
    assert "KERNEL_TYPE_MIX_AIV_1_0" in error.message


ADD_PROJECT = Path(__file__).resolve().parent.parent / "op_projects" / "add_custom"


def _add_project(guard_sub_block: bool) -> OpProject:
    """tests/op_projects/add_custom with tiling key 1 (aligned lengths) declared KERNEL_TYPE_MIX_AIC_1_2 and the
    default kept AIV-only; blocks found as GetBlockIdx() / GetTaskRatio(). With the guard only vector core 0 of
    each block adds; without it both do, and write the same bytes."""
    root = ADD_PROJECT
    kernel = (root / "op_kernel/add_custom.cpp").read_text()
    kernel = kernel.replace("uint32_t blockIdx = GetBlockIdx();", "uint32_t blockIdx = GetBlockIdx() / GetTaskRatio();")
    body = "if (GetSubBlockIdx() == 0) op.Process<false>();" if guard_sub_block else "op.Process<false>();"
    kernel = kernel.replace("GET_TILING_DATA(tiling_data, tiling);",
                            "GET_TILING_DATA(tiling_data, tiling);\n    if ASCEND_IS_AIC {\n        return;\n    }")
    declared = "KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIC_1_2);"
    kernel = kernel.replace("if (TILING_KEY_IS(1)) {\n        op.Process<false>();",
                            f"if (TILING_KEY_IS(1)) {{\n        {declared}\n        {body}")
    assert "KERNEL_TASK_TYPE(1," in kernel and "GetTaskRatio()" in kernel and "ASCEND_IS_AIC" in kernel
    return OpProject.from_sources((root / "op_host/add_custom_tiling.h").read_text(),
                                  (root / "op_host/add_custom.cpp").read_text(), kernel, name="add_custom")


@pytest.mark.parametrize("guard", [True, False])
def test_an_operator_project_runs_the_kernel_type_of_its_tiling_key(guard):
    project = _add_project(guard)
    x, y = torch.randn(3, 37).half(), torch.randn(3, 37).half()  # a tail: tiling key 2, the default AIV_ONLY
    run = project.run(x, y, soc=A2)
    assert run.plan.tiling_key == 2
    torch.testing.assert_close(run.outputs[0], x + y)
    x, y = torch.randn(4, 100), torch.randn(4, 100)  # aligned: key 1, two vector cores per block
    if guard:
        run = project.run(x, y, soc=A2)
        assert run.plan.tiling_key == 1
        torch.testing.assert_close(run.outputs[0], x + y)
    else:
        error = expect_error("gm_write_race", project.run, x, y, soc=A2)
        assert "sub-block 1" in error.message


@pytest.mark.parametrize("cpu_debug", [False, True])
def test_a_kernel_launch_sample_runs_its_mixed_kernel_on_two_vector_cores_per_block(cpu_debug):
    """tests/launch_samples/add_custom declared KERNEL_TYPE_MIX_AIC_1_2 and launched on 4 blocks: its 8 slices,
    indexed by GetBlockIdx, are the 8 vector cores (both the <<<>>> branch and ICPU_RUN_KF)."""
    sources = read_sample(Path(__file__).resolve().parent.parent / "launch_samples" / "add_custom")
    entry = "void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z)\n{\n"
    assert entry in sources["add_custom.cpp"] and "uint32_t blockDim = 8;" in sources["main.cpp"]
    sources = {**sources, "add_custom.cpp": sources["add_custom.cpp"].replace(
        entry, entry + "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);\n"
                       "    if ASCEND_IS_AIC {\n        return;\n    }\n"),
        "main.cpp": sources["main.cpp"].replace("uint32_t blockDim = 8;", "uint32_t blockDim = 4;")}
    generator = torch.Generator().manual_seed(5)
    x, y = (torch.randn(8 * 2048, generator=generator).half() for _ in range(2))
    inputs = {"input/input_x.bin": x.numpy().tobytes(), "input/input_y.bin": y.numpy().tobytes()}
    run = run_sample(build_sample(sources, cpu_debug=cpu_debug), inputs, soc=A2)
    assert run.exit_status == 0, run.stderr
    assert [(launch.block_dim, launch.ok) for launch in run.launches] == [(4, True)]
    z = torch.frombuffer(bytearray(run.files["output/output_z.bin"]), dtype=torch.float16)
    assert torch.equal(z, x + y)


def test_a_checked_launch_hides_the_ub_of_every_vector_core(mix_kernel):
    """Checked launches (the search's) give each running core an inaccessible UB view: with two vector cores per
    block there are twice as many as blocks."""
    x = torch.randn(3 * 4, 64)
    y = torch.full_like(x, float("nan"))
    ids = torch.full((2 * 3 * 16,), -1, dtype=torch.int32)
    mix_kernel.launch_isolated(3, x, y, ids, 4, soc=A2, checked=True)
    sub = torch.arange(12).remainder(4).div(2, rounding_mode="floor").float()
    torch.testing.assert_close(y, x * 2 + sub[:, None])
