"""Cube (AIC) cores on the simulator: the cube memories that TPipe::InitBuffer carves at the cube positions (sizes from
the SoC profile, the 通用约束 page's start alignment), the wrong-core rules of Atlas A2/A3's split AI Core, launches
of AIC_ONLY and MIX_AIC_1_1/1_2 kernels, CrossCoreSetFlag/WaitFlag mode 2 between an AIC and its AIVs with the GM race
check they order, SyncAll<false>, and the kernel type inferred for a kernel that declares none
(csrc/ascendc_sim/sim/local_memory.h, kernel_type.h, launch.cpp, cross_core.h)."""

from __future__ import annotations

import pytest
import torch

from tests.kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

A2 = "Ascend910B2"  # 24 AI Cores: 24 AIC and 48 AIV

# Buffers at one cube position: `count` queue buffers of `bytes`, then (with_tbuf) a TBuf of `bytes`. Each block writes
# the byte offsets of the queue buffers and of the TBuf from the first buffer, so alignment shows.
MEMORY = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <TPosition pos>
__aicore__ inline void place(TPipe& pipe, GlobalTensor<int64_t>& out, uint32_t bytes, uint32_t count,
                             uint32_t with_tbuf)
{
    TQue<pos, 1> queue;
    pipe.InitBuffer(queue, count, bytes);  // @queue
    LocalTensor<uint8_t> held[4];
    for (uint32_t i = 0; i < count; ++i) held[i] = queue.template AllocTensor<uint8_t>();
    const uint64_t first = held[0].GetPhyAddr();
    for (uint32_t i = 0; i < count; ++i) out.SetValue(i, int64_t(held[i].GetPhyAddr() - first));
    if (with_tbuf) {
        TBuf<pos> extra;
        pipe.InitBuffer(extra, bytes);  // @tbuf
        out.SetValue(4, int64_t(extra.template Get<uint8_t>().GetPhyAddr() - first));
    }
    for (uint32_t i = 0; i < count; ++i) queue.FreeTensor(held[i]);
}

