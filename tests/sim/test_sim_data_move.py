"""The simulator's data-movement APIs beyond DataCopy (data_move.h) against torch indexing.

InitGlobalMemory (InitGlobalMemory.md), Gather by byte offsets (Gather.md) and GatherMask with the
built-in and custom patterns (GatherMask.md). References are plain torch indexing re-derived from
the pages: Gather reads element i from byte srcBaseAddr + srcOffset[i] of src; GatherMask keeps lane
l of each repeat when bit l of the pattern is set and packs the kept elements at the front of dst.
Each kernel is built once per session; a diagnostic test checks the kind and the kernel's line.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

SENTINEL = -7.0

INIT_GM = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Run(GM_ADDR out, uint32_t n, float value, uint32_t late)
{
    GlobalTensor<T> og;
    og.SetGlobalBuffer((__gm__ T*)out + GetBlockIdx() * n, n);
    TPipe pipe;
    if (late) {
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        InitGlobalMemory(og, n, static_cast<T>(value)); /*LATE*/
        return;
    }
    InitGlobalMemory(og, n, static_cast<T>(value)); /*FILL*/
}

extern "C" __global__ __aicore__ void init_gm(GM_ADDR out, uint32_t n, float value, uint32_t kind, uint32_t late)
{
    if (kind == 0) Run<float>(out, n, value, late);
    else if (kind == 1) Run<int32_t>(out, n, value, late);
    else Run<half>(out, n, value, late);
}
"""

# op 0: Gather, 1: Scatter (same argument order: dst, src, offsets, base, ...); form 0: count form;
# 1: continuous mask; 2: bitwise mask (mask, mask1). `stride` is Gather's dstRepStride, Scatter's srcRepStride.
GATHER = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Run(GM_ADDR src, GM_ADDR offs, GM_ADDR dinit, GM_ADDR out, uint32_t nsrc, uint32_t noff,
                           uint32_t nout, uint32_t base, uint32_t form, uint32_t count, uint64_t mask,
                           uint64_t mask1, uint32_t repeat, uint32_t stride, uint32_t op)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bo, bd;
    pipe.InitBuffer(bs, nsrc * sizeof(T));
    pipe.InitBuffer(bo, noff * sizeof(uint32_t));
    pipe.InitBuffer(bd, nout * sizeof(T));
    GlobalTensor<T> sg, dg, og;
    GlobalTensor<uint32_t> fg;
    sg.SetGlobalBuffer((__gm__ T*)src);
    fg.SetGlobalBuffer((__gm__ uint32_t*)offs);
    dg.SetGlobalBuffer((__gm__ T*)dinit);
    og.SetGlobalBuffer((__gm__ T*)out);
    LocalTensor<T> sl = bs.Get<T>(), dl = bd.Get<T>();
    LocalTensor<uint32_t> ol = bo.Get<uint32_t>();
    DataCopy(sl, sg, nsrc);
    DataCopy(ol, fg, noff);
    DataCopy(dl, dg, nout);
    PipeBarrier<PIPE_ALL>();
    uint64_t bits[2] = {mask, mask1};
    const uint8_t rt = static_cast<uint8_t>(repeat);
    if (op == 0 && form == 0) Gather(dl, sl, ol, base, count);
    else if (op == 0 && form == 1) Gather(dl, sl, ol, base, mask, rt, static_cast<uint16_t>(stride));
    else if (op == 0) Gather(dl, sl, ol, base, bits, rt, static_cast<uint16_t>(stride));
    else if (form == 0) Scatter(dl, sl, ol, base, count); /*SCATTER*/
    else if (form == 1) Scatter(dl, sl, ol, base, mask, rt, static_cast<uint8_t>(stride));
    else Scatter(dl, sl, ol, base, bits, rt, static_cast<uint8_t>(stride));
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, dl, nout);
}

