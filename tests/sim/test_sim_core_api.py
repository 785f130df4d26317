"""The small state queries of the core API: queue occupancy, event-id allocation, block and task indices, tensor
descriptions (GetLength, GetPosition, user tags), so that every row of docs/simulator_coverage.md has a test."""

from __future__ import annotations

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

SLOTS = 16

QUERIES = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void core_queries(GM_ADDR out, uint32_t mode)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> que;
    pipe.InitBuffer(que, 2, 256);
    GlobalTensor<int32_t> og;
    og.SetGlobalBuffer((__gm__ int32_t*)out + GetBlockIdx() * 16, 16);
    int32_t k = 0;
    og.SetValue(k++, que.VacantInQue() ? 1 : 0);
    og.SetValue(k++, que.HasTensorInQue() ? 1 : 0);
    LocalTensor<float> a = que.AllocTensor<float>();
    a.SetUserTag(7);
    og.SetValue(k++, a.GetUserTag());
    og.SetValue(k++, static_cast<int32_t>(a.GetLength()));
    og.SetValue(k++, a.GetSize());
    og.SetValue(k++, a.GetPosition() == TPosition::VECIN ? 1 : 0);
    que.EnQue(a);
    og.SetValue(k++, que.GetTensorCountInQue());
    og.SetValue(k++, que.HasIdleBuffer() ? 1 : 0);
    LocalTensor<float> b = que.AllocTensor<float>();
    que.EnQue(b);
    og.SetValue(k++, que.VacantInQue() ? 1 : 0);
    og.SetValue(k++, que.HasIdleBuffer() ? 1 : 0);
    LocalTensor<float> a2 = que.DeQue<float>();
    LocalTensor<float> b2 = que.DeQue<float>();
    que.FreeTensor(a2);
    que.FreeTensor(b2);
    TEventID first = GetTPipePtr()->AllocEventID<HardEvent::V_MTE3>();
    TEventID second = GetTPipePtr()->AllocEventID<HardEvent::V_MTE3>();
    og.SetValue(k++, static_cast<int32_t>(first));
    og.SetValue(k++, static_cast<int32_t>(second));
    GetTPipePtr()->ReleaseEventID<HardEvent::V_MTE3>(first);
    og.SetValue(k++, static_cast<int32_t>(GetTPipePtr()->AllocEventID<HardEvent::V_MTE3>()));
    og.SetValue(k++, static_cast<int32_t>(GetSubBlockIdx() * 100 + GetTaskRatio()));
    og.SetValue(k++, static_cast<int32_t>(GetBlockIdx() * 1000 + GetBlockNum()));
    if (mode == 1) {
        for (int i = 0; i < 9; ++i) GetTPipePtr()->AllocEventID<HardEvent::MTE2_V>();  // <- EVENTS_EXHAUSTED
    }
}
"""


@pytest.fixture(scope="module")
def queries():
    return compile_kernel(QUERIES, filename="core_queries.cpp")


def test_queue_event_and_index_queries_follow_the_documented_semantics(queries):
    blocks = 3
    out = torch.full((blocks, SLOTS), -99, dtype=torch.int32)
    queries.launch(blocks, out, 0)
    for block in range(blocks):
        got = out[block, :15].tolist()
        assert got[:2] == [1, 0], "an empty depth-2 queue is vacant and holds nothing"
        assert got[2:6] == [7, 256, 64, 1], "user tag, bytes, elements and position of a 256-byte VECIN buffer"
        assert got[6:8] == [1, 1], "one tensor queued, one buffer still idle"
        assert got[8:10] == [0, 0], "two queued of depth 2: not vacant, no idle buffer"
        assert got[10:13] == [0, 1, 0], "event ids are handed out in order and a released id comes back first"
        assert got[13] == 1, "a vector-only launch: sub-block 0, task ratio 1"
        assert got[14] == block * 1000 + blocks
        assert out[block, 15].item() == -99


def test_running_out_of_event_ids_is_reported_at_the_kernel_line(queries):
    out = torch.zeros((1, SLOTS), dtype=torch.int32)
    with pytest.raises(SimulatorError, match="AllocEventID") as caught:
        queries.launch(1, out, 1)
    marker = next(i for i, line in enumerate(QUERIES.splitlines(), 1) if "EVENTS_EXHAUSTED" in line)
    assert caught.value.line == marker


# GET_TILING_DATA declares a plain struct that a kernel may change through a non-const pointer; AlignUp and
# DEFAULT_C0_SIZE as kernels use them (sim/tiling.h, sim/kernel_utils.h).
UTILS = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct TilingData {
    uint32_t length;
    uint32_t align;
};

__aicore__ inline void Widen(TilingData* tiling) { tiling->length = AlignUp(tiling->length, tiling->align); }

extern "C" __global__ __aicore__ void utils(GM_ADDR tiling, GM_ADDR out)
{
    GET_TILING_DATA(tiling_data, tiling);
    Widen(&tiling_data);
    GlobalTensor<int64_t> og;
    og.SetGlobalBuffer((__gm__ int64_t*)out, 5);
    og.SetValue(0, tiling_data.length);
    og.SetValue(1, DEFAULT_C0_SIZE);
    og.SetValue(2, GetDataBlockSizeInBytes());
    og.SetValue(3, AlignUp(uint64_t(5000000000ull), 48));
    og.SetValue(4, AlignUp(int32_t(7), 0u));
}
"""


