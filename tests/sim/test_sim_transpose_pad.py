"""Transpose (sim/transpose.h) against torch (ConfusionTranspose, Pad: test_sim_confusion_transpose.py, _pad.py).

Transpose.md (the 16x16 basic form and TransposeParamsExt: ND2ND_B16, NCHW2NHWC, NHWC2NCHW with the
page's tmp-size table), Transpose-39.md (asc-devkit v8.5.0).
"""

from __future__ import annotations

import pytest
import torch

from kernel_checks import expect_error
from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF, I8, U16 = 0, 1, 2, 3
DTYPES = {FLOAT: torch.float32, HALF: torch.float16, I8: torch.int8, U16: torch.int16}
BUF = 4096  # elements of src and dst

# mode: 0 basic, 1 ext; type: TransposeType; sameBuf: dst = src; tmpBytes
TRANSPOSE = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, const uint32_t* p)
{
    uint32_t mode = p[0], sameBuf = p[2], tmpBytes = p[7], srcOff = p[9];  // p[8] unused
    TransposeParamsExt params((uint16_t)p[3], (uint16_t)p[4], (uint16_t)p[5], (uint16_t)p[6], (TransposeType)p[1]);
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, yBuf, tmpBuf;
    pipe.InitBuffer(xBuf, 4096 * sizeof(T) + 64);
    pipe.InitBuffer(yBuf, 4096 * sizeof(T));
    pipe.InitBuffer(tmpBuf, tmpBytes);
    GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T*)x);
    yGm.SetGlobalBuffer((__gm__ T*)y);
    LocalTensor<T> src = xBuf.Get<T>()[srcOff];
    LocalTensor<T> dst = sameBuf ? src : yBuf.Get<T>();
    LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
    DataCopy(xBuf.Get<T>(), xGm, 4096);
    DataCopy(yBuf.Get<T>(), yGm, 4096);
    PipeBarrier<PIPE_ALL>();
    if (mode == 0) {
        Transpose(dst, src);  // @basic
    } else {
        Transpose(dst, src, tmp, params);  // @ext
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, sameBuf ? xBuf.Get<T>() : yBuf.Get<T>(), 4096);
}

