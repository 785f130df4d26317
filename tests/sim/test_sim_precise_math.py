"""The high-level Exp (Taylor expansion) and Axpy (Muls + Add) of sim/precise_math.h, and their host helpers
(host/tiling/precise_math_tiling.h), against torch. One contract kernel, built once per module.
"""

from __future__ import annotations

import math
import struct

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF = 0, 1
DTYPES = {FLOAT: torch.float32, HALF: torch.float16}

SOURCE = r"""
#include "kernel_operator.h"
#include "host/tiling/precise_math_tiling.h"
using namespace AscendC;

struct TilingData {
    uint32_t expMax, expMin, axpyMax, axpyMin;
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    std::vector<int64_t> shape = {dims[0]};
    GetExpMaxMinTmpSize(shape, static_cast<uint32_t>(dims[1]), false, t->expMax, t->expMin);
    GetAxpyMaxMinTmpSize(shape, static_cast<uint32_t>(dims[1]), false, t->axpyMax, t->axpyMin);
    *workspaceBytes = 0;
    return 1;
}

template <typename T>
__aicore__ inline void Apply(uint32_t op, const LocalTensor<uint8_t>& dB, const LocalTensor<uint8_t>& sB,
                             const LocalTensor<uint8_t>& tmp, uint32_t n, float s)
{
    LocalTensor<T> dst = dB.ReinterpretCast<T>(), src = sB.ReinterpretCast<T>();
    switch (op) {
        case 0: Exp<T, 0>(dst, src, tmp, n); break;  // @exp
        case 1: Exp<T, 12>(dst, src, tmp, n); break;
        case 2: Exp<T, 3>(dst, src, n); break;
        case 3: Exp<T, 12, true>(dst, src, tmp, n); break;
        case 4: Exp(dst, src, (int32_t)n); break;  // the basic instruction
        case 10: Axpy<T, T>(dst, src, (T)s, tmp, n); break;  // @axpy
        case 11: Axpy<float, half>(dB.ReinterpretCast<float>(), sB.ReinterpretCast<half>(), (half)s, tmp, n); break;
        case 12: Axpy<half, float>(dB.ReinterpretCast<half>(), sB.ReinterpretCast<float>(), s, tmp, n);
            break;  // @axpy_bad
    }
}

extern "C" __global__ __aicore__ void precise_math(GM_ADDR dst, GM_ADDR src, GM_ADDR workspace, GM_ADDR tiling,
                                                   uint32_t dtype, uint32_t op, uint32_t n, uint32_t tmpBytes,
                                                   uint32_t layout, float s)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bd, bs, btmp;
    pipe.InitBuffer(bd, 8192);
    pipe.InitBuffer(bs, 8192);
    pipe.InitBuffer(btmp, tmpBytes);
    LocalTensor<uint8_t> d = bd.Get<uint8_t>(), sl = bs.Get<uint8_t>(), tmp = btmp.Get<uint8_t>();
    GlobalTensor<uint8_t> dg, sg;
    dg.SetGlobalBuffer((__gm__ uint8_t*)dst);
    sg.SetGlobalBuffer((__gm__ uint8_t*)src);
    DataCopy(d, dg, 8192);
    DataCopy(sl, sg, 8192);
    PipeBarrier<PIPE_ALL>();
    if (layout == 1) d = sl;
    if (dtype == 0) Apply<float>(op, d, sl, tmp, n, s);
    else Apply<half>(op, d, sl, tmp, n, s);
    PipeBarrier<PIPE_ALL>();
    DataCopy(dg, d, 8192);
    DataCopy(sg, sl, 8192);
}
"""


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="precise_math", contract=True)


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def raw(t: torch.Tensor) -> torch.Tensor:
    buf = torch.zeros(8192, dtype=torch.uint8)
    flat = t.contiguous().reshape(-1).view(torch.uint8)
    buf[:flat.numel()] = flat
    return buf


