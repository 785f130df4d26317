"""Gatherb (sim/gatherb.h) against the page's example and a Python model.

Gatherb(ISASI).md: each repeat gathers 8 32-byte DataBlocks of src0, block k from src0 + offset[k] bytes,
into dst blocks dstBlkStride apart, repeats dstRepStride apart (GatherRepeatParams{dstBlk, dstRep}).
"""

from __future__ import annotations

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

GATHERB = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR offsets, GM_ADDR y, uint32_t repeat, uint32_t blk, uint32_t rep)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inX, inOff;
    TQue<TPosition::VECOUT, 1> outY;
    pipe.InitBuffer(inX, 1, 2048);
    pipe.InitBuffer(inOff, 1, 256 * sizeof(uint32_t));
    pipe.InitBuffer(outY, 1, 4096);
    GlobalTensor<T> xg, yg;
    GlobalTensor<uint32_t> og;
    xg.SetGlobalBuffer((__gm__ T*)x);
    og.SetGlobalBuffer((__gm__ uint32_t*)offsets);
    yg.SetGlobalBuffer((__gm__ T*)y);
    LocalTensor<T> xl = inX.AllocTensor<T>();
    LocalTensor<uint32_t> ol = inOff.AllocTensor<uint32_t>();
    DataCopy(xl, xg, 2048 / sizeof(T));
    DataCopy(ol, og, 256);
    inX.EnQue(xl);
    inOff.EnQue(ol);
    xl = inX.DeQue<T>();
    ol = inOff.DeQue<uint32_t>();
    LocalTensor<T> yl = outY.AllocTensor<T>();
    Duplicate(yl, static_cast<T>(7), 4096 / sizeof(T));
    GatherRepeatParams params{static_cast<uint16_t>(blk), static_cast<uint16_t>(rep)};
    Gatherb(yl, xl, ol, static_cast<uint8_t>(repeat), params);  // @gatherb
    outY.EnQue(yl);
    yl = outY.DeQue<T>();
    DataCopy(yg, yl, 4096 / sizeof(T));
    outY.FreeTensor(yl);
    inX.FreeTensor(xl);
    inOff.FreeTensor(ol);
}

extern "C" __global__ __aicore__ void gatherb(GM_ADDR x, GM_ADDR offsets, GM_ADDR y, uint32_t dtype, uint32_t repeat,
                                              uint32_t blk, uint32_t rep)
{
    if (dtype == 0) Run<uint16_t>(x, offsets, y, repeat, blk, rep);
    else if (dtype == 1) Run<uint32_t>(x, offsets, y, repeat, blk, rep);
    else Run<half>(x, offsets, y, repeat, blk, rep);
}
"""

STORAGE = [torch.int16, torch.int32, torch.float16]  # uint16_t / uint32_t kept in signed storage


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(GATHERB, entry="gatherb")


def run(kernel, dtype_index, x, offsets, repeat, blk=1, rep=8):
    offs = torch.zeros(256, dtype=torch.int32)
    offs[:offsets.numel()] = offsets
    y = torch.zeros(4096 // x.element_size(), dtype=x.dtype)
    report = kernel.launch(1, x, offs, y, dtype_index, repeat, blk, rep)
    return y, report


def test_documented_example(kernel):
    x = torch.arange(1024, dtype=torch.int16)  # the page's src: 0, 1, ... 127 (and more, unused)
    y, report = run(kernel, 0, x, torch.tensor([224, 192, 160, 128, 96, 64, 32, 0], dtype=torch.int32), 1)
    assert y[:16].tolist() == list(range(112, 128)) and y[16:32].tolist() == list(range(96, 112))
    assert y[112:128].tolist() == list(range(16))
    assert bool((y[128:] == 7).all())
    assert report.vector_ops()["Gatherb"] == (1, 1)


def test_repeats_and_strides_follow_the_model(kernel):
    g = torch.Generator().manual_seed(4)
    x = torch.randint(-2**31, 2**31 - 1, (512,), generator=g, dtype=torch.int32)
    offsets = torch.randint(0, 64, (24,), generator=g, dtype=torch.int32) * 32
    y, _ = run(kernel, 1, x, offsets, 3, blk=2, rep=20)
    expected = torch.full((1024,), 7, dtype=torch.int32)
    for r in range(3):
        for k in range(8):
            at = (r * 20 + k * 2) * 8
            start = int(offsets[r * 8 + k]) // 4
            expected[at:at + 8] = x[start:start + 8]
    assert torch.equal(y, expected)


def test_constraints_are_reported(kernel):
    line = next(i for i, text in enumerate(GATHERB.splitlines(), 1) if text.rstrip().endswith("// @gatherb"))
    x = torch.zeros(1024, dtype=torch.int16)
    for args, kind, word in [((0, x, torch.tensor([16] + [0] * 7, dtype=torch.int32), 1), "bad_argument", "offset[0]"),
                             ((0, x, torch.tensor([2048] + [0] * 7, dtype=torch.int32), 1), "bad_argument", "2048"),
                             ((0, x, torch.zeros(8, dtype=torch.int32), 0), "repeat_overflow", "1..255"),
                             ((2, x.half(), torch.zeros(8, dtype=torch.int32), 1), "unsupported_dtype", "half")]:
        with pytest.raises(SimulatorError) as info:
            run(kernel, *args)
        assert (info.value.kind, info.value.line) == (kind, line), info.value.message
        assert word in info.value.message
    with pytest.raises(SimulatorError) as info:  # 2 repeats 100 blocks apart do not fit dst's 4096 bytes
        run(kernel, 0, x, torch.zeros(16, dtype=torch.int32), 2, 1, 200)
    assert (info.value.kind, info.value.line) == ("local_overrun", line)
