"""IBSet/IBWait (sim/ib_sync.h), the toolkit's IsSameType, and what GatherMask and the sort APIs take in public kernels.

IBSet.md / IBWait.md: one block raises its flag of an event in a zeroed GM workspace, another waits for it; the pair
orders the first block's GM writes before the second block's reads. The kernel below is the pages' example in
shape: block 0 writes x + y to the first half of z and raises its flag, block 1 waits, then reads that half back
from GM and adds y again into the second half. A wait nobody can satisfy is reported instead of hanging.
"""

from __future__ import annotations

import pytest
import torch

from tests.kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

N = 256

SOURCE = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void ib_pair(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR sync, uint32_t mode)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bs;
    pipe.InitBuffer(bx, 256 * sizeof(float));
    pipe.InitBuffer(by, 256 * sizeof(float));
    pipe.InitBuffer(bs, 32);
    GlobalTensor<float> xg, yg, zg;
    GlobalTensor<int32_t> sg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    zg.SetGlobalBuffer((__gm__ float*)z, 512);
    sg.SetGlobalBuffer((__gm__ int32_t*)sync, mode == 2 ? 8 : 2 * 8);
    LocalTensor<float> xl = bx.Get<float>(), yl = by.Get<float>();
    LocalTensor<int32_t> sl = bs.Get<int32_t>();
    static_assert(IsSameType<float, float>::value && !IsSameType<float, half>::value, "IsSameType");
    DataCopy(yl, yg, 256);
    if (GetBlockIdx() == 0) {
        DataCopy(xl, xg, 256);
        PipeBarrier<PIPE_ALL>();
        Add(xl, xl, yl, 256);
        PipeBarrier<PIPE_ALL>();
        DataCopy(zg, xl, 256);
        PipeBarrier<PIPE_ALL>();
        if (mode != 1) IBSet(sg, sl, 0, 0);
    } else {
        IBWait(sg, sl, 0, mode == 2 ? 1 : 0);  // @wait
        DataCopy(xl, zg, 256);
        PipeBarrier<PIPE_ALL>();
        Add(xl, xl, yl, 256);
        PipeBarrier<PIPE_ALL>();
        DataCopy(zg[256], xl, 256);
    }
}
"""


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="ib_pair")


def run(kernel, mode: int):
    g = torch.Generator().manual_seed(mode)
    x, y = torch.rand(N, generator=g), torch.rand(N, generator=g)
    z = torch.zeros(2 * N)
    kernel.launch(2, x, y, z, torch.zeros(2 * 8, dtype=torch.int32), mode)
    return x, y, z


def test_a_block_waits_for_the_flag_and_reads_what_the_setter_wrote(kernel):
    for _ in range(5):  # the two blocks run on two threads: the wait must hold whichever starts first
        x, y, z = run(kernel, 0)
        torch.testing.assert_close(z[:N], x + y)
        torch.testing.assert_close(z[N:], x + y + y)


def test_a_wait_nobody_satisfies_is_reported(kernel):
    err = expect_error("sync_all_deadlock", run, kernel, 1)
    assert err.line == marked_line(SOURCE, "// @wait") and "block 0, event 0" in err.message


def test_a_flag_outside_the_workspace_is_reported(kernel):
    # event 1 of 2 blocks is at byte (1 * 2 + 0) * 32 = 64: past a workspace of 32 bytes
    err = expect_error("gm_out_of_bounds", run, kernel, 2)
    assert err.line == marked_line(SOURCE, "// @wait")