extern "C" __global__ __aicore__ void cube_memory(GM_ADDR out, uint32_t which, uint32_t bytes, uint32_t count,
                                                  uint32_t with_tbuf)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    TPipe pipe;
    GlobalTensor<int64_t> og;
    og.SetGlobalBuffer((__gm__ int64_t*)out + GetBlockIdx() * 8, 8);
    switch (which) {
        case 0: place<TPosition::A1>(pipe, og, bytes, count, with_tbuf); break;
        case 1: place<TPosition::B1>(pipe, og, bytes, count, with_tbuf); break;
        case 2: place<TPosition::C1>(pipe, og, bytes, count, with_tbuf); break;
        case 3: place<TPosition::TSCM>(pipe, og, bytes, count, with_tbuf); break;
        case 4: place<TPosition::A2>(pipe, og, bytes, count, with_tbuf); break;
        case 5: place<TPosition::B2>(pipe, og, bytes, count, with_tbuf); break;
        case 6: place<TPosition::CO1>(pipe, og, bytes, count, with_tbuf); break;
        case 7: place<TPosition::C2>(pipe, og, bytes, count, with_tbuf); break;
        case 8: place<TPosition::C2PIPE2GM>(pipe, og, bytes, count, with_tbuf); break;
        default: {  // A1 then B1: both in L1
            TQue<TPosition::A1, 1> a;
            TQue<TPosition::B1, 1> b;
            pipe.InitBuffer(a, 1, bytes);
            pipe.InitBuffer(b, 1, bytes);  // @second
        }
    }
}
"""

# (position, memory, bytes on Atlas A2/A3 per targets/soc.py, start alignment per the 通用约束 page)
POSITIONS = [("A1", "L1", 524288, 32), ("B1", "L1", 524288, 32), ("C1", "L1", 524288, 32), ("TSCM", "L1", 524288, 32),
             ("A2", "L0A", 65536, 512), ("B2", "L0B", 65536, 512), ("CO1", "L0C", 131072, 64),
             ("C2", "BT", 1024, 64), ("C2PIPE2GM", "FB", 2048, 64)]


@pytest.fixture(scope="module")
def memory_kernel():
    return compile_kernel(MEMORY, "cube_memory")


def _place(kernel, which: int, size: int, count: int, with_tbuf: int = 1, blocks: int = 2) -> torch.Tensor:
    out = torch.full((blocks * 8,), -1, dtype=torch.int64)
    kernel.launch(blocks, out, which, size, count, with_tbuf, soc=A2)
    return out.view(blocks, 8)


@pytest.mark.parametrize("which, position", [(i, p[0]) for i, p in enumerate(POSITIONS)])
def test_buffers_at_a_cube_position_start_at_its_memorys_alignment(memory_kernel, which, position):
    _, _, _, align = POSITIONS[which]
    step = -(-100 // align) * align  # 100 bytes rounded up to the alignment
    rows = _place(memory_kernel, which, 100, 3)
    expected = torch.tensor([0, step, 2 * step, -1, 3 * step, -1, -1, -1])
    assert torch.equal(rows, expected.expand(2, 8)), position


@pytest.mark.parametrize("which, position", [(i, p[0]) for i, p in enumerate(POSITIONS)])
def test_a_cube_memory_holds_its_documented_bytes_and_no_more(memory_kernel, which, position):
    _, memory, capacity, align = POSITIONS[which]
    rows = _place(memory_kernel, which, capacity // 2, 2, with_tbuf=0)
    assert rows[:, :2].tolist() == [[0, capacity // 2]] * 2
    error = expect_error("local_memory_overflow", _place, memory_kernel, which, capacity // 2 + 1, 2, 0)
    asked = 2 * (capacity // 2 + align)
    assert f"asks for {asked} bytes of {memory}" in error.message
    assert f"0 of the {capacity} bytes of {memory}" in error.message
    assert error.line == marked_line(MEMORY, "// @queue")


def test_a1_and_b1_share_the_l1(memory_kernel):
    _place(memory_kernel, 9, 262144, 1)
    error = expect_error("local_memory_overflow", _place, memory_kernel, 9, 262144 + 32, 1)
    assert "262176 of the 524288 bytes of L1" in error.message and error.line == marked_line(MEMORY, "// @second")


WRONG_CORE = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void wrong_core(GM_ADDR out, uint32_t which)
{
    KERNEL_TASK_TYPE_DEFAULT(TYPE);
    TPipe pipe;
    if (which == 0) {
        TQue<QuePosition::VECIN, 1> vec;
        pipe.InitBuffer(vec, 1, 256);  // @vec
    } else if (which == 1) {
        TQue<QuePosition::A1, 1> l1;
        pipe.InitBuffer(l1, 1, 512);  // @l1
    } else {
        TQue<QuePosition::CO2, 1> co2;
        pipe.InitBuffer(co2, 1, 512);  // @co2
    }
}
"""


@pytest.fixture(scope="module")
def wrong_core_kernels():
    return {t: compile_kernel(WRONG_CORE.replace("TYPE);", f"KERNEL_TYPE_{t});"), "wrong_core")
            for t in ("AIC_ONLY", "AIV_ONLY")}


def test_each_core_of_atlas_a2_has_only_its_own_memories(wrong_core_kernels):
    aic, aiv = wrong_core_kernels["AIC_ONLY"], wrong_core_kernels["AIV_ONLY"]
    aic.launch(2, torch.zeros(8), 1, soc=A2)  # L1 on the AIC
    aiv.launch(2, torch.zeros(8), 0, soc=A2)  # UB on the AIV
    error = expect_error("wrong_core", aic.launch, 2, torch.zeros(8), 0, soc=A2)
    assert error.line == marked_line(WRONG_CORE, "// @vec")
    assert "cube core (AIC)" in error.message and "no Unified Buffer" in error.message
    assert "if ASCEND_IS_AIV" in error.message
    error = expect_error("wrong_core", aiv.launch, 2, torch.zeros(8), 1, soc=A2)
    assert error.line == marked_line(WRONG_CORE, "// @l1")
    assert "vector core (AIV)" in error.message and "L1" in error.message
    error = expect_error("unsupported_api", aic.launch, 2, torch.zeros(8), 2, soc=A2)
    assert error.line == marked_line(WRONG_CORE, "// @co2") and "Global Memory" in error.message


