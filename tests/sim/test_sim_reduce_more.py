"""High-level reductions (sim/reduce_pattern.h) against torch.

ReduceSum/Max/Min/Mean/Prod/All/Any<T, Pattern::Reduce::AR|RA> (ReduceSum-34.md, ReduceMax-35.md,
ReduceMin-36.md, ReduceMean.md, ReduceProd.md, ReduceAll.md, ReduceAny.md) and Sum / Mean over the
last axis (Sum.md, Mean.md), asc-devkit v8.5.0. src rows are stored padded to 32 bytes, and the
padding holds values that would change every result if an API read it.
"""

from __future__ import annotations

import pytest
import torch

from kernel_checks import expect_error
from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF, U8 = 0, 1, 2
DTYPES = {FLOAT: torch.float32, HALF: torch.float16, U8: torch.uint8}
OUT = 256
SENTINEL = 7

# p: op, pattern (0 AR, 1 RA), withTmp, rows, cols, inner, srcLen, dstOff (elements into src: overlap), pad, dtype
REDUCE = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T, class P>
__aicore__ inline void Apply(uint32_t op, bool withTmp, const LocalTensor<T>& d, const LocalTensor<T>& s,
                             const LocalTensor<uint8_t>& tmp, const uint32_t* shape, bool pad)
{
    if (withTmp) {
        switch (op) {
            case 0: ReduceSum<T, P>(d, s, tmp, shape, pad); break;  // @sum_tmp
            case 1: ReduceMax<T, P>(d, s, tmp, shape, pad); break;
            case 2: ReduceMin<T, P>(d, s, tmp, shape, pad); break;
            case 3: ReduceMean<T, P>(d, s, tmp, shape, pad); break;
            case 4: ReduceProd<T, P>(d, s, tmp, shape, pad); break;
            case 5: ReduceAll<T, P>(d, s, tmp, shape, pad); break;  // @all_tmp
            case 6: ReduceAny<T, P>(d, s, tmp, shape, pad); break;
            case 20: ReduceSum<T, P, true>(d, s, tmp, shape, pad); break;
        }
    } else {
        switch (op) {
            case 0: ReduceSum<T, P>(d, s, shape, pad); break;
            case 1: ReduceMax<T, P>(d, s, shape, pad); break;
            case 2: ReduceMin<T, P>(d, s, shape, pad); break;
            case 3: ReduceMean<T, P>(d, s, shape, pad); break;
            case 4: ReduceProd<T, P>(d, s, shape, pad); break;
            case 5: ReduceAll<T, P>(d, s, shape, pad); break;
            case 6: ReduceAny<T, P>(d, s, shape, pad); break;
        }
    }
}

template <typename T>
__aicore__ inline void LastAxis(uint32_t op, bool withTmp, const LocalTensor<T>& d, const LocalTensor<T>& s,
                                const LocalTensor<uint8_t>& tmp, uint32_t rows, uint32_t inner, uint32_t n)
{
    SumParams sp;
    sp.outter = rows; sp.inner = inner; sp.n = n;
    MeanParams mp;
    mp.outter = rows; mp.inner = inner; mp.n = n;
    if (op == 7) {
        if (withTmp) Sum(d, s, tmp, sp);  // @sum
        else Sum(d, s, sp);
    } else if (op == 8) {
        if (withTmp) Mean(d, s, tmp, mp);  // @mean
        else Mean(d, s, mp);
    } else if (op == 9) {
        Mean<T, float>(d, s, tmp, mp);
    } else if (op == 10) {
        Mean<T, half>(d, s, tmp, mp);  // @mean_narrow
    }
}

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR out, const uint32_t* p)
{
    uint32_t op = p[0], pattern = p[1], rows = p[3], cols = p[4], inner = p[5], srcLen = p[6], dstOff = p[7];
    bool withTmp = p[2] != 0, pad = p[8] != 0;
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, outBuf, tmpBuf;
    pipe.InitBuffer(xBuf, srcLen * sizeof(T));
    pipe.InitBuffer(outBuf, 256 * sizeof(T));
    pipe.InitBuffer(tmpBuf, 4096);
    GlobalTensor<T> xGm, outGm;
    xGm.SetGlobalBuffer((__gm__ T*)x);
    outGm.SetGlobalBuffer((__gm__ T*)out);
    LocalTensor<T> src = xBuf.Get<T>();
    LocalTensor<T> dst = dstOff ? src[dstOff] : outBuf.Get<T>();
    LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
    DataCopy(src, xGm, srcLen);
    DataCopy(outBuf.Get<T>(), outGm, 256);
    PipeBarrier<PIPE_ALL>();
    uint32_t shape[2] = {rows, cols};
    if (op >= 7 && op <= 10) LastAxis<T>(op, withTmp, dst, src, tmp, rows, inner, cols);
    else if (pattern == 0) Apply<T, Pattern::Reduce::AR>(op, withTmp, dst, src, tmp, shape, pad);
    else Apply<T, Pattern::Reduce::RA>(op, withTmp, dst, src, tmp, shape, pad);
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm, outBuf.Get<T>(), 256);
    DataCopy(xGm, src, srcLen);
}