@pytest.fixture(scope="module")
def utils_kernel():
    return compile_kernel(UTILS, filename="utils.cpp")


@pytest.mark.parametrize("length, align", [(33, 16), (32, 32), (1, 8), (100, 7)])
def test_tiling_data_is_mutable_and_align_up_rounds_to_the_next_multiple(utils_kernel, length, align):
    out = torch.zeros(5, dtype=torch.int64)
    utils_kernel.launch(1, torch.tensor([length, align], dtype=torch.int32), out)
    assert out[0].item() == -(-length // align) * align
    assert out[1].item() == 32 and out[2].item() == 32, "DEFAULT_C0_SIZE is the 32-byte DataBlock"
    assert out[3].item() == -(-5000000000 // 48) * 48, "AlignUp keeps the value's 64-bit type"
    assert out[4].item() == 7, "an alignment of 0 leaves the value as it is"


# A constant table the kernel defines itself in GM (public cube kernels keep their triangular matrices so), read
# with DataCopy; a GM address that is neither a launcher tensor nor in the kernel's image still stops, and so does a
# write into the image (bogus == 2: it would reach the simulator's own state).
KERNEL_TABLE = r"""
#include "kernel_operator.h"
using namespace AscendC;

const static __gm__ float TABLE[16] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f,
                                       8.5f, 9.5f, 10.5f, 11.5f, 12.5f, 13.5f, 14.5f, 15.5f};

extern "C" __global__ __aicore__ void kernel_table(GM_ADDR out, uint32_t bogus)
{
    GlobalTensor<float> table, og;
    table.SetGlobalBuffer(bogus ? (__gm__ float*)(uintptr_t)0x10 : const_cast<__gm__ float*>(TABLE));
    og.SetGlobalBuffer((__gm__ float*)out);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> que;
    pipe.InitBuffer(que, 1, 64);
    LocalTensor<float> t = que.AllocTensor<float>();
    DataCopy(t, table, 16);
    que.EnQue(t);
    t = que.DeQue<float>();
    DataCopy(bogus == 2 ? table : og, t, 16);
    que.FreeTensor(t);
}
"""


def test_a_constant_gm_table_in_the_kernel_is_readable_and_a_stray_address_is_not():
    kernel = compile_kernel(KERNEL_TABLE, filename="kernel_table.cpp")
    out = torch.zeros(16)
    kernel.launch(1, out, 0)
    assert torch.equal(out, torch.arange(16, dtype=torch.float32) + 0.5)
    with pytest.raises(SimulatorError) as raised:
        kernel.launch(1, torch.zeros(16), 1)
    assert raised.value.kind == "gm_out_of_bounds", str(raised.value)
    with pytest.raises(SimulatorError) as raised:
        kernel.launch(1, torch.zeros(16), 2)
    assert raised.value.kind == "gm_out_of_bounds", str(raised.value)