def test_cube_only_types_are_refused_on_310p(wrong_core_kernels):
    error = expect_error("unsupported_api", wrong_core_kernels["AIC_ONLY"].launch, 2, torch.zeros(8), 1,
                         soc="Ascend310P3")
    assert "KERNEL_TYPE_AIC_ONLY" in error.message


# Every core writes what it is told into its own 64-byte slot: vector cores at GetBlockIdx(), cube cores after all
# vector slots (2 * GetBlockNum() + GetBlockIdx()).
IDS = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void ids(GM_ADDR out)
{
    KERNEL_TASK_TYPE_DEFAULT(TYPE);
    const int64_t slot = ASCEND_IS_AIC ? 2 * GetBlockNum() + GetBlockIdx() : GetBlockIdx();
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer((__gm__ int32_t*)out + slot * 16, 16);
    g.SetValue(0, int32_t(GetBlockIdx()));
    g.SetValue(1, int32_t(GetBlockNum()));
    g.SetValue(2, int32_t(GetSubBlockIdx()));
    g.SetValue(3, int32_t(GetSubBlockNum()));
    g.SetValue(4, int32_t(GetTaskRatio()));
    g.SetValue(5, ASCEND_IS_AIC ? 1 : 0);
    if ASCEND_IS_AIC {
        AscendC::printf("cube %d\n", int32_t(GetBlockIdx()));
    }
}
"""


def _ids(kernel, blocks: int, soc: str = A2):
    out = torch.full((3 * blocks * 16,), -1, dtype=torch.int32)
    report = kernel.launch(blocks, out, soc=soc)
    return out.view(-1, 16)[:, :6], report


def _rows(blocks: int, vector_per_block: int, cube: bool) -> torch.Tensor:
    rows = [[-1] * 6 for _ in range(3 * blocks)]
    for i in range(blocks * vector_per_block):
        rows[i] = [i, blocks, i % vector_per_block, vector_per_block, vector_per_block, 0]
    if cube:
        for b in range(blocks):
            rows[2 * blocks + b] = [b, blocks, 0, 1, 1, 1]
    return torch.tensor(rows, dtype=torch.int32)


@pytest.mark.parametrize("kernel_type, vector_per_block, cube", [
    ("MIX_AIC_1_2", 2, True), ("MIX_AIC_1_1", 1, True), ("AIC_ONLY", 0, True), ("MIX_AIC_1_0", 0, True),
    ("AIV_ONLY", 1, False)])
def test_every_core_reads_the_documented_indices(kernel_type, vector_per_block, cube):
    """GetBlockIdx on an AIC is its block in [0, blockDim); GetTaskRatio is 1 on the AIC (GetTaskRatio.md)."""
    kernel = compile_kernel(IDS.replace("TYPE);", f"KERNEL_TYPE_{kernel_type});"), "ids")
    ids, report = _ids(kernel, 3)
    torch.testing.assert_close(ids, _rows(3, vector_per_block, cube))
    printed = sorted(report.debug_text.splitlines())
    assert printed == ([f"[block {b} AIC] cube {b}" for b in range(3)] if cube else [])


# Undeclared kernels: the type follows the units the library uses (kernel_type.h, launch.cpp infer_kernel_shape).
UNDECLARED = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void undeclared(GM_ADDR out)
{
    const int64_t slot = ASCEND_IS_AIC ? 2 * GetBlockNum() + GetBlockIdx() : GetBlockIdx();
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer((__gm__ int32_t*)out + slot * 16, 16);
    g.SetValue(0, int32_t(GetBlockIdx()));
    g.SetValue(1, int32_t(GetBlockNum()));
    g.SetValue(2, int32_t(GetSubBlockIdx()));
    g.SetValue(3, int32_t(GetSubBlockNum()));
    g.SetValue(4, int32_t(GetTaskRatio()));
    g.SetValue(5, ASCEND_IS_AIC ? 1 : 0);
    TPipe pipe;
    if ASCEND_IS_AIC {
        TQue<TPosition::A1, 1> l1;
        pipe.InitBuffer(l1, 1, 512);
    }
    VECTOR_PART
}
"""
VECTOR_PART = """if ASCEND_IS_AIV {
        TQue<TPosition::VECIN, 1> ub;
        pipe.InitBuffer(ub, 1, 256);
    }"""


