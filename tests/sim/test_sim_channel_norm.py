"""BatchNorm and GroupNorm (sim/channel_norm.h) with their host tiling helpers (host/tiling/norm_tiling.h) against
torch.

One contract kernel, built once per module: the host tiling function fills BatchNormTiling for [B, S, H] (first
pseudo-shape) and GroupNormTiling for [N, C, H, W] (second), with groupNum, the type size and the temporary space
in the third; `op` picks the API form.
"""

from __future__ import annotations

import struct

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF = 0, 1
DTYPES = {FLOAT: torch.float32, HALF: torch.float16}
EPS = 1e-5
BUF = 16384

SOURCE = r"""
#include "kernel_operator.h"
#include "host/tiling/norm_tiling.h"
using namespace AscendC;

struct TilingData {
    uint32_t tmpBytes, bnOk, bnMax, bnMin, gnMax, gnMin;
    BatchNormTiling bn;
    GroupNormTiling gn;
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    std::vector<int64_t> bsh = {dims[0], dims[1], dims[2]}, nchw = {dims[3], dims[4], dims[5], dims[6]};
    uint32_t groups = dims[7], typeSize = dims[8];
    t->tmpBytes = dims[9];
    GetBatchNormMaxMinTmpSize(bsh, bsh, typeSize, false, t->bnMax, t->bnMin);
    t->bnOk = GetBatchNormNDTilingInfo(bsh, bsh, t->tmpBytes, typeSize, false, t->bn);
    GetGroupNormMaxMinTmpSize(nchw, typeSize, false, groups, t->gnMax, t->gnMin);
    GetGroupNormNDTilingInfo(nchw, t->tmpBytes, typeSize, false, groups, t->gn);
    *workspaceBytes = 0;
    return 1;
}

template <typename T>
__aicore__ inline void Apply(uint32_t op, const LocalTensor<T>& y, const LocalTensor<T>& x, const LocalTensor<T>& gamma,
                             const LocalTensor<T>& beta, const LocalTensor<T>& mean, const LocalTensor<T>& var,
                             const LocalTensor<uint8_t>& tmp, const TilingData& t, T eps)
{
    switch (op) {
        case 0: BatchNorm<T>(y, mean, var, x, gamma, beta, tmp, eps, t.bn); break;  // @bn
        case 1: BatchNorm<T>(y, mean, var, x, gamma, beta, eps, t.bn); break;
        case 2: BatchNorm<T, false, true>(y, mean, var, x, gamma, beta, tmp, eps, t.bn); break;  // @bn_basic
        case 10: GroupNorm<T>(y, mean, var, x, gamma, beta, tmp, eps, t.gn); break;  // @gn
        case 11: GroupNorm<T>(y, mean, var, x, gamma, beta, eps, t.gn); break;
        case 12: GroupNorm<T, true>(y, mean, var, x, gamma, beta, tmp, eps, t.gn); break;  // @gn_reuse
    }
}

extern "C" __global__ __aicore__ void channel_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, GM_ADDR stats,
                                                   GM_ADDR workspace, GM_ADDR tiling, uint32_t dtype, uint32_t op,
                                                   uint32_t layout, float eps)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bg, bb, bs, btmp;
    pipe.InitBuffer(bx, 16384);
    pipe.InitBuffer(by, 16384);
    pipe.InitBuffer(bg, 1024);
    pipe.InitBuffer(bb, 1024);
    pipe.InitBuffer(bs, 2048);
    pipe.InitBuffer(btmp, t.tmpBytes);
    LocalTensor<uint8_t> xl = bx.Get<uint8_t>(), yl = by.Get<uint8_t>(), gl = bg.Get<uint8_t>();
    LocalTensor<uint8_t> bl = bb.Get<uint8_t>(), sl = bs.Get<uint8_t>(), tmp = btmp.Get<uint8_t>();
    GlobalTensor<uint8_t> xg, gg, bg2, yg, sg;
    xg.SetGlobalBuffer((__gm__ uint8_t*)x);
    gg.SetGlobalBuffer((__gm__ uint8_t*)gamma);
    bg2.SetGlobalBuffer((__gm__ uint8_t*)beta);
    yg.SetGlobalBuffer((__gm__ uint8_t*)y);
    sg.SetGlobalBuffer((__gm__ uint8_t*)stats);
    DataCopy(xl, xg, 16384);
    DataCopy(gl, gg, 1024);
    DataCopy(bl, bg2, 1024);
    PipeBarrier<PIPE_ALL>();
    if (layout == 1) yl = xl;
    LocalTensor<uint8_t> var = layout == 2 ? sl : sl[1024];
    if (dtype == 0)
        Apply<float>(op, yl.ReinterpretCast<float>(), xl.ReinterpretCast<float>(), gl.ReinterpretCast<float>(),
                     bl.ReinterpretCast<float>(), sl.ReinterpretCast<float>(), var.ReinterpretCast<float>(), tmp, t,
                     eps);
    else
        Apply<half>(op, yl.ReinterpretCast<half>(), xl.ReinterpretCast<half>(), gl.ReinterpretCast<half>(),
                    bl.ReinterpretCast<half>(), sl.ReinterpretCast<half>(), var.ReinterpretCast<half>(), tmp, t,
                    (half)eps);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, yl, 16384);
    DataCopy(sg, sl, 2048);
    DataCopy(xg, xl, 16384);
}
"""


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="channel_norm", contract=True)


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def tiling(kernel, bsh=(1, 1, 8), nchw=(1, 1, 1, 8), groups=1, elem=4, tmp_bytes=8192) -> bytes:
    return kernel.tiling([list(bsh), list(nchw), [groups, elem, tmp_bytes]]).data