extern "C" __global__ __aicore__ void gather(GM_ADDR src, GM_ADDR offs, GM_ADDR dinit, GM_ADDR out, uint32_t nsrc,
                                             uint32_t noff, uint32_t nout, uint32_t base, uint32_t form,
                                             uint32_t count, uint64_t mask, uint64_t mask1, uint32_t repeat,
                                             uint32_t stride, uint32_t op, uint32_t isHalf)
{
    if (isHalf) Run<half>(src, offs, dinit, out, nsrc, noff, nout, base, form, count, mask, mask1, repeat, stride, op);
    else Run<float>(src, offs, dinit, out, nsrc, noff, nout, base, form, count, mask, mask1, repeat, stride, op);
}
"""

# pattern 0: the custom pattern tensor; 1..7: built-in. The kept count goes to cnt[0].
GATHER_MASK = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T, typename U>
__aicore__ inline void Run(GM_ADDR src, GM_ADDR pat, GM_ADDR dinit, GM_ADDR out, GM_ADDR cnt, uint32_t nsrc,
                           uint32_t npat, uint32_t nout, uint32_t pattern, uint32_t reduce, uint32_t mask,
                           uint32_t blk, uint32_t repeat, uint32_t rep, uint32_t src1Rep)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bp, bd;
    pipe.InitBuffer(bs, nsrc * sizeof(T));
    pipe.InitBuffer(bp, npat * sizeof(U));
    pipe.InitBuffer(bd, nout * sizeof(T));
    GlobalTensor<T> sg, dg, og;
    GlobalTensor<U> pg;
    GlobalTensor<int64_t> cg;
    sg.SetGlobalBuffer((__gm__ T*)src);
    pg.SetGlobalBuffer((__gm__ U*)pat);
    dg.SetGlobalBuffer((__gm__ T*)dinit);
    og.SetGlobalBuffer((__gm__ T*)out);
    cg.SetGlobalBuffer((__gm__ int64_t*)cnt, 1);
    LocalTensor<T> sl = bs.Get<T>(), dl = bd.Get<T>();
    LocalTensor<U> pl = bp.Get<U>();
    DataCopy(sl, sg, nsrc);
    DataCopy(pl, pg, npat);
    DataCopy(dl, dg, nout);
    PipeBarrier<PIPE_ALL>();
    uint64_t kept = 0;
    GatherMaskParams params(static_cast<uint8_t>(blk), static_cast<uint16_t>(repeat), static_cast<uint16_t>(rep),
                            static_cast<uint8_t>(src1Rep));
    if (pattern == 0) GatherMask(dl, sl, pl, reduce != 0, mask, params, kept);
    else GatherMask(dl, sl, static_cast<uint8_t>(pattern), reduce != 0, mask, params, kept);
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, dl, nout);
    cg.SetValue(0, static_cast<int64_t>(kept));
}

extern "C" __global__ __aicore__ void gather_mask(GM_ADDR src, GM_ADDR pat, GM_ADDR dinit, GM_ADDR out, GM_ADDR cnt,
                                                  uint32_t nsrc, uint32_t npat, uint32_t nout, uint32_t pattern,
                                                  uint32_t reduce, uint32_t mask, uint32_t blk, uint32_t repeat,
                                                  uint32_t rep, uint32_t src1Rep, uint32_t isHalf)
{
    if (isHalf)
        Run<half, uint16_t>(src, pat, dinit, out, cnt, nsrc, npat, nout, pattern, reduce, mask, blk, repeat, rep,
                            src1Rep);
    else
        Run<float, uint32_t>(src, pat, dinit, out, cnt, nsrc, npat, nout, pattern, reduce, mask, blk, repeat, rep,
                             src1Rep);
}
"""

