"""CumSum (sim/cumsum.h) and Arange/ArithProgression (sim/arange.h), with their host helpers
(host/tiling/cumsum_tiling.h), against torch.

One contract kernel, built once per module: the host tiling function reports GetCumSumMaxMinTmpSize and
GetArangeMaxMinTmpSize for [outter, inner] (first pseudo-shape) and the type size (second).
"""

from __future__ import annotations

import struct

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF, INT32, INT16 = range(4)
DTYPES = {FLOAT: torch.float32, HALF: torch.float16, INT32: torch.int32, INT16: torch.int16}

SOURCE = r"""
#include "kernel_operator.h"
#include "host/tiling/cumsum_tiling.h"
using namespace AscendC;

struct TilingData {
    uint32_t cumsumMax, cumsumMin, arangeMax, arangeMin;
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    std::vector<int64_t> shape = {dims[0], dims[1]};
    GetCumSumMaxMinTmpSize(shape, static_cast<uint32_t>(dims[2]), true, false, t->cumsumMax, t->cumsumMin);
    GetArangeMaxMinTmpSize(t->arangeMax, t->arangeMin);
    *workspaceBytes = 0;
    return 1;
}

constexpr CumSumConfig FIRST_AXIS = {false, false, true};
constexpr CumSumConfig LAST_AXIS_LAST_ROW = {true, false, true};

template <typename T>
__aicore__ inline void Scan(uint32_t op, const LocalTensor<T>& y, const LocalTensor<T>& last, const LocalTensor<T>& x,
                            const LocalTensor<uint8_t>& tmp, CumSumInfo info)
{
    if (op == 0) CumSum<T>(y, last, x, tmp, info);  // @cumsum
    else if (op == 1) CumSum<T, FIRST_AXIS>(y, last, x, tmp, info);
    else CumSum<T, LAST_AXIS_LAST_ROW>(y, last, x, info);
}

template <typename T>
__aicore__ inline void Progression(uint32_t op, const LocalTensor<T>& y, float first, float diff, int32_t count)
{
    if (op == 10) Arange<T>(y, (T)first, (T)diff, count);  // @arange
    else ArithProgression<T>(y, (T)first, (T)diff, count);
}

extern "C" __global__ __aicore__ void scan_family(GM_ADDR x, GM_ADDR y, GM_ADDR last, GM_ADDR workspace,
                                                  GM_ADDR tiling, uint32_t dtype, uint32_t op, uint32_t outter,
                                                  uint32_t inner, uint32_t tmpBytes, uint32_t layout, float first,
                                                  float diff, int32_t count)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bl, btmp;
    pipe.InitBuffer(bx, 8192);
    pipe.InitBuffer(by, 8192);
    pipe.InitBuffer(bl, 1024);
    pipe.InitBuffer(btmp, tmpBytes);
    LocalTensor<uint8_t> xl = bx.Get<uint8_t>(), yl = by.Get<uint8_t>(), ll = bl.Get<uint8_t>();
    LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
    GlobalTensor<uint8_t> xg, yg, lg;
    xg.SetGlobalBuffer((__gm__ uint8_t*)x);
    yg.SetGlobalBuffer((__gm__ uint8_t*)y);
    lg.SetGlobalBuffer((__gm__ uint8_t*)last);
    DataCopy(xl, xg, 8192);
    DataCopy(yl, yg, 8192);
    DataCopy(ll, lg, 1024);
    PipeBarrier<PIPE_ALL>();
    if (layout == 1) yl = xl;
    if (layout == 2) ll = yl;
    CumSumInfo info = {outter, inner};
    if (op < 10) {
        if (dtype == 0) Scan<float>(op, yl.ReinterpretCast<float>(), ll.ReinterpretCast<float>(),
                                    xl.ReinterpretCast<float>(), tmp, info);
        else Scan<half>(op, yl.ReinterpretCast<half>(), ll.ReinterpretCast<half>(), xl.ReinterpretCast<half>(), tmp,
                        info);
    } else {
        if (dtype == 0) Progression<float>(op, yl.ReinterpretCast<float>(), first, diff, count);
        else if (dtype == 1) Progression<half>(op, yl.ReinterpretCast<half>(), first, diff, count);
        else if (dtype == 2) Progression<int32_t>(op, yl.ReinterpretCast<int32_t>(), first, diff, count);
        else Progression<int16_t>(op, yl.ReinterpretCast<int16_t>(), first, diff, count);
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, yl, 8192);
    DataCopy(lg, ll, 1024);
}
"""


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="scan_family", contract=True)


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def run(kernel, dtype, op, *, x=None, outter=0, inner=0, tmp_bytes=1024, layout=0, first=0.0, diff=0.0, count=0,
        soc=None):
    t = DTYPES[dtype]
    xg = torch.zeros(8192, dtype=torch.uint8)
    if x is not None:
        flat = x.contiguous().reshape(-1).view(torch.uint8)
        xg[:flat.numel()] = flat
    y = torch.full((8192,), 0x7B, dtype=torch.uint8)
    last = torch.full((1024,), 0x7B, dtype=torch.uint8)
    report = kernel.launch(1, xg, y, last, None, bytes(16), dtype, op, outter, inner, tmp_bytes, layout, first, diff,
                           count, soc=soc)
    return y.view(t), last.view(t), report


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_cumsum_both_axes(kernel, dtype):
    t = DTYPES[dtype]
    g = torch.Generator().manual_seed(0)
    x = torch.randn(6, 32, generator=g).to(t)
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == FLOAT else dict(atol=1e-2, rtol=4e-3)
    y, last, _ = run(kernel, dtype, 0, x=x, outter=6, inner=32)
    torch.testing.assert_close(y[:192].view(6, 32), torch.cumsum(x.double(), 1).to(t), **tol)
    assert (last.view(torch.uint8) == 0x7B).all()  # outputLastRow false: lastRowTensor untouched
    y, last, _ = run(kernel, dtype, 1, x=x, outter=6, inner=32)
    down = torch.cumsum(x.double(), 0).to(t)
    torch.testing.assert_close(y[:192].view(6, 32), down, **tol)
    torch.testing.assert_close(last[:32], down[-1], **tol)
    y, last, _ = run(kernel, dtype, 2, x=x, outter=6, inner=32)
    torch.testing.assert_close(last[:32], torch.cumsum(x.double(), 1).to(t)[-1], **tol)


