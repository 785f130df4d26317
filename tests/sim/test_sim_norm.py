"""LayerNorm (both forms) and RmsNorm (sim/normalization.h) with their host tiling helpers (host/tiling/norm_tiling.h)
against torch.

One contract kernel, built once per module: its host tiling function fills LayerNormTiling, LayerNormSeparateTiling
and RmsNormTiling with the host helpers for the shape {B, S, H, originH} (first pseudo-tensor) and the temporary space
[typeSize, tmpBytes] (second); `op` picks the API form.
"""

from __future__ import annotations

import math
import struct

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF = 0, 1
DTYPES = {FLOAT: torch.float32, HALF: torch.float16}
EPS = 1e-5

SOURCE = r"""
#include "kernel_operator.h"
#include "host/tiling/norm_tiling.h"
using namespace AscendC;

struct TilingData {
    uint32_t b, s, h, oriH, tmpBytes, lnMin, lnMax, rmsMin, rmsMax, rmsOk;
    LayerNormTiling ln;
    LayerNormSeparateTiling lns;
    RmsNormTiling rms;
    uint32_t deepOk;
    DeepNormTiling deep;
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    t->b = dims[0], t->s = dims[1], t->h = dims[2], t->oriH = dims[3];
    uint32_t typeSize = dims[4];
    t->tmpBytes = dims[5];
    std::vector<int64_t> bsh = {dims[0], dims[1], dims[2], dims[3]};
    GetLayerNormMaxMinTmpSize(bsh, typeSize, false, t->lnMax, t->lnMin);
    GetLayerNormNDTilingInfo(bsh, t->tmpBytes, typeSize, false, t->ln);
    std::vector<int64_t> ar = {dims[0] * dims[1], dims[3]};
    GetLayerNormNDTilingInfo(ar, t->tmpBytes, typeSize, false, true, t->lns);
    std::vector<int64_t> padded = {dims[0], dims[1], dims[2]}, origin = {dims[0], dims[1], dims[3]};
    GetRmsNormMaxMinTmpSize(padded, typeSize, t->rmsMax, t->rmsMin);
    t->rmsOk = GetRmsNormTilingInfo(padded, origin, t->tmpBytes, typeSize, t->rms);
    t->deepOk = GetDeepNormTilingInfo(padded, origin, t->tmpBytes, typeSize, false, false, t->deep);
    *workspaceBytes = 0;
    return 1;
}

constexpr LayerNormConfig NO_AFFINE = {true, true, false};

template <typename T>
__aicore__ inline void Apply(uint32_t op, const LocalTensor<T>& y, const LocalTensor<T>& x,
                             const LocalTensor<uint8_t>& gammaB, const LocalTensor<uint8_t>& betaB,
                             const LocalTensor<uint8_t>& statsB, uint32_t bs, const LocalTensor<uint8_t>& tmp,
                             const TilingData& t, float eps, const LocalTensor<T>& gx)
{
    LocalTensor<T> gamma = gammaB.ReinterpretCast<T>(), beta = betaB.ReinterpretCast<T>();
    LocalTensor<T> mean = statsB.ReinterpretCast<T>(), var = statsB[(bs * 4 + 31) / 32 * 32].ReinterpretCast<T>();
    LocalTensor<float> meanF = statsB.ReinterpretCast<float>();
    LocalTensor<float> rstdF = statsB[(bs * 4 + 31) / 32 * 32].ReinterpretCast<float>();
    LayerNormPara para = {bs, t.oriH, t.h};
    switch (op) {
        case 0: LayerNorm<T>(y, mean, var, x, gamma, beta, tmp, (T)eps, t.ln); break;  // @ln_tmp
        case 1: LayerNorm<T>(y, mean, var, x, gamma, beta, (T)eps, t.ln); break;
        case 2: LayerNorm<T, true>(y, mean, var, x, gamma, beta, tmp, (T)eps, t.ln); break;  // @ln_reuse
        case 3: LayerNorm<T, T>(y, meanF, rstdF, x, gamma, beta, eps, tmp, para, t.lns); break;  // @ln_rstd
        case 4: LayerNorm<float, T>(y, meanF, rstdF, x, gammaB.ReinterpretCast<float>(),
                                    betaB.ReinterpretCast<float>(), eps, para, t.lns); break;
        case 5: LayerNorm<T, T, false, NO_AFFINE>(y, meanF, rstdF, x, gamma, beta, eps, tmp, para, t.lns); break;
        case 6: RmsNorm<T>(y, x, gamma, tmp, (T)eps, t.rms); break;  // @rms
        case 7: RmsNorm<T>(y, x, gamma, (T)eps, t.rms); break;
        case 8: RmsNorm<T, true>(y, x, gamma, tmp, (T)eps, t.rms); break;  // @rms_basic
        case 9: LayerNorm<half, T>(y, meanF, rstdF, x, gammaB.ReinterpretCast<half>(),  // @ln_precision
                                   betaB.ReinterpretCast<half>(), eps, tmp, para, t.lns); break;
        case 10: DeepNorm<T>(y, mean, var, x, gx, beta, gamma, tmp, (T)0.75f, (T)eps, t.deep); break;  // @deep
        case 11: DeepNorm<T>(y, mean, var, x, gx, beta, gamma, (T)0.75f, (T)eps, t.deep); break;
        case 12: DeepNorm<T, false, true>(y, mean, var, x, gx, beta, gamma, tmp,  // @deep_basic
                                          (T)0.75f, (T)eps, t.deep); break;
        case 13: DeepNorm<T, true>(y, mean, var, x, gx, beta, gamma, tmp, (T)0.75f, (T)eps, t.deep); break;
    }
}

extern "C" __global__ __aicore__ void norm_family(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR gx, GM_ADDR y,
                                                  GM_ADDR stats, GM_ADDR workspace, GM_ADDR tiling, uint32_t dtype,
                                                  uint32_t op, uint32_t layout, float eps)
{
    GET_TILING_DATA(t, tiling);
    uint32_t elem = dtype == 0 ? 4 : 2;
    uint32_t bs = t.b * t.s;
    uint32_t rowsBytes = bs * t.h * elem;
    uint32_t statBytes = 2 * ((bs * 4 + 31) / 32 * 32);
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bg, bb, bst, btmp, bgx;
    pipe.InitBuffer(bx, rowsBytes);
    pipe.InitBuffer(bgx, rowsBytes);
    pipe.InitBuffer(by, rowsBytes);
    pipe.InitBuffer(bg, t.h * 4);
    pipe.InitBuffer(bb, t.h * 4);
    pipe.InitBuffer(bst, statBytes);
    pipe.InitBuffer(btmp, t.tmpBytes);
    LocalTensor<uint8_t> xl = bx.Get<uint8_t>(), yl = by.Get<uint8_t>(), gl = bg.Get<uint8_t>();
    LocalTensor<uint8_t> bl = bb.Get<uint8_t>(), sl = bst.Get<uint8_t>(), tmp = btmp.Get<uint8_t>();
    LocalTensor<uint8_t> gxl = bgx.Get<uint8_t>();
    GlobalTensor<uint8_t> xg, gg, bg2, yg, sg, gxg;
    gxg.SetGlobalBuffer((__gm__ uint8_t*)gx);
    xg.SetGlobalBuffer((__gm__ uint8_t*)x);
    gg.SetGlobalBuffer((__gm__ uint8_t*)gamma);
    bg2.SetGlobalBuffer((__gm__ uint8_t*)beta);
    yg.SetGlobalBuffer((__gm__ uint8_t*)y);
    sg.SetGlobalBuffer((__gm__ uint8_t*)stats);
    DataCopy(xl, xg, rowsBytes);
    DataCopy(gxl, gxg, rowsBytes);
    DataCopy(gl, gg, t.h * 4);
    DataCopy(bl, bg2, t.h * 4);
    PipeBarrier<PIPE_ALL>();
    if (layout == 1) yl = xl;
    if (layout == 2) gl = yl;  // gamma inside dst
    if (dtype == 0)
        Apply<float>(op, yl.ReinterpretCast<float>(), xl.ReinterpretCast<float>(), gl, bl, sl, bs, tmp, t, eps,
                     gxl.ReinterpretCast<float>());
    else
        Apply<half>(op, yl.ReinterpretCast<half>(), xl.ReinterpretCast<half>(), gl, bl, sl, bs, tmp, t, eps,
                    gxl.ReinterpretCast<half>());
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, yl, rowsBytes);
    DataCopy(sg, sl, statBytes);
    DataCopy(xg, xl, rowsBytes);
}
"""


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="norm_family", contract=True)


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def tiling_bytes(kernel, b, s, h, ori_h, elem, tmp_bytes) -> bytes:
    return kernel.tiling([[b, s, h, ori_h], [elem, tmp_bytes]]).data


