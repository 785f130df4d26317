"""Compare and CompareScalar write their bit mask whatever unsigned width the dst tensor is read through (uint8_t to
uint64_t, as Select takes it): the same bits, little endian, as with the pages' uint8_t. A float dst is refused."""

from __future__ import annotations

import functools

import pytest
import torch

from tests.kernel_checks import expect_error
from torch_ascendgen.targets.sim.simulator import compile_kernel

N = 256

SOURCE = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void mask_width(GM_ADDR x, GM_ADDR y, GM_ADDR out, GM_ADDR outs)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bm, bs;
    pipe.InitBuffer(bx, 256 * sizeof(float));
    pipe.InitBuffer(by, 256 * sizeof(float));
    pipe.InitBuffer(bm, 64);
    pipe.InitBuffer(bs, 64);
    GlobalTensor<float> xg, yg;
    GlobalTensor<MASK_T> og, osg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    og.SetGlobalBuffer((__gm__ MASK_T*)out, 32 / sizeof(MASK_T));
    osg.SetGlobalBuffer((__gm__ MASK_T*)outs, 32 / sizeof(MASK_T));
    LocalTensor<float> xl = bx.Get<float>(), yl = by.Get<float>();
    LocalTensor<MASK_T> m = bm.Get<MASK_T>(), ms = bs.Get<MASK_T>();
    DataCopy(xl, xg, 256);
    DataCopy(yl, yg, 256);
    PipeBarrier<PIPE_ALL>();
    Compare(m, xl, yl, CMPMODE::LT, 256);
    CompareScalar(ms, xl, 0.0f, CMPMODE::GT, 256);
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, m, 32 / sizeof(MASK_T));
    DataCopy(osg, ms, 32 / sizeof(MASK_T));
}
"""


@functools.cache
def kernel(mask_type: str):
    return compile_kernel(SOURCE.replace("MASK_T", mask_type), filename="mask_width.cpp")


def _bits(flags: torch.Tensor) -> torch.Tensor:
    weights = 2 ** torch.arange(8)
    return (flags.reshape(-1, 8).long() * weights).sum(1).to(torch.uint8)


@pytest.mark.parametrize("mask_type", ["uint8_t", "uint16_t", "uint32_t", "uint64_t"])
def test_the_mask_is_the_same_bits_through_every_unsigned_width(mask_type):
    x, y = torch.randn(N), torch.randn(N)
    out, outs = torch.zeros(32, dtype=torch.uint8), torch.zeros(32, dtype=torch.uint8)
    kernel(mask_type).launch(1, x, y, out, outs)
    assert torch.equal(out, _bits(x < y)) and torch.equal(outs, _bits(x > 0))


def test_a_float_mask_is_refused():
    x, y = torch.randn(N), torch.randn(N)
    out, outs = torch.zeros(32, dtype=torch.uint8), torch.zeros(32, dtype=torch.uint8)
    error = expect_error("unsupported_dtype", kernel("float").launch, 1, x, y, out, outs)
    assert "bit mask" in error.message
