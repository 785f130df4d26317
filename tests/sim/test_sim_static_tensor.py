"""Static tensor programming: LocalTensor(pos, addr, tileSize), LocalMemAllocator<Hardware::UB>, InitSocState.

Tensors sit at UB addresses the kernel picks, without TPipe; the kernel synchronises the pipes with SetFlag/WaitFlag
itself. Checked: results against torch, UB bounds and alignment, InitSocState first, no mixing with TPipe, and the
pipe-race check following each static tensor.
"""

from __future__ import annotations

import functools

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

STATIC = r"""
#include "kernel_operator.h"
using namespace AscendC;

// z = (x + y) * 2 on 256 floats per block. mode 0: LocalMemAllocator; 1: LocalTensor(pos, addr, len);
// 2: a tile past UB; 3: a misaligned addr; 4: no InitSocState; 5: a TPipe alive; 6: no flag before Add;
// 7: an allocator of L1.
extern "C" __global__ __aicore__ void static_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t mode)
{
    constexpr uint32_t N = 256;
    if (mode != 4) {
        InitSocState();
    }
    GlobalTensor<float> xg, yg, zg;
    xg.SetGlobalBuffer((__gm__ float*)x + N * GetBlockIdx(), N);
    yg.SetGlobalBuffer((__gm__ float*)y + N * GetBlockIdx(), N);
    zg.SetGlobalBuffer((__gm__ float*)z + N * GetBlockIdx(), N);
    LocalTensor<float> xl, yl, zl;
    if (mode == 1) {
        xl = LocalTensor<float>(TPosition::VECIN, 0, N);
        yl = LocalTensor<float>(TPosition::VECIN, N * sizeof(float), N);
        zl = LocalTensor<float>(TPosition::VECOUT, 2 * N * sizeof(float), N);
    } else if (mode == 2) {
        xl = LocalTensor<float>(TPosition::VECIN, 196608 - 512, N);
    } else if (mode == 3) {
        xl = LocalTensor<float>(TPosition::VECIN, 16, N);
    } else if (mode == 5) {
        TPipe pipe;
        LocalMemAllocator<Hardware::UB> allocator;
        xl = allocator.Alloc<float>(N);
    } else if (mode == 7) {
        LocalMemAllocator<Hardware::L1> allocator;
        xl = allocator.Alloc<float, N>();
    } else {
        LocalMemAllocator<Hardware::UB> allocator;
        xl = allocator.Alloc<TPosition::VECIN, float, N>();
        yl = allocator.Alloc<TPosition::VECIN, float>(N);
        zl = allocator.Alloc<float>(N);
        if (allocator.GetCurAddr() != 3 * N * sizeof(float)) {
            return;
        }
    }
    DataCopy(xl, xg, N);
    DataCopy(yl, yg, N);
    if (mode != 6) {
        SetFlag<HardEvent::MTE2_V>(0);
        WaitFlag<HardEvent::MTE2_V>(0);
    }
    Add(zl, xl, yl, N);
    Muls(zl, zl, 2.0f, N);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(zg, zl, N);
}
"""

BLOCKS = 3
N = 256


@functools.cache
def kernel():
    return compile_kernel(STATIC, filename="static_add.cpp")


def line_of(needle: str) -> int:
    return next(i for i, line in enumerate(STATIC.splitlines(), 1) if needle in line)


def run(mode: int, soc: str | None = None):
    x, y = torch.randn(BLOCKS * N), torch.randn(BLOCKS * N)
    z = torch.full((BLOCKS * N,), float("nan"))
    kernel().launch(BLOCKS, x, y, z, mode, soc=soc)
    return x, y, z


@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("soc", ["Ascend910B1", "Ascend310P3"])
def test_static_tensors_compute_like_torch(mode, soc):
    x, y, z = run(mode, soc)
    assert torch.equal(z, (x + y) * 2)


DIAGNOSTICS = {
    2: ("ub_overflow", "LocalTensor<float>(TPosition::VECIN, 196608 - 512, N)", "past the 196608 bytes of UB"),
    3: ("ub_misaligned", "LocalTensor<float>(TPosition::VECIN, 16, N)", "addr 16 is not 32-byte aligned"),
    4: ("bad_argument", "allocator.Alloc<TPosition::VECIN, float, N>()", "must call AscendC::InitSocState()"),
    5: ("bad_argument", "xl = allocator.Alloc<float>(N);", "while a TPipe is alive"),
    6: ("pipe_race", "Add(zl, xl, yl, N);", "MTE2"),
    7: ("unsupported_api", "xl = allocator.Alloc<float, N>();", "other than UB"),
}


@pytest.mark.parametrize("mode", list(DIAGNOSTICS))
def test_static_tensor_rules_are_reported_at_the_kernel_line(mode):
    kind, needle, text = DIAGNOSTICS[mode]
    with pytest.raises(SimulatorError) as raised:
        run(mode)
    error = raised.value
    assert (error.kind, error.file, error.line) == (kind, "static_add.cpp", line_of(needle)), str(error)
    assert text in str(error)