def test_an_undeclared_kernel_with_cube_buffers_only_runs_on_cube_cores():
    kernel = compile_kernel(UNDECLARED.replace("VECTOR_PART", ""), "undeclared")
    ids, _ = _ids(kernel, 3)
    torch.testing.assert_close(ids, _rows(3, 0, True))
    ids, _ = _ids(kernel, 3, soc="Ascend310P3")  # the coupled AI Core: one core per block, with L1 and UB
    torch.testing.assert_close(ids, _rows(3, 1, False))


def test_an_undeclared_kernel_with_cube_and_vector_buffers_runs_as_mix_aic_1_2():
    kernel = compile_kernel(UNDECLARED.replace("VECTOR_PART", VECTOR_PART), "undeclared")
    ids, _ = _ids(kernel, 3)
    torch.testing.assert_close(ids, _rows(3, 2, True))


# The AIC writes a workspace row per block and signals its AIVs (mode 2); each AIV copies the row in, adds
# 1000 * sub-block and writes it to `back`, then signals the AIC, which sums what its AIVs wrote. WAIT 0 drops the
# waits: the reads race the writes.
HANDOFF = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void handoff(GM_ADDR ws, GM_ADDR back, GM_ADDR out, uint32_t wait)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    GlobalTensor<float> wg, bg, og;
    wg.SetGlobalBuffer((__gm__ float*)ws, GetBlockNum() * 64);
    bg.SetGlobalBuffer((__gm__ float*)back, GetBlockNum() * 128);
    og.SetGlobalBuffer((__gm__ float*)out, GetBlockNum() * 16);
    if ASCEND_IS_AIC {
        const int64_t block = GetBlockIdx();
        for (int32_t i = 0; i < 64; ++i) wg.SetValue(block * 64 + i, float(block * 100 + i));  // @write
        DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE>(wg);
        CrossCoreSetFlag<2, PIPE_S>(0);
        if (wait) CrossCoreWaitFlag<2, PIPE_S>(1);
        float sum = 0.0f;
        for (int32_t i = 0; i < 128; ++i) sum += bg.GetValue(block * 128 + i);
        og.SetValue(block * 16, sum);
        return;
    }
    if (wait) CrossCoreWaitFlag<2, PIPE_MTE2>(0);
    const int64_t block = GetBlockIdx() / GetSubBlockNum(), sub = GetSubBlockIdx();
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, 64 * sizeof(float));
    pipe.InitBuffer(outQ, 1, 64 * sizeof(float));
    LocalTensor<float> a = inQ.AllocTensor<float>();
    DataCopy(a, wg[block * 64], 64);  // @read
    inQ.EnQue(a);
    a = inQ.DeQue<float>();
    LocalTensor<float> b = outQ.AllocTensor<float>();
    Adds(b, a, float(sub) * 1000.0f, 64);
    inQ.FreeTensor(a);
    outQ.EnQue(b);
    b = outQ.DeQue<float>();
    DataCopy(bg[block * 128 + sub * 64], b, 64);
    outQ.FreeTensor(b);
    CrossCoreSetFlag<2, PIPE_MTE3>(1);
}
"""


@pytest.fixture(scope="module")
def handoff_kernel():
    return compile_kernel(HANDOFF, "handoff")


def _handoff(kernel, blocks: int, wait: int, seed: int = 0):
    ws, back, out = torch.zeros(blocks * 64), torch.zeros(blocks * 128), torch.zeros(blocks * 16)
    report = kernel.launch(blocks, ws, back, out, wait, soc=A2, block_order_seed=seed)
    return back.view(blocks, 2, 64), out.view(blocks, 16)[:, 0], report


@pytest.mark.parametrize("seed", [0, 5])
def test_an_aic_hands_a_workspace_to_its_two_aivs_and_back(handoff_kernel, seed):
    blocks = 4
    back, sums, _ = _handoff(handoff_kernel, blocks, 1, seed)
    row = torch.arange(blocks, dtype=torch.float64)[:, None] * 100 + torch.arange(64, dtype=torch.float64)
    expected = torch.stack([row, row + 1000], dim=1)
    torch.testing.assert_close(back, expected.float())
    torch.testing.assert_close(sums, expected.sum(dim=(1, 2)).float())


def test_reading_the_workspace_without_the_flag_is_a_race(handoff_kernel):
    error = expect_error("gm_write_race", _handoff, handoff_kernel, 2, 0)
    assert "cube core (AIC)" in error.message and "nothing ordering" in error.message
    assert "CrossCoreWaitFlag" in error.message


def test_the_aivs_resume_after_the_aic_set_the_flag(handoff_kernel):
    """The waiting pipe resumes no earlier than the AIC's set: 64 scalar GM writes on the AIC come first, so the block
    takes longer than those writes alone."""
    *_, report = _handoff(handoff_kernel, 1, 1)
    core = report.cores[0]
    assert core["gm_scalar_writes"] == 64 + 1 and core["gm_scalar_reads"] == 128
    assert core["gm_to_ub_bytes"] == 2 * 64 * 4  # the two AIVs' reads, summed into the block
    assert core["est_ns"] > core["pipe_busy_ns"]["S"]


SYNC = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void sync_both(GM_ADDR ws, GM_ADDR out, uint32_t aiv_only_on_aic)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    GlobalTensor<float> wg, og;
    wg.SetGlobalBuffer((__gm__ float*)ws, GetBlockNum() * 16);
    og.SetGlobalBuffer((__gm__ float*)out, GetBlockNum() * 32);
    if ASCEND_IS_AIC {
        wg.SetValue(GetBlockIdx() * 16, float(GetBlockIdx() + 1));
        if (aiv_only_on_aic) {
            SyncAll();  // @aic
        } else {
            SyncAll<false>();
        }
        return;
    }
    SyncAll<false>();
    const int64_t other = (GetBlockIdx() / 2 + 1) % GetBlockNum();  // the next block's AIC wrote it
    og.SetValue(GetBlockIdx() * 16, wg.GetValue(other * 16));
}
"""