def run(kernel, dtype, op, x, gamma, beta, *, ori_h=None, layout=0, tmp_bytes=None, affine_dtype=None, soc=None,
        gx=None):
    """x [B, S, H]; returns (y, first stats [B*S], second stats [B*S], x afterwards, report)."""
    b, s, h = x.shape
    bs = b * s
    affine_dtype = affine_dtype or x.dtype
    tmp = tmp_bytes if tmp_bytes is not None else bs * (3 * h * 4 + 64)
    gb = torch.zeros(h * 4, dtype=torch.uint8)
    bb = torch.zeros(h * 4, dtype=torch.uint8)
    gb.view(affine_dtype)[:h] = gamma.to(affine_dtype)
    bb.view(affine_dtype)[:h] = beta.to(affine_dtype)
    xg = x.contiguous().clone()
    y = torch.full_like(x, -7)
    stat_bytes = (bs * 4 + 31) // 32 * 32
    stats = torch.zeros(2 * stat_bytes, dtype=torch.uint8)
    gx = torch.zeros_like(x) if gx is None else gx.contiguous()
    report = kernel.launch(1, xg, gb, bb, gx, y, stats, None,
                           tiling_bytes(kernel, b, s, h, ori_h or h, x.element_size(), tmp), dtype, op, layout, EPS,
                           soc=soc)
    stat_dtype = torch.float32 if op in (3, 4, 5, 9) else x.dtype
    first = stats[:stat_bytes].view(stat_dtype)[:bs]
    second = stats[stat_bytes:].view(stat_dtype)[:bs]
    return y, first, second, xg, report