def test_cumsum_documented_example(kernel):
    x = torch.tensor([[0, 1, 2] + [0] * 5, [3, 4, 5] + [0] * 5], dtype=torch.float32)  # inner padded to 32 bytes
    y, _, _ = run(kernel, FLOAT, 1, x=x, outter=2, inner=8)
    assert y[:16].view(2, 8)[:, :3].tolist() == [[0, 1, 2], [3, 5, 7]]  # CumSum.md, first axis
    y, _, _ = run(kernel, FLOAT, 0, x=x, outter=2, inner=8)
    assert y[:16].view(2, 8)[:, :3].tolist() == [[0, 1, 3], [3, 7, 12]]  # CumSum.md, last axis


def test_cumsum_rules(kernel):
    x = torch.ones(4, 12)
    err = expect_error("bad_argument", run, kernel, FLOAT, 0, x=x, outter=4, inner=12)
    assert err.line == line_of("// @cumsum") and "multiple of 32 bytes" in err.message
    err = expect_error("local_overrun", run, kernel, FLOAT, 0, x=x, outter=4, inner=64, tmp_bytes=224)
    assert "at least 256 bytes" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 1, x=x, outter=4, inner=8, layout=2)
    assert "lastRowTensor and dstTensor overlap" in err.message
    y, _, _ = run(kernel, FLOAT, 0, x=torch.ones(2, 8), outter=2, inner=8, layout=1)  # in place
    assert y[:8].tolist() == list(range(1, 9))
    y, _, _ = run(kernel, FLOAT, 0, x=torch.ones(1, 8), outter=1, inner=8, soc="Ascend310P3")  # 310P: as A2
    assert y[:8].tolist() == list(range(1, 9))


@pytest.mark.parametrize("dtype", [FLOAT, HALF, INT32, INT16])
def test_arange(kernel, dtype):
    t = DTYPES[dtype]
    first, diff = (-5.0, 3.0)
    for op in (10, 11):
        y, _, _ = run(kernel, dtype, op, first=first, diff=diff, count=200)
        expected = torch.arange(200, dtype=torch.float64) * diff + first
        assert torch.equal(y[:200], expected.to(t))
        assert (y.view(torch.uint8)[200 * y.element_size():] == 0x7B).all()


def test_arange_half_rounds_like_its_adds(kernel):
    y, _, _ = run(kernel, HALF, 10, first=0.1, diff=0.3, count=100)
    first, diff = torch.tensor(0.1).half().float(), torch.tensor(0.3).half().float()
    expected = []
    for i in range(100):
        v = (first + (i % 8) * diff).half()
        if i % 64 >= 8:
            v = (v + torch.tensor((i % 64 - i % 8) * diff.item()).half()).half()
        if i >= 64:
            v = (v + torch.tensor((i - i % 64) * diff.item()).half()).half()
        expected.append(v)
    assert torch.equal(y[:100], torch.stack(expected))


def test_arange_rules(kernel):
    err = expect_error("bad_argument", run, kernel, FLOAT, 10, first=0.0, diff=-1.0, count=16)
    assert err.line == line_of("// @arange") and "diffValue at least 0" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 10, first=0.0, diff=1.0, count=0)
    assert "count must be positive" in err.message
    err = expect_error("local_overrun", run, kernel, FLOAT, 10, first=0.0, diff=1.0, count=4096)
    assert err.line == line_of("// @arange")


def test_host_helpers(kernel):
    data = kernel.tiling([[5, 96], [4]]).data
    high, low, arange_high, arange_low = struct.unpack_from("<4I", data)
    assert (low, high) == (96 * 4, 5 * 96 * 4) and (arange_high, arange_low) == (0, 0)
    x = torch.ones(5, 96)
    run(kernel, FLOAT, 0, x=x, outter=5, inner=96, tmp_bytes=low)  # the reported minimum is enough
    expect_error("local_overrun", run, kernel, FLOAT, 0, x=x, outter=5, inner=96, tmp_bytes=low - 32)


def test_cost(kernel):
    _, _, report = run(kernel, FLOAT, 0, x=torch.ones(4, 64), outter=4, inner=64)
    assert report.vector_ops()["CumSum"] == (1, 2 * 4)
    _, _, report = run(kernel, FLOAT, 10, first=0.0, diff=1.0, count=100)
    assert report.vector_ops()["Arange"] == (1, 13 + 1)