# shape 0: [k] from [1]; 1: [m, k] from [1, k] (axis 0); 2: [m, k] from [m, 1] (axis 1).
BROADCAST = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Run(GM_ADDR src, GM_ADDR dinit, GM_ADDR out, uint32_t m, uint32_t k, uint32_t shape,
                           uint32_t useTmp)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd, bt;
    pipe.InitBuffer(bs, 4096);
    pipe.InitBuffer(bd, 16384);
    pipe.InitBuffer(bt, 4096);
    GlobalTensor<T> sg, dg, og;
    sg.SetGlobalBuffer((__gm__ T*)src);
    dg.SetGlobalBuffer((__gm__ T*)dinit);
    og.SetGlobalBuffer((__gm__ T*)out);
    LocalTensor<T> sl = bs.Get<T>(), dl = bd.Get<T>();
    LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
    DataCopy(sl, sg, 4096 / sizeof(T));
    DataCopy(dl, dg, 16384 / sizeof(T));
    PipeBarrier<PIPE_ALL>();
    if (shape == 0) {
        const uint32_t dstShape[1] = {k}, srcShape[1] = {1};
        if (useTmp) Broadcast<T, 1, 0>(dl, sl, dstShape, srcShape, tmp);
        else Broadcast<T, 1, 0>(dl, sl, dstShape, srcShape);
    } else if (shape == 1) {
        const uint32_t dstShape[2] = {m, k}, srcShape[2] = {1, k};
        Broadcast<T, 2, 0>(dl, sl, dstShape, srcShape);
    } else {
        const uint32_t dstShape[2] = {m, k}, srcShape[2] = {m, 1};
        Broadcast<T, 2, 1>(dl, sl, dstShape, srcShape, tmp); /*BC21*/
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, dl, 16384 / sizeof(T));
}

extern "C" __global__ __aicore__ void bcast(GM_ADDR src, GM_ADDR dinit, GM_ADDR out, uint32_t m, uint32_t k,
                                            uint32_t shape, uint32_t useTmp, uint32_t kind)
{
    if (kind == 0) Run<float>(src, dinit, out, m, k, shape, useTmp);
    else if (kind == 1) Run<half>(src, dinit, out, m, k, shape, useTmp);
    else Run<int8_t>(src, dinit, out, m, k, shape, useTmp);
}
"""

# One broken call per case, marked /*D<case>*/.
DIAG = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void diag(uint32_t which)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b0, b1, b2;
    pipe.InitBuffer(b0, 1024);
    pipe.InitBuffer(b1, 1024);
    pipe.InitBuffer(b2, 1024);
    LocalTensor<float> f0 = b0.Get<float>(), f1 = b1.Get<float>();
    LocalTensor<half> h0 = b0.Get<half>(), h1 = b1.Get<half>();
    LocalTensor<uint8_t> u0 = b0.Get<uint8_t>(), u1 = b1.Get<uint8_t>();
    LocalTensor<int32_t> i0 = b0.Get<int32_t>(), i1 = b1.Get<int32_t>();
    LocalTensor<uint32_t> off = b2.Get<uint32_t>();
    LocalTensor<uint16_t> p16 = b2.Get<uint16_t>();
    Duplicate(off, 0u, 256);
    PipeBarrier<PIPE_ALL>();
    uint64_t kept = 0;
    switch (which) {
        case 0: Gather(f0, f1, off, 2, 64); /*D0*/ break;
        case 1: Gather(f0, f1, off, 1024, 64); /*D1*/ break;
        case 2: Gather(f0, f0, off, 0, 64); /*D2*/ break;
        case 3: Gather(u0, u1, off, 0, 64); /*D3*/ break;
        case 4: GatherMask(f0, f1, 8, false, 0, {1, 1, 8, 0}, kept); /*D4*/ break;
        case 5: GatherMask(f0, f1, off.ReinterpretCast<uint16_t>(), false, 0, {1, 1, 8, 0}, kept); /*D5*/ break;
        case 6: GatherMask(f0, f1, 1, true, 0, {1, 1, 8, 0}, kept); /*D6*/ break;
        case 7: GatherMask(h0, h1, 7, false, 0, {1, 1, 8, 0}, kept); /*D7*/ break;
        case 8: GatherMask(f0, f1, 7, false, 0, {1, 5, 8, 0}, kept); /*D8*/ break;
        case 9: GatherMask(h0, h1, p16, false, 0, {1, 2, 8, 200}, kept); /*D9*/ break;
        case 10: Gather(f0, f1, off, 0, 64, 5, 8); /*D10*/ break;
        case 11: { const uint32_t d[2] = {4, 3}, s[2] = {1, 3}; Broadcast<float, 2, 0>(f0, f1, d, s); } /*D11*/ break;
        case 12: { const uint32_t d[2] = {4, 8}, s[2] = {4, 1}; Broadcast<float, 2, 1>(f0, f0, d, s); } /*D12*/ break;
        case 13: { const uint32_t d[2] = {4, 8}, s[2] = {2, 1}; Broadcast<float, 2, 1>(f0, f1, d, s); } /*D13*/ break;
        case 14: { const uint32_t d[1] = {8}, s[1] = {1}; Broadcast<int32_t, 1, 0>(i0, i1, d, s); } /*D14*/ break;
        case 15:  // 16: the same without GatherMask, still in counter mode
        case 16:
            SetMaskCount();
            SetVectorMask<float, MaskMode::COUNTER>(0, 100);
            if (which == 15) GatherMask(f0, f1, 7, false, 0, {1, 1, 8, 0}, kept);
            SetVectorMask<float>(0, 100000);
            Adds<float, false>(f1, f0, 1.0f, MASK_PLACEHOLDER, 2, {1, 1, 8, 8}); /*D16*/
            break;
        default: break;
    }
}
"""