def test_sync_all_false_orders_the_aic_and_aiv_cores_of_every_block():
    kernel = compile_kernel(SYNC, "sync_both")
    blocks = 3
    ws, out = torch.zeros(blocks * 16), torch.zeros(blocks * 32)
    kernel.launch(blocks, ws, out, 0, soc=A2, block_order_seed=3)
    nxt = (torch.arange(2 * blocks) // 2 + 1) % blocks + 1
    torch.testing.assert_close(out.view(-1, 16)[:, 0], nxt.float())
    error = expect_error("wrong_core", kernel.launch, blocks, ws, out, 1, soc=A2)
    assert error.line == marked_line(SYNC, "// @aic") and "SyncAll<false>" in error.message


SCALAR = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void scalar_work(GM_ADDR out, uint32_t n)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    GlobalTensor<float> g;
    g.SetGlobalBuffer((__gm__ float*)out + GetBlockIdx() * 256, 256);
    for (uint32_t i = 0; i < n; ++i) g.SetValue(i, float(i));
}
"""


def test_a_cube_cores_work_is_counted_and_timed():
    kernel = compile_kernel(SCALAR, "scalar_work")
    out = torch.zeros(2 * 256)
    short = kernel.launch(2, out, 64, soc=A2)
    long = kernel.launch(2, out, 128, soc=A2)
    assert [c["gm_scalar_writes"] for c in long.cores] == [128, 128]
    torch.testing.assert_close(out.view(2, 256)[:, :128], torch.arange(128.0).expand(2, 128))
    per_write = (long.cores[0]["est_ns"] - short.cores[0]["est_ns"]) / 64
    assert per_write == pytest.approx(200 / 1.8, rel=0.05)  # 200 cycles at 1.8 GHz (cost_model.h, scalar GM)
    assert long.estimated_ns > long.cores[0]["est_ns"]


# A1 and A2 queues between the cube pipes: DataCopy GM -> A1 on MTE2, LoadData A1 -> A2 on MTE1 (queue A1 hands MTE2
# over to MTE1, queue A2 MTE1 over to M). QUEUE 0 skips the A1 hand-over: MTE1 reads what MTE2 may still be writing.
CUBE_QUEUES = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void cube_queues(GM_ADDR x, GM_ADDR y, uint32_t useQueue)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    GlobalTensor<half> xg, yg;
    xg.SetGlobalBuffer((__gm__ half*)x, 256);
    yg.SetGlobalBuffer((__gm__ half*)y, 256);
    TPipe pipe;
    TQue<TPosition::A1, 1> qa1;
    TQue<TPosition::A2, 1> qa2;
    pipe.InitBuffer(qa1, 1, 512);
    pipe.InitBuffer(qa2, 1, 512);
    LocalTensor<half> a1 = qa1.AllocTensor<half>();
    DataCopy(a1, xg, 256);
    if (useQueue) {
        qa1.EnQue(a1);
        a1 = qa1.DeQue<half>();
    }
    LocalTensor<half> a2 = qa2.AllocTensor<half>();
    LoadData(a2, a1, LoadData2DParams(0, 1, 0, 0, 0, false, 0));  // @load
    qa1.FreeTensor(a1);
    qa2.EnQue(a2);
    a2 = qa2.DeQue<half>();
    PipeBarrier<PIPE_ALL>();
    for (uint32_t i = 0; i < 256; ++i) yg.SetValue(i, a2.GetValue(i));
    qa2.FreeTensor(a2);
}
"""