extern "C" __global__ __aicore__ void reduce_more(GM_ADDR x, GM_ADDR out, GM_ADDR params)
{
    const uint32_t* p = (const uint32_t*)params;
    if (p[9] == 0) Run<float>(x, out, p);
    else if (p[9] == 1) Run<half>(x, out, p);
    else Run<uint8_t>(x, out, p);
}
"""

_kernel = None


def kernel():
    global _kernel
    if _kernel is None:
        _kernel = compile_kernel(REDUCE, entry="reduce_more")
    return _kernel


def line_of(marker: str) -> int:
    hits = [i + 1 for i, text in enumerate(REDUCE.splitlines()) if text.rstrip().endswith(marker)]
    assert len(hits) == 1, marker
    return hits[0]


def per_block(dtype: int) -> int:
    return 32 // torch.empty(0, dtype=DTYPES[dtype]).element_size()


def launch(dtype, x2d, op, *, pattern=0, tmp=True, pad=True, dst_off=0, inner=None, pad_value=99, soc=None):
    """x2d (rows, cols) stored with rows RoundUp(cols, 32 bytes) apart; returns (out, src afterwards)."""
    rows, cols = x2d.shape
    stride = inner or (cols + per_block(dtype) - 1) // per_block(dtype) * per_block(dtype)
    src_len = max(rows * stride, 256)
    xg = torch.full((src_len,), pad_value, dtype=DTYPES[dtype])
    xg[: rows * stride].view(rows, stride)[:, :cols] = x2d
    out = torch.full((OUT,), SENTINEL, dtype=DTYPES[dtype])
    p = [op, pattern, int(tmp), rows, cols, stride, src_len, dst_off, int(pad), dtype, 0, 0, 0, 0, 0, 0]
    kernel().launch(1, xg, out, torch.tensor(p, dtype=torch.int32), soc=soc)
    return out, xg


REFS = {
    0: lambda x, d: x.double().sum(d),
    1: lambda x, d: x.double().amax(d),
    2: lambda x, d: x.double().amin(d),
    3: lambda x, d: x.double().mean(d),
    4: lambda x, d: x.double().prod(d),
    5: lambda x, d: x.bool().all(d).double(),
    6: lambda x, d: x.bool().any(d).double(),
}


@pytest.mark.parametrize("op", sorted(REFS))
@pytest.mark.parametrize("pattern", [0, 1])
def test_pattern_reductions_match_torch(op, pattern):
    torch.manual_seed(op * 2 + pattern)
    dtypes = {0: [FLOAT], 1: [FLOAT, HALF], 2: [FLOAT, HALF], 3: [FLOAT], 4: [FLOAT], 5: [FLOAT, U8], 6: [FLOAT, U8]}
    for dtype in dtypes[op]:
        for rows, cols, tmp in ((3, 5, True), (7, 70, False), (2, 8, True)):
            if op in (5, 6):
                x = (torch.rand(rows, cols) < (0.9 if op == 5 else 0.1)).to(DTYPES[dtype])
                x[0] = 1 if op == 5 else 0
            elif op == 4:
                x = (torch.rand(rows, cols) + 0.5).to(DTYPES[dtype])
            else:
                x = torch.randn(rows, cols).to(DTYPES[dtype])
            out, _ = launch(dtype, x, op, pattern=pattern, tmp=tmp)
            dim = 1 if pattern == 0 else 0
            want = REFS[op](x, dim)
            k = want.numel()
            got = out[:k].double()
            tol = 1e-2 if dtype == HALF else 1e-4
            assert torch.allclose(got, want, rtol=tol, atol=tol), (op, pattern, dtype, rows, cols, got, want)
            assert torch.all(out[k:] == SENTINEL), "wrote past its results"


def test_reduce_sum_documented_example():
    # ReduceSum-34.md: AR over (2, 8) float gives [13, 9]; ReduceMax-35.md gives [7, 8] for the same input.
    x = torch.tensor([[0.0, 4.0, 2.0, 0.0, -1.0, 2.0, -1.0, 7.0], [0.0, 1.0, -9.0, 2.0, 2.0, 2.0, 8.0, 3.0]])
    assert launch(FLOAT, x, 0)[0][:2].tolist() == [13.0, 9.0]
    assert launch(FLOAT, x, 1)[0][:2].tolist() == [7.0, 8.0]
    assert launch(FLOAT, x, 2)[0][:2].tolist() == [-1.0, -9.0]


def test_reuse_source_poisons_src_and_plain_call_keeps_it():
    x = torch.randn(4, 16)
    _, src_after = launch(FLOAT, x, 0)
    assert torch.equal(src_after[:64].view(4, 16), x)
    out, src_after = launch(FLOAT, x, 20)
    assert torch.allclose(out[:4], x.sum(1), atol=1e-5)
    assert torch.isnan(src_after[:64]).all()


def test_sum_and_mean_last_axis():
    torch.manual_seed(7)
    for dtype in (FLOAT, HALF):
        for rows, n, tmp in ((2, 3, True), (5, 100, False), (1, 300, True)):
            x = torch.randn(rows, n).to(DTYPES[dtype])
            out, _ = launch(dtype, x, 7, tmp=tmp)
            tol = 2e-2 if dtype == HALF else 1e-4
            assert torch.allclose(out[:rows].double(), x.double().sum(1), rtol=tol, atol=tol)
            padded = (rows + per_block(dtype) - 1) // per_block(dtype) * per_block(dtype)
            assert torch.isnan(out[rows:padded].float()).all(), "padding past outter is undefined: poisoned"
            assert torch.all(out[padded:] == SENTINEL)
            out, _ = launch(dtype, x, 8, tmp=tmp)
            assert torch.allclose(out[:rows].double(), x.double().mean(1), rtol=tol, atol=tol)


def test_sum_half_is_the_pairwise_tree_of_sum_md():
    # 128 halves in one repeat: (d0+d1), (d2+d3), ... then pairs of those, each rounded to half.
    x = torch.full((1, 128), 0.1, dtype=torch.float16)
    x[0, 0] = 2048.0
    out, _ = launch(HALF, x, 7)
    v = x[0].clone()
    while v.numel() > 1:
        v = v[0::2] + v[1::2]
    assert out[0].item() == v[0].item()
    assert out[0].item() != x.double().sum().item()  # a sequential or float sum would differ


def test_mean_half_with_float_accumulation():
    x = torch.full((1, 2048), 1.0, dtype=torch.float16)
    x[0, :1024] = 60000.0  # the half sum saturates; the float one does not
    out, _ = launch(HALF, x, 9)
    assert out[0].item() == pytest.approx(30000.5, rel=1e-3)
    out, _ = launch(HALF, x, 8)
    assert out[0].item() != pytest.approx(30000.5, rel=1e-3)


def test_reduction_constraints_name_the_kernel_line():
    x = torch.randn(2, 16)
    e = expect_error("unsupported_dtype", launch, HALF, x.half(), 0)
    assert e.line == line_of("// @sum_tmp")
    e = expect_error("unsupported_api", launch, FLOAT, x, 1, soc="Ascend310P3")  # A2/A3 only
    assert "310P" in e.message
    e = expect_error("unsupported_api", launch, FLOAT, x, 0, pad=False)
    assert "srcInnerPad" in e.message and e.line == line_of("// @sum_tmp")
    e = expect_error("bad_argument", launch, FLOAT, x, 0, dst_off=8)
    assert "overlap" in e.message and e.line == line_of("// @sum_tmp")
    e = expect_error("bad_argument", launch, FLOAT, torch.full((2, 16), 2.0), 5)
    assert "0 and 1" in e.message and e.line == line_of("// @all_tmp")
    e = expect_error("bad_argument", launch, FLOAT, torch.randn(2, 10), 7, inner=12)
    assert "inner" in e.message and e.line == line_of("// @sum")
    e = expect_error("bad_argument", launch, HALF, x.half(), 8, dst_off=16)
    assert "overlap" in e.message and e.line == line_of("// @mean")
    e = expect_error("bad_argument", launch, FLOAT, x, 10)
    assert "accType" in e.message and e.line == line_of("// @mean_narrow")


XOR_SUM = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void xor_sum(GM_ADDR a, GM_ADDR b, GM_ADDR out, uint32_t n, uint32_t mode)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ab, bb, ob, tb;
    pipe.InitBuffer(ab, 1024 * 2);
    pipe.InitBuffer(bb, 1024 * 2);
    pipe.InitBuffer(ob, 64);
    pipe.InitBuffer(tb, 4096);
    GlobalTensor<int16_t> ag, bg, og;
    ag.SetGlobalBuffer((__gm__ int16_t*)a);
    bg.SetGlobalBuffer((__gm__ int16_t*)b);
    og.SetGlobalBuffer((__gm__ int16_t*)out);
    LocalTensor<int16_t> al = ab.Get<int16_t>(), bl = bb.Get<int16_t>(), ol = ob.Get<int16_t>();
    LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
    DataCopy(al, ag, 1024);
    DataCopy(bl, bg, 1024);
    DataCopy(ol, og, 32);
    PipeBarrier<PIPE_ALL>();
    if (mode == 0) ReduceXorSum(ol, al, bl, tmp, n);
    else if (mode == 1) ReduceXorSum<int16_t, true>(ol, al, bl, n);
    else ReduceXorSum(al, al, bl, tmp, n);  // @xor
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, ol, 32);
    DataCopy(ag, al, 1024);
}
"""

