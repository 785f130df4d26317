"""The simulator's vector instructions (vector_ops.h, cast.h, compare_select.h) against torch.

Each kernel below is built once per session (compile_kernel caches by content) and launched with
different arguments: an op selector and, for the level-0 forms, a params struct with the mask,
repeatTime and strides. References are computed here in Python from the documented semantics
(asc-devkit v8.5.0 API pages): the level-0 addressing model is re-derived independently of the
C++ (element l of repeat r of an operand with strides blk/rep, in 32-byte blocks, is at
r*rep*32 + (l // per_block)*blk*32 + (l % per_block)*esize bytes).
"""

from __future__ import annotations

import ctypes
import math
import struct
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

SENTINEL = -7.0

# ---------------------------------------------------------------------------------------------
# Kernel sources
# ---------------------------------------------------------------------------------------------

# Count form of every float op, for half and float: out slot k holds op k over the first n
# elements; the slot is pre-filled with SENTINEL so writes past n are caught.
ELEMENTWISE = r"""
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t NOPS = 20;

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t n, uint32_t padded, float a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bo, bax;
    pipe.InitBuffer(bx, padded * sizeof(T));
    pipe.InitBuffer(by, padded * sizeof(T));
    pipe.InitBuffer(bo, NOPS * padded * sizeof(T));
    pipe.InitBuffer(bax, padded * sizeof(T));
    GlobalTensor<T> xg, yg, og;
    xg.SetGlobalBuffer((__gm__ T*)x);
    yg.SetGlobalBuffer((__gm__ T*)y);
    og.SetGlobalBuffer((__gm__ T*)out);
    LocalTensor<T> xl = bx.Get<T>(), yl = by.Get<T>(), ol = bo.Get<T>(), ax = bax.Get<T>();
    DataCopy(xl, xg, padded);
    DataCopy(yl, yg, padded);
    DataCopy(ax, yg, padded);
    Duplicate(ol, static_cast<T>(-7.0f), NOPS * padded);
    PipeBarrier<PIPE_ALL>();
    const T s = static_cast<T>(a);
    Add(ol[0 * padded], xl, yl, n);
    Sub(ol[1 * padded], xl, yl, n);
    Mul(ol[2 * padded], xl, yl, n);
    Div(ol[3 * padded], xl, yl, n);
    Max(ol[4 * padded], xl, yl, n);
    Min(ol[5 * padded], xl, yl, n);
    Adds(ol[6 * padded], xl, s, n);
    Muls(ol[7 * padded], xl, s, n);
    Maxs(ol[8 * padded], xl, s, n);
    Mins(ol[9 * padded], xl, s, n);
    LeakyRelu(ol[10 * padded], xl, s, n);
    Exp(ol[11 * padded], xl, n);
    Ln(ol[12 * padded], xl, n);
    Abs(ol[13 * padded], xl, n);
    Sqrt(ol[14 * padded], xl, n);
    Rsqrt(ol[15 * padded], xl, n);
    Reciprocal(ol[16 * padded], xl, n);
    Relu(ol[17 * padded], xl, n);
    Axpy(ax, xl, s, n);
    Duplicate(ol[19 * padded], s, n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, ol, NOPS * padded);
    DataCopy(og[18 * padded], ax, padded);
}

extern "C" __global__ __aicore__ void elementwise(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t n, uint32_t padded,
                                                  float a, uint32_t isHalf)
{
    if (isHalf) Run<half>(x, y, out, n, padded, a);
    else Run<float>(x, y, out, n, padded, a);
}
"""

# Integer ops (count form): slot k holds op k where the dtype supports it, else stays SENTINEL.
INTOPS = r"""
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t NOPS = 14;

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t n, uint32_t padded, int32_t a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bo;
    pipe.InitBuffer(bx, padded * sizeof(T));
    pipe.InitBuffer(by, padded * sizeof(T));
    pipe.InitBuffer(bo, NOPS * padded * sizeof(T));
    GlobalTensor<T> xg, yg, og;
    xg.SetGlobalBuffer((__gm__ T*)x);
    yg.SetGlobalBuffer((__gm__ T*)y);
    og.SetGlobalBuffer((__gm__ T*)out);
    LocalTensor<T> xl = bx.Get<T>(), yl = by.Get<T>(), ol = bo.Get<T>();
    DataCopy(xl, xg, padded);
    DataCopy(yl, yg, padded);
    Duplicate(ol, static_cast<T>(-7), NOPS * padded);
    PipeBarrier<PIPE_ALL>();
    const T s = static_cast<T>(a);
    if constexpr (std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t>) {
        Add(ol[0 * padded], xl, yl, n);
        Sub(ol[1 * padded], xl, yl, n);
        Mul(ol[2 * padded], xl, yl, n);
        Max(ol[3 * padded], xl, yl, n);
        Min(ol[4 * padded], xl, yl, n);
        Adds(ol[5 * padded], xl, s, n);
        Muls(ol[6 * padded], xl, s, n);
        Maxs(ol[7 * padded], xl, s, n);
        Mins(ol[8 * padded], xl, s, n);
    }
    if constexpr (std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t>) {
        And(ol[9 * padded], xl, yl, n);
        Or(ol[10 * padded], xl, yl, n);
        Not(ol[11 * padded], xl, n);
    }
    if constexpr (std::is_same_v<T, int32_t>) Relu(ol[12 * padded], xl, n);
    Duplicate(ol[13 * padded], s, n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, ol, NOPS * padded);
}

extern "C" __global__ __aicore__ void intops(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t n, uint32_t padded,
                                             int32_t a, uint32_t dtype)
{
    switch (dtype) {
        case 0: Run<int16_t>(x, y, out, n, padded, a); break;
        case 1: Run<int32_t>(x, y, out, n, padded, a); break;
        case 2: Run<uint16_t>(x, y, out, n, padded, a); break;
        default: Run<uint32_t>(x, y, out, n, padded, a); break;
    }
}

"""

# Duplicate of a bfloat16_t: the value arrives as its raw bits.
DUP_BF16 = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void dup_bf16(GM_ADDR out, uint32_t n, uint32_t padded, uint32_t bits)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bo;
    pipe.InitBuffer(bo, padded * sizeof(bfloat16_t));
    GlobalTensor<bfloat16_t> og;
    og.SetGlobalBuffer((__gm__ bfloat16_t*)out);
    LocalTensor<bfloat16_t> ol = bo.Get<bfloat16_t>();
    Duplicate(ol, bfloat16_t::from_bits(0), padded);
    Duplicate(ol, bfloat16_t::from_bits(static_cast<uint16_t>(bits)), n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, ol, padded);
}
"""

# One level-0 instruction per launch, chosen by Level0Args.op; dst starts as the dst input.
LEVEL0 = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct Level0Args {
    uint32_t op;
    uint32_t maskKind;   // 0 continuous, 1 bitwise, 2 isSetMask=false + SetVectorMask(hi, lo),
                         // 3 counter mode (SetMaskCount), 4 isSetMask=false with the register as found,
                         // 5 SetMaskCount + SetVectorMask and leave it set (no op)
    uint64_t mask;
    uint64_t mask1;
    uint32_t repeat;
    uint32_t alias;      // 1: src1 is dst
    uint8_t dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep, pad0, pad1;
    float scalar;
    uint32_t elems;
};

template <typename T, bool isSetMask, typename M>
__aicore__ inline void Op(const Level0Args& a, const LocalTensor<T>& d, const LocalTensor<T>& x,
                          const LocalTensor<T>& y, M mask)
{
    BinaryRepeatParams bp(a.dstBlk, a.src0Blk, a.src1Blk, a.dstRep, a.src0Rep, a.src1Rep);
    UnaryRepeatParams up(a.dstBlk, a.src0Blk, a.dstRep, a.src0Rep);
    const T s = static_cast<T>(a.scalar);
    const uint8_t r = static_cast<uint8_t>(a.repeat);
    switch (a.op) {
        case 0: Add<T, isSetMask>(d, x, y, mask, r, bp); break;
        case 1: Sub<T, isSetMask>(d, x, y, mask, r, bp); break;
        case 2: Mul<T, isSetMask>(d, x, y, mask, r, bp); break;
        case 3: Div<T, isSetMask>(d, x, y, mask, r, bp); break;
        case 4: Max<T, isSetMask>(d, x, y, mask, r, bp); break;
        case 5: Min<T, isSetMask>(d, x, y, mask, r, bp); break;
        case 6: Adds<T, isSetMask>(d, x, s, mask, r, up); break;
        case 7: Muls<T, isSetMask>(d, x, s, mask, r, up); break;
        case 8: Maxs<T, isSetMask>(d, x, s, mask, r, up); break;
        case 9: Mins<T, isSetMask>(d, x, s, mask, r, up); break;
        case 10: LeakyRelu<T, isSetMask>(d, x, s, mask, r, up); break;
        case 11: Exp<T, isSetMask>(d, x, mask, r, up); break;
        case 12: Ln<T, isSetMask>(d, x, mask, r, up); break;
        case 13: Abs<T, isSetMask>(d, x, mask, r, up); break;
        case 14: Sqrt<T, isSetMask>(d, x, mask, r, up); break;
        case 15: Rsqrt<T, isSetMask>(d, x, mask, r, up); break;
        case 16: Reciprocal<T, isSetMask>(d, x, mask, r, up); break;
        case 17: Relu<T, isSetMask>(d, x, mask, r, up); break;
        case 18: Axpy<T, T, isSetMask>(d, x, s, mask, r, up); break;
        case 19: Duplicate<T, isSetMask>(d, s, mask, r, a.dstBlk, a.dstRep); break;
        case 20: Brcb(d, x, a.repeat, BrcbRepeatParams(a.dstBlk, a.dstRep)); break;
        default: break;
    }
}

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, GM_ADDR dIn, GM_ADDR out, const Level0Args& a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bd;
    pipe.InitBuffer(bx, a.elems * sizeof(T));
    pipe.InitBuffer(by, a.elems * sizeof(T));
    pipe.InitBuffer(bd, a.elems * sizeof(T));
    GlobalTensor<T> xg, yg, dg, og;
    xg.SetGlobalBuffer((__gm__ T*)x);
    yg.SetGlobalBuffer((__gm__ T*)y);
    dg.SetGlobalBuffer((__gm__ T*)dIn);
    og.SetGlobalBuffer((__gm__ T*)out);
    LocalTensor<T> xl = bx.Get<T>(), yl = by.Get<T>(), dl = bd.Get<T>();
    DataCopy(xl, xg, a.elems);
    DataCopy(yl, yg, a.elems);
    DataCopy(dl, dg, a.elems);
    PipeBarrier<PIPE_ALL>();
    const LocalTensor<T>& src1 = a.alias ? dl : yl;
    uint64_t bits[2] = {a.mask, a.mask1};
    switch (a.maskKind) {
        case 0: Op<T, true>(a, dl, xl, src1, a.mask); break;
        case 1: Op<T, true>(a, dl, xl, src1, bits); break;
        case 2:
            SetMaskNorm();
            SetVectorMask<T>(a.mask1, a.mask);
            Op<T, false>(a, dl, xl, src1, MASK_PLACEHOLDER);
            ResetMask();
            break;
        case 3:
            SetMaskCount();
            SetVectorMask<T, MaskMode::COUNTER>(0, a.mask);
            Op<T, false>(a, dl, xl, src1, MASK_PLACEHOLDER);
            SetMaskNorm();
            ResetMask();
            break;
        case 4: Op<T, false>(a, dl, xl, src1, MASK_PLACEHOLDER); break;
        case 5:
            SetMaskCount();
            SetVectorMask<T, MaskMode::COUNTER>(0, 3);
            break;
        default: break;
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, dl, a.elems);
}

extern "C" __global__ __aicore__ void level0(GM_ADDR x, GM_ADDR y, GM_ADDR dIn, GM_ADDR out, Level0Args a,
                                             uint32_t isHalf)
{
    if (isHalf) Run<half>(x, y, dIn, out, a);
    else Run<float>(x, y, dIn, out, a);
}

"""