def data(b, s, h, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(b, s, h, generator=g) * 2 + 0.5).to(dtype)
    gamma = (torch.rand(h, generator=g) + 0.5).to(dtype)
    beta = torch.randn(h, generator=g).to(dtype)
    return x, gamma, beta


def tol(dtype):
    return dict(atol=1e-5, rtol=1e-5) if dtype == torch.float32 else dict(atol=4e-3, rtol=4e-3)


def layer_norm_ref(x, gamma, beta, ori_h):
    xd = x[..., :ori_h].double()
    mean = xd.mean(-1)
    var = xd.var(-1, unbiased=False)
    y = (xd - mean[..., None]) / torch.sqrt(var[..., None] + EPS) * gamma[:ori_h].double() + beta[:ori_h].double()
    return y, mean.reshape(-1), var.reshape(-1)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_layer_norm_bsh(kernel, dtype):
    t = DTYPES[dtype]
    x, gamma, beta = data(2, 4, 64, t)
    ref, mean, var = layer_norm_ref(x, gamma, beta, 64)
    for op in (0, 1):
        y, m, v, _, _ = run(kernel, dtype, op, x, gamma, beta)
        torch.testing.assert_close(y, ref.to(t), **tol(t))
        torch.testing.assert_close(m, mean.to(t), **tol(t))
        torch.testing.assert_close(v, var.to(t), **tol(t))
        torch.testing.assert_close(y.double(), torch.nn.functional.layer_norm(
            x.double(), (64,), gamma.double(), beta.double(), EPS).to(t).double(), **tol(t))


def test_layer_norm_uses_the_original_h(kernel):
    x, gamma, beta = data(2, 3, 64, torch.float32, seed=1)
    x[..., 50:] = 0.0  # LayerNorm.md: padding set to 0
    ref, mean, var = layer_norm_ref(x, gamma, beta, 50)
    y, m, v, _, _ = run(kernel, FLOAT, 0, x, gamma, beta, ori_h=50)
    torch.testing.assert_close(y[..., :50], ref.float(), **tol(torch.float32))
    torch.testing.assert_close(v, var.float(), **tol(torch.float32))
    assert torch.isnan(y[..., 50:]).all()  # the padding of the result is undefined