BUILDS = {
    "init_gm": (INIT_GM, "init_gm"),
    "gather": (GATHER, "gather"),
    "gather_mask": (GATHER_MASK, "gather_mask"),
    "bcast": (BROADCAST, "bcast"),
    "diag": (DIAG, "diag"),
}
_KERNELS: dict = {}


def kernel(name: str):
    if not _KERNELS:
        with ThreadPoolExecutor(max_workers=2) as pool:
            futures = {key: pool.submit(compile_kernel, src, entry=entry) for key, (src, entry) in BUILDS.items()}
            _KERNELS.update({key: f.result() for key, f in futures.items()})
    return _KERNELS[name]


def line_of(source: str, marker: str) -> int:
    return next(i for i, text in enumerate(source.splitlines(), 1) if f"/*{marker}*/" in text)


def same(got: torch.Tensor, ref: torch.Tensor):
    torch.testing.assert_close(got, ref, rtol=0, atol=0)


# ---------------------------------------------------------------------------------------------
# InitGlobalMemory
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind,dtype,value",
                         [(0, torch.float32, 1.5), (1, torch.int32, -3.0), (2, torch.float16, 2.25)])
def test_init_global_memory_fills_each_block_slice(kind, dtype, value):
    n, blocks = 100, 3
    out = torch.full((blocks * n + 7,), 9, dtype=dtype)
    kernel("init_gm").launch(blocks, out, n, value, kind, 0)
    same(out[: blocks * n], torch.full((blocks * n,), value, dtype=dtype))
    same(out[blocks * n:], torch.full((7,), 9, dtype=dtype))


def test_init_global_memory_is_bounds_checked_against_the_tensor():
    out = torch.zeros(150, dtype=torch.float32)
    with pytest.raises(SimulatorError) as info:
        kernel("init_gm").launch(2, out, 100, 1.0, 0, 0)  # block 1 fills [100, 200) of 150
    assert (info.value.kind, info.value.line) == ("gm_out_of_bounds", line_of(INIT_GM, "FILL")), str(info.value)
    assert "past its end" in info.value.message


def test_init_global_memory_after_init_buffer_is_reported():
    out = torch.zeros(64, dtype=torch.float32)
    with pytest.raises(SimulatorError) as info:
        kernel("init_gm").launch(1, out, 64, 1.0, 0, 1)
    assert (info.value.kind, info.value.line) == ("bad_argument", line_of(INIT_GM, "LATE")), str(info.value)
    assert "before InitBuffer" in info.value.message or "before pipe.InitBuffer" in info.value.message