def test_cube_queues_hand_data_from_pipe_to_pipe():
    kernel = compile_kernel(CUBE_QUEUES, "cube_queues")
    x, y = torch.randn(256).half(), torch.zeros(256).half()
    kernel.launch(1, x, y, 1, soc=A2)
    assert torch.equal(y, x)  # one 16 x 16 fractal moved as it is
    error = expect_error("pipe_race", kernel.launch, 1, x, y, 0, soc=A2)
    assert error.line == marked_line(CUBE_QUEUES, "// @load")
    assert "MTE1 pipe" in error.message and "MTE2" in error.message


# Mode 0 on cube cores: every AIC writes its slot, the flag orders all AICs of the launch, then each reads the next.
CUBE_RING = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void cube_ring(GM_ADDR ws, GM_ADDR out, uint32_t wait)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    GlobalTensor<float> wg, og;
    wg.SetGlobalBuffer((__gm__ float*)ws, GetBlockNum() * 16);
    og.SetGlobalBuffer((__gm__ float*)out, GetBlockNum() * 16);
    wg.SetValue(GetBlockIdx() * 16, float(GetBlockIdx() * 10 + 1));
    CrossCoreSetFlag<0, PIPE_S>(2);
    if (wait) CrossCoreWaitFlag<0, PIPE_S>(2);
    og.SetValue(GetBlockIdx() * 16, wg.GetValue((GetBlockIdx() + 1) % GetBlockNum() * 16));  // @next
}
"""


def test_mode_0_flags_order_every_cube_core_of_the_launch():
    kernel = compile_kernel(CUBE_RING, "cube_ring")
    blocks = 4
    ws, out = torch.zeros(blocks * 16), torch.zeros(blocks * 16)
    kernel.launch(blocks, ws, out, 1, soc=A2, block_order_seed=9)
    torch.testing.assert_close(out.view(blocks, 16)[:, 0], (torch.arange(blocks) + 1) % blocks * 10 + 1.0)
    error = expect_error("gm_write_race", kernel.launch, blocks, ws, out, 0, soc=A2)
    assert error.line == marked_line(CUBE_RING, "// @next") and "cube core (AIC)" in error.message


# CANN CPU-debug names (sim/cpu_debug.h) and CrossCoreWaitFlag's default template arguments (cross_core.h): each core
# writes g_coreType and GetSubBlockNum into its slot; the AIC hands a GM value to its AIVs with CrossCoreWaitFlag<0x2>
# (the default pipe), and waits for them the same way. MODE 1 runs an ASCENDC_ASSERT that is false and names no declared
# variable (compiled out, as on the NPU), MODE 2 calls a raw intrinsic.
CPU_DEBUG = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void cpu_debug(GM_ADDR ws, GM_ADDR out, uint32_t mode)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    const int64_t slot = g_coreType == AIC ? 2 * GetBlockNum() + GetBlockIdx() : GetBlockIdx();
    GlobalTensor<int32_t> wg, og;
    wg.SetGlobalBuffer((__gm__ int32_t*)ws, GetBlockNum() * 16);
    og.SetGlobalBuffer((__gm__ int32_t*)out + slot * 16, 16);  // a 64-byte slot: one cache line each
    og.SetValue(0, g_coreType);
    og.SetValue(1, int32_t(GetSubBlockNum()));
    KERNEL_LOG(KERNEL_INFO, "kind %d", int32_t(g_coreType));
    if (g_coreType == AIC) {
        wg.SetValue(GetBlockIdx() * 16, int32_t(100 + GetBlockIdx()));
        DataCacheCleanAndInvalid<int32_t, CacheLine::ENTIRE_DATA_CACHE>(wg);
        CrossCoreSetFlag<0x2, PIPE_S>(3);
        CrossCoreWaitFlag<0x2>(4);
        if (mode == 1) {
            ASCENDC_ASSERT(g_coreType == AIV && undeclared_size > 0, { KERNEL_LOG(KERNEL_ERROR, "no AIV"); });
        }
        if (mode == 2) wait_flag_dev(3);  // @raw
        return;
    }
    CrossCoreWaitFlag<0x2>(3);
    og.SetValue(2, wg.GetValue(GetBlockIdx() / GetSubBlockNum() * 16));
    CrossCoreSetFlag<0x2, PIPE_S>(4);
}
"""