def test_layer_norm_reuse_source(kernel):
    x, gamma, beta = data(2, 2, 64, torch.float32, seed=2)
    ref, _, _ = layer_norm_ref(x, gamma, beta, 64)
    y, _, _, x_after, _ = run(kernel, FLOAT, 2, x, gamma, beta)
    torch.testing.assert_close(y, ref.float(), **tol(torch.float32))
    assert torch.isnan(x_after).all()  # isReuseSource: inputX is scratch afterwards
    err = expect_error("bad_argument", run, kernel, HALF, 2, x.half(), gamma.half(), beta.half())
    assert err.line == line_of("// @ln_reuse") and "float input only" in err.message
    y, _, _, _, _ = run(kernel, FLOAT, 0, x, gamma, beta, layout=1)  # output = inputX is allowed
    torch.testing.assert_close(y, ref.float(), **tol(torch.float32))


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_layer_norm_rstd_form(kernel, dtype):
    t = DTYPES[dtype]
    x, gamma, beta = data(2, 4, 64, t, seed=3)
    x[..., 40:] = 0
    ref, mean, var = layer_norm_ref(x, gamma, beta, 40)
    y, m, r, _, _ = run(kernel, dtype, 3, x, gamma, beta, ori_h=40)
    torch.testing.assert_close(y[..., :40], ref.to(t), **tol(t))
    torch.testing.assert_close(m.double(), mean, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(r.double(), 1 / torch.sqrt(var + EPS), atol=1e-4, rtol=1e-5)
    # float gamma/beta with the input's type (U = float)
    y, _, _, _, _ = run(kernel, dtype, 4, x, gamma.float(), beta.float(), ori_h=40, affine_dtype=torch.float32)
    ref32, _, _ = layer_norm_ref(x, gamma.float(), beta.float(), 40)
    torch.testing.assert_close(y[..., :40], ref32.to(t), **tol(t))


def test_layer_norm_without_gamma_beta(kernel):
    x, gamma, beta = data(1, 4, 64, torch.float32, seed=4)
    y, _, _, _, _ = run(kernel, FLOAT, 5, x, gamma, beta)
    ref = torch.nn.functional.layer_norm(x.double(), (64,), eps=EPS)
    torch.testing.assert_close(y, ref.float(), **tol(torch.float32))


def test_layer_norm_rstd_rules(kernel):
    x, gamma, beta = data(1, 4, 64, torch.float32, seed=5)
    err = expect_error("unsupported_dtype", run, kernel, FLOAT, 9, x, gamma, beta)
    assert err.line == line_of("// @ln_precision") and "at least the input's precision" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 3, x, gamma, beta, layout=1)
    assert err.line == line_of("// @ln_rstd") and "overlap" in err.message
    y, _, _, _, _ = run(kernel, FLOAT, 3, x, gamma, beta, soc="Ascend310P3")  # 310P AI Core (hiascend's page)
    torch.testing.assert_close(y, layer_norm_ref(x, gamma, beta, 64)[0].float(), **tol(torch.float32))


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_deep_norm_is_layer_norm_of_alpha_x_plus_gx(kernel, dtype):
    t = DTYPES[dtype]
    x, gamma, beta = data(2, 4, 64, t, seed=11)
    gx = data(2, 4, 64, t, seed=12)[0]
    combined = 0.75 * x.double() + gx.double()
    ref, mean, var = layer_norm_ref(combined, gamma, beta, 64)
    for op in (10, 11, 12):
        y, m, v, _, _ = run(kernel, dtype, op, x, gamma, beta, gx=gx)
        torch.testing.assert_close(y, ref.to(t), **(tol(t) if dtype == FLOAT else dict(atol=1e-2, rtol=1e-2)))
        torch.testing.assert_close(m, mean.to(t), **tol(t))
        torch.testing.assert_close(v, var.to(t), **(tol(t) if dtype == FLOAT else dict(atol=1e-2, rtol=1e-2)))