# Counter mode with the count form of a tensor-scalar op (isSetMask = false ignores the count).
COUNTER_ADDS = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void counter_adds(GM_ADDR x, GM_ADDR out, uint32_t elems, uint32_t count)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bo;
    pipe.InitBuffer(bx, elems * sizeof(float));
    pipe.InitBuffer(bo, elems * sizeof(float));
    GlobalTensor<float> xg, og;
    xg.SetGlobalBuffer((__gm__ float*)x);
    og.SetGlobalBuffer((__gm__ float*)out);
    LocalTensor<float> xl = bx.Get<float>(), ol = bo.Get<float>();
    DataCopy(xl, xg, elems);
    Duplicate(ol, -7.0f, elems);
    PipeBarrier<PIPE_ALL>();
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(count);
    Adds<float, false>(ol, xl, 1.5f, 1);
    SetMaskNorm();
    ResetMask();
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, ol, elems);
}
"""

# Exp through the vectorizable polynomial that builds with -fno-trapping-math use.
FAST_EXP = r"""
#define __NO_TRAPPING_MATH__ 1
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void fast_exp(GM_ADDR x, GM_ADDR out, uint32_t elems)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bo;
    pipe.InitBuffer(bx, elems * sizeof(float));
    pipe.InitBuffer(bo, elems * sizeof(float));
    GlobalTensor<float> xg, og;
    xg.SetGlobalBuffer((__gm__ float*)x);
    og.SetGlobalBuffer((__gm__ float*)out);
    LocalTensor<float> xl = bx.Get<float>(), ol = bo.Get<float>();
    DataCopy(xl, xg, elems);
    PipeBarrier<PIPE_ALL>();
    Exp(ol, xl, elems / 2);
    Exp(ol.ReinterpretCast<half>()[elems], xl.ReinterpretCast<half>()[elems], elems);
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, ol, elems);
}
"""

# Cast between raw byte buffers, the pair chosen by CastArgs.pair (the PAIRS list below).
CAST = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct CastArgs {
    uint32_t pair;
    uint32_t mode;
    uint32_t count;
    uint32_t level0;   // 0 count form, 1 continuous mask, 2 bitwise mask
    uint64_t mask;
    uint32_t repeat;
    uint16_t dstBlk, srcBlk;
    uint8_t dstRep, srcRep, pad0, pad1;
    uint32_t srcBytes, dstBytes;
};

template <typename D, typename S>
__aicore__ inline void Do(const LocalTensor<uint8_t>& d8, const LocalTensor<uint8_t>& s8, const CastArgs& a)
{
    LocalTensor<D> d = d8.ReinterpretCast<D>();
    LocalTensor<S> s = s8.ReinterpretCast<S>();
    const RoundMode m = static_cast<RoundMode>(a.mode);
    UnaryRepeatParams p(a.dstBlk, a.srcBlk, a.dstRep, a.srcRep);
    uint64_t bits[1] = {a.mask};
    if (a.level0 == 0) Cast(d, s, m, a.count);
    else if (a.level0 == 1) Cast(d, s, m, a.mask, static_cast<uint8_t>(a.repeat), p);
    else Cast(d, s, m, bits, static_cast<uint8_t>(a.repeat), p);
}

// Axpy with a half source into a float destination (Axpy.md table 3, 64 lanes per repeat).
__aicore__ inline void DoAxpy(const LocalTensor<uint8_t>& d8, const LocalTensor<uint8_t>& s8, const CastArgs& a)
{
    LocalTensor<float> d = d8.ReinterpretCast<float>();
    LocalTensor<half> s = s8.ReinterpretCast<half>();
    const half alpha = static_cast<half>(2.5f);
    UnaryRepeatParams p(a.dstBlk, a.srcBlk, a.dstRep, a.srcRep);
    uint64_t bits[1] = {a.mask};
    if (a.level0 == 0) Axpy(d, s, alpha, static_cast<int32_t>(a.count));
    else if (a.level0 == 1) Axpy(d, s, alpha, a.mask, static_cast<uint8_t>(a.repeat), p);
    else Axpy(d, s, alpha, bits, static_cast<uint8_t>(a.repeat), p);
}

extern "C" __global__ __aicore__ void cast_pairs(GM_ADDR src, GM_ADDR dIn, GM_ADDR out, CastArgs a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd;
    pipe.InitBuffer(bs, a.srcBytes);
    pipe.InitBuffer(bd, a.dstBytes);
    GlobalTensor<uint8_t> sg, dg, og;
    sg.SetGlobalBuffer((__gm__ uint8_t*)src);
    dg.SetGlobalBuffer((__gm__ uint8_t*)dIn);
    og.SetGlobalBuffer((__gm__ uint8_t*)out);
    LocalTensor<uint8_t> s = bs.Get<uint8_t>(), d = bd.Get<uint8_t>();
    DataCopy(s, sg, a.srcBytes);
    DataCopy(d, dg, a.dstBytes);
    PipeBarrier<PIPE_ALL>();
    switch (a.pair) {
        case 0: Do<int32_t, half>(d, s, a); break;
        case 1: Do<int16_t, half>(d, s, a); break;
        case 2: Do<float, half>(d, s, a); break;
        case 3: Do<int8_t, half>(d, s, a); break;
        case 4: Do<uint8_t, half>(d, s, a); break;
        case 5: Do<float, float>(d, s, a); break;
        case 6: Do<int32_t, float>(d, s, a); break;
        case 7: Do<half, float>(d, s, a); break;
        case 8: Do<int64_t, float>(d, s, a); break;
        case 9: Do<int16_t, float>(d, s, a); break;
        case 10: Do<bfloat16_t, float>(d, s, a); break;
        case 11: Do<float, bfloat16_t>(d, s, a); break;
        case 12: Do<int32_t, bfloat16_t>(d, s, a); break;
        case 13: Do<half, uint8_t>(d, s, a); break;
        case 14: Do<half, int8_t>(d, s, a); break;
        case 15: Do<half, int16_t>(d, s, a); break;
        case 16: Do<float, int16_t>(d, s, a); break;
        case 17: Do<float, int32_t>(d, s, a); break;
        case 18: Do<int16_t, int32_t>(d, s, a); break;
        case 19: Do<int64_t, int32_t>(d, s, a); break;
        case 20: Do<int32_t, int64_t>(d, s, a); break;
        case 21: Do<float, int64_t>(d, s, a); break;
        // not in Cast.md's table
        case 22: Do<bfloat16_t, half>(d, s, a); break;
        case 23: Do<half, bfloat16_t>(d, s, a); break;
        case 24: Do<half, int32_t>(d, s, a); break;
        case 25: Do<uint8_t, float>(d, s, a); break;
        case 26: DoAxpy(d, s, a); break;
        default: break;
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, d, a.dstBytes);
}
"""