def raw(t: torch.Tensor, size: int) -> torch.Tensor:
    buf = torch.zeros(size, dtype=torch.uint8)
    flat = t.contiguous().reshape(-1).view(torch.uint8)
    buf[:flat.numel()] = flat
    return buf


def run(kernel, dtype, op, x, gamma, beta, tiling_data, *, layout=0, soc=None):
    xg = raw(x, BUF)
    y = torch.zeros(BUF, dtype=torch.uint8)
    stats = torch.zeros(2048, dtype=torch.uint8)
    report = kernel.launch(1, xg, raw(gamma, 1024), raw(beta, 1024), y, stats, None, tiling_data, dtype, op, layout,
                           EPS, soc=soc)
    t = x.dtype
    return y.view(t)[:x.numel()].view(x.shape), stats[:1024].view(t), stats[1024:].view(t), xg.view(t), report


def tol(t):
    return dict(atol=1e-5, rtol=1e-5) if t == torch.float32 else dict(atol=4e-3, rtol=4e-3)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_batch_norm_normalises_over_the_batch(kernel, dtype):
    t = DTYPES[dtype]
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(8, 2, 32, generator=g) * 2 + 1).to(t)
    gamma = (torch.rand(16, generator=g) + 0.5).to(t)  # shape [B], padded to 32 bytes
    beta = torch.randn(16, generator=g).to(t)
    xd = x.double()
    mean = xd.mean(0)
    var = xd.var(0, unbiased=False)
    ref = gamma[:8].double()[:, None, None] * (xd - mean) / torch.sqrt(var + EPS) + beta[:8].double()[:, None, None]
    data = tiling(kernel, bsh=(8, 2, 32), elem=x.element_size())
    for op in (0, 1, 2):
        y, m, v, _, _ = run(kernel, dtype, op, x, gamma, beta, data)
        torch.testing.assert_close(y, ref.to(t), **tol(t))
        torch.testing.assert_close(m[:64].view(2, 32), mean.to(t), **tol(t))
        torch.testing.assert_close(v[:64].view(2, 32), var.to(t), **tol(t))
    y, _, _, _, _ = run(kernel, dtype, 0, x, gamma, beta, data, layout=1)  # inputX and output may overlap
    torch.testing.assert_close(y, ref.to(t), **tol(t))