extern "C" __global__ __aicore__ void transpose_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR params)
{
    const uint32_t* p = (const uint32_t*)params;
    if (p[10] == 0) Run<float>(x, y, p);
    else if (p[10] == 1) Run<half>(x, y, p);
    else if (p[10] == 2) Run<int8_t>(x, y, p);
    else Run<uint16_t>(x, y, p);
}
"""

NONE, ND2ND_B16, NCHW2NHWC, NHWC2NCHW, NZ2ND_0213 = 0, 10, 11, 12, 1

_kernel = None


def kernel():
    global _kernel
    if _kernel is None:
        _kernel = compile_kernel(TRANSPOSE, entry="transpose_kernel")
    return _kernel


def line_of(marker: str) -> int:
    hits = [i + 1 for i, text in enumerate(TRANSPOSE.splitlines()) if text.rstrip().endswith(marker)]
    assert len(hits) == 1, marker
    return hits[0]


def run(dtype, x, *, mode=1, ttype=ND2ND_B16, nchw=(0, 0, 16, 16), same=False, tmp_bytes=32768,
        src_off=0):
    xg = torch.zeros(BUF + 64 // DTYPES[dtype].itemsize, dtype=DTYPES[dtype])
    xg[: x.numel()] = x.flatten()
    y = torch.full((BUF,), 7, dtype=DTYPES[dtype])
    p = [mode, ttype, int(same), *nchw, tmp_bytes, 0, src_off, dtype, 0, 0, 0, 0, 0]
    kernel().launch(1, xg, y, torch.tensor(p, dtype=torch.int32))
    return y


def test_basic_transpose_documented_example_and_in_place():
    x = torch.arange(256, dtype=torch.float16).view(16, 16)  # Transpose.md's example: 0..255
    y = run(HALF, x, mode=0)
    assert torch.equal(y[:256].view(16, 16), x.t())
    assert torch.all(y[256:] == 7)
    y = run(HALF, x, mode=0, same=True)
    assert torch.equal(y[:256].view(16, 16), x.t())
    x16 = torch.randint(-30000, 30000, (16, 16), dtype=torch.int16)
    assert torch.equal(run(U16, x16, ttype=ND2ND_B16)[:256].view(16, 16), x16.t())


@pytest.mark.parametrize("dtype", [FLOAT, HALF, I8])
def test_nchw_nhwc_round_trip_matches_torch_permute(dtype):
    n, c, h, w = 2, 3, 4, 8  # h * w * sizeof(T): a multiple of 32 bytes for every dtype here
    x = torch.randint(-100, 100, (n, c, h, w)).to(DTYPES[dtype])
    y = run(dtype, x, ttype=NCHW2NHWC, nchw=(n, c, h, w))
    assert torch.equal(y[: x.numel()].view(n, h, w, c), x.permute(0, 2, 3, 1))
    assert torch.all(y[x.numel():] == 7)
    nhwc = x.permute(0, 2, 3, 1).contiguous()
    y = run(dtype, nhwc, ttype=NHWC2NCHW, nchw=(n, c, h, w))
    assert torch.equal(y[: x.numel()].view(n, c, h, w), x)


def test_transpose_type_none_does_nothing():
    y = run(FLOAT, torch.randn(64), ttype=NONE, nchw=(1, 1, 8, 8))
    assert torch.all(y == 7)


def test_transpose_constraints_name_the_kernel_line():
    x = torch.randn(256)
    e = expect_error("unsupported_dtype", run, FLOAT, x, mode=0)
    assert e.line == line_of("// @basic")
    e = expect_error("unsupported_dtype", run, HALF, x.half(), ttype=ND2ND_B16)  # ext ND2ND_B16: uint16 only
    assert e.line == line_of("// @ext")
    e = expect_error("ub_misaligned", run, HALF, x.half(), mode=0, src_off=3)
    assert e.line == line_of("// @basic")
    e = expect_error("bad_argument", run, FLOAT, x, ttype=NCHW2NHWC, nchw=(1, 2, 3, 3))  # 9 floats: not 32 B
    assert "32 bytes" in e.message and e.line == line_of("// @ext")
    # NCHW2NHWC needs (c + 2) * 16 * 8 * 4 bytes of tmp for float: 4096 for c = 6
    e = expect_error("local_overrun", run, FLOAT, x, ttype=NCHW2NHWC, nchw=(1, 6, 2, 8), tmp_bytes=4064)
    assert "4096" in e.message and e.line == line_of("// @ext")
    run(FLOAT, x, ttype=NCHW2NHWC, nchw=(1, 6, 2, 8), tmp_bytes=4096)
    # NHWC2NCHW needs (2c + 1) blocks: 13 * 512 = 6656 bytes for c = 6
    expect_error("local_overrun", run, FLOAT, x, ttype=NHWC2NCHW, nchw=(1, 6, 2, 8), tmp_bytes=6624)
    e = expect_error("bad_argument", run, FLOAT, x, ttype=NCHW2NHWC, nchw=(1, 2, 2, 8), same=True)
    assert "overlap" in e.message
    e = expect_error("unsupported_api", run, FLOAT, x, ttype=NZ2ND_0213)
    assert e.line == line_of("// @ext")


# ---- TransDataTo5HD --------------------------------------------------------------------------------

# p: form (0 LocalTensor lists, 1 uint64_t lists, 2 LocalTensor<uint64_t>), repeat, dstRep, srcRep, dstHigh,
#    srcHigh, srcListStride, dstListStride (elements), badAddress, dtype
TRANS5HD = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, const uint32_t* p)
{
    uint32_t form = p[0], sStride = p[6], dStride = p[7], bad = p[8];
    TransDataTo5HDParams params(p[4] != 0, p[5] != 0, (uint8_t)p[1], (uint16_t)p[2], (uint16_t)p[3]);
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, yBuf, aBuf;
    pipe.InitBuffer(xBuf, 4096 * sizeof(T));
    pipe.InitBuffer(yBuf, 4096 * sizeof(T));
    pipe.InitBuffer(aBuf, 2 * 16 * sizeof(uint64_t));
    GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T*)x);
    yGm.SetGlobalBuffer((__gm__ T*)y);
    LocalTensor<T> src = xBuf.Get<T>(), dst = yBuf.Get<T>();
    DataCopy(src, xGm, 4096);
    DataCopy(dst, yGm, 4096);
    PipeBarrier<PIPE_ALL>();
    if (form == 0) {
        LocalTensor<T> dl[NCHW_CONV_ADDR_LIST_SIZE], sl[NCHW_CONV_ADDR_LIST_SIZE];
        for (int i = 0; i < 16; ++i) {
            dl[i] = dst[i * dStride];
            sl[i] = src[i * sStride + (bad && i == 3 ? 1 : 0)];
        }
        TransDataTo5HD<T>(dl, sl, params);  // @5hd_tensors
    } else {
        uint64_t da[NCHW_CONV_ADDR_LIST_SIZE], sa[NCHW_CONV_ADDR_LIST_SIZE];
        for (int i = 0; i < 16; ++i) {
            da[i] = dst[i * dStride].GetPhyAddr();
            sa[i] = bad && i == 5 ? 4096 : src[i * sStride].GetPhyAddr();
        }
        if (form == 1) {
            TransDataTo5HD<T>(da, sa, params);  // @5hd_addresses
        } else {
            LocalTensor<uint64_t> al = aBuf.Get<uint64_t>();
            for (int i = 0; i < 16; ++i) {
                al.SetValue(i, da[i]);
                al.SetValue(16 + i, sa[i]);
            }
            PipeBarrier<PIPE_ALL>();
            TransDataTo5HD<T>(al, al[16], params);
        }
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, dst, 4096);
}

extern "C" __global__ __aicore__ void trans5hd(GM_ADDR x, GM_ADDR y, GM_ADDR params)
{
    const uint32_t* p = (const uint32_t*)params;
    if (p[9] == 0) Run<float>(x, y, p);
    else if (p[9] == 1) Run<half>(x, y, p);
    else Run<int8_t>(x, y, p);
}
"""

