"""Inter-core synchronisation (CrossCoreSetFlag<0, pipe> and the one-argument CrossCoreWaitFlag of the older pages, in
a kernel that declares no kernel type: a barrier over the AIV cores; the modes and counters: test_sim_mix_mode.py), the
GlobalTensor element reference operator(), and list-tensor arguments of a sandboxed launch (ListOf: the descriptor is
built where the kernel runs)."""

from __future__ import annotations

import functools

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.list_tensor import ListOf
from torch_ascendgen.targets.sim.simulator import compile_kernel

# Each block doubles its element of x into y (a 64-byte line per block) through operator(), then, after the barrier,
# reads the next block's y into out. mode 3: a wait with no set; 4: flag id 11.
EXCHANGE = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void exchange(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t mode)
{
    GlobalTensor<int32_t> xGm, yGm, outGm;
    xGm.SetGlobalBuffer((__gm__ int32_t*)x);
    yGm.SetGlobalBuffer((__gm__ int32_t*)y);
    outGm.SetGlobalBuffer((__gm__ int32_t*)out);
    uint32_t me = GetBlockIdx() * 16, next = (GetBlockIdx() + 1) % GetBlockNum() * 16;
    yGm(me) = 2 * xGm(me);
    if (mode == 0) {
        CrossCoreSetFlag<0x0, PIPE_MTE3>(0x8);
        CrossCoreWaitFlag(0x8);
    } else if (mode == 3) {
        CrossCoreWaitFlag(0x3);
    } else if (mode == 4) {
        CrossCoreSetFlag<0x0, PIPE_MTE3>(11);
    }
    outGm(me) = yGm(next) + 1;
}
"""

# out = the listed tensors one after another (float, 8 elements each), read through the list's data pointers.
LISTED = r"""
#include "kernel_operator_list_tensor_intf.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void listed(GM_ADDR list, GM_ADDR a, GM_ADDR b, GM_ADDR out)
{
    ListTensorDesc desc(reinterpret_cast<__gm__ void*>(list));
    GlobalTensor<float> outGm;
    outGm.SetGlobalBuffer((__gm__ float*)out);
    for (uint32_t i = 0; i < desc.GetSize(); i++) {
        GlobalTensor<float> t;
        t.SetGlobalBuffer(desc.GetDataPtr<float>(i));
        for (uint32_t j = 0; j < 8; j++) {
            outGm.SetValue(i * 8 + j, t.GetValue(j));
        }
    }
}
"""

BLOCKS = 4


@functools.cache
def exchange():
    return compile_kernel(EXCHANGE, "exchange", filename="exchange.cpp")


def run(mode: int):
    x = torch.arange(BLOCKS * 16, dtype=torch.int32)
    y, out = torch.zeros_like(x), torch.zeros_like(x)
    exchange().launch(BLOCKS, x, y, out, mode)
    return x, y, out


def line_of(needle: str) -> int:
    return next(i for i, line in enumerate(EXCHANGE.splitlines(), 1) if needle in line)


def test_after_the_barrier_every_block_reads_what_the_next_one_wrote():
    x, y, out = run(0)
    mine = torch.arange(BLOCKS) * 16
    assert torch.equal(y[mine], 2 * x[mine])
    assert torch.equal(out[mine], 2 * x[mine.roll(-1)] + 1)


DIAGNOSTICS = {
    3: ("unpaired_flag", "CrossCoreWaitFlag(0x3);", "before this core's own CrossCoreSetFlag"),
    4: ("bad_argument", "CrossCoreSetFlag<0x0, PIPE_MTE3>(11);", "flagId 11 is out of range"),
}


@pytest.mark.parametrize("mode", list(DIAGNOSTICS))
def test_flag_misuse_is_reported_at_the_kernel_line(mode):
    kind, needle, text = DIAGNOSTICS[mode]
    with pytest.raises(SimulatorError) as raised:
        run(mode)
    error = raised.value
    expected_line = line_of(needle)
    assert (error.kind, error.line) == (kind, expected_line), str(error)
    assert text in str(error)


def test_a_sandboxed_launch_builds_the_list_descriptor_where_the_kernel_runs():
    kernel = compile_kernel(LISTED, "listed", filename="listed.cpp")
    a, b = torch.arange(8, dtype=torch.float32), torch.arange(8, 16, dtype=torch.float32)
    out = torch.zeros(16)
    kernel.launch_isolated(1, ListOf((1, 2)), a, b, out)
    assert torch.equal(out, torch.cat([a, b]))
