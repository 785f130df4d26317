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
