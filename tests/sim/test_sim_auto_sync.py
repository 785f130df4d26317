"""Launches as bisheng builds operator and kernel-launch projects (--cce-auto-sync, on there by default): the
compiler synchronises the scalar pipe with MTE2, MTE3 and V, so a scalar read of a vector result needs no flag;
the MTE2 -> V -> MTE3 hand-overs still need queues or flags. torch_ascendgen's own kernels are built without it,
and for them the simulator keeps reporting every unsynchronised hand-over."""

from __future__ import annotations

import functools

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

N = 64

SOURCE = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void sum_then_scale(GM_ADDR x, GM_ADDR y, uint32_t mode)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bs, bw;
    pipe.InitBuffer(bx, 64 * sizeof(float));
    pipe.InitBuffer(bs, 64 * sizeof(float));
    pipe.InitBuffer(bw, 64 * sizeof(float));
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 64);
    yg.SetGlobalBuffer((__gm__ float*)y, 64);
    LocalTensor<float> xl = bx.Get<float>(), sl = bs.Get<float>(), wl = bw.Get<float>();
    DataCopy(xl, xg, 64);
    if (mode == 0) PipeBarrier<PIPE_ALL>();
    ReduceSum<float>(sl, xl, wl, 64);  // <- MTE2_TO_V
    float total = sl.GetValue(0);  // <- V_TO_S
    Muls(xl, xl, total, 64);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, xl, 64);
}
"""


@functools.cache
def kernel():
    return compile_kernel(SOURCE, filename="sum_then_scale.cpp")


def _line(marker: str) -> int:
    return next(i for i, text in enumerate(SOURCE.splitlines(), 1) if f"// <- {marker}" in text)


def _run(mode: int, auto_sync: bool):
    x = torch.arange(N, dtype=torch.float32) / N
    y = torch.zeros(N)
    kernel().launch(1, x, y, mode, auto_sync=auto_sync)
    return x, y


def test_a_scalar_read_of_a_vector_result_races_without_auto_sync():
    with pytest.raises(SimulatorError) as caught:
        _run(0, auto_sync=False)
    assert caught.value.kind == "pipe_race" and caught.value.line == _line("V_TO_S")


def test_with_auto_sync_the_compiler_synchronises_the_scalar_pipe():
    x, y = _run(0, auto_sync=True)
    torch.testing.assert_close(y, x * x.sum())


def test_auto_sync_leaves_the_copy_to_vector_hand_over_to_the_kernel():
    with pytest.raises(SimulatorError) as caught:
        _run(1, auto_sync=True)
    assert caught.value.kind == "pipe_race" and caught.value.line == _line("MTE2_TO_V")


def test_isolated_launches_take_auto_sync_too():
    x = torch.arange(N, dtype=torch.float32) / N
    y = torch.zeros(N)
    kernel().launch_isolated(1, x, y, 0, auto_sync=True)
    torch.testing.assert_close(y, x * x.sum())