_t5hd = None


def trans5hd(dtype, x, *, form=0, repeat=1, dst_rep=0, src_rep=0, dst_high=False, src_high=False, src_list=16,
             dst_list=16, bad=0):
    global _t5hd
    if _t5hd is None:
        _t5hd = compile_kernel(TRANS5HD, entry="trans5hd")
    xg = torch.zeros(BUF, dtype=DTYPES[dtype])
    xg[: x.numel()] = x.flatten()
    y = torch.full((BUF,), 7, dtype=DTYPES[dtype])
    p = [form, repeat, dst_rep, src_rep, int(dst_high), int(src_high), src_list, dst_list, bad, dtype, 0, 0, 0, 0, 0, 0]
    _t5hd.launch(1, xg, y, torch.tensor(p, dtype=torch.int32))
    return y


@pytest.mark.parametrize("form", [0, 1, 2])
def test_trans_data_to_5hd_nchw_to_nc1hwc0_half(form):
    # 16 channel planes of HW = 64 halves -> (HW, C0 = 16): the page's NCHW -> NC1HWC0 use.
    x = torch.randint(-1000, 1000, (16, 64)).half()
    y = trans5hd(HALF, x, form=form, repeat=4, src_rep=1, dst_rep=16, src_list=64, dst_list=16)
    assert torch.equal(y[:1024].view(64, 16), x.t())
    assert torch.all(y[1024:] == 7)


def test_trans_data_to_5hd_float_fills_two_blocks_per_element():
    x = torch.randn(16, 8)  # 16 source blocks of 8 floats -> 8 rows of 16
    y = trans5hd(FLOAT, x, src_list=8, dst_list=8)
    assert torch.equal(y[:128].view(8, 16), x.t())


def test_trans_data_to_5hd_one_repeat_starts_one_stride_in():
    # TransDataTo5HD.md: with repeatTimes 1 the operands start at the list plus RepStride.
    m = torch.randint(-1000, 1000, (2, 16, 16)).half()
    y = trans5hd(HALF, m, src_rep=16, src_list=16, dst_list=16)
    assert torch.equal(y[:256].view(16, 16), m[1].t())


def test_trans_data_to_5hd_int8_halves():
    x = torch.randint(-100, 100, (16, 32), dtype=torch.int8)
    y = trans5hd(I8, x, src_high=True, src_list=32, dst_list=32).view(-1)[:512].view(16, 32)
    assert torch.equal(y[:, :16], x[:, 16:].t())  # block j's low half: element 16 + j of each source block
    assert torch.all(y[:, 16:] == 7)
    y = trans5hd(I8, x, dst_high=True, src_list=32, dst_list=32).view(-1)[:512].view(16, 32)
    assert torch.equal(y[:, 16:], x[:, :16].t()) and torch.all(y[:, :16] == 7)