# Compare / CompareScalar / Select, count and level-0 forms, chosen by CmpArgs.op.
CMPSEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct CmpArgs {
    uint32_t op;
    uint32_t cmpMode;
    uint32_t selMode;
    uint32_t count;
    uint32_t maskKind;   // level-0 Select: 0 continuous, 1 bitwise
    uint32_t repeat;
    uint64_t mask;
    uint64_t mask1;
    uint8_t dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep, pad0, pad1;
    float scalar;
    uint32_t elems;
};

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, GM_ADDR sel, GM_ADDR dIn, GM_ADDR out, const CmpArgs& a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bs, bd;
    const uint32_t maskBytes = a.elems / 8 < 32 ? 32 : a.elems / 8;
    pipe.InitBuffer(bx, a.elems * sizeof(T));
    pipe.InitBuffer(by, a.elems * sizeof(T));
    pipe.InitBuffer(bs, maskBytes);
    pipe.InitBuffer(bd, a.elems * sizeof(T));
    GlobalTensor<T> xg, yg, dg, og;
    GlobalTensor<uint8_t> sg, mg;
    xg.SetGlobalBuffer((__gm__ T*)x);
    yg.SetGlobalBuffer((__gm__ T*)y);
    sg.SetGlobalBuffer((__gm__ uint8_t*)sel);
    dg.SetGlobalBuffer((__gm__ T*)dIn);
    og.SetGlobalBuffer((__gm__ T*)out);
    mg.SetGlobalBuffer((__gm__ uint8_t*)out);
    LocalTensor<T> xl = bx.Get<T>(), yl = by.Get<T>(), dl = bd.Get<T>();
    LocalTensor<uint8_t> sl = bs.Get<uint8_t>();
    DataCopy(xl, xg, a.elems);
    DataCopy(yl, yg, a.elems);
    DataCopy(sl, sg, maskBytes);
    DataCopy(dl, dg, a.elems);
    PipeBarrier<PIPE_ALL>();
    const CMPMODE cm = static_cast<CMPMODE>(a.cmpMode);
    const SELMODE sm = static_cast<SELMODE>(a.selMode);
    const T s = static_cast<T>(a.scalar);
    BinaryRepeatParams bp(a.dstBlk, a.src0Blk, a.src1Blk, a.dstRep, a.src0Rep, a.src1Rep);
    UnaryRepeatParams up(a.dstBlk, a.src0Blk, a.dstRep, a.src0Rep);
    uint64_t bits[2] = {a.mask, a.mask1};
    const uint8_t r = static_cast<uint8_t>(a.repeat);
    switch (a.op) {
        case 0: Compare(sl, xl, yl, cm, a.count); break;
        case 1: CompareScalar(sl, xl, s, cm, a.count); break;
        case 2: Compare(sl, xl, yl, cm, a.mask, r, bp); break;
        case 3: CompareScalar(sl, xl, s, cm, a.mask, r, up); break;
        case 4: Select(dl, sl, xl, yl, sm, a.count); break;
        case 5: Select(dl, sl, xl, s, sm, a.count); break;
        case 6:
            if (a.maskKind == 0) Select(dl, sl, xl, yl, sm, a.mask, r, bp);
            else Select(dl, sl, xl, yl, sm, bits, r, bp);
            break;
        case 7:
            if (a.maskKind == 0) Select(dl, sl, xl, s, sm, a.mask, r, bp);
            else Select(dl, sl, xl, s, sm, bits, r, bp);
            break;
        default: break;
    }
    PipeBarrier<PIPE_ALL>();
    if (a.op < 4) DataCopy(mg, sl, maskBytes);
    else DataCopy(og, dl, a.elems);
}

extern "C" __global__ __aicore__ void cmpsel(GM_ADDR x, GM_ADDR y, GM_ADDR sel, GM_ADDR dIn, GM_ADDR out, CmpArgs a,
                                             uint32_t isHalf)
{
    if (isHalf == 1) Run<half>(x, y, sel, dIn, out, a);
    else if (isHalf == 2) Run<int32_t>(x, y, sel, dIn, out, a);
    else Run<float>(x, y, sel, dIn, out, a);
}
"""

# One broken call per case; each is marked with /*D<case>*/ so the test knows its line.
DIAG = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void diag(uint32_t which)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b0, b1, b2;
    pipe.InitBuffer(b0, 4096);
    pipe.InitBuffer(b1, 4096);
    pipe.InitBuffer(b2, which == 20 ? 185000 : 4096);
    LocalTensor<float> f0 = b0.Get<float>(), f1 = b1.Get<float>(), f2 = b2.Get<float>();
    LocalTensor<half> h0 = b0.Get<half>(), h1 = b1.Get<half>();
    LocalTensor<int32_t> i0 = b0.Get<int32_t>();
    LocalTensor<int16_t> s0 = b0.Get<int16_t>();
    LocalTensor<uint8_t> m0 = b2.Get<uint8_t>();
    LocalTensor<int64_t> l0 = b2.Get<int64_t>();
    LocalTensor<bfloat16_t> bf = b2.Get<bfloat16_t>();
    uint64_t zero[2] = {0, 0};
    uint64_t high[1] = {1ull << 40};
    int32_t negative = static_cast<int32_t>(which) - 100;
    switch (which) {
        case 0: Add(f0, f1, f2, 64, 300, {1, 1, 1, 8, 8, 8}); /*D0*/ break;
        case 1: Add(f0, f1, f2, static_cast<uint64_t>(which - 1), 1, {1, 1, 1, 8, 8, 8}); /*D1*/ break;
        case 2: Add(h0, h1, h1, 129, 1, {1, 1, 1, 8, 8, 8}); /*D2*/ break;
        case 3: Mul(h0, h1, h1, zero, 1, {1, 1, 1, 8, 8, 8}); /*D3*/ break;
        case 4: Cast(l0, f0, RoundMode::CAST_RINT, high, 1, {1, 1, 8, 4}); /*D4*/ break;
        case 5: Add(f0, f1, f2, 64, 9, {1, 1, 1, 16, 8, 8}); /*D5*/ break;
        case 6: Exp(f0, f1, 64, 20, {2, 1, 16, 8}); /*D6*/ break;
        case 7: Div(i0, i0, i0, 64); /*D7*/ break;
        case 8: Exp(s0, s0, 64); /*D8*/ break;
        case 9: Cast(bf, h0, RoundMode::CAST_NONE, 64); /*D9*/ break;
        case 10: Compare(m0, i0, i0, CMPMODE::LT, 64); /*D10*/ break;
        case 11: Compare(m0, f0, f1, CMPMODE::LT, 100); /*D11*/ break;
        case 12: Cast(bf, f0, RoundMode::CAST_NONE, 64); /*D12*/ break;
        case 13: Select(f0, m0, f1, f0, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64); /*D13*/ break;
        case 14: Adds(f0, f1, 1.0f, negative); /*D14*/ break;
        case 15: Brcb(f0, f0, 1, {1, 8}); /*D15*/ break;
        case 16: Cast(h0, i0, RoundMode::CAST_NONE, 64); /*D16*/ break;
        case 17: Add(f0, f1, f2, 2048); /*D17*/ break;
        case 18: Relu(s0, s0, 64); /*D18*/ break;
        case 19: Cast(i0, f0, RoundMode::CAST_ODD, 64); /*D19*/ break;
        case 20: Select(f0, m0, f1, f0, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64); /*D20*/ break;
        case 21: Duplicate(bf, bfloat16_t(1.0f), 64); /*D21*/ break;
        case 22: Add<float, false>(f0, f1, f1, MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8}); /*D22*/ break;
        case 23: SetVectorMask<half>(200); /*D23*/ break;
        case 24: Adds<float, false>(f0, f1, 1.0f, 64); /*D24*/ break;
        case 25: Cast(f0, h0, RoundMode::CAST_NONE, 64, 5, {1, 1, 255, 4}); /*D25*/ break;
        case 26: CompareScalar(m0, h0, static_cast<half>(1.0f), CMPMODE::GE, 64); /*D26*/ break;
        case 27: Add(f0[8], f0, f1, 64); /*D27*/ break;
        case 28: Cast(f0, h0, RoundMode::CAST_NONE, 64); /*D28*/ break;
        case 29: Add(f0, f0, f1, 64); Cast(h0, f0, RoundMode::CAST_RINT, 64); Relu(f1, f1, 64); break;
        default: break;
    }
    if (which == 22) {
        SetVectorMask<float>(0, 0);
        Add<float, false>(f0, f1, f1, MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8}); /*D22b*/
    }
}
"""

# ---------------------------------------------------------------------------------------------
# Building (each kernel once per session, several at a time)
# ---------------------------------------------------------------------------------------------

BUILDS = {
    "elementwise": (ELEMENTWISE, "elementwise"),
    "intops": (INTOPS, "intops"),
    "dup_bf16": (DUP_BF16, "dup_bf16"),
    "level0": (LEVEL0, "level0"),
    "counter_adds": (COUNTER_ADDS, "counter_adds"),
    "fast_exp": (FAST_EXP, "fast_exp"),
    "cast": (CAST, "cast_pairs"),
    "cmpsel": (CMPSEL, "cmpsel"),
    "diag": (DIAG, "diag"),
}
_KERNELS: dict = {}


def kernel(name: str):
    if not _KERNELS:
        with ThreadPoolExecutor(max_workers=4) as pool:
            futures = {key: pool.submit(compile_kernel, src, entry=entry) for key, (src, entry) in BUILDS.items()}
            _KERNELS.update({key: f.result() for key, f in futures.items()})
    return _KERNELS[name]


def same(got: torch.Tensor, ref: torch.Tensor, msg: str = ""):
    """Equal values (NaN where NaN; 0 == -0)."""
    torch.testing.assert_close(got, ref, rtol=0, atol=0, equal_nan=True, msg=lambda m: f"{msg}\n{m}")


def close(got: torch.Tensor, ref: torch.Tensor, rtol: float, msg: str = ""):
    torch.testing.assert_close(got.float(), ref.float(), rtol=rtol, atol=0, equal_nan=True,
                               msg=lambda m: f"{msg}\n{m}")


def rounded(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """A float32 computation rounded once to the instruction's dtype."""
    return t.to(dtype)


# ---------------------------------------------------------------------------------------------
# Count form: float ops
# ---------------------------------------------------------------------------------------------

N, PADDED = 999, 1024
FLOAT_OPS = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Adds", "Muls", "Maxs", "Mins", "LeakyRelu", "Exp", "Ln",
             "Abs", "Sqrt", "Rsqrt", "Reciprocal", "Relu", "Axpy", "Duplicate"]
APPROX = {"Exp", "Ln", "Rsqrt", "Reciprocal"}


def float_inputs(dtype):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(PADDED, generator=g) * 3
    y = torch.randn(PADDED, generator=g) * 2
    specials = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-6, -1e-6, 60000.0, -60000.0, 1.0, 0.5]
    x[: len(specials)] = torch.tensor(specials)
    y[20:25] = torch.tensor([0.0, -0.0, float("nan"), float("inf"), 3.0])
    x[20:25] = torch.tensor([1.0, 1.0, 2.0, 5.0, 3.0])  # x/0, x/-0, NaN, x/inf, x == y
    x[30:40] = torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5, 1e-3, 3e-4, 65504.0, 70000.0, -1e30])
    return x.to(dtype), y.to(dtype)


