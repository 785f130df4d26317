"""Copy (sim/vec_copy.h): the vector UB -> UB move with masks and strides, against torch indexing (Copy.md)."""

from __future__ import annotations

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF = 0, 1
DTYPES = {FLOAT: torch.float32, HALF: torch.float16}
N = 2048

# p: form (0 continuous, 1 bitwise, 2 counter mode), mask, repeat, dstStride, srcStride, dstRep, srcRep, dtype
COPY = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, const uint32_t* p, uint64_t m0, uint64_t m1)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, yb;
    pipe.InitBuffer(xb, 2048 * sizeof(T));
    pipe.InitBuffer(yb, 2048 * sizeof(T));
    GlobalTensor<T> xg, yg;
    xg.SetGlobalBuffer((__gm__ T*)x);
    yg.SetGlobalBuffer((__gm__ T*)y);
    LocalTensor<T> src = xb.Get<T>(), dst = yb.Get<T>();
    DataCopy(src, xg, 2048);
    DataCopy(dst, yg, 2048);
    PipeBarrier<PIPE_ALL>();
    CopyRepeatParams rp((uint16_t)p[3], (uint16_t)p[4], (uint16_t)p[5], (uint16_t)p[6]);
    uint8_t repeat = (uint8_t)p[2];
    uint64_t bits[2] = {m0, m1};
    if (p[0] == 0) {
        Copy(dst, src, (uint64_t)p[1], repeat, rp);  // @copy
    } else if (p[0] == 1) {
        Copy(dst, src, bits, repeat, rp);
    } else {
        SetMaskCount();
        SetVectorMask<T, MaskMode::COUNTER>(0, p[1]);
        Copy<T, false>(dst, src, MASK_PLACEHOLDER, repeat, rp);  // @counter
        SetMaskNorm();
        ResetMask();
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, dst, 2048);
}

extern "C" __global__ __aicore__ void vec_copy(GM_ADDR x, GM_ADDR y, GM_ADDR params, uint64_t m0, uint64_t m1)
{
    const uint32_t* p = (const uint32_t*)params;
    if (p[7] == 0) Run<float>(x, y, p, m0, m1);
    else Run<half>(x, y, p, m0, m1);
}
"""

_kernel = None


def run(dtype, *, form=0, mask=64, repeat=1, dst_stride=1, src_stride=1, dst_rep=8, src_rep=8, bits=(0, 0)):
    global _kernel
    if _kernel is None:
        _kernel = compile_kernel(COPY, entry="vec_copy")
    x = torch.arange(N, dtype=torch.float32).to(DTYPES[dtype])
    y = torch.full((N,), -1, dtype=DTYPES[dtype])
    p = [form, mask, repeat, dst_stride, src_stride, dst_rep, src_rep, dtype] + [0] * 8
    _kernel.launch(1, x, y, torch.tensor(p, dtype=torch.int32), bits[0], bits[1])
    return x, y


def reference(dtype, x, y, lanes_on, repeat, dst_stride, src_stride, dst_rep, src_rep):
    per_block = 32 // x.element_size()
    out = y.clone()
    for r in range(repeat):
        for lane in lanes_on:
            blk, k = divmod(lane, per_block)
            out[r * dst_rep * per_block + blk * dst_stride * per_block + k] = \
                x[r * src_rep * per_block + blk * src_stride * per_block + k]
    return out


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_copy_continuous_mask_with_strides(dtype):
    lanes = 64 if dtype == FLOAT else 128
    x, y = run(dtype, mask=lanes - 5, repeat=3, dst_stride=2, src_stride=1, dst_rep=16, src_rep=9)
    want = reference(dtype, x, torch.full((N,), -1, dtype=DTYPES[dtype]), range(lanes - 5), 3, 2, 1, 16, 9)
    assert torch.equal(y, want)


def test_copy_bitwise_mask_half():
    bits = (0x8000_0000_0000_0001, 0x5)
    on = [i for i in range(128) if (bits[i // 64] >> (i % 64)) & 1]
    x, y = run(HALF, form=1, bits=bits, repeat=2)
    assert torch.equal(y, reference(HALF, x, torch.full((N,), -1, dtype=torch.float16), on, 2, 1, 1, 8, 8))


def test_copy_counter_mode_counts_per_repeat():
    # Copy.md: in counter mode the mask is the elements of each repeat and repeatTime counts.
    x, y = run(FLOAT, form=2, mask=10, repeat=3)
    assert torch.equal(y, reference(FLOAT, x, torch.full((N,), -1.0), range(10), 3, 1, 1, 8, 8))


def test_copy_constraints_name_the_kernel_line():
    lines = COPY.splitlines()
    copy_line = [i + 1 for i, t in enumerate(lines) if t.endswith("// @copy")][0]
    counter_line = [i + 1 for i, t in enumerate(lines) if t.endswith("// @counter")][0]
    with pytest.raises(SimulatorError) as info:
        run(FLOAT, mask=65)
    assert info.value.kind == "bad_mask" and info.value.line == copy_line
    with pytest.raises(SimulatorError) as info:
        run(FLOAT, repeat=40, src_rep=8)  # 40 repeats of 64 floats: past the 2048-element src
    assert info.value.kind == "local_overrun" and info.value.line == copy_line
    with pytest.raises(SimulatorError) as info:
        run(FLOAT, dst_rep=5000)
    assert info.value.kind == "bad_argument" and info.value.line == copy_line
    with pytest.raises(SimulatorError) as info:
        run(FLOAT, form=2, mask=100, repeat=1)  # more than one repeat's 64 lanes per repeat
    assert info.value.kind == "bad_mask" and info.value.line == counter_line