def test_trans_data_to_5hd_constraints_name_the_kernel_line():
    x = torch.randn(256)
    marker = [i + 1 for i, t in enumerate(TRANS5HD.splitlines()) if t.rstrip().endswith("// @5hd_tensors")][0]
    e = expect_error("ub_misaligned", trans5hd, FLOAT, x, bad=1)
    assert e.line == marker
    e = expect_error("bad_argument", trans5hd, HALF, x.half(), dst_high=True)
    assert "int8" in e.message and e.line == marker
    e = expect_error("bad_argument", trans5hd, FLOAT, x, form=1, bad=1)
    assert "srcList[5]" in e.message
    e = expect_error("local_overrun", trans5hd, FLOAT, x, repeat=3, src_rep=300, src_list=8)
    assert e.line == marker


# ---- SetPadValue (DataCopyPad's pad register) ------------------------------------------------------

PAD_VALUE = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void pad_value(GM_ADDR src, GM_ADDR dst, uint32_t rows, uint32_t cols, uint32_t mode)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> que;
    pipe.InitBuffer(que, 1, rows * 32 * sizeof(float));
    GlobalTensor<float> sg, dg;
    sg.SetGlobalBuffer((__gm__ float*)src);
    dg.SetGlobalBuffer((__gm__ float*)dst);
    LocalTensor<float> t = que.AllocTensor<float>();
    DataCopyExtParams ext((uint16_t)rows, cols * sizeof(float), 0, 0, 0);
    DataCopyPadExtParams<float> pad(false, 0, 1, 0.0f);
    if (mode == 0) SetPadValue(37.0f);
    if (mode == 2) SetPadValue<float, TPosition::VECOUT>(37.0f);
    if (mode == 3) SetPadValue((half)37.0f);
    DataCopyPad(t, sg, ext, pad);  // @pad_copy
    que.EnQue(t);
    t = que.DeQue<float>();
    DataCopy(dg, t, rows * ((cols + 8) / 8 * 8));
    que.FreeTensor(t);
}
"""


def test_set_pad_value_fills_data_copy_pad_padding():
    # SetPadValue(ISASI).md: rows of 31 floats padded by one on the right with isPad false take the set value.
    kernel = compile_kernel(PAD_VALUE, entry="pad_value")
    src = torch.ones(4 * 31)
    dst = torch.zeros(4 * 32)
    kernel.launch(1, src, dst, 4, 31, 0)
    assert torch.all(dst.view(4, 32)[:, :31] == 1) and torch.all(dst.view(4, 32)[:, 31] == 37)
    for mode in (1, 2):  # never set, or set for VECOUT only: the padding stays undefined (poisoned)
        dst = torch.zeros(4 * 32)
        kernel.launch(1, src, dst, 4, 31, mode)
        assert torch.isnan(dst.view(4, 32)[:, 31]).all()
    e = expect_error("bad_argument", kernel.launch, 1, src, dst, 4, 31, 3)
    assert "SetPadValue" in e.message
    assert e.line == [i + 1 for i, t in enumerate(PAD_VALUE.splitlines()) if t.endswith("// @pad_copy")][0]


FILL = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void fill_gm(GM_ADDR out, uint32_t n, uint32_t late)
{
    GlobalTensor<float> og;
    og.SetGlobalBuffer((__gm__ float*)out + GetBlockIdx() * n, n);
    TPipe pipe;
    if (late) {
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
    }
    Fill(og, n, 2.5f);  // @fill
}
"""


def test_fill_sets_gm_like_init_global_memory():
    kernel = compile_kernel(FILL, entry="fill_gm")
    out = torch.zeros(3 * 40)
    kernel.launch(3, out, 37, 0)  # block b fills elements [37 b, 37 b + 37)
    assert torch.all(out[:111] == 2.5) and torch.all(out[111:] == 0)
    e = expect_error("bad_argument", kernel.launch, 1, out, 8, 1)  # Fill.md: only before InitBuffer
    assert e.line == [i + 1 for i, t in enumerate(FILL.splitlines()) if t.endswith("// @fill")][0]