def float_reference(op: str, x: torch.Tensor, y: torch.Tensor, s: float, dtype) -> torch.Tensor:
    """The exact result rounded once to dtype: computed in double (53 >= 2*24+2 bits, so rounding the
    double result again is the correctly rounded float/half result of + - * / sqrt)."""
    if op == "Axpy":  # two instructions' worth of rounding in float: x*s, then + y (assumption, see Axpy.md)
        xf, yf, sf = x.float(), y.float(), torch.tensor(s, dtype=dtype).float()
        return (yf + xf * sf).to(dtype)
    xf, yf = x.double(), y.double()
    sf = torch.tensor(s, dtype=dtype).double()  # the scalar is first converted to T
    refs = {
        "Add": lambda: xf + yf, "Sub": lambda: xf - yf, "Mul": lambda: xf * yf, "Div": lambda: xf / yf,
        "Max": lambda: torch.maximum(xf, yf), "Min": lambda: torch.minimum(xf, yf),
        "Adds": lambda: xf + sf, "Muls": lambda: xf * sf,
        "Maxs": lambda: torch.maximum(xf, sf.expand_as(xf)), "Mins": lambda: torch.minimum(xf, sf.expand_as(xf)),
        "LeakyRelu": lambda: torch.where(xf < 0, xf * sf, xf), "Exp": lambda: torch.exp(xf),
        "Ln": lambda: torch.log(xf), "Abs": lambda: xf.abs(), "Sqrt": lambda: xf.sqrt(),
        "Rsqrt": lambda: 1.0 / xf.sqrt(), "Reciprocal": lambda: 1.0 / xf,
        "Relu": lambda: torch.where(xf < 0, torch.zeros_like(xf), xf),
        "Duplicate": lambda: sf.expand_as(xf),
    }
    return rounded(refs[op](), dtype)


@pytest.fixture(scope="module", params=[torch.float32, torch.float16], ids=["float", "half"])
def elementwise_result(request):
    dtype = request.param
    x, y = float_inputs(dtype)
    out = torch.full((len(FLOAT_OPS), PADDED), float("nan"), dtype=dtype)
    report = kernel("elementwise").launch(1, x, y, out, N, PADDED, 0.3, int(dtype == torch.float16))
    return dtype, x, y, out, report


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_count_form_float_ops_match_torch(elementwise_result, op):
    dtype, x, y, out, _ = elementwise_result
    k = FLOAT_OPS.index(op)
    ref = float_reference(op, x[:N], y[:N], 0.3, dtype)
    got = out[k, :N]
    if op in APPROX:
        close(got, ref, 3e-7 if dtype == torch.float32 else 1e-3, op)
    else:
        same(got, ref, op)
    if op != "Axpy":  # elements past the count keep the fill
        assert torch.all(out[k, N:] == SENTINEL), op


def test_count_form_books_one_instruction_per_call(elementwise_result):
    dtype, *_, report = elementwise_result
    ops = report.vector_ops()
    repeats = math.ceil(N * (2 if dtype == torch.float16 else 4) / 256)
    assert ops["Add"] == (1, repeats) and ops["Exp"] == (1, repeats) and ops["Axpy"] == (1, repeats)


def test_vectorizable_exp_is_accurate_to_about_one_ulp():
    # floats in the first half of the buffer; the second half is read as 8192 halves
    specials = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 88.7, 88.8, -103.9, -104.5])
    x = torch.cat([specials, torch.linspace(-110, 95, 4096 - len(specials)), torch.randn(4096) * 10])
    out = torch.zeros(8192)
    kernel("fast_exp").launch(1, x, out, 8192)
    got, ref = out[:4096], torch.exp(x[:4096].double()).float()
    normal = (ref > 1.2e-38) & torch.isfinite(ref)
    close(got[normal], ref[normal], 2e-7)
    tiny = (ref <= 1.2e-38) & (ref > 0)
    assert torch.all((got[tiny] - ref[tiny]).abs() < 1e-38)
    same(got[~normal & ~tiny], ref[~normal & ~tiny])  # 0, inf, NaN
    xh = x[4096:].view(torch.float16)
    close(out[4096:].view(torch.float16), torch.exp(xh.double()).half(), 1e-3)


def test_half_rounds_once_per_instruction():
    # Above 2048 half has a spacing of 2: 2048 + 1 ties to even (2048), 2048 + 3 ties to 2052. A
    # result kept in float (2049, 2051) or rounded twice would differ.
    x = torch.tensor([2048.0, 2048.0, 0.1, 1000.0] + [1.0] * (PADDED - 4)).half()
    y = torch.tensor([1.0, 3.0, 3.0, 0.0625] + [1.0] * (PADDED - 4)).half()
    out = torch.zeros(len(FLOAT_OPS), PADDED, dtype=torch.float16)
    kernel("elementwise").launch(1, x, y, out, N, PADDED, 0.3, 1)
    assert out[0, :2].tolist() == [2048.0, 2052.0]
    same(out[0, :N], (x[:N].float() + y[:N].float()).half())
    same(out[2, :N], (x[:N].float() * y[:N].float()).half())


def test_310p_saturates_half_results():
    # Atlas inference products run in saturation mode: inf -> +-65504, NaN -> 0 (INF_NAN_MODE_ENABLE docs).
    x, y = float_inputs(torch.float16)
    x[:4] = torch.tensor([60000.0, -60000.0, float("nan"), 1.0])
    y[:4] = torch.tensor([60000.0, 60000.0, 1.0, 0.0])
    out = torch.zeros(len(FLOAT_OPS), PADDED, dtype=torch.float16)
    kernel("elementwise").launch(1, x, y, out, N, PADDED, 0.3, 1, soc="Ascend310P3")
    assert out[FLOAT_OPS.index("Add"), :3].tolist() == [65504.0, 0.0, 0.0]
    assert out[FLOAT_OPS.index("Sub"), :2].tolist() == [0.0, -65504.0]
    assert out[FLOAT_OPS.index("Div"), 3].item() == 65504.0
    assert not torch.isinf(out[:, :N]).any() and not torch.isnan(out[:, :N]).any()


# ---------------------------------------------------------------------------------------------
# Count form: integer ops and Duplicate
# ---------------------------------------------------------------------------------------------

INT_OPS = ["Add", "Sub", "Mul", "Max", "Min", "Adds", "Muls", "Maxs", "Mins", "And", "Or", "Not", "Relu", "Duplicate"]
INT_SUPPORT = {
    "int16": set(INT_OPS) - {"Relu"},
    "int32": set(INT_OPS) - {"And", "Or", "Not"},
    "uint16": {"And", "Or", "Not", "Duplicate"},
    "uint32": {"Duplicate"},
}
INT_BITS = {"int16": 16, "int32": 32, "uint16": 16, "uint32": 32}


def wrap(v: torch.Tensor, bits: int) -> torch.Tensor:
    """Two's complement wrap of int64 values to a signed `bits`-bit integer."""
    half_range = 1 << (bits - 1)
    return (v + half_range) % (1 << bits) - half_range


@pytest.mark.parametrize("name", ["int16", "int32", "uint16", "uint32"])
def test_count_form_integer_ops_wrap_like_twos_complement(name):
    bits = INT_BITS[name]
    storage = torch.int16 if bits == 16 else torch.int32
    g = torch.Generator().manual_seed(2)
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    x = torch.randint(lo, hi, (PADDED,), generator=g, dtype=torch.int64)
    y = torch.randint(lo, hi, (PADDED,), generator=g, dtype=torch.int64)
    x[:6] = torch.tensor([hi, lo, 0, -1, hi, 7])
    y[:6] = torch.tensor([1, -1, 0, -1, hi, 7])
    a = -3000 if bits == 16 else 123456789
    out = torch.zeros(len(INT_OPS), PADDED, dtype=storage)
    kernel("intops").launch(1, x.to(storage), y.to(storage), out, N, PADDED, a,
                            ["int16", "int32", "uint16", "uint32"].index(name))
    xs, ys = x[:N], y[:N]
    refs = {
        "Add": xs + ys, "Sub": xs - ys, "Mul": xs * ys, "Max": torch.maximum(xs, ys), "Min": torch.minimum(xs, ys),
        "Adds": xs + a, "Muls": xs * a, "Maxs": xs.clamp(min=a), "Mins": xs.clamp(max=a),
        "And": xs & ys, "Or": xs | ys, "Not": ~xs, "Relu": xs.clamp(min=0), "Duplicate": torch.full_like(xs, a),
    }
    for k, op in enumerate(INT_OPS):
        if op in INT_SUPPORT[name]:
            assert torch.equal(out[k, :N].long(), wrap(refs[op], bits)), op
            assert torch.all(out[k, N:] == -7), op
        else:
            assert torch.all(out[k] == -7), op


def test_duplicate_fills_bfloat16():
    value = torch.tensor([1.5], dtype=torch.bfloat16).view(torch.int16).item() & 0xFFFF
    out = torch.full((PADDED,), 99, dtype=torch.int16)
    kernel("dup_bf16").launch(1, out, N, PADDED, value)
    got = out.view(torch.bfloat16).float()
    assert torch.all(got[:N] == 1.5) and torch.all(got[N:] == 0)


# ---------------------------------------------------------------------------------------------
# Level-0 forms: masks, repeatTime, strides
# ---------------------------------------------------------------------------------------------


class Level0Args(ctypes.Structure):
    _fields_ = [("op", ctypes.c_uint32), ("maskKind", ctypes.c_uint32), ("mask", ctypes.c_uint64),
                ("mask1", ctypes.c_uint64), ("repeat", ctypes.c_uint32), ("alias", ctypes.c_uint32),
                ("dstBlk", ctypes.c_uint8), ("src0Blk", ctypes.c_uint8), ("src1Blk", ctypes.c_uint8),
                ("dstRep", ctypes.c_uint8), ("src0Rep", ctypes.c_uint8), ("src1Rep", ctypes.c_uint8),
                ("pad0", ctypes.c_uint8), ("pad1", ctypes.c_uint8), ("scalar", ctypes.c_float),
                ("elems", ctypes.c_uint32)]


LEVEL0_OPS = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Adds", "Muls", "Maxs", "Mins", "LeakyRelu", "Exp", "Ln",
              "Abs", "Sqrt", "Rsqrt", "Reciprocal", "Relu", "Axpy", "Duplicate", "Brcb"]
BINARY = {"Add", "Sub", "Mul", "Div", "Max", "Min"}
ELEMS = 4096