@pytest.fixture(scope="module")
def cpu_debug_kernel():
    return compile_kernel(CPU_DEBUG, "cpu_debug")


def test_cpu_debug_names_tell_the_core_kind_and_the_default_wait_pairs_with_mode_2(cpu_debug_kernel):
    blocks = 3
    out = torch.full((3 * blocks, 16), -1, dtype=torch.int32)
    report = cpu_debug_kernel.launch(blocks, torch.zeros(blocks * 16, dtype=torch.int32), out, 0, soc=A2,
                                     block_order_seed=4)
    aiv, aic = out[:2 * blocks], out[2 * blocks:]
    assert aiv[:, 0].tolist() == [2] * (2 * blocks) and aic[:, 0].tolist() == [1] * blocks, "g_coreType: AIV 2, AIC 1"
    assert aiv[:, 1].tolist() == [2] * (2 * blocks) and aic[:, 1].tolist() == [1] * blocks, "GetSubBlockNum, 1_2"
    assert aiv[:, 2].tolist() == [100 + i // 2 for i in range(2 * blocks)], "each AIV reads its AIC's value"
    lines = report.debug_text.splitlines()
    assert sum(line.endswith("] [INFO] kind 1") for line in lines) == blocks
    assert sum(line.endswith("] [INFO] kind 2") for line in lines) == 2 * blocks


def test_ascendc_assert_is_compiled_out_as_on_the_npu_and_a_raw_intrinsic_stops_at_its_line(cpu_debug_kernel):
    ws, out = torch.zeros(16, dtype=torch.int32), torch.full((3, 16), -1, dtype=torch.int32)
    report = cpu_debug_kernel.launch(1, ws, out, 1, soc=A2)
    assert out[:, 0].tolist() == [2, 2, 1] and out[:2, 2].tolist() == [100, 100]
    assert "[ERROR]" not in report.debug_text
    error = expect_error("unsupported_api", cpu_debug_kernel.launch, 1, ws, out, 2, soc=A2)
    assert error.line == marked_line(CPU_DEBUG, "// @raw") and "CrossCoreWaitFlag" in error.message
