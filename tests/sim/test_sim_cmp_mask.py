"""The CMPMASK register (sim/compare_select.h): Compare with its result in the register, GetCmpMask,
SetCmpMask and the three Select modes without a mask argument, against torch.

From the asc-devkit v8.5.0 pages Compare（结果存入寄存器）.md, GetCmpMask(ISASI).md, SetCmpMask(ISASI).md and
Select.md; the mode-2 address set-up follows SetCmpMask.md's example (both its CPU and its NPU variant).
One kernel, built once per session; CmpArgs.mode picks the scenario.
"""

from __future__ import annotations

import ctypes

import pytest
import torch

from kernel_checks import expect_error
from torch_ascendgen.targets.sim.simulator import compile_kernel

CMP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct CmpArgs {
    uint32_t mode;
    uint32_t cmp;       // CMPMODE
    uint64_t mask;
    uint64_t mask1;
    uint32_t repeat;
    uint32_t bitwise;   // Compare: pass mask[] instead of the continuous mask
    float scalar;
};

__aicore__ inline void SToV()
{
    event_t e = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
    SetFlag<HardEvent::S_V>(e);
    WaitFlag<HardEvent::S_V>(e);
}

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, GM_ADDR sel, GM_ADDR dIn, GM_ADDR dOut, GM_ADDR mOut,
                           const CmpArgs& a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bs, bd, bm, bt;
    pipe.InitBuffer(bx, 512 * sizeof(T));
    pipe.InitBuffer(by, 512 * sizeof(T));
    pipe.InitBuffer(bs, 256);
    pipe.InitBuffer(bd, 512 * sizeof(T));
    pipe.InitBuffer(bm, 160);
    pipe.InitBuffer(bt, 256);
    GlobalTensor<T> xg, yg, dg, og;
    GlobalTensor<uint8_t> sg, mg;
    xg.SetGlobalBuffer((__gm__ T*)x);
    yg.SetGlobalBuffer((__gm__ T*)y);
    dg.SetGlobalBuffer((__gm__ T*)dIn);
    og.SetGlobalBuffer((__gm__ T*)dOut);
    sg.SetGlobalBuffer((__gm__ uint8_t*)sel);
    mg.SetGlobalBuffer((__gm__ uint8_t*)mOut);
    LocalTensor<T> xl = bx.Get<T>(), yl = by.Get<T>(), dl = bd.Get<T>();
    LocalTensor<uint8_t> sl = bs.Get<uint8_t>(), ml = bm.Get<uint8_t>();
    DataCopy(xl, xg, 512);
    DataCopy(yl, yg, 512);
    DataCopy(dl, dg, 512);
    DataCopy(sl, sg, 256);
    Duplicate(ml.ReinterpretCast<uint16_t>(), static_cast<uint16_t>(0), 80);
    PipeBarrier<PIPE_ALL>();
    BinaryRepeatParams rp;
    const CMPMODE mode = static_cast<CMPMODE>(a.cmp);
    uint64_t bits[2] = {a.mask, a.mask1};
    switch (a.mode) {
        case 0:  // Compare into the register, then GetCmpMask
            if (a.bitwise) Compare(xl, yl, mode, bits, rp);
            else Compare(xl, yl, mode, a.mask, rp);  // @compare
            GetCmpMask(ml);
            break;
        case 1:  // Select mode 0: selMask bits from SetCmpMask
            SetCmpMask(sl);
            SetVectorMask<T>(a.mask1, a.mask);
            Select<T, SELMODE::VSEL_CMPMASK_SPR>(dl, xl, yl, a.repeat, rp);
            ResetMask();
            break;
        case 2: {  // Select mode 1: the scalar from SetCmpMask
            LocalTensor<T> scalar = bt.Get<T>();
            Duplicate(scalar, static_cast<T>(a.scalar), 32 / sizeof(T));
            SetCmpMask(scalar);
            SetVectorMask<T>(a.mask1, a.mask);
            Select(dl, sl, xl, a.repeat, rp);
            ResetMask();
            break;
        }
        case 3: {  // Select mode 2: selMask's address from SetCmpMask (the page's CPU variant)
            LocalTensor<int64_t> addr = bt.Get<int64_t>();
            addr.SetValue(0, static_cast<int64_t>(sl.GetPhyAddr()));
            SToV();
            SetCmpMask(addr);
            SetVectorMask<T>(a.mask1, a.mask);
            Select<T, SELMODE::VSEL_TENSOR_TENSOR_MODE>(dl, xl, yl, a.repeat, rp);  // @select_addr
            ResetMask();
            break;
        }
        case 4: {  // Select mode 2, the page's NPU variant: a 32-bit address written by Duplicate
            LocalTensor<int32_t> tmp = bt.Get<int32_t>();
            uint32_t selAddr = static_cast<uint32_t>(sl.GetPhyAddr());
            SetVectorMask<uint32_t>(32);
            Duplicate<uint32_t, false>(tmp.ReinterpretCast<uint32_t>(), selAddr, MASK_PLACEHOLDER, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            SetCmpMask<int64_t>(tmp.ReinterpretCast<int64_t>());
            SetVectorMask<T>(a.mask1, a.mask);
            Select<T, SELMODE::VSEL_TENSOR_TENSOR_MODE>(dl, xl, yl, a.repeat, rp);
            ResetMask();
            break;
        }
        case 5:  // Compare into the register, then Select mode 0 on it: the lanes' minimum
            Compare(xl, yl, CMPMODE::LT, a.mask, rp);
            SetVectorMask<T>(static_cast<int32_t>(a.mask));
            Select<T, SELMODE::VSEL_CMPMASK_SPR>(dl, xl, yl, 1, rp);
            ResetMask();
            break;
        case 6:
            GetCmpMask(ml);  // @get_unset
            break;
        case 7:
            Compare(xl, yl, mode, a.mask, rp);
            GetCmpMask(ml[8]);  // @get_misaligned
            break;
        case 8:
            SetCmpMask(sl);
            Select<T, SELMODE::VSEL_TENSOR_SCALAR_MODE>(dl, xl, yl, a.repeat, rp);  // @select_mode1
            break;
        default: {
            LocalTensor<int64_t> addr = bt.Get<int64_t>();
            addr.SetValue(0, 12345);
            SToV();
            SetCmpMask(addr);
            Select<T, SELMODE::VSEL_TENSOR_TENSOR_MODE>(dl, xl, yl, a.repeat, rp);  // @select_bad_addr
            break;
        }
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, dl, 512);
    DataCopy(mg, ml, 160);
}