def run(kernel, dtype, op, src, dst=None, *, n=None, s=0.0, tmp_bytes=4096, layout=0, soc=None):
    n = n or src.numel()
    dst = torch.zeros_like(src) if dst is None else dst
    d, sg = raw(dst), raw(src)
    kernel.launch(1, d, sg, None, bytes(16), dtype, op, n, tmp_bytes, layout, s, soc=soc)
    return d, sg


def taylor_ref(x, level):
    whole = torch.floor(x)
    f = x - whole
    total = torch.ones_like(x)
    term = torch.ones_like(x)
    for k in range(1, level + 1):
        term = term * f / k
        total = total + term
    return torch.exp(whole) * total


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_exp_with_and_without_taylor(kernel, dtype):
    t = DTYPES[dtype]
    x = (torch.rand(300, generator=torch.Generator().manual_seed(0)) * 8 - 4).to(t)
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == FLOAT else dict(atol=1e-3, rtol=2e-3)
    for op, level in ((0, 0), (1, 12), (2, 3), (4, 0)):
        d, _ = run(kernel, dtype, op, x)
        expected = torch.exp(x.double()) if level == 0 else taylor_ref(x.double(), level)
        torch.testing.assert_close(d.view(t)[:300], expected.to(t), **tol)
    # three terms are visibly coarser than e^x: the level is honoured
    d, _ = run(kernel, FLOAT, 2, x.float())
    assert (d.view(torch.float32)[:300].double() - torch.exp(x.double())).abs().max() > 1e-3


def test_exp_reuse_source_and_rules(kernel):
    x = torch.rand(64)
    _, s = run(kernel, FLOAT, 3, x)
    assert torch.isnan(s.view(torch.float32)[:64]).all()  # float isReuseSource: src is scratch afterwards
    err = expect_error("bad_argument", run, kernel, FLOAT, 0, x, layout=1)
    assert err.line == line_of("// @exp") and "overlap" in err.message
    err = expect_error("local_overrun", run, kernel, FLOAT, 0, x, tmp_bytes=224)
    assert "at least 256 bytes" in err.message
    d, _ = run(kernel, FLOAT, 0, x, soc="Ascend310P3")  # 310P: as A2
    torch.testing.assert_close(d.view(torch.float32)[:64], torch.exp(x))


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_axpy_muls_then_add(kernel, dtype):
    t = DTYPES[dtype]
    g = torch.Generator().manual_seed(1)
    src = (torch.randn(256, generator=g) * 3).to(t)
    dst = (torch.randn(256, generator=g) * 3).to(t)
    d, _ = run(kernel, dtype, 10, src, dst, s=1.7)
    scale = torch.tensor(1.7, dtype=t)
    assert torch.equal(d.view(t)[:256], (dst.float() + (src.float() * scale.float()).to(t).float()).to(t))


def test_axpy_mixed_precision_and_rules(kernel):
    g = torch.Generator().manual_seed(2)
    src = (torch.randn(128, generator=g) * 3).half()
    dst = torch.randn(128, generator=g)
    d, _ = run(kernel, FLOAT, 11, src, dst, s=0.3)
    product = (src.float() * torch.tensor(0.3).half().float()).half().float()
    assert torch.equal(d.view(torch.float32)[:128], dst + product)
    err = expect_error("unsupported_dtype", run, kernel, FLOAT, 12, dst, dst.half(), s=0.3)
    assert "not one of the page's combinations" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 10, dst, dst, s=0.3, layout=1)
    assert err.line == line_of("// @axpy")


def test_host_helpers(kernel):
    exp_max, exp_min, axpy_max, axpy_min = struct.unpack_from("<4I", kernel.tiling([[1000], [2]]).data)
    assert exp_min == axpy_min == 512 and exp_max == axpy_max == 2 * math.ceil(4000 / 256) * 256
    x = torch.rand(1000).half()
    run(kernel, HALF, 1, x, tmp_bytes=exp_min)
    expect_error("local_overrun", run, kernel, HALF, 1, x, tmp_bytes=exp_min - 32)