# ---------------------------------------------------------------------------------------------
# Gather
# ---------------------------------------------------------------------------------------------

def run_gather(dtype, offsets_elems, base_elems=0, form=0, count=0, mask=0, mask1=0, repeat=0, dst_rep=8,
               nsrc=512, nout=1024, op=0, soc=None):
    esize = torch.empty((), dtype=dtype).element_size()
    src = torch.randn(nsrc).to(dtype)
    noff = max(8, (len(offsets_elems) + 7) // 8 * 8)
    offs = torch.zeros(noff, dtype=torch.int32)
    offs[: len(offsets_elems)] = torch.tensor(offsets_elems, dtype=torch.int64).mul(esize).to(torch.int32)
    dinit = torch.full((nout,), SENTINEL, dtype=dtype)
    out = torch.empty(nout, dtype=dtype)
    report = kernel("gather").launch(1, src, offs, dinit, out, nsrc, noff, nout, base_elems * esize, form, count,
                                     mask, mask1, repeat, dst_rep, op, int(dtype == torch.float16), soc=soc)
    return src, out, report


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
def test_gather_count_form_is_torch_indexing(dtype):
    g = torch.Generator().manual_seed(1)
    index = torch.randint(0, 500, (300,), generator=g)
    src, out, report = run_gather(dtype, index.tolist(), base_elems=3, count=300)
    ref = torch.full((1024,), SENTINEL, dtype=dtype)
    ref[:300] = src[index + 3]
    same(out, ref)
    esize = 4 if dtype == torch.float32 else 2
    assert report.vector_ops()["Gather"] == (1, -(-300 * esize // 256))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
def test_gather_level0_masks_and_dst_repeat_stride(dtype):
    lanes = 64 if dtype == torch.float32 else 128
    repeat, dst_rep = 3, 12
    g = torch.Generator().manual_seed(2)
    index = torch.randint(0, 512, (repeat * lanes,), generator=g)
    for form, mask, mask1 in [(1, lanes - 5, 0), (2, 0x00F0_0000_0000_F00F, 0x8000_0000_0000_0001)]:
        if dtype == torch.float32 and form == 2:
            mask1 = 0
        src, out, _ = run_gather(dtype, index.tolist(), form=form, mask=mask, mask1=mask1, repeat=repeat,
                                 dst_rep=dst_rep)
        ref = torch.full((1024,), SENTINEL, dtype=dtype)
        per_rep = dst_rep * 32 // (4 if dtype == torch.float32 else 2)
        for r in range(repeat):
            for lane in range(lanes):
                on = lane < mask if form == 1 else ((mask | (mask1 << 64)) >> lane) & 1
                if on:
                    ref[r * per_rep + lane] = src[index[r * lanes + lane]]
        same(out, ref)


SOC_310P = "Ascend310P3"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
def test_scatter_count_form_is_indexed_assignment_on_310p(dtype):
    g = torch.Generator().manual_seed(4)
    index = torch.randperm(1000, generator=g)[:300]  # distinct targets: the order of equal targets is undocumented
    src, out, report = run_gather(dtype, index.tolist(), base_elems=8, count=300, op=1, soc=SOC_310P)
    ref = torch.full((1024,), SENTINEL, dtype=dtype)
    ref[index + 8] = src[:300]
    same(out, ref)
    assert report.vector_ops()["Scatter"][0] == 1


def test_scatter_level0_reads_src_with_its_repeat_stride_on_310p():
    lanes, repeat, src_rep = 64, 2, 10
    g = torch.Generator().manual_seed(5)
    index = torch.randperm(1000, generator=g)[: repeat * lanes]
    src, out, _ = run_gather(torch.float32, index.tolist(), form=1, mask=lanes - 3, repeat=repeat,
                             dst_rep=src_rep, op=1, soc=SOC_310P)
    ref = torch.full((1024,), SENTINEL, dtype=torch.float32)
    for r in range(repeat):
        for lane in range(lanes - 3):
            ref[index[r * lanes + lane]] = src[r * src_rep * 8 + lane]
    same(out, ref)


def test_scatter_is_refused_on_atlas_a2():
    with pytest.raises(SimulatorError) as info:
        run_gather(torch.float32, [0, 1, 2], count=3, op=1)
    assert (info.value.kind, info.value.line) == ("unsupported_api", line_of(GATHER, "SCATTER")), str(info.value)


# ---------------------------------------------------------------------------------------------
# GatherMask
# ---------------------------------------------------------------------------------------------

BUILTIN = {1: lambda lane: lane % 2 == 0, 2: lambda lane: lane % 2 == 1, 3: lambda lane: lane % 4 == 0,
           4: lambda lane: lane % 4 == 1, 5: lambda lane: lane % 4 == 2, 6: lambda lane: lane % 4 == 3,
           7: lambda lane: True}


def run_gather_mask(dtype, pattern=1, reduce=0, mask=0, blk=1, repeat=1, rep=8, src1_rep=0, pattern_words=None,
                    soc=None, nsrc=1024, nout=1024):
    src = torch.arange(nsrc, dtype=torch.float32).to(dtype)
    ptype = torch.int16 if dtype == torch.float16 else torch.int32
    words = torch.zeros(64, dtype=ptype)
    if pattern_words is not None:
        words[: len(pattern_words)] = torch.tensor(pattern_words, dtype=torch.int64).to(ptype)
    dinit = torch.full((nout,), SENTINEL, dtype=dtype)
    out = torch.empty(nout, dtype=dtype)
    cnt = torch.zeros(1, dtype=torch.int64)
    kernel("gather_mask").launch(1, src, words, dinit, out, cnt, nsrc, 64, nout, pattern, reduce, mask, blk, repeat,
                                 rep, src1_rep, int(dtype == torch.float16), soc=soc)
    return src, words, out, int(cnt[0])


def gather_mask_reference(src, dtype, lanes_by_repeat, keep, blk, rep):
    esize = 4 if dtype == torch.float32 else 2
    per_block = 32 // esize
    picked = []
    for r, lanes in enumerate(lanes_by_repeat):
        for lane in range(lanes):
            if keep(r, lane):
                picked.append(r * rep * per_block + (lane // per_block) * blk * per_block + lane % per_block)
    return torch.tensor(picked, dtype=torch.int64)


def check_gather_mask(src, out, kept, dtype, index):
    assert kept == len(index)
    ref = torch.full_like(out, SENTINEL)
    ref[: len(index)] = src[index]
    same(out, ref)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
@pytest.mark.parametrize("pattern", range(1, 8))
def test_gather_mask_builtin_patterns_normal_mode(dtype, pattern):
    lanes = 64 if dtype == torch.float32 else 128
    src, _, out, kept = run_gather_mask(dtype, pattern=pattern, blk=2, repeat=3, rep=17)
    index = gather_mask_reference(src, dtype, [lanes] * 3, lambda r, lane: BUILTIN[pattern](lane), 2, 17)
    check_gather_mask(src, out, kept, dtype, index)


def test_gather_mask_documented_example_keeps_128():
    # GatherMask.md: normal mode, {1, 4, 8, 0} on 256 floats with pattern 2 (odd lanes) keeps 128.
    src, _, out, kept = run_gather_mask(torch.float32, pattern=2, repeat=4, rep=8)
    assert kept == 128
    same(out[:128], src[1:256:2])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float", "half"])
def test_gather_mask_custom_pattern_with_src1_repeat_stride(dtype):
    bits = 32 if dtype == torch.float32 else 16
    lanes = 64 if dtype == torch.float32 else 128
    g = torch.Generator().manual_seed(3)
    words = torch.randint(0, 2**bits, (48,), generator=g).tolist()
    src1_rep = 1  # repeat r reads its bits 32 bytes further into the pattern
    src, _, out, kept = run_gather_mask(dtype, pattern=0, repeat=3, rep=8, src1_rep=src1_rep, pattern_words=words)
    per_rep_words = 32 * 8 // bits

    def keep(r, lane):
        return (words[r * per_rep_words + lane // bits] >> (lane % bits)) & 1 == 1

    index = gather_mask_reference(src, dtype, [lanes] * 3, keep, 1, 8)
    check_gather_mask(src, out, kept, dtype, index)


def test_gather_mask_documented_custom_pattern_keeps_first_and_fourth_of_four():
    src, _, out, kept = run_gather_mask(torch.float32, pattern=0, repeat=2, rep=8, pattern_words=[0x99999999] * 2)
    index = torch.tensor([i for i in range(128) if i % 4 in (0, 3)])
    check_gather_mask(src, out, kept, torch.float32, index)


def test_gather_mask_counter_mode_takes_mask_elements_per_repeat_on_a2():
    src, _, out, kept = run_gather_mask(torch.float16, pattern=1, reduce=1, mask=70, repeat=2, rep=8)
    index = gather_mask_reference(src, torch.float16, [70, 70], lambda r, lane: lane % 2 == 0, 1, 8)
    check_gather_mask(src, out, kept, torch.float16, index)


def test_gather_mask_counter_mode_mask_beyond_one_repeat_of_lanes_reads_on_with_block_stride_1():
    # GatherMask.md 配置方式一 figure: uint32_t, mask 70, repeatTimes 2, src0RepeatStride 4, pattern 0xAAAAAAAA (odd
    # lanes), src1RepeatStride 0: elements 2, 4, ..., 70 then 34, ..., 102 (1-based).
    src, _, out, kept = run_gather_mask(torch.float32, pattern=0, reduce=1, mask=70, repeat=2, rep=4,
                                        pattern_words=[0xAAAAAAAA] * 8)
    index = torch.tensor([i for i in range(70) if i % 2 == 1] + [32 + i for i in range(70) if i % 2 == 1])
    check_gather_mask(src, out, kept, torch.float32, index)
    with pytest.raises(SimulatorError) as info:  # with another block stride such a repeat is not documented
        run_gather_mask(torch.float32, pattern=1, reduce=1, mask=70, blk=2, repeat=1, rep=8)
    assert info.value.kind == "bad_mask" and "src0BlockStride 2" in info.value.message


def test_gather_mask_takes_more_than_255_repeats():
    # GatherMaskParams.repeatTimes is uint16_t and GatherMask.md gives it no range below that (DrivingSDK's unique_v2
    # runs 256 repeats of float pairs).
    src, _, out, kept = run_gather_mask(torch.float32, pattern=1, repeat=256, rep=8, nsrc=16384, nout=8192)
    check_gather_mask(src, out, kept, torch.float32, torch.arange(0, 16384, 2))


def test_gather_mask_counter_mode_takes_mask_elements_in_all_on_310p():
    src, _, out, kept = run_gather_mask(torch.float16, pattern=2, reduce=1, mask=300, repeat=1, rep=8,
                                        soc="Ascend310P3")
    index = gather_mask_reference(src, torch.float16, [128, 128, 44], lambda r, lane: lane % 2 == 1, 1, 8)
    check_gather_mask(src, out, kept, torch.float16, index)


# ---------------------------------------------------------------------------------------------
# Broadcast
# ---------------------------------------------------------------------------------------------

BCAST_TYPES = [(0, torch.float32), (1, torch.float16), (2, torch.int8)]


@pytest.mark.parametrize("kind,dtype", BCAST_TYPES, ids=["float", "half", "int8"])
@pytest.mark.parametrize("shape,m,k,use_tmp", [(0, 1, 100, 0), (0, 1, 37, 1), (1, 5, 64, 0), (2, 7, 24, 1)])
def test_broadcast_matches_torch_expand(kind, dtype, shape, m, k, use_tmp):
    esize = torch.empty((), dtype=dtype).element_size()
    if shape == 1:
        k = 32 // esize * 3  # axis 0 needs srcShape[1] in whole 32-byte blocks
    src = torch.randint(-100, 100, (4096 // esize,)).to(dtype)
    dinit = torch.full((16384 // esize,), -7, dtype=dtype)
    out = torch.zeros(16384 // esize, dtype=dtype)
    kernel("bcast").launch(1, src, dinit, out, m, k, shape, use_tmp, kind)
    if shape == 0:
        ref = src[:1].expand(k)
    elif shape == 1:
        ref = src[:k].reshape(1, k).expand(m, k)
    else:
        ref = src[:m].reshape(m, 1).expand(m, k)
    same(out[: ref.numel()], ref.reshape(-1))
    same(out[ref.numel():], dinit[ref.numel():])


def test_broadcast_axis_1_needs_aligned_rows_only_on_310p():
    src = torch.arange(1024, dtype=torch.float32)
    dinit = torch.zeros(4096, dtype=torch.float32)
    out = torch.zeros(4096, dtype=torch.float32)
    kernel("bcast").launch(1, src, dinit, out, 7, 24, 2, 1, 0)  # 7 rows of 4 bytes: fine on Atlas A2
    with pytest.raises(SimulatorError) as info:
        kernel("bcast").launch(1, src, dinit, out, 7, 24, 2, 1, 0, soc="Ascend310P3")
    assert (info.value.kind, info.value.line) == ("bad_argument", line_of(BROADCAST, "BC21")), str(info.value)
    assert "srcShape[0] = 7" in info.value.message


# ---------------------------------------------------------------------------------------------
# Diagnostics
# ---------------------------------------------------------------------------------------------

DIAG_CASES = [
    (0, "bad_argument", "D0", ["not a multiple of", "byte offsets"], None),
    (1, "local_overrun", "D1", ["past the end of src"], None),
    (2, "bad_argument", "D2", ["same UB memory"], None),
    (3, "unsupported_dtype", "D3", ["Gather", "uint8_t"], None),
    (4, "bad_argument", "D4", ["src1Pattern 8"], None),
    (5, "unsupported_dtype", "D5", ["uint32_t pattern"], None),
    (6, "bad_mask", "D6", ["mask 0"], None),
    (7, "bad_argument", "D7", ["1 to 6"], "Ascend310P3"),
    (8, "local_overrun", "D8", ["src0"], None),
    (9, "local_overrun", "D9", ["src1Pattern"], None),
    (10, "local_overrun", "D10", ["dst"], None),
    (11, "bad_argument", "D11", ["srcShape[1] = 3", "32-byte aligned"], None),
    (12, "bad_argument", "D12", ["overlap"], None),
    (13, "bad_argument", "D13", ["srcShape[0] = 2"], None),
    (14, "unsupported_dtype", "D14", ["Broadcast", "int32_t"], None),
]


@pytest.mark.parametrize("which,kind,marker,words,soc", DIAG_CASES, ids=[c[2] for c in DIAG_CASES])
def test_a_broken_call_is_reported_with_its_kind_and_line(which, kind, marker, words, soc):
    with pytest.raises(SimulatorError) as info:
        kernel("diag").launch(1, which, soc=soc)
    error = info.value
    assert (error.kind, error.line) == (kind, line_of(DIAG, marker)), str(error)
    for word in words:
        assert word in error.message, (word, error.message)


def test_pattern_7_is_fine_on_a2():
    kernel("diag").launch(1, 7)


def test_gather_mask_leaves_the_mask_register_in_normal_mode():
    kernel("diag").launch(1, 15)  # normal mode after GatherMask: 2 repeats of the lanes set in 100000
    with pytest.raises(SimulatorError) as info:  # still counter mode: 100000 elements overrun the tensor
        kernel("diag").launch(1, 16)
    assert (info.value.kind, info.value.line) == ("local_overrun", line_of(DIAG, "D16")), str(info.value)