extern "C" __global__ __aicore__ void cmp_mask(GM_ADDR x, GM_ADDR y, GM_ADDR sel, GM_ADDR dIn, GM_ADDR dOut,
                                               GM_ADDR mOut, CmpArgs a, uint32_t dtype)
{
    if (dtype == 0) Run<float>(x, y, sel, dIn, dOut, mOut, a);
    else if (dtype == 1) Run<half>(x, y, sel, dIn, dOut, mOut, a);
    else Run<int32_t>(x, y, sel, dIn, dOut, mOut, a);
}
"""

DTYPES = [torch.float32, torch.float16, torch.int32]
CMPMODES = ["LT", "GT", "EQ", "LE", "GE", "NE"]


class CmpArgs(ctypes.Structure):
    _fields_ = [("mode", ctypes.c_uint32), ("cmp", ctypes.c_uint32), ("mask", ctypes.c_uint64),
                ("mask1", ctypes.c_uint64), ("repeat", ctypes.c_uint32), ("bitwise", ctypes.c_uint32),
                ("scalar", ctypes.c_float)]


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(CMP, entry="cmp_mask")


def line_of(marker: str) -> int:
    return next(i for i, text in enumerate(CMP.splitlines(), 1) if text.rstrip().endswith(marker))


def data(dtype, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-4, 5, (512,), generator=g).to(dtype)  # small integers: many ties for EQ/LE/GE
    y = torch.randint(-4, 5, (512,), generator=g).to(dtype)
    sel = torch.randint(0, 256, (256,), generator=g, dtype=torch.uint8)
    d = torch.full((512,), -7, dtype=dtype)
    return x, y, sel, d


def run(kernel, mode, dtype_index, x, y, sel, d, *, cmp=0, mask=0, mask1=0, repeat=1, bitwise=0, scalar=0.0):
    dtype = DTYPES[dtype_index]
    d_out = torch.zeros(512, dtype=dtype)
    m_out = torch.zeros(160, dtype=torch.uint8)
    kernel.launch(1, x, y, sel, d, d_out, m_out, CmpArgs(mode, cmp, mask, mask1, repeat, bitwise, scalar),
                  dtype_index)
    return d_out, m_out


def bit(mask_bytes: torch.Tensor, i: int) -> bool:
    return bool((int(mask_bytes[i // 8]) >> (i % 8)) & 1)


def lanes_of(mask: int, mask1: int, lanes: int) -> list[int]:
    return [lane for lane in range(lanes) if (mask >> lane if lane < 64 else mask1 >> (lane - 64)) & 1]


TORCH_CMP = {"LT": torch.lt, "GT": torch.gt, "EQ": torch.eq, "LE": torch.le, "GE": torch.ge, "NE": torch.ne}


@pytest.mark.parametrize("dtype_index", [0, 1])
@pytest.mark.parametrize("cmp", CMPMODES)
def test_compare_writes_the_register_and_get_cmp_mask_reads_it(kernel, dtype_index, cmp):
    dtype = DTYPES[dtype_index]
    lanes = 256 // dtype.itemsize
    x, y, sel, d = data(dtype, seed=CMPMODES.index(cmp))
    for bitwise, mask, mask1 in ((0, lanes - 5, 0), (1, 0xF0F0F0F0F0F0F0F0, 0x0FF00FF00FF00FF0 if lanes > 64 else 0)):
        _, m = run(kernel, 0, dtype_index, x, y, sel, d, cmp=CMPMODES.index(cmp), mask=mask, mask1=mask1,
                   bitwise=bitwise)
        on = list(range(mask)) if not bitwise else lanes_of(mask, mask1, lanes)
        truth = TORCH_CMP[cmp](x[:lanes], y[:lanes])
        expected = [i in on and bool(truth[i]) for i in range(128)]
        assert [bit(m, i) for i in range(128)] == expected
        assert bool((m[16:128] == 0xFF).all()), "GetCmpMask's 128 bytes past the register are poisoned"
        assert bool((m[128:] == 0).all()), "GetCmpMask wrote past its 128 bytes"


@pytest.mark.parametrize("dtype_index", [0, 1])
def test_select_mode0_reuses_the_register_bits_every_repeat(kernel, dtype_index):
    dtype = DTYPES[dtype_index]
    lanes = 256 // dtype.itemsize
    x, y, sel, d = data(dtype, seed=40)
    mask, mask1 = (1 << 50) - 1, (0xFF if lanes > 64 else 0)
    out, _ = run(kernel, 1, dtype_index, x, y, sel, d, mask=mask, mask1=mask1, repeat=2)
    expected = d.clone()
    for r in range(2):
        for lane in lanes_of(mask, mask1, lanes):
            i = r * lanes + lane
            expected[i] = x[i] if bit(sel, lane) else y[i]
    assert torch.equal(out, expected)


@pytest.mark.parametrize("dtype_index", [0, 1])
def test_select_mode1_takes_the_scalar_from_the_register(kernel, dtype_index):
    dtype = DTYPES[dtype_index]
    lanes = 256 // dtype.itemsize
    x, y, sel, d = data(dtype, seed=41)
    out, _ = run(kernel, 2, dtype_index, x, y, sel, d, mask=(1 << 64) - 1, mask1=(1 << 64) - 1, repeat=2,
                 scalar=2.5)
    i = torch.arange(2 * lanes)
    bits = ((sel[i // 8].int() >> (i % 8)) & 1).bool()  # consumed continuously across repeats
    expected = d.clone()
    expected[:2 * lanes] = torch.where(bits, x[:2 * lanes], torch.tensor(2.5, dtype=dtype))
    assert torch.equal(out, expected)


@pytest.mark.parametrize("mode", [3, 4])
def test_select_mode2_reads_sel_mask_at_the_register_address(kernel, mode):
    x, y, sel, d = data(torch.float32, seed=42)
    out, _ = run(kernel, mode, 0, x, y, sel, d, mask=(1 << 64) - 1, repeat=3)
    i = torch.arange(192)
    bits = ((sel[i // 8].int() >> (i % 8)) & 1).bool()
    expected = d.clone()
    expected[:192] = torch.where(bits, x[:192], y[:192])
    assert torch.equal(out, expected)


def test_compare_then_select_on_the_register_is_a_minimum(kernel):
    x, y, sel, d = data(torch.float16, seed=43)
    out, _ = run(kernel, 5, 1, x, y, sel, d, mask=100)
    expected = d.clone()
    expected[:100] = torch.minimum(x[:100], y[:100])
    assert torch.equal(out, expected)


def test_register_misuse_is_reported(kernel):
    x, y, sel, d = data(torch.float32, seed=44)
    err = expect_error("bad_argument", run, kernel, 6, 0, x, y, sel, d)
    assert err.line == line_of("// @get_unset") and "CMPMASK" in err.message
    err = expect_error("ub_misaligned", run, kernel, 7, 0, x, y, sel, d, mask=64)
    assert err.line == line_of("// @get_misaligned") and "16-byte" in err.message
    err = expect_error("bad_argument", run, kernel, 8, 0, x, y, sel, d)
    assert err.line == line_of("// @select_mode1")
    err = expect_error("bad_argument", run, kernel, 9, 0, x, y, sel, d, repeat=1)
    assert err.line == line_of("// @select_bad_addr") and "GetPhyAddr" in err.message
    xi, yi = x.int(), y.int()
    err = expect_error("unsupported_dtype", run, kernel, 0, 2, xi, yi, sel, d.int(), mask=64)
    assert err.line == line_of("// @compare") and "int32_t" in err.message
    err = expect_error("bad_mask", run, kernel, 0, 0, x, y, sel, d, mask=65)
    assert err.line == line_of("// @compare") and "1..64" in err.message


# Compare（结果存入寄存器）.md's worked example: 64 floats, CMPMODE::LT, GetCmpMask's first 8 bytes
DOC_SRC0 = [
    86.72287, 9.413112, 17.033222, -64.10005, -66.2691, -65.57659, 15.898049, 94.61241, -68.920685, -36.16883,
    15.62852, 68.078514, -59.724575, -9.4302225, -64.770935, 66.55523, -84.60122, 57.331, 60.42026, -86.78856,
    37.25265, 8.356797, -48.544407, 16.73616, 15.28083, -21.889254, -67.93181, -41.01825, -68.79465, 20.169441,
    44.11346, -27.419518, 30.452742, -89.30283, -18.590672, 32.45831, 8.392082, -57.198048, 98.76846, -81.73067,
    -38.274437, -83.84363, 64.30617, 6.028703, -20.77164, 93.71867, 54.190437, 94.98172, -47.447758, -65.77461,
    82.21715, 59.953922, 23.599781, -77.29708, 26.963976, -63.468987, 79.97712, -70.47842, 39.00433, 52.36555,
    -63.94925, -65.77033, 26.17237, -71.904884]
DOC_SRC1 = [
    2.2989323, 51.8879, -81.49718, 41.189415, 6.4081917, 92.566666, 53.205498, -94.47063, -75.38387, 36.464787,
    85.60772, -28.70681, 42.58504, -76.15293, 38.723816, 10.006577, 74.53035, -78.38537, 71.945404, -4.060528,
    -14.501523, 28.229202, 96.87876, 41.558033, -92.623215, 43.318684, 35.387154, -16.029816, 61.544827, 3.3527017,
    55.806778, -93.242096, 22.86275, -87.506584, 35.29523, 8.405956, 91.03445, -85.29485, 34.30078, -3.8019252,
    93.40503, 15.459968, -57.99712, -74.39948, -59.900818, -43.132637, -13.123036, 41.246174, -93.01083, 75.476875,
    -45.437893, -99.19293, 13.543604, 76.23386, 46.192528, -39.23934, 75.9787, -38.38979, 9.807722, -60.610104,
    -23.062874, 48.1669, 89.913376, 73.78631]


def test_documented_compare_example(kernel):
    x = torch.zeros(512)
    y = torch.zeros(512)
    x[:64], y[:64] = torch.tensor(DOC_SRC0), torch.tensor(DOC_SRC1)
    _, m = run(kernel, 0, 0, x, y, torch.zeros(256, dtype=torch.uint8), torch.zeros(512), cmp=0, mask=64)
    assert m[:8].tolist() == [122, 86, 237, 94, 150, 3, 226, 242]