_xor = None


def xor_sum(a: torch.Tensor, b: torch.Tensor, n: int, mode: int = 0):
    global _xor
    if _xor is None:
        _xor = compile_kernel(XOR_SUM, entry="xor_sum")
    ag = torch.zeros(1024, dtype=torch.int16)
    bg = torch.zeros(1024, dtype=torch.int16)
    ag[: a.numel()] = a
    bg[: b.numel()] = b
    out = torch.full((32,), 5, dtype=torch.int16)
    _xor.launch(1, ag, bg, out, n, mode)
    return out, ag


def test_reduce_xor_sum_matches_torch_and_clamps():
    torch.manual_seed(9)
    a = torch.randint(-8, 8, (100,), dtype=torch.int16)
    b = torch.randint(-8, 8, (100,), dtype=torch.int16)
    ag_before = torch.zeros(1024, dtype=torch.int16)
    ag_before[:100] = a
    out, ag = xor_sum(a, b, 90)
    assert out[0].item() == int((a[:90] ^ b[:90]).int().sum())
    assert torch.all(out[1:16] == -1) and torch.all(out[16:] == 5)  # dst padding to 32 bytes: poisoned
    assert torch.equal(ag, ag_before)
    big = torch.full((1000,), 0x7000, dtype=torch.int16)
    out, ag = xor_sum(big, torch.zeros(1000, dtype=torch.int16), 1000, mode=1)
    assert out[0].item() == 32767
    assert torch.all(ag[:1000] == -1)  # isReuseSource: src poisoned
    out, _ = xor_sum(-big, torch.zeros(1000, dtype=torch.int16), 1000)
    assert out[0].item() == -32768
    with pytest.raises(SimulatorError) as info:
        xor_sum(a, b, 90, mode=2)  # dst is src0
    assert info.value.kind == "bad_argument" and "overlap" in info.value.message
    assert info.value.line == [i + 1 for i, t in enumerate(XOR_SUM.splitlines()) if t.endswith("// @xor")][0]


