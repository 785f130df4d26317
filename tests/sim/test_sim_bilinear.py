"""BilinearInterpolation (sim/bilinear.h) against the page's worked example and a Python model of it.

BilinearInterpolation(ISASI).md: horizontal iteration i takes 8 byte offsets of src0 DataBlocks from
src0Offset and one src1 value (repeatMode false) or 8 (true), multiplies and adds block by block into
the 8 dst blocks of its vertical iteration; vertical iteration v writes at dst + v * vROffset.
"""

from __future__ import annotations

import ctypes

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

BILINEAR = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct BiArgs {
    uint64_t mask;
    uint64_t mask1;
    uint32_t bitwise;
    uint32_t hRepeat;
    uint32_t repeatMode;
    uint32_t dstBlkStride;
    uint32_t vROffset;
    uint32_t vRepeat;
    uint32_t tmpBytes;
};

extern "C" __global__ __aicore__ void bilinear(GM_ADDR src0, GM_ADDR src1, GM_ADDR offsets, GM_ADDR dIn, GM_ADDR out,
                                               BiArgs a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b0, b1, bo, bd, bt;
    pipe.InitBuffer(b0, 512 * sizeof(half));
    pipe.InitBuffer(b1, 64 * sizeof(half));
    pipe.InitBuffer(bo, 64 * sizeof(uint32_t));
    pipe.InitBuffer(bd, 1024 * sizeof(half));
    pipe.InitBuffer(bt, a.tmpBytes);
    GlobalTensor<half> g0, g1, gd, gout;
    GlobalTensor<uint32_t> go;
    g0.SetGlobalBuffer((__gm__ half*)src0);
    g1.SetGlobalBuffer((__gm__ half*)src1);
    go.SetGlobalBuffer((__gm__ uint32_t*)offsets);
    gd.SetGlobalBuffer((__gm__ half*)dIn);
    gout.SetGlobalBuffer((__gm__ half*)out);
    LocalTensor<half> s0 = b0.Get<half>(), s1 = b1.Get<half>(), d = bd.Get<half>();
    LocalTensor<uint32_t> off = bo.Get<uint32_t>();
    DataCopy(s0, g0, 512);
    DataCopy(s1, g1, 64);
    DataCopy(off, go, 64);
    DataCopy(d, gd, 1024);
    PipeBarrier<PIPE_ALL>();
    uint64_t bits[2] = {a.mask, a.mask1};
    if (a.bitwise)
        BilinearInterpolation(d, s0, off, s1, bits, a.hRepeat, a.repeatMode != 0, a.dstBlkStride, a.vROffset,
                              a.vRepeat, bt.Get<uint8_t>());
    else
        BilinearInterpolation(d, s0, off, s1, a.mask, a.hRepeat, a.repeatMode != 0, a.dstBlkStride,  // @bilinear
                              a.vROffset, a.vRepeat, bt.Get<uint8_t>());
    PipeBarrier<PIPE_ALL>();
    DataCopy(gout, d, 1024);
}
"""


class BiArgs(ctypes.Structure):
    _fields_ = [("mask", ctypes.c_uint64), ("mask1", ctypes.c_uint64), ("bitwise", ctypes.c_uint32),
                ("hRepeat", ctypes.c_uint32), ("repeatMode", ctypes.c_uint32), ("dstBlkStride", ctypes.c_uint32),
                ("vROffset", ctypes.c_uint32), ("vRepeat", ctypes.c_uint32), ("tmpBytes", ctypes.c_uint32)]


TMP_BYTES = (512 + 64) * 32


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(BILINEAR, entry="bilinear")


def run(kernel, src0, src1, offsets, *, mask=128, mask1=0, bitwise=0, h=2, mode=0, blk=1, v_offset=128, v=2,
        tmp=TMP_BYTES, d=None):
    d = torch.full((1024,), -7.0, dtype=torch.float16) if d is None else d
    out = torch.zeros(1024, dtype=torch.float16)
    report = kernel.launch(1, src0, src1, offsets, d, out,
                           BiArgs(mask, mask1, bitwise, h, mode, blk, v_offset, v, tmp))
    return out, report


def model(src0, src1, offsets, d, lanes_on, h, mode, blk, v_offset, v):
    out = d.clone()
    i = 0
    for vi in range(v):
        for hi in range(h):
            for k in range(8):
                block = src0[offsets[i * 8 + k] // 2:][:16]
                scale = src1[i * 8 + k if mode else i]
                for e in range(16):
                    lane = k * 16 + e
                    if lane not in lanes_on:
                        continue
                    at = vi * v_offset + k * blk * 16 + e
                    product = (block[e].float() * scale.float()).half()
                    out[at] = product if hi == 0 else (out[at].float() + product.float()).half()
            i += 1
    return out


def test_documented_example(kernel):
    src0 = torch.arange(1, 513, dtype=torch.float16)
    src1 = torch.zeros(64, dtype=torch.float16)
    src1[:16] = torch.arange(2, 18)
    offsets = torch.zeros(64, dtype=torch.int32)
    offsets[:32] = torch.arange(0, 1024, 32)
    out, report = run(kernel, src0, src1, offsets)
    assert out[:4].tolist() == [389, 394, 399, 404] and out[255].item() == 4096  # the page's result
    assert torch.equal(out, model(src0, src1, offsets, torch.full((1024,), -7.0, dtype=torch.float16), range(128),
                                  2, 0, 1, 128, 2))
    assert report.vector_ops()["BilinearInterpolation"] == (1, 4)


def test_repeat_mode_mask_and_strides_follow_the_model(kernel):
    g = torch.Generator().manual_seed(9)
    src0 = (torch.randn(512, generator=g) * 4).half()
    src1 = (torch.randn(64, generator=g)).half()
    offsets = (torch.randint(0, 32, (64,), generator=g, dtype=torch.int32) * 32)
    mask, mask1 = 0xF0F0F0F0F0F0F0F0, 0x00FF00FF00FF00FF
    lanes_on = [lane for lane in range(128) if (mask >> lane if lane < 64 else mask1 >> (lane - 64)) & 1]
    d = (torch.randn(1024, generator=g)).half()
    out, _ = run(kernel, src0, src1, offsets, mask=mask, mask1=mask1, bitwise=1, h=3, mode=1, blk=2, v_offset=256,
                 v=2, d=d)
    assert torch.equal(out, model(src0, src1, offsets, d, lanes_on, 3, 1, 2, 256, 2))


def test_constraints_are_reported(kernel):
    src0 = torch.ones(512, dtype=torch.float16)
    src1 = torch.ones(64, dtype=torch.float16)
    offsets = torch.zeros(64, dtype=torch.int32)
    line = next(i for i, text in enumerate(BILINEAR.splitlines(), 1) if "// @bilinear" in text)
    cases = [(dict(tmp=1024), "local_overrun", "sharedTmpBuffer"),
             (dict(v_offset=100), "bad_argument", "vROffset"),
             (dict(blk=2, v_offset=128), "bad_argument", "overlap"),
             (dict(h=0), "repeat_overflow", "1..255")]
    for kwargs, kind, word in cases:
        with pytest.raises(SimulatorError) as info:
            run(kernel, src0, src1, offsets, **kwargs)
        assert (info.value.kind, info.value.line) == (kind, line), info.value.message
        assert word in info.value.message
    bad = offsets.clone()
    bad[3] = 16  # not a DataBlock start
    with pytest.raises(SimulatorError) as info:
        run(kernel, src0, src1, bad)
    assert info.value.kind == "bad_argument" and "src0Offset[3]" in info.value.message