# ---- Layout and TransData ---------------------------------------------------------------------------

# p: mode (0 NCDHW->NDC1HWC0, 1 back, 2 NCDHW->FRACTAL_Z_3D, 3 back, 4 overlap), n, c, d, h, w, badC1
TRANS_DATA = r"""
#include "kernel_operator.h"
using namespace AscendC;

static constexpr TransDataConfig kToNdc = {DataFormat::NCDHW, DataFormat::NDC1HWC0};
static constexpr TransDataConfig kFromNdc = {DataFormat::NDC1HWC0, DataFormat::NCDHW};
static constexpr TransDataConfig kToFz = {DataFormat::NCDHW, DataFormat::FRACTAL_Z_3D};
static constexpr TransDataConfig kFromFz = {DataFormat::FRACTAL_Z_3D, DataFormat::NCDHW};

extern "C" __global__ __aicore__ void trans_data(GM_ADDR x, GM_ADDR y, GM_ADDR info, GM_ADDR params)
{
    const uint32_t* p = (const uint32_t*)params;
    int n = p[1], c = p[2], d = p[3], h = p[4], w = p[5], c1 = (c + 15) / 16, n1 = (n + 15) / 16;
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, yb, tb;
    pipe.InitBuffer(xb, 16384 * 2);
    pipe.InitBuffer(yb, 16384 * 2);
    pipe.InitBuffer(tb, 1024);
    GlobalTensor<half> xg, yg;
    GlobalTensor<int32_t> ig;
    xg.SetGlobalBuffer((__gm__ half*)x);
    yg.SetGlobalBuffer((__gm__ half*)y);
    ig.SetGlobalBuffer((__gm__ int32_t*)info);
    LocalTensor<half> src = xb.Get<half>(), dst = yb.Get<half>();
    LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
    DataCopy(src, xg, 16384);
    DataCopy(dst, yg, 16384);
    PipeBarrier<PIPE_ALL>();
    auto ncdhw = MakeLayout(MakeShape(n, c, d, h, w), MakeStride());
    auto ndc = MakeLayout(MakeShape(n, d, c1 + (int)p[6], h, w, 16), MakeStride());
    auto fz = MakeLayout(MakeShape(d, c1, h, w, n1, 16, 16), MakeStride());
    if (p[0] == 0) {
        TransDataParams<decltype(ncdhw), decltype(ndc)> prm = {ncdhw, ndc};
        TransData<kToNdc>(dst, src, tmp, prm);  // @to_ndc
    } else if (p[0] == 1) {
        TransDataParams<decltype(ndc), decltype(ncdhw)> prm = {ndc, ncdhw};
        TransData<kFromNdc>(dst, src, prm);
    } else if (p[0] == 2) {
        TransDataParams<decltype(ncdhw), decltype(fz)> prm = {ncdhw, fz};
        TransData<kToFz>(dst, src, tmp, prm);
    } else if (p[0] == 3) {
        TransDataParams<decltype(fz), decltype(ncdhw)> prm = {fz, ncdhw};
        TransData<kFromFz>(dst, src, tmp, prm);
    } else {
        TransDataParams<decltype(ncdhw), decltype(ndc)> prm = {ncdhw, ndc};
        TransData<kToNdc>(src[16], src, tmp, prm);  // @overlap
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, dst, 16384);
    // Layout.md's examples: shape (10, 20, 30), stride (1, 100, 200)
    auto layout = MakeLayout(MakeShape(10, 20, 30), MakeStride(1, 100, 200));
    ig.SetValue(0, Std::get<1>(layout.GetShape()));
    ig.SetValue(1, Std::get<2>(layout.GetStride()));
    ig.SetValue(2, (int32_t)layout(MakeCoord(1, 2, 3)));
    ig.SetValue(3, is_layout<decltype(layout)>::value ? 1 : 0);
    ig.SetValue(4, is_layout<Shape<int, int>>::value ? 1 : 0);
    // Crd2Idx.md: shape (3, 4, 5), stride (20, 5, 1), coordinate (1, 2, 3) -> 33; 7 delinearized
    // column-major over (3, 4, 5) is (1, 2, 0) -> 30
    ig.SetValue(5, (int32_t)Crd2Idx(MakeCoord(1, 2, 3), MakeShape(3, 4, 5), MakeStride(20, 5, 1)));
    ig.SetValue(6, (int32_t)Crd2Idx(7, MakeLayout(MakeShape(3, 4, 5), MakeStride(20, 5, 1))));
}
"""