HOST_HELPERS = r"""
#include "kernel_operator.h"
#include "host/tiling/sort_reduce_tiling.h"
using namespace AscendC;

struct Platform {};  // stands in for platform_ascendc::PlatformAscendC: the helpers do not read it

extern "C" __global__ __aicore__ void host_helpers(GM_ADDR out)
{
    GlobalTensor<uint32_t> og;
    og.SetGlobalBuffer((__gm__ uint32_t*)out);
    Platform plat;
    uint32_t mx = 0, mn = 0;
    og.SetValue(0, GetSortTmpSize(plat, 128, 4));
    og.SetValue(1, GetConcatTmpSize(plat, 100, 2));
    og.SetValue(2, GetTopKMaxMinTmpSize(plat, 64, 2, false, true, TopKMode::TOPK_NORMAL, true, 4, mx, mn) ? 1 : 0);
    og.SetValue(3, mx);
    og.SetValue(4, mn);
    AscendC::tiling::TopkTiling t;
    og.SetValue(5, TopKTilingFunc(plat, 64, 2, 5, 4, true, TopKMode::TOPK_NORMAL, true, t) ? 1 : 0);
    og.SetValue(6, t.kAlignFourBytes);
    og.SetValue(7, TopKTilingFunc(plat, 64, 2, 65, 4, true, TopKMode::TOPK_NORMAL, true, t) ? 1 : 0);
    GetReduceSumMaxMinTmpSize(std::vector<int64_t>{16, 32}, 0, ReducePattern::AR, true, false, mx, mn);
    og.SetValue(8, mx);
    GetReduceAllMaxMinTmpSize(std::vector<int64_t>{3, 5}, 4, ReducePattern::RA, true, false, mx, mn);
    og.SetValue(9, mn);
    GetSumMaxMinTmpSize(3, 2, false, mx, mn);
    og.SetValue(10, mx);
    GetMeanMaxMinTmpSize(100, 2, 4, false, mx, mn);
    og.SetValue(11, mn);
    GetReduceXorSumMaxMinTmpSize(std::vector<int64_t>{33}, 2, false, mx, mn);
    og.SetValue(12, mx);
}
"""