def enabled_lanes(kind: int, mask: int, mask1: int, lanes: int, repeat: int) -> list[list[int]]:
    """Lanes that run in each repeat (Add.md's mask parameter; SetVectorMask.md for kinds 2-4)."""
    if kind == 0:
        return [list(range(mask))] * repeat
    if kind in (1, 2):
        word = mask | (mask1 << 64 if lanes > 64 else 0)
        return [[l for l in range(lanes) if (word >> l) & 1]] * repeat
    if kind == 3:  # counter mode: `mask` elements, repeatTime ignored
        full, tail = divmod(mask, lanes)
        return [list(range(lanes))] * full + ([list(range(tail))] if tail else [])
    return [list(range(lanes))] * repeat  # 4: the default register, every lane


def element_index(lanes_by_repeat: list[list[int]], esize: int, blk: int, rep: int) -> torch.Tensor:
    per_block = 32 // esize
    return torch.tensor([r * rep * per_block + (l // per_block) * blk * per_block + l % per_block
                         for r, lanes in enumerate(lanes_by_repeat) for l in lanes], dtype=torch.long)


def run_level0(dtype, op, kind=0, mask=64, mask1=0, repeat=1, strides=(1, 1, 1, 8, 8, 8), scalar=0.75, alias=0,
               x=None, y=None, d=None):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(ELEMS, generator=g).abs().add(0.1).to(dtype) if x is None else x
    y = (torch.randn(ELEMS, generator=g) * 2).to(dtype) if y is None else y
    d = torch.full((ELEMS,), SENTINEL, dtype=dtype) if d is None else d
    out = torch.full((ELEMS,), float("nan"), dtype=dtype)
    args = Level0Args(LEVEL0_OPS.index(op), kind, mask, mask1, repeat, alias, *strides, 0, 0, scalar, ELEMS)
    report = kernel("level0").launch(1, x, y, d, out, args, int(dtype == torch.float16))
    return x, y, d, out, report


def level0_reference(dtype, op, x, y, d, lanes_by_repeat, strides, scalar):
    esize = 2 if dtype == torch.float16 else 4
    db, s0b, s1b, dr, s0r, s1r = strides
    di = element_index(lanes_by_repeat, esize, db, dr)
    xi = element_index(lanes_by_repeat, esize, s0b, s0r)
    yi = element_index(lanes_by_repeat, esize, s1b, s1r)
    ref = d.clone()
    if op == "Axpy":
        ref[di] = (d[di].float() + x[xi].float() * torch.tensor(scalar, dtype=dtype).float()).to(dtype)
    else:
        ref[di] = float_reference(op, x[xi], y[yi], scalar, dtype)
    return ref, di


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
@pytest.mark.parametrize("op", LEVEL0_OPS[:-1])
def test_level0_masks_and_strides_match_the_addressing_model(dtype, op):
    lanes = 128 if dtype == torch.float16 else 64
    g = torch.Generator().manual_seed(LEVEL0_OPS.index(op))
    configs = [
        (0, lanes, 0, 3, (1, 1, 1, 8, 8, 8)),        # full repeats
        (0, 37, 0, 4, (1, 2, 1, 8, 16, 8)),          # continuous mask, src0 block stride 2
        (1, 0x8000_0000_F0F0_0001, 0x5 if lanes == 128 else 0, 2, (2, 1, 0, 16, 8, 0)),  # bitwise, broadcast src1
        (1, int(torch.randint(1, 2**62, (1,), generator=g)), int(torch.randint(0, 2**62, (1,), generator=g))
         if lanes == 128 else 0, 5, (1, 1, 1, 12, 9, 20)),
        (0, 1, 0, 2, (1, 0, 1, 8, 0, 8)),
    ]
    for kind, mask, mask1, repeat, strides in configs:
        x, y, d, out, report = run_level0(dtype, op, kind, mask, mask1, repeat, strides)
        ref, di = level0_reference(dtype, op, x, y, d, enabled_lanes(kind, mask, mask1, lanes, repeat), strides, 0.75)
        where = f"{op} kind={kind} mask={mask:#x}/{mask1:#x} repeat={repeat} strides={strides}"
        if op in APPROX:
            close(out, ref, 3e-7 if dtype == torch.float32 else 1e-3, where)
        else:
            same(out, ref, where)
        untouched = torch.ones(ELEMS, dtype=torch.bool)
        untouched[di] = False
        assert torch.all(out[untouched] == SENTINEL), where  # lanes outside the mask stay untouched
        assert report.vector_ops()[op] == (1, repeat), where


def test_level0_examples_of_the_documentation():
    # 更多样例-8.md: src0 = 1..512, src1 = 513..1024 (half), Add with mask 128, repeatTime 2 and
    # src0BlkStride 2, src0RepStride 16 gives [514 516 ... 544 562 564 ... 1264 undefined ...].
    x = torch.arange(1, 513, dtype=torch.float32).half()
    y = torch.arange(513, 1025, dtype=torch.float32).half()
    xs = torch.zeros(ELEMS, dtype=torch.float16)
    ys = torch.zeros(ELEMS, dtype=torch.float16)
    xs[:512], ys[:512] = x, y
    *_, out, _ = run_level0(torch.float16, "Add", 0, 128, 0, 2, (1, 2, 1, 8, 16, 8), x=xs, y=ys)
    assert out[:3].tolist() == [514, 516, 518] and out[15].item() == 544 and out[16].item() == 562
    assert out[128].item() == 898 and out[255].item() == 1264 and torch.all(out[256:] == SENTINEL)
    # mask 64 over 4 repeats: [514 ... 640 undefined ... 770 ...]
    *_, out, _ = run_level0(torch.float16, "Add", 0, 64, 0, 4, (1, 1, 1, 8, 8, 8), x=xs, y=ys)
    assert out[0].item() == 514 and out[63].item() == 640 and torch.all(out[64:128] == SENTINEL)
    assert out[128].item() == 770
    # mask[2] = {UINT64_MAX, 0} computes the first 64 of each 128
    *_, out2, _ = run_level0(torch.float16, "Add", 1, 2**64 - 1, 0, 4, (1, 1, 1, 8, 8, 8), x=xs, y=ys)
    same(out2, out)
    # Duplicate.md: mask 128, repeatTime 1, dstBlkStride 2: 16 values, 16 untouched, 8 times
    *_, out, _ = run_level0(torch.float16, "Duplicate", 0, 128, 0, 1, (2, 1, 1, 0, 8, 8), scalar=18.0)
    assert torch.all(out[:256].view(8, 2, 16)[:, 0] == 18) and torch.all(out[:256].view(8, 2, 16)[:, 1] == SENTINEL)


def test_level0_zero_repeats_do_nothing():
    *_, out, report = run_level0(torch.float32, "Add", 0, 64, 0, 0)
    assert torch.all(out == SENTINEL) and "Add" not in report.vector_ops()


def test_level0_dst_may_accumulate_into_src1_with_repeat_stride_zero():
    # 通用说明和约束.md: for Add/Sub/Mul/Max/Min on half/int32/float, dst may overlap a later
    # iteration's src1 when dstRepStride and src1RepStride are 0: repeats then accumulate.
    g = torch.Generator().manual_seed(5)
    x = torch.randn(ELEMS, generator=g)
    d = torch.randn(ELEMS, generator=g)
    *_, out, _ = run_level0(torch.float32, "Add", 0, 64, 0, 4, (1, 1, 1, 0, 8, 0), alias=1, x=x, d=d)
    ref = d[:64].clone()
    for r in range(4):
        ref = x[64 * r:64 * r + 64] + ref
    same(out[:64], ref)
    same(out[64:], d[64:])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
def test_brcb_broadcasts_one_element_per_block(dtype):
    per_block = 32 // (2 if dtype == torch.float16 else 4)
    x = torch.arange(ELEMS, dtype=torch.float32).to(dtype)
    for repeat, blk, rep in [(2, 1, 8), (3, 2, 16), (1, 0, 0)]:
        *_, out, _ = run_level0(dtype, "Brcb", repeat=repeat, strides=(blk, 1, 1, rep, 8, 8), x=x)
        ref = torch.full((ELEMS,), SENTINEL, dtype=dtype)
        eff_blk = blk or 1  # Brcb.md: a dstBlkStride of 0 is taken as 1
        for r in range(repeat):
            for k in range(8):
                start = (r * rep + k * eff_blk) * per_block
                ref[start:start + per_block] = x[8 * r + k]
        same(out, ref, f"repeat={repeat} blk={blk} rep={rep}")


# ---------------------------------------------------------------------------------------------
# The mask register: SetMaskNorm / SetMaskCount / SetVectorMask / ResetMask, isSetMask = false
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
def test_is_set_mask_false_uses_set_vector_mask(dtype):
    lanes = 128 if dtype == torch.float16 else 64
    strides = (1, 1, 1, 8, 8, 8)
    mask, mask1 = 0x0F0F_0000_0000_F00F, (0x3 if lanes == 128 else 0)
    x, y, d, out, _ = run_level0(dtype, "Mul", 2, mask, mask1, 3, strides)
    ref, _ = level0_reference(dtype, "Mul", x, y, d, enabled_lanes(1, mask, mask1, lanes, 3), strides, 0.75)
    same(out, ref)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
def test_counter_mode_derives_the_repeats_from_the_count(dtype):
    lanes = 128 if dtype == torch.float16 else 64
    count = 5 * lanes // 2 + 3  # two and a half repeats and a bit: the last repeat is partial
    for op, strides in [("Sub", (1, 1, 1, 8, 8, 8)), ("Exp", (1, 1, 1, 16, 8, 8))]:
        x, y, d, out, report = run_level0(dtype, op, 3, count, 0, 1, strides)
        ref, _ = level0_reference(dtype, op, x, y, d, enabled_lanes(3, count, 0, lanes, 1), strides, 0.75)
        close(out, ref, 3e-7 if dtype == torch.float32 else 1e-3, op)
        assert report.vector_ops()[op] == (1, 3)
        assert report.vector_ops()["mask register write"][0] == 4


def test_counter_mode_count_form_ignores_the_count_argument():
    x = torch.randn(1024)
    out = torch.zeros(1024)
    kernel("counter_adds").launch(1, x, out, 1024, 300)
    same(out[:300], x[:300] + 1.5)
    assert torch.all(out[300:] == SENTINEL)


def test_each_block_starts_with_the_default_mask_register():
    # A launch that leaves counter mode set must not leak into the next launch (or block) on the thread.
    run_level0(torch.float32, "Add", kind=5)
    x, y, d, out, _ = run_level0(torch.float32, "Add", 4, 0, 0, 2)
    ref, _ = level0_reference(torch.float32, "Add", x, y, d, enabled_lanes(4, 0, 0, 64, 2), (1, 1, 1, 8, 8, 8), 0.75)
    same(out, ref)


# ---------------------------------------------------------------------------------------------
# Cast
# ---------------------------------------------------------------------------------------------

MODES = ["CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"]
DIRECTED = ["CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC"]

# (src, dst, modes) in the CAST kernel's pair order: Cast.md table 4 (Atlas A2).
PAIRS = [
    ("half", "int32", DIRECTED), ("half", "int16", DIRECTED), ("half", "float", ["CAST_NONE"]),
    ("half", "int8", DIRECTED + ["CAST_NONE"]), ("half", "uint8", DIRECTED + ["CAST_NONE"]),
    ("float", "float", DIRECTED), ("float", "int32", DIRECTED),
    ("float", "half", DIRECTED + ["CAST_ODD", "CAST_NONE"]), ("float", "int64", DIRECTED),
    ("float", "int16", DIRECTED), ("float", "bfloat16", DIRECTED), ("bfloat16", "float", ["CAST_NONE"]),
    ("bfloat16", "int32", DIRECTED), ("uint8", "half", ["CAST_NONE"]), ("int8", "half", ["CAST_NONE"]),
    ("int16", "half", DIRECTED + ["CAST_NONE"]), ("int16", "float", ["CAST_NONE"]),
    ("int32", "float", DIRECTED + ["CAST_NONE"]), ("int32", "int16", ["CAST_NONE"]), ("int32", "int64", ["CAST_NONE"]),
    ("int64", "int32", ["CAST_NONE"]), ("int64", "float", DIRECTED),
]
TORCH_TYPES = {"half": torch.float16, "float": torch.float32, "bfloat16": torch.bfloat16, "int8": torch.int8,
               "uint8": torch.uint8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64}
# (significand bits, smallest normal exponent, largest finite value) of the float targets
FORMATS = {"half": (11, -14, 65504.0), "bfloat16": (8, -126, float.fromhex("0x1.fep127")),
           "float": (24, -126, float.fromhex("0x1.fffffep127"))}


class CastArgs(ctypes.Structure):
    _fields_ = [("pair", ctypes.c_uint32), ("mode", ctypes.c_uint32), ("count", ctypes.c_uint32),
                ("level0", ctypes.c_uint32), ("mask", ctypes.c_uint64), ("repeat", ctypes.c_uint32),
                ("dstBlk", ctypes.c_uint16), ("srcBlk", ctypes.c_uint16), ("dstRep", ctypes.c_uint8),
                ("srcRep", ctypes.c_uint8), ("pad0", ctypes.c_uint8), ("pad1", ctypes.c_uint8),
                ("srcBytes", ctypes.c_uint32), ("dstBytes", ctypes.c_uint32)]


def round_integer(v: Fraction, mode: str) -> int:
    """v rounded to an integer by the rules of Cast.md (功能说明, 二进制的舍入规则)."""
    lo = math.floor(v)
    if lo == v:
        return lo
    hi = lo + 1
    if mode in ("CAST_NONE", "CAST_RINT"):
        return lo if v - lo < hi - v or (v - lo == hi - v and lo % 2 == 0) else hi
    if mode == "CAST_ROUND":  # ties away from zero
        return lo if v - lo < hi - v or (v - lo == hi - v and v < 0) else hi
    if mode == "CAST_FLOOR":
        return lo
    if mode == "CAST_CEIL":
        return hi
    if mode == "CAST_TRUNC":
        return lo if v > 0 else hi
    return lo if lo % 2 else hi  # CAST_ODD: the odd neighbour


def reference_cast(value, dst: str, mode: str, src: str = ""):
    """The exact source value rounded to dst; integer targets saturate, NaN -> 0 (assumption).
    float -> float rounds to an integral value (Cast.md 表1)."""
    if isinstance(value, float) and math.isnan(value):
        return float("nan") if dst in FORMATS else 0
    if src == dst == "float":
        return value if math.isinf(value) else float(round_integer(Fraction(value), mode))
    if dst in FORMATS:
        precision, emin, max_finite = FORMATS[dst]
        if isinstance(value, float) and math.isinf(value) or value == 0:
            return float(value)
        v = Fraction(value)
        exponent = max(math.floor(math.log2(abs(v))), emin)
        while Fraction(2) ** exponent > abs(v) and exponent > emin:  # guard log2 rounding
            exponent -= 1
        while Fraction(2) ** (exponent + 1) <= abs(v):
            exponent += 1
        quantum = Fraction(2) ** (exponent - precision + 1)
        r = round_integer(v / quantum, mode) * quantum
        if abs(r) <= max_finite:
            return float(r)
        towards_max = {"CAST_TRUNC", "CAST_ODD", "CAST_FLOOR" if v > 0 else "CAST_CEIL"}
        return math.copysign(max_finite if mode in towards_max else math.inf, v)
    info = torch.iinfo(TORCH_TYPES[dst])
    if isinstance(value, float) and math.isinf(value):
        return info.max if value > 0 else info.min
    return min(max(round_integer(Fraction(value), mode), info.min), info.max)


def cast_source(src: str, count: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(7)
    if src in ("half", "float", "bfloat16"):
        special = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 127.5, -128.5, 255.5, 1.75, -1.75, 0.0, -0.0,
                   float("nan"), float("inf"), -float("inf"), 1e-7, -3e-6, 65519.0, 65520.0, 7e4, -7e4,
                   2.0**22 + 0.5, 2.0**31, -2.0**31 - 300, 3e10, 1 + 2.0**-11, 1 + 3 * 2.0**-11, 0.5 + 2.0**-12,
                   -(1 + 2.0**-11), 0.5 + 2.0**-9 + 2.0**-11, 1 + 2.0**-8, 32767.5, -32768.6, 2.0**-20, 1e-40]
        body = torch.cat([torch.randn(count, generator=g) * 4,
                          (torch.randint(-300, 300, (count,), generator=g) / 2).float(),
                          torch.rand(count, generator=g) * 2.0 ** torch.randint(-30, 40, (count,), generator=g)])
        values = torch.tensor(special + body.tolist(), dtype=torch.float64)[:count]
        return values.to(TORCH_TYPES[src])
    info = torch.iinfo(TORCH_TYPES[src])
    ints = torch.randint(info.min, info.max, (count,), generator=g, dtype=torch.int64)
    edges = [0, 1, -1, info.max, info.min, 2**12 + 2, 2**12 + 6, 2**25 + 3, 2**25 + 1, -(2**25 + 3), 2**15, 2**31 - 1,
             2**53 + 1, 2**62 + 2**38 + 1, 2049, 4097]
    edges = [e for e in edges if info.min <= e <= info.max]
    ints[: len(edges)] = torch.tensor(edges)
    return ints.to(TORCH_TYPES[src])


def as_python(t: torch.Tensor) -> list:
    return t.double().tolist() if t.is_floating_point() else t.tolist()


CAST_COUNT, CAST_ELEMS = 203, 256


def run_cast(pair: int, mode: str, src: torch.Tensor, dst_type: str, level0=0, count=CAST_COUNT, mask=0, repeat=0,
             strides=(1, 1, 8, 8), elems=CAST_ELEMS, soc=None):
    src_bytes = src.contiguous().view(torch.uint8)
    dst_elem = torch.empty(0, dtype=TORCH_TYPES[dst_type]).element_size()
    d_in = torch.full((elems * dst_elem,), 0x5A, dtype=torch.uint8)
    out = torch.zeros_like(d_in)
    args = CastArgs(pair, MODES.index(mode), count, level0, mask, repeat, *strides, 0, 0, len(src_bytes), len(d_in))
    kernel("cast").launch(1, src_bytes, d_in, out, args, soc=soc)
    return out.view(TORCH_TYPES[dst_type]), d_in.view(TORCH_TYPES[dst_type])


def check_cast_values(got: torch.Tensor, src_values: list, src: str, dst: str, mode: str, where: str):
    for i, v in enumerate(src_values):
        want = reference_cast(v, dst, mode, src)
        have = got[i].item()
        if isinstance(want, float) and math.isnan(want):
            assert math.isnan(have), f"{where} element {i}: {v!r} -> {have!r}, want NaN"
        else:
            assert have == want, f"{where} element {i}: {v!r} -> {have!r}, want {want!r}"


@pytest.mark.parametrize("pair", range(len(PAIRS)), ids=[f"{s}->{d}" for s, d, _ in PAIRS])
def test_cast_every_documented_pair_and_round_mode(pair):
    src_type, dst_type, modes = PAIRS[pair]
    src = cast_source(src_type, CAST_ELEMS)
    values = as_python(src[:CAST_COUNT])
    for mode in modes:
        got, d_in = run_cast(pair, mode, src, dst_type)
        check_cast_values(got, values, src_type, dst_type, mode, f"{src_type}->{dst_type} {mode}")
        assert torch.equal(got[CAST_COUNT:].view(torch.uint8), d_in[CAST_COUNT:].view(torch.uint8))
    for mode in set(MODES) - set(modes):
        with pytest.raises(SimulatorError) as info:
            run_cast(pair, mode, src, dst_type)
        assert info.value.kind == "bad_argument" and mode in str(info.value) and modes[0] in str(info.value)


# Cast.md's worked examples (表1), value by value.
CAST_DOC_EXAMPLES = [
    (5, 0.5, {"CAST_RINT": 0.0, "CAST_FLOOR": 0.0, "CAST_CEIL": 1.0, "CAST_ROUND": 1.0, "CAST_TRUNC": 0.0}),
    (7, 0.5 + 2**-12, {"CAST_RINT": 0.5, "CAST_FLOOR": 0.5, "CAST_CEIL": 0.5 + 2**-11, "CAST_ROUND": 0.5 + 2**-11,
                       "CAST_TRUNC": 0.5, "CAST_ODD": 0.5 + 2**-11}),
    (6, 2**22 + 0.5, {"CAST_RINT": 2**22, "CAST_FLOOR": 2**22, "CAST_CEIL": 2**22 + 1, "CAST_ROUND": 2**22 + 1,
                      "CAST_TRUNC": 2**22}),
    (9, 2**22 + 0.5, {m: 2**15 - 1 for m in DIRECTED}),
    (10, 0.5 + 2**-9 + 2**-11, {"CAST_RINT": 0.5 + 2**-8, "CAST_FLOOR": 0.5, "CAST_CEIL": 0.5 + 2**-8,
                                "CAST_ROUND": 0.5 + 2**-8, "CAST_TRUNC": 0.5}),
    (0, -1.5, {"CAST_RINT": -2, "CAST_FLOOR": -2, "CAST_CEIL": -1, "CAST_ROUND": -2, "CAST_TRUNC": -1}),
    (1, 2**7 - 0.5, {"CAST_RINT": 2**7, "CAST_FLOOR": 2**7 - 1, "CAST_CEIL": 2**7, "CAST_ROUND": 2**7,
                     "CAST_TRUNC": 2**7 - 1}),
    (3, 2**7 - 0.5, {m: 2**7 - 1 for m in DIRECTED}),
    (4, 1.75, {"CAST_RINT": 2, "CAST_FLOOR": 1, "CAST_CEIL": 2, "CAST_ROUND": 2, "CAST_TRUNC": 1}),
    (12, 2**6 + 0.5, {"CAST_RINT": 2**6, "CAST_FLOOR": 2**6, "CAST_CEIL": 2**6 + 1, "CAST_ROUND": 2**6 + 1,
                      "CAST_TRUNC": 2**6}),
    (15, 2**12 + 2, {"CAST_RINT": 2**12, "CAST_FLOOR": 2**12, "CAST_CEIL": 2**12 + 4, "CAST_ROUND": 2**12 + 4,
                     "CAST_TRUNC": 2**12}),
    (17, 2**25 + 3, {"CAST_RINT": 2**25 + 4, "CAST_FLOOR": 2**25, "CAST_CEIL": 2**25 + 4, "CAST_ROUND": 2**25 + 4,
                     "CAST_TRUNC": 2**25}),
    (18, 2**31 - 1, {"CAST_NONE": 2**15 - 1}),
    (2, 1.5 - 2**-10, {"CAST_NONE": 1.5 - 2**-10}),
    (11, 1.5 - 2**-6, {"CAST_NONE": 1.5 - 2**-6}),
    (13, 1, {"CAST_NONE": 1.0}), (14, -1, {"CAST_NONE": -1.0}), (19, 2**31 - 1, {"CAST_NONE": 2**31 - 1}),
]


@pytest.mark.parametrize("pair,value,expected", CAST_DOC_EXAMPLES,
                         ids=[f"{PAIRS[p][0]}->{PAIRS[p][1]}" for p, _, _ in CAST_DOC_EXAMPLES])
def test_cast_reproduces_the_documented_examples(pair, value, expected):
    src_type, dst_type, _ = PAIRS[pair]
    src = torch.full((CAST_ELEMS,), value, dtype=torch.float64 if TORCH_TYPES[src_type].is_floating_point
                     else torch.int64).to(TORCH_TYPES[src_type])
    for mode, want in expected.items():
        got, _ = run_cast(pair, mode, src, dst_type, count=64)
        assert got[0].item() == want, f"{mode}: {got[0].item()} != {want}"


def test_cast_level0_sizes_repeats_by_the_wider_type():
    # Cast.md: half -> float processes 64 elements a repeat; dstRepStride 8, srcRepStride 4 keep it contiguous.
    src = cast_source("half", 1024)
    for level0, mask, repeat, strides in [(1, 64, 3, (1, 1, 8, 4)), (1, 40, 4, (1, 2, 8, 8)),
                                          (2, 0xF00F_0000_0000_8001, 2, (2, 1, 16, 4))]:
        got, d_in = run_cast(2, "CAST_NONE", src, "float", level0, 0, mask, repeat, strides, elems=1024)
        kind = 0 if level0 == 1 else 1
        lanes = enabled_lanes(kind, mask, 0, 64, repeat)
        di = element_index(lanes, 4, strides[0], strides[2])
        si = element_index(lanes, 2, strides[1], strides[3])
        ref = d_in.clone()
        ref[di] = src[si].float()
        same(got, ref, f"mask={mask:#x} repeat={repeat} strides={strides}")
    # uint8 -> half: 128 lanes (half), the uint8 source covers 4 blocks of 32 per repeat
    src = cast_source("uint8", 1024)
    got, d_in = run_cast(13, "CAST_NONE", src, "half", 1, 0, 100, 3, (1, 1, 8, 4), elems=1024)
    lanes = enabled_lanes(0, 100, 0, 128, 3)
    ref = d_in.clone()
    ref[element_index(lanes, 2, 1, 8)] = src[element_index(lanes, 1, 1, 4)].half()
    same(got, ref)


def test_cast_rejects_undocumented_pairs():
    src = cast_source("half", CAST_ELEMS)
    for pair, kind, words in [(22, "unsupported_dtype", ["through float", "int32_t, int16_t, float"]),
                              (23, "unsupported_dtype", ["through float"]),
                              (24, "bad_argument", ["SetDeqScale(half scale)"]),  # int32 -> half reads DEQSCALE
                              (25, "unsupported_dtype", ["float to uint8_t", "bfloat16_t"])]:
        with pytest.raises(SimulatorError) as info:
            run_cast(pair, "CAST_RINT", src, "int8")
        assert info.value.kind == kind, info.value
        for word in words:
            assert word in str(info.value), (word, str(info.value))
    with pytest.raises(SimulatorError) as info:  # 310P has no bfloat16
        run_cast(10, "CAST_RINT", cast_source("float", CAST_ELEMS), "bfloat16", soc="Ascend310P3")
    assert info.value.kind == "unsupported_dtype"


def test_axpy_half_source_into_float_destination():
    src = cast_source("half", 1024)
    src[torch.isnan(src) | torch.isinf(src)] = 1.0
    alpha = 2.5
    got, d_in = run_cast(26, "CAST_NONE", src, "float", 0, count=CAST_COUNT, elems=1024)
    d_ref = d_in.clone()
    d_ref[:CAST_COUNT] = d_in[:CAST_COUNT] + src[:CAST_COUNT].float() * alpha
    same(got, d_ref)
    got, d_in = run_cast(26, "CAST_NONE", src, "float", 1, 0, 50, 3, (1, 1, 8, 4), elems=1024)
    lanes = enabled_lanes(0, 50, 0, 64, 3)
    di, si = element_index(lanes, 4, 1, 8), element_index(lanes, 2, 1, 4)
    d_ref = d_in.clone()
    d_ref[di] = d_in[di] + src[si].float() * alpha
    same(got, d_ref)


# ---------------------------------------------------------------------------------------------
# Compare, CompareScalar, Select
# ---------------------------------------------------------------------------------------------

CMP_MODES = ["LT", "GT", "EQ", "LE", "GE", "NE"]
SEL_MODES = ["VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE", "VSEL_TENSOR_TENSOR_MODE"]
CMP_ELEMS = 1024
TORCH_CMP = {"LT": torch.lt, "GT": torch.gt, "EQ": torch.eq, "LE": torch.le, "GE": torch.ge, "NE": torch.ne}


class CmpArgs(ctypes.Structure):
    _fields_ = [("op", ctypes.c_uint32), ("cmpMode", ctypes.c_uint32), ("selMode", ctypes.c_uint32),
                ("count", ctypes.c_uint32), ("maskKind", ctypes.c_uint32), ("repeat", ctypes.c_uint32),
                ("mask", ctypes.c_uint64), ("mask1", ctypes.c_uint64),
                ("dstBlk", ctypes.c_uint8), ("src0Blk", ctypes.c_uint8), ("src1Blk", ctypes.c_uint8),
                ("dstRep", ctypes.c_uint8), ("src0Rep", ctypes.c_uint8), ("src1Rep", ctypes.c_uint8),
                ("pad0", ctypes.c_uint8), ("pad1", ctypes.c_uint8), ("scalar", ctypes.c_float),
                ("elems", ctypes.c_uint32)]


def pack_bits(bits: torch.Tensor) -> torch.Tensor:
    """Bit i of byte k is element 8k + i (little endian, Compare.md)."""
    weights = 2 ** torch.arange(8)
    return (bits.view(-1, 8).long() * weights).sum(1).to(torch.uint8)


def unpack_bits(packed: torch.Tensor) -> torch.Tensor:
    return ((packed.long().unsqueeze(1) >> torch.arange(8)) & 1).flatten().bool()


def cmp_inputs(dtype):
    g = torch.Generator().manual_seed(11)
    x = torch.randint(-4, 5, (CMP_ELEMS,), generator=g).float()
    y = torch.randint(-4, 5, (CMP_ELEMS,), generator=g).float()
    x[:6] = torch.tensor([float("nan"), 1.0, float("nan"), 0.0, float("inf"), -float("inf")])
    y[:6] = torch.tensor([1.0, float("nan"), float("nan"), -0.0, float("inf"), 3.0])
    return x.to(dtype), y.to(dtype)


def run_cmpsel(dtype, op, cmp="LT", sel="VSEL_TENSOR_TENSOR_MODE", count=0, mask_kind=0, repeat=0, mask=0, mask1=0,
               strides=(1, 1, 1, 8, 8, 8), scalar=1.0, x=None, y=None, sel_bits=None, d=None):
    xs, ys = cmp_inputs(dtype)
    x = xs if x is None else x
    y = ys if y is None else y
    g = torch.Generator().manual_seed(12)
    sel_bits = (torch.randint(0, 256, (CMP_ELEMS // 8,), generator=g, dtype=torch.uint8)
                if sel_bits is None else sel_bits)
    d = torch.full((CMP_ELEMS,), SENTINEL, dtype=dtype) if d is None else d
    out = torch.zeros(CMP_ELEMS, dtype=dtype)
    args = CmpArgs(op, CMP_MODES.index(cmp), SEL_MODES.index(sel), count, mask_kind, repeat, mask, mask1, *strides,
                   0, 0, scalar, CMP_ELEMS)
    which = {torch.float32: 0, torch.float16: 1, torch.int32: 2}[dtype]
    report = kernel("cmpsel").launch(1, x, y, sel_bits, d, out, args, which)
    return x, y, sel_bits, d, out, report


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
@pytest.mark.parametrize("cmp", CMP_MODES)
def test_compare_writes_little_endian_bits(dtype, cmp):
    count = 512
    x, y, _, _, out, report = run_cmpsel(dtype, 0, cmp, count=count)
    bits = out.view(torch.uint8)
    same(bits[: count // 8], pack_bits(TORCH_CMP[cmp](x[:count], y[:count])), cmp)
    x, y, _, _, out, _ = run_cmpsel(dtype, 1, cmp, count=count, scalar=1.0)
    same(out.view(torch.uint8)[: count // 8], pack_bits(TORCH_CMP[cmp](x[:count], torch.ones((), dtype=dtype))), cmp)
    assert report.vector_ops()["Compare"] == (1, count * x.element_size() // 256)


def test_compare_int32_supports_eq():
    x = torch.randint(-3, 3, (CMP_ELEMS,), dtype=torch.int32)
    y = torch.randint(-3, 3, (CMP_ELEMS,), dtype=torch.int32)
    *_, out, _ = run_cmpsel(torch.int32, 0, "EQ", count=256, x=x, y=y)
    same(out.view(torch.uint8)[:32], pack_bits(x[:256] == y[:256]))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
def test_compare_level0_compares_whole_repeats_with_strides(dtype):
    lanes = 128 if dtype == torch.float16 else 64
    esize = 2 if dtype == torch.float16 else 4
    strides = (1, 2, 1, 8, 16, 8)
    # the mask argument is reserved on Atlas A2/A3 (Compare.md): all lanes are compared
    x, y, _, _, out, _ = run_cmpsel(dtype, 2, "GE", mask=3, repeat=3, strides=strides)
    lanes_by_repeat = enabled_lanes(0, lanes, 0, lanes, 3)
    xi = element_index(lanes_by_repeat, esize, strides[1], strides[4])
    yi = element_index(lanes_by_repeat, esize, strides[2], strides[5])
    same(out.view(torch.uint8)[: 3 * lanes // 8], pack_bits(x[xi] >= y[yi]))
    x, _, _, _, out, _ = run_cmpsel(dtype, 3, "NE", mask=1, repeat=2, strides=(1, 2, 1, 8, 16, 8), scalar=2.0)
    xi = element_index(enabled_lanes(0, lanes, 0, lanes, 2), esize, 2, 16)
    same(out.view(torch.uint8)[: 2 * lanes // 8], pack_bits(x[xi] != 2.0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
def test_select_count_form_modes(dtype):
    count = 333
    lanes = 128 if dtype == torch.float16 else 64
    x, y, sel, d, out, report = run_cmpsel(dtype, 4, sel="VSEL_TENSOR_TENSOR_MODE", count=count)
    bits = unpack_bits(sel)
    same(out[:count], torch.where(bits[:count], x[:count], y[:count]))
    assert torch.all(out[count:] == SENTINEL)
    x, _, sel, _, out, _ = run_cmpsel(dtype, 5, sel="VSEL_TENSOR_SCALAR_MODE", count=count, scalar=-2.5)
    same(out[:count], torch.where(bits[:count], x[:count], torch.tensor(-2.5, dtype=dtype)))
    # mode 0 uses the first 256/sizeof(T) bits for every repeat (Select.md)
    x, y, sel, _, out, _ = run_cmpsel(dtype, 4, sel="VSEL_CMPMASK_SPR", count=count)
    reused = bits[torch.arange(count) % lanes]
    same(out[:count], torch.where(reused, x[:count], y[:count]))
    assert report.vector_ops()["Select"] == (1, math.ceil(count * x.element_size() / 256))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
def test_select_level0_filters_with_the_mask(dtype):
    lanes = 128 if dtype == torch.float16 else 64
    esize = 2 if dtype == torch.float16 else 4
    for op, sel_mode, kind, mask, mask1, repeat, strides in [
        (6, "VSEL_TENSOR_TENSOR_MODE", 0, 40, 0, 3, (1, 1, 1, 8, 8, 8)),
        (6, "VSEL_CMPMASK_SPR", 1, 0xFFFF_0000_FFFF_0001, 0xF0, 3, (1, 1, 2, 8, 8, 16)),
        (7, "VSEL_TENSOR_SCALAR_MODE", 1, 0x1234_5678_9ABC_DEF1, 0x77, 2, (2, 1, 1, 16, 8, 8)),
        (7, "VSEL_TENSOR_SCALAR_MODE", 0, lanes, 0, 4, (1, 1, 1, 8, 8, 8)),
    ]:
        x, y, sel, d, out, _ = run_cmpsel(dtype, op, sel=sel_mode, mask_kind=kind, mask=mask, mask1=mask1,
                                          repeat=repeat, strides=strides, scalar=9.0)
        bits = unpack_bits(sel)
        lanes_by_repeat = enabled_lanes(kind, mask, mask1, lanes, repeat)
        # which selMask bit each run lane reads: modes 1/2 consume the mask continuously, mode 0 reuses it
        bit_index = torch.tensor([(r * lanes + l) if sel_mode != "VSEL_CMPMASK_SPR" else l
                                  for r, ls in enumerate(lanes_by_repeat) for l in ls])
        di = element_index(lanes_by_repeat, esize, strides[0], strides[3])
        xi = element_index(lanes_by_repeat, esize, strides[1], strides[4])
        yi = element_index(lanes_by_repeat, esize, strides[2], strides[5])
        other = torch.full_like(x[xi], 9.0) if op == 7 else y[yi]
        ref = d.clone()
        ref[di] = torch.where(bits[bit_index], x[xi], other)
        same(out, ref, f"{sel_mode} kind={kind} mask={mask:#x} repeat={repeat} strides={strides}")


def test_compare_then_select_is_where():
    # the pattern kernels use for torch.where(x > y, x, y), NaN included
    count = 256
    x, y, _, _, bits_out, _ = run_cmpsel(torch.float32, 0, "GT", count=count)
    mask = bits_out.view(torch.uint8)[: count // 8].clone()
    padded = torch.zeros(CMP_ELEMS // 8, dtype=torch.uint8)
    padded[: count // 8] = mask
    *_, out, _ = run_cmpsel(torch.float32, 4, sel="VSEL_TENSOR_TENSOR_MODE", count=count, sel_bits=padded)
    same(out[:count], torch.where(x[:count] > y[:count], x[:count], y[:count]))


# ---------------------------------------------------------------------------------------------
# Diagnostics: each names its kind and the kernel line
# ---------------------------------------------------------------------------------------------

DIAG_CASES = [
    (0, "repeat_overflow", "D0", ["255"]),
    (1, "bad_mask", "D1", ["1..64"]),
    (2, "bad_mask", "D2", ["1..128"]),
    (3, "bad_mask", "D3", ["all zero"]),
    (4, "bad_mask", "D4", ["32 lanes"]),
    (5, "local_overrun", "D5", ["dst", "repStride 16"]),
    (6, "local_overrun", "D6", ["dst", "blkStride 2"]),
    (7, "unsupported_dtype", "D7", ["Div", "int32_t"]),
    (8, "unsupported_dtype", "D8", ["Exp", "int16_t"]),
    (9, "unsupported_dtype", "D9", ["half to bfloat16_t", "through float"]),
    (10, "unsupported_dtype", "D10", ["only CMPMODE::EQ"]),
    (11, "compare_count", "D11", ["256"]),
    (12, "bad_argument", "D12", ["CAST_NONE", "CAST_RINT"]),
    (13, "bad_argument", "D13", ["VSEL_TENSOR_TENSOR_MODE"]),
    (14, "bad_argument", "D14", ["negative"]),
    (15, "bad_argument", "D15", ["overlap"]),
    (16, "bad_argument", "D16", ["DEQSCALE", "SetDeqScale(half scale)"]),
    (17, "local_overrun", "D17", ["2048"]),
    (18, "unsupported_dtype", "D18", ["Relu", "int16_t"]),
    (19, "bad_argument", "D19", ["CAST_ODD"]),
    (20, "ub_overflow", "D20", ["8192"]),
    (22, "bad_mask", "D22b", ["SetVectorMask"]),
    (23, "bad_mask", "D23", ["1..128"]),
    (24, "bad_mask", "D24", ["SetMaskCount"]),
    (25, "local_overrun", "D25", ["dst"]),
    (26, "compare_count", "D26", ["256"]),
    (27, "bad_argument", "D27", ["overlap partially", "32 bytes after src0"]),
    (28, "bad_argument", "D28", ["in place"]),
]


@pytest.mark.parametrize("which,kind,marker,words", DIAG_CASES, ids=[c[2] for c in DIAG_CASES])
def test_a_broken_call_is_reported_with_its_kind_and_line(which, kind, marker, words):
    with pytest.raises(SimulatorError) as info:
        kernel("diag").launch(1, which)
    error = info.value
    line = next(i for i, text in enumerate(DIAG.splitlines(), 1) if f"/*{marker}*/" in text)
    assert (error.kind, error.line) == (kind, line), str(error)
    for word in words:
        assert word in error.message, (word, error.message)


def test_in_place_operands_are_allowed():
    kernel("diag").launch(1, 29)  # Add(x, x, y), narrowing Cast in place, Relu(x, x)


def test_bfloat16_is_rejected_on_310p():
    kernel("diag").launch(1, 21)  # fine on Atlas A2
    with pytest.raises(SimulatorError) as info:
        kernel("diag").launch(1, 21, soc="Ascend310P3")
    line = next(i for i, text in enumerate(DIAG.splitlines(), 1) if "/*D21*/" in text)
    assert (info.value.kind, info.value.line) == ("unsupported_dtype", line)