_trans_data = None


def trans_data(x, mode, n, c, d, h, w, bad=0):
    global _trans_data
    if _trans_data is None:
        _trans_data = compile_kernel(TRANS_DATA, entry="trans_data")
    xg = torch.zeros(16384, dtype=torch.float16)
    xg[: x.numel()] = x.flatten()
    y = torch.zeros(16384, dtype=torch.float16)
    info = torch.zeros(8, dtype=torch.int32)
    _trans_data.launch(1, xg, y, info, torch.tensor([mode, n, c, d, h, w, bad] + [0] * 9, dtype=torch.int32))
    return y, info


def plain_ncdhw(n, c, d, h, w):
    """Values in (N, C, D, H*W padded to 16), the padding NaN."""
    hw, pad = h * w, (h * w + 15) // 16 * 16
    x = torch.full((n, c, d, pad), float("nan"), dtype=torch.float16)
    x[..., :hw] = torch.arange(n * c * d * hw).remainder(2000).view(n, c, d, hw).half()
    return x


def same(a, b):
    return torch.equal(torch.isnan(a), torch.isnan(b)) and torch.equal(a[~torch.isnan(a)], b[~torch.isnan(b)])


def test_trans_data_ncdhw_and_ndc1hwc0_round_trip():
    n, c, d, h, w = 2, 20, 2, 3, 5
    hw, c1 = h * w, 2
    x = plain_ncdhw(n, c, d, h, w)
    xp = torch.full((n, c1 * 16, d, hw), float("nan"), dtype=torch.float16)
    xp[:, :c] = x[..., :hw]
    want = xp.view(n, c1, 16, d, hw).permute(0, 3, 1, 4, 2).flatten()  # (N, D, C1, HW, C0)
    y, info = trans_data(x, 0, n, c, d, h, w)
    assert same(y[: want.numel()], want)
    assert info[:7].tolist() == [20, 200, 1 * 1 + 2 * 100 + 3 * 200, 1, 0, 33, 30]  # the Layout helpers
    back, _ = trans_data(want, 1, n, c, d, h, w)
    assert same(back[: x.numel()], x.flatten())  # the output's H*W padding is invalid: poisoned (NaN) like the input's


def test_trans_data_ncdhw_and_fractal_z_3d_round_trip():
    n, c, d, h, w = 18, 20, 1, 3, 5
    hw, c1, n1 = h * w, 2, 2
    x = plain_ncdhw(n, c, d, h, w)
    xp = torch.full((n1 * 16, c1 * 16, d, hw), float("nan"), dtype=torch.float16)
    xp[:n, :c] = x[..., :hw]
    # (N1, N0, C1, C0, D, HW) -> (D, C1, HW, N1, N0, C0)
    want = xp.view(n1, 16, c1, 16, d, hw).permute(4, 2, 5, 0, 1, 3).flatten()
    y, _ = trans_data(x, 2, n, c, d, h, w)
    assert same(y[: want.numel()], want)
    back, _ = trans_data(want, 3, n, c, d, h, w)
    assert same(back[: x.numel()], x.flatten())


def test_trans_data_constraints_name_the_kernel_line():
    lines = TRANS_DATA.splitlines()
    x = plain_ncdhw(1, 16, 1, 4, 4)
    with pytest.raises(SimulatorError) as info:
        trans_data(x, 0, 1, 16, 1, 4, 4, bad=1)  # C1 of the destination layout is not ceil(C / 16)
    assert info.value.kind == "bad_argument" and "C1" in info.value.message
    assert info.value.line == [i + 1 for i, t in enumerate(lines) if t.endswith("// @to_ndc")][0]
    with pytest.raises(SimulatorError) as info:
        trans_data(x, 4, 1, 16, 1, 4, 4)
    assert info.value.kind == "bad_argument" and "overlap" in info.value.message
    assert info.value.line == [i + 1 for i, t in enumerate(lines) if t.endswith("// @overlap")][0]