def test_host_tiling_helpers_compile_and_give_the_simulators_sizes():
    out = torch.zeros(16, dtype=torch.int32)
    compile_kernel(HOST_HELPERS, entry="host_helpers").launch(1, out)
    assert out[:13].tolist() == [1024, 224, 1, 2048, 2048, 1, 8, 0, 2048, 32, 32, 416, 96]


MAX_MIN_COUNT = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void max_min_count(GM_ADDR x, GM_ADDR out, uint32_t mode)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, db, wb;
    pipe.InitBuffer(xb, 256 * 4);
    pipe.InitBuffer(db, 64 * 4);
    pipe.InitBuffer(wb, 64 * 4);
    GlobalTensor<float> xg, og;
    xg.SetGlobalBuffer((__gm__ float*)x);
    og.SetGlobalBuffer((__gm__ float*)out);
    LocalTensor<float> src = xb.Get<float>(), dst = db.Get<float>(), work = wb.Get<float>();
    DataCopy(src, xg, 256);
    PipeBarrier<PIPE_ALL>();
    if (mode == 0) WholeReduceMax(dst, src, 64, 1, 1, 1, 8);
    else if (mode == 1) ReduceMax(dst, src, work, 64, 1, 8, true);
    else if (mode == 2) WholeReduceMin(dst, src, 64, 2, 1, 1, 8);
    PipeBarrier<PIPE_ALL>();
    float val = 0, idx = 0;
    if (mode == 5) {
        ReduceSum(dst, src, work, 100);
        PipeBarrier<PIPE_ALL>();
        og.SetValue(2, GetAccVal<float>());
    }
    if (mode == 6) og.SetValue(2, GetAccVal<float>());  // @accval
    if (mode >= 5) return;
    if (mode == 3) GetReduceMaxMinCount(val);  // @value_only
    else GetReduceMaxMinCount(val, idx);  // @count
    og.SetValue(0, val);
    og.SetValue(1, idx);
}
"""


def test_get_reduce_max_min_count_reads_the_last_whole_reduce():
    kernel = compile_kernel(MAX_MIN_COUNT, entry="max_min_count")
    x = torch.randn(256)
    x[37] = 50.0
    out = torch.zeros(8)
    kernel.launch(1, x, out, 0)
    assert out[0].item() == 50.0 and out[1:2].view(torch.int32).item() == 37  # the page's documented pattern
    out = torch.zeros(8)
    kernel.launch(1, x, out, 1)  # after ReduceMax the index is "not accurate": poisoned
    assert out[0].item() == 50.0 and torch.isnan(out[1])
    out = torch.zeros(8)
    kernel.launch(1, x, out, 2)  # several repeats: which one the register holds is undocumented
    assert torch.isnan(out[:2]).all()
    lines = MAX_MIN_COUNT.splitlines()
    with pytest.raises(SimulatorError) as info:
        kernel.launch(1, x, out, 3)
    assert info.value.kind == "unsupported_api"
    assert info.value.line == [i + 1 for i, t in enumerate(lines) if t.endswith("// @value_only")][0]
    with pytest.raises(SimulatorError) as info:
        kernel.launch(1, x, out, 4)  # nothing ran before
    assert info.value.kind == "bad_argument"
    assert info.value.line == [i + 1 for i, t in enumerate(lines) if t.endswith("// @count")][0]


def test_get_acc_val_reads_the_last_count_form_reduce_sum():
    kernel = compile_kernel(MAX_MIN_COUNT, entry="max_min_count")
    x = torch.randn(256)
    out = torch.zeros(8)
    kernel.launch(1, x, out, 5)
    assert out[2].item() == pytest.approx(x[:100].double().sum().item(), abs=1e-4)
    with pytest.raises(SimulatorError) as info:
        kernel.launch(1, x, out, 6)  # no ReduceSum in this launch
    assert info.value.kind == "bad_argument"
    assert info.value.line == [i + 1 for i, t in enumerate(MAX_MIN_COUNT.splitlines()) if t.endswith("// @accval")][0]