def test_deep_norm_rules(kernel):
    x, gamma, beta = data(1, 3, 64, torch.float32, seed=13)
    err = expect_error("bad_argument", run, kernel, FLOAT, 10, x, gamma, beta, layout=1)
    assert err.line == line_of("// @deep") and "overlap" in err.message  # no src/dst reuse without isReuseSrc
    y, _, _, _, _ = run(kernel, FLOAT, 13, x, gamma, beta, layout=1)  # isReuseSrc: dst may be src
    torch.testing.assert_close(y, layer_norm_ref(0.75 * x.double(), gamma, beta, 64)[0].float(), **tol(torch.float32))
    err = expect_error("bad_argument", run, kernel, FLOAT, 12, x, gamma, beta)
    assert err.line == line_of("// @deep_basic") and "basic block" in err.message
    y, _, _, _, _ = run(kernel, FLOAT, 10, x, gamma, beta, soc="Ascend310P3")  # 310P AI Core (hiascend's page)
    torch.testing.assert_close(y, layer_norm_ref(0.75 * x.double(), gamma, beta, 64)[0].float(), **tol(torch.float32))


def rms_ref(x, gamma, ori_h):
    xd = x[..., :ori_h].double()
    return xd / torch.sqrt((xd * xd).mean(-1, keepdim=True) + EPS) * gamma[:ori_h].double()


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_rms_norm(kernel, dtype):
    t = DTYPES[dtype]
    x, gamma, _ = data(2, 4, 64, t, seed=6)
    for op in (6, 7):
        y, _, _, _, _ = run(kernel, dtype, op, x, gamma, gamma)
        torch.testing.assert_close(y, rms_ref(x, gamma, 64).to(t), **tol(t))
    x[..., 48:] = 0
    y, _, _, _, _ = run(kernel, dtype, 6, x, gamma, gamma, ori_h=48)
    torch.testing.assert_close(y[..., :48], rms_ref(x, gamma, 48).to(t), **tol(t))
    assert torch.isnan(y[..., 48:]).all()


def test_rms_norm_rules(kernel):
    x, gamma, _ = data(2, 4, 64, torch.float32, seed=7)
    err = expect_error("bad_argument", run, kernel, FLOAT, 6, x, gamma, gamma, layout=2)
    assert err.line == line_of("// @rms") and "dstLocal and gammaLocal overlap" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 8, data(1, 3, 64, torch.float32)[0], gamma, gamma)
    assert err.line == line_of("// @rms_basic") and "basic block" in err.message
    y, _, _, _, _ = run(kernel, FLOAT, 8, x, gamma, gamma)  # B*S = 8, H = 64: a basic block
    torch.testing.assert_close(y, rms_ref(x, gamma, 64).float(), **tol(torch.float32))
    # below the minimum, GetRmsNormTilingInfo refuses and leaves the tiling empty, which the kernel reports
    err = expect_error("bad_argument", run, kernel, FLOAT, 6, x, gamma, gamma, tmp_bytes=4 * (8 + 64) - 32)
    assert err.line == line_of("// @rms") and "tiling's shape is empty" in err.message
    row = 3 * 64 * 4 + 64
    err = expect_error("local_overrun", run, kernel, FLOAT, 0, x, gamma, gamma, tmp_bytes=row - 32)
    assert err.line == line_of("// @ln_tmp") and f"at least {row} bytes" in err.message


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_rms_norm_runs_in_the_workspace_public_kernels_give_it(kernel, dtype):
    """RmsNorm's minimum is the row sums (8 floats for one row) and x^2 in float, plus a float copy of x for half: what
    Tencent KsanaLLM's rmsnorm_kernel allocates (mainBsLengthAlign + mainBshLength floats, + mainBshLength for half)."""
    t = DTYPES[dtype]
    x, gamma, _ = data(2, 4, 64, t, seed=10)
    least = 4 * (8 + 64 * (2 if dtype == HALF else 1))
    assert struct.unpack_from("<10I", tiling_bytes(kernel, 2, 4, 64, 64, x.element_size(), least))[7] == least
    y, _, _, _, _ = run(kernel, dtype, 6, x, gamma, gamma, tmp_bytes=least)  # one row per pass
    torch.testing.assert_close(y, rms_ref(x, gamma, 64).to(t), **tol(t))
    err = expect_error("bad_argument", run, kernel, dtype, 6, x, gamma, gamma, tmp_bytes=least - 32)
    assert "tiling's shape is empty" in err.message