def test_batch_norm_rules(kernel):
    x = torch.randn(6, 1, 64)
    gamma = beta = torch.ones(8)
    data = tiling(kernel, bsh=(6, 1, 64))
    err = expect_error("bad_argument", run, kernel, FLOAT, 2, x, gamma, beta, data)  # B = 6: not a basic block
    assert err.line == line_of("// @bn_basic") and "basic block" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 0, x, gamma, beta, data, layout=2)
    assert err.line == line_of("// @bn") and "outputMean and outputVariance overlap" in err.message
    y, _, _, _, _ = run(kernel, FLOAT, 0, x, gamma, beta, data, soc="Ascend310P3")  # 310P: as A2 without bf16
    assert torch.isfinite(y).all()
    data = tiling(kernel, bsh=(6, 1, 64), tmp_bytes=100)  # below the minimum: the host helper refuses
    assert struct.unpack_from("<2I", data)[1] == 0
    err = expect_error("bad_argument", run, kernel, FLOAT, 0, x, gamma, beta, data)
    assert "B = 0" in err.message


def group_norm_ref(x, groups, gamma, beta):
    return torch.nn.functional.group_norm(x.double(), groups, gamma.double(), beta.double(), EPS)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_group_norm_matches_torch(kernel, dtype):
    t = DTYPES[dtype]
    g = torch.Generator().manual_seed(1)
    x = (torch.randn(2, 8, 4, 4, generator=g) * 3).to(t)
    gamma = (torch.rand(8, generator=g) + 0.5).to(t)
    beta = torch.randn(8, generator=g).to(t)
    data = tiling(kernel, nchw=(2, 8, 4, 4), groups=4, elem=x.element_size())
    grouped = x.double().view(2, 4, -1)
    for op in (10, 11):
        y, m, v, _, _ = run(kernel, dtype, op, x, gamma, beta, data)
        torch.testing.assert_close(y, group_norm_ref(x, 4, gamma, beta).to(t), **tol(t))
        torch.testing.assert_close(m[:8].view(2, 4), grouped.mean(-1).to(t), **tol(t))
        torch.testing.assert_close(v[:8].view(2, 4), grouped.var(-1, unbiased=False).to(t), **tol(t))


def test_group_norm_rules(kernel):
    x = torch.randn(1, 8, 2, 4)
    data = tiling(kernel, nchw=(1, 8, 2, 4), groups=2)
    y, _, _, x_after, _ = run(kernel, FLOAT, 12, x, torch.ones(8), torch.zeros(8), data)
    torch.testing.assert_close(y, group_norm_ref(x, 2, torch.ones(8), torch.zeros(8)).float(), **tol(torch.float32))
    assert torch.isnan(x_after[:64]).all()  # isReuseSource: inputX is scratch afterwards
    err = expect_error("bad_argument", run, kernel, HALF, 12, x.half(), torch.ones(8).half(), torch.zeros(8).half(),
                       tiling(kernel, nchw=(1, 8, 2, 4), groups=2, elem=2))
    assert err.line == line_of("// @gn_reuse") and "float input only" in err.message
    gamma = torch.ones(8)
    gamma[3] = 150.0
    err = expect_error("bad_argument", run, kernel, FLOAT, 10, x, gamma, torch.zeros(8), data)
    assert err.line == line_of("// @gn") and "[-100, 100]" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 10, x, torch.ones(8), torch.zeros(8),
                       tiling(kernel, nchw=(1, 8, 2, 4), groups=3))
    assert "multiple of groupNum" in err.message


def test_host_helpers(kernel):
    data = tiling(kernel, bsh=(8, 2, 32), nchw=(2, 8, 4, 4), groups=4, tmp_bytes=3 * (3 * 32 * 4 + 64) + 8)
    tmp_bytes, bn_ok, bn_max, bn_min, gn_max, gn_min = struct.unpack_from("<6I", data)
    assert bn_ok == 1 and bn_min == 8 * 4 * 3 * 8 and bn_max == 8 * 4 * 3 * 64
    assert gn_min == 3 * 32 * 4 + 64 and gn_max == 8 * gn_min
    gn = struct.unpack_from("<5I", data, 24 + 20 * 4)
    assert gn == (2, 8, 16, 4, 2)  # n, c, hw, g, d


def test_cost(kernel):
    x = torch.randn(8, 1, 64)
    _, _, _, _, report = run(kernel, FLOAT, 0, x, torch.ones(8), torch.zeros(8), tiling(kernel, bsh=(8, 1, 64)))
    assert report.vector_ops()["BatchNorm"] == (1, 8 * 8)
