"""CreateVecIndex (sim/vector_ops.h, the 数据填充 chapter) against the documented example and Python.

CreateVecIndex.md: dst gets firstValue, firstValue + 1, ...; int16_t/half/int32_t/float; count form and
both level-0 mask forms with dstBlkStride/dstRepStride.
"""

from __future__ import annotations

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

INDEX = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Run(GM_ADDR out, float first, uint32_t form, uint32_t count, uint64_t mask, uint32_t repeat,
                           uint32_t blk, uint32_t rep)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bd;
    pipe.InitBuffer(bd, 2048);
    LocalTensor<T> d = bd.Get<T>();
    GlobalTensor<T> og;
    og.SetGlobalBuffer((__gm__ T*)out);
    Duplicate(d, static_cast<T>(-7), 2048 / sizeof(T));
    PipeBarrier<PIPE_V>();
    uint64_t bits[2] = {mask, mask};
    if (form == 0) CreateVecIndex(d, static_cast<T>(first), count);  // @index
    else if (form == 1) CreateVecIndex(d, static_cast<T>(first), mask, repeat, blk, rep);
    else CreateVecIndex(d, static_cast<T>(first), bits, repeat, blk, rep);
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, d, 2048 / sizeof(T));
}

extern "C" __global__ __aicore__ void vec_index(GM_ADDR out, uint32_t dtype, float first, uint32_t form,
                                                uint32_t count, uint64_t mask, uint32_t repeat, uint32_t blk,
                                                uint32_t rep)
{
    switch (dtype) {
        case 0: Run<float>(out, first, form, count, mask, repeat, blk, rep); break;
        case 1: Run<half>(out, first, form, count, mask, repeat, blk, rep); break;
        case 2: Run<int16_t>(out, first, form, count, mask, repeat, blk, rep); break;
        case 3: Run<int32_t>(out, first, form, count, mask, repeat, blk, rep); break;
        default: Run<uint16_t>(out, first, form, count, mask, repeat, blk, rep); break;
    }
}
"""

DTYPES = [torch.float32, torch.float16, torch.int16, torch.int32, torch.int16]  # 4: uint16_t in int16 storage


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(INDEX, entry="vec_index")


def run(kernel, dtype_index, first, *, form=0, count=0, mask=0, repeat=0, blk=1, rep=8):
    dtype = DTYPES[dtype_index]
    out = torch.zeros(2048 // dtype.itemsize, dtype=dtype)
    report = kernel.launch(1, out, dtype_index, first, form, count, mask, repeat, blk, rep)
    return out, report


def test_documented_example(kernel):
    out, report = run(kernel, 0, 0.0, count=128)
    assert out[:128].tolist() == list(range(128))  # CreateVecIndex.md: [0 1 2 ... 127]
    assert bool((out[128:] == -7).all())
    assert report.vector_ops()["CreateVecIndex"] == (1, 2)


@pytest.mark.parametrize("dtype_index,first", [(1, -3.0), (2, 32700.0), (3, -100.0)])
def test_count_form_per_type(kernel, dtype_index, first):
    dtype = DTYPES[dtype_index]
    out, _ = run(kernel, dtype_index, first, count=300)
    if dtype.is_floating_point:
        expected = (torch.arange(300, dtype=torch.float32) + first).to(dtype)
    else:
        expected = (torch.arange(300, dtype=torch.int64) + int(first)).to(dtype)  # int16 wraps past 32767
    assert torch.equal(out[:300], expected)


def test_level0_forms_index_by_lane_and_repeat(kernel):
    # float: 64 lanes; continuous mask 40, 3 repeats, dst repeats 16 blocks apart (512 bytes)
    out, report = run(kernel, 0, 5.0, form=1, mask=40, repeat=3, blk=1, rep=16)
    expected = torch.full((512,), -7.0)
    for r in range(3):
        for lane in range(40):
            expected[r * 128 + lane] = 5 + r * 64 + lane
    assert torch.equal(out, expected)
    assert report.vector_ops()["CreateVecIndex"] == (1, 3)
    # half: bitwise mask (every other lane of both words), blocks 2 apart inside a repeat
    out, _ = run(kernel, 1, 0.0, form=2, mask=0x5555555555555555, repeat=1, blk=2, rep=16)
    expected = torch.full((1024,), -7.0, dtype=torch.float16)
    for lane in range(0, 128, 2):
        expected[(lane // 16) * 32 + lane % 16] = lane
    assert torch.equal(out, expected)


def test_unsupported_type_and_overrun_are_reported(kernel):
    line = next(i for i, text in enumerate(INDEX.splitlines(), 1) if text.rstrip().endswith("// @index"))
    with pytest.raises(SimulatorError) as info:
        run(kernel, 4, 0.0, count=16)
    assert (info.value.kind, info.value.line) == ("unsupported_dtype", line)
    with pytest.raises(SimulatorError) as info:
        run(kernel, 0, 0.0, count=1000)
    assert (info.value.kind, info.value.line) == ("local_overrun", line)