def test_tiling_planned_for_more_workspace_is_reported(kernel):
    x, gamma, beta = data(2, 4, 64, torch.float32, seed=8)
    row = 3 * 64 * 4 + 64
    big = tiling_bytes(kernel, 2, 4, 64, 64, 4, 8 * row)
    small_tmp = big[:16] + row.to_bytes(4, "little") + big[20:]  # the kernel allocates tmpBytes = one row
    y = torch.zeros_like(x)
    with pytest.raises(SimulatorError) as info:
        kernel.launch(1, x.clone(), torch.zeros(256, dtype=torch.uint8), torch.zeros(256, dtype=torch.uint8),
                      torch.zeros_like(x), y, torch.zeros(64, dtype=torch.uint8), None, small_tmp, FLOAT, 0, 0, EPS)
    assert info.value.kind == "local_overrun" and "8 rows per pass" in info.value.message
    assert info.value.line == line_of("// @ln_tmp")


def test_host_helpers(kernel):
    data_ = tiling_bytes(kernel, 2, 3, 64, 60, 4, 2 * (3 * 64 * 4 + 64) + 4)
    head = struct.unpack_from("<10I", data_)
    assert head[:5] == (2, 3, 64, 60, 2 * (3 * 64 * 4 + 64) + 4)
    assert head[5:9] == (3 * 64 * 4 + 64, 6 * (3 * 64 * 4 + 64), 4 * (8 + 64), 4 * (8 + 6 * 64))
    assert head[9] == 1  # GetRmsNormTilingInfo succeeded
    ln = struct.unpack_from("<25If", data_, 40)
    assert ln[:4] == (2, 3, 64, 60) and ln[24] == 2  # bsCurLength: two rows fit
    assert math.isclose(ln[25], 1 / 60, rel_tol=1e-6)
    refused = tiling_bytes(kernel, 2, 3, 64, 60, 4, 100)  # below the minimum: GetRmsNormTilingInfo says false
    assert struct.unpack_from("<10I", refused)[9] == 0


def test_cost(kernel):
    x, gamma, beta = data(2, 4, 64, torch.float32, seed=9)
    repeats = math.ceil(8 * 64 * 4 / 256)
    _, _, _, _, report = run(kernel, FLOAT, 0, x, gamma, beta)
    assert report.vector_ops()["LayerNorm"] == (1, 8 * repeats)
    _, _, _, _, report = run(kernel, FLOAT, 6, x, gamma, beta)
    assert report.vector_ops()["RmsNorm"] == (1, 5 * repeats)


CANN_NAMES = r"""
#include "kernel_tiling/kernel_tiling.h"
#include "lib/rmsnorm/rmsnorm.h"
using namespace AscendC;

struct Args { RmsNormTiling rms; float eps; };

extern "C" __global__ __aicore__ void rms_row(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, Args args)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bg, by, bt;
    uint32_t h = args.rms.hLength;
    pipe.InitBuffer(bx, h * 4), pipe.InitBuffer(bg, h * 4), pipe.InitBuffer(by, h * 4);
    pipe.InitBuffer(bt, (args.rms.mainBsLengthAlign + args.rms.mainBshLength) * 4);
    GlobalTensor<float> xg, gg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, h), gg.SetGlobalBuffer((__gm__ float*)gamma, h);
    yg.SetGlobalBuffer((__gm__ float*)y, h);
    LocalTensor<float> xl = bx.Get<float>(), gl = bg.Get<float>(), yl = by.Get<float>();
    DataCopy(xl, xg, h), DataCopy(gl, gg, h);
    PipeBarrier<PIPE_ALL>();
    RmsNorm<float>(yl, xl, gl, bt.Get<uint8_t>(), args.eps, args.rms);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, yl, h);
}
"""


def test_cann_header_names_reach_the_api():
    """kernel_tiling/kernel_tiling.h and lib/rmsnorm/rmsnorm.h, as CANN names them (Tencent KsanaLLM's kernel includes
    both); a float row in the least workspace: 8 floats of row sums and a float row of x^2."""
    kernel = compile_kernel(CANN_NAMES, entry="rms_row")
    x, gamma, _ = data(1, 1, 128, torch.float32, seed=11)
    y = torch.zeros(128)
    tiling = struct.pack("<4If7If", 1, 1, 128, 128, 1 / 128, 128, 1, 8, 1, 0, 0, 0, EPS)
    kernel.launch(1, x.reshape(-1), gamma, y, tiling)
    torch.testing.assert_close(y, rms_ref(x, gamma, 128).reshape(-1).float(), **tol(torch.float32))
