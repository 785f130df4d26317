"""LayerNormGrad and LayerNormGradBeta (sim/layer_norm_grad.h) with their host tiling helpers against torch autograd.
One contract kernel, built once per module: the tiling function fills both tilings for {B, S, H, originH} (first
pseudo-shape) and [typeSize, tmpBytes] (second).
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
    uint32_t tmpBytes, gradMax, gradMin, betaMax, betaMin;
    LayerNormGradTiling grad;
    LayerNormGradBetaTiling beta;
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    std::vector<int64_t> shape = {dims[0], dims[1], dims[2], dims[3]};
    uint32_t typeSize = dims[4];
    t->tmpBytes = dims[5];
    GetLayerNormGradMaxMinTmpSize(shape, typeSize, false, t->gradMax, t->gradMin);
    GetLayerNormGradNDTilingInfo(shape, t->tmpBytes, typeSize, false, t->grad);
    GetLayerNormGradBetaMaxMinTmpSize(shape, typeSize, false, t->betaMax, t->betaMin);
    GetLayerNormGradBetaNDTilingInfo(shape, t->tmpBytes, typeSize, false, t->beta);
    *workspaceBytes = 0;
    return 1;
}

template <typename T>
__aicore__ inline void Apply(uint32_t op, LocalTensor<uint8_t>* l, const LocalTensor<uint8_t>& tmp,
                             const TilingData& t, float eps)
{
    LocalTensor<T> dy = l[0].ReinterpretCast<T>(), x = l[1].ReinterpretCast<T>(), var = l[2].ReinterpretCast<T>();
    LocalTensor<T> mean = l[3].ReinterpretCast<T>(), gamma = l[4].ReinterpretCast<T>();
    LocalTensor<T> pdx = l[5].ReinterpretCast<T>(), res = l[6].ReinterpretCast<T>();
    LocalTensor<T> pdGamma = l[7].ReinterpretCast<T>(), pdBeta = l[8].ReinterpretCast<T>();
    switch (op) {
        case 0: LayerNormGrad<T>(pdx, res, dy, x, var, mean, gamma, tmp, (T)eps, t.grad); break;  // @grad
        case 1: LayerNormGrad<T>(pdx, res, dy, x, var, mean, gamma, (T)eps, t.grad); break;
        case 2: LayerNormGrad<T, true>(pdx, res, dy, x, var, mean, gamma, tmp, (T)eps, t.grad); break;
        case 3: LayerNormGrad<T>(x, res, dy, x, var, mean, gamma, tmp, (T)eps, t.grad); break;  // pdX over inputX
        case 4: LayerNormGrad<T>(pdx, pdx, dy, x, var, mean, gamma, tmp, (T)eps, t.grad); break;  // @grad_same_out
        case 10: LayerNormGradBeta<T>(pdGamma, pdBeta, res, dy, tmp, t.beta); break;  // @beta
        case 11: LayerNormGradBeta<T>(pdGamma, pdBeta, res, dy, t.beta); break;
    }
}

extern "C" __global__ __aicore__ void ln_grad(GM_ADDR dy, GM_ADDR x, GM_ADDR var, GM_ADDR mean, GM_ADDR gamma,
                                              GM_ADDR pdx, GM_ADDR res, GM_ADDR pdGamma, GM_ADDR pdBeta,
                                              GM_ADDR workspace, GM_ADDR tiling, uint32_t dtype, uint32_t op,
                                              float eps)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufs[9];
    LocalTensor<uint8_t> l[9];
    GM_ADDR gms[9] = {dy, x, var, mean, gamma, pdx, res, pdGamma, pdBeta};
    for (int i = 0; i < 9; ++i) {
        pipe.InitBuffer(bufs[i], 16384);
        l[i] = bufs[i].Get<uint8_t>();
        GlobalTensor<uint8_t> g;
        g.SetGlobalBuffer((__gm__ uint8_t*)gms[i]);
        DataCopy(l[i], g, 16384);
    }
    TBuf<TPosition::VECCALC> btmp;
    pipe.InitBuffer(btmp, t.tmpBytes);
    LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
    PipeBarrier<PIPE_ALL>();
    if (dtype == 0) Apply<float>(op, l, tmp, t, eps);
    else Apply<half>(op, l, tmp, t, eps);
    PipeBarrier<PIPE_ALL>();
    for (int i = 0; i < 9; ++i) {
        GlobalTensor<uint8_t> g;
        g.SetGlobalBuffer((__gm__ uint8_t*)gms[i]);
        DataCopy(g, l[i], 16384);
    }
}
"""


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="ln_grad", contract=True)


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def raw(t: torch.Tensor | None) -> torch.Tensor:
    buf = torch.zeros(BUF, dtype=torch.uint8)
    if t is not None:
        flat = t.contiguous().reshape(-1).view(torch.uint8)
        buf[:flat.numel()] = flat
    return buf


def tiling(kernel, b, s, h, ori_h, elem, tmp_bytes) -> bytes:
    return kernel.tiling([[b, s, h, ori_h], [elem, tmp_bytes]]).data


def reference(b=2, s=3, h=64, ori_h=None, seed=0):
    ori_h = ori_h or h
    g = torch.Generator().manual_seed(seed)
    x = torch.zeros(b, s, h, dtype=torch.float64)
    x[..., :ori_h] = torch.randn(b, s, ori_h, generator=g, dtype=torch.float64) * 2 + 0.5
    gamma = torch.zeros(h, dtype=torch.float64)
    gamma[:ori_h] = torch.rand(ori_h, generator=g, dtype=torch.float64) + 0.5
    dy = torch.zeros(b, s, h, dtype=torch.float64)
    dy[..., :ori_h] = torch.randn(b, s, ori_h, generator=g, dtype=torch.float64)
    xs = x[..., :ori_h].clone().requires_grad_(True)
    gs = gamma[:ori_h].clone().requires_grad_(True)
    bs = torch.zeros(ori_h, dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.layer_norm(xs, (ori_h,), gs, bs, EPS)
    y.backward(dy[..., :ori_h])
    mean = xs.detach().mean(-1)
    var = xs.detach().var(-1, unbiased=False)
    res = (xs.detach() - mean[..., None]) / torch.sqrt(var[..., None] + EPS)
    return dict(x=x, gamma=gamma, dy=dy, mean=mean, var=var, dx=xs.grad, dgamma=gs.grad, dbeta=bs.grad, res=res)


def run(kernel, dtype, op, ref, *, tmp_bytes=16384, res=None, soc=None):
    t = DTYPES[dtype]
    b, s, h = ref["x"].shape
    ori_h = ref["dx"].shape[-1]
    bufs = [raw(ref["dy"].to(t)), raw(ref["x"].to(t)), raw(ref["var"].to(t)), raw(ref["mean"].to(t)),
            raw(ref["gamma"].to(t)), raw(None), raw(res.to(t) if res is not None else None), raw(None), raw(None)]
    kernel.launch(1, *bufs, None, tiling(kernel, b, s, h, ori_h, torch.finfo(t).bits // 8, tmp_bytes), dtype, op, EPS,
                  soc=soc)
    n = b * s * h
    return {name: bufs[i].view(t)[:count] for i, (name, count) in
            enumerate((("dy", n), ("x", n), ("var", b * s), ("mean", b * s), ("gamma", h), ("pdx", n), ("res", n),
                       ("pd_gamma", h), ("pd_beta", h)))}


def tol(t):
    return dict(atol=1e-5, rtol=1e-5) if t == torch.float32 else dict(atol=2e-2, rtol=1e-2)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_layer_norm_grad_matches_autograd(kernel, dtype):
    t = DTYPES[dtype]
    ref = reference(seed=1)
    for op in (0, 1):
        out = run(kernel, dtype, op, ref)
        torch.testing.assert_close(out["pdx"].view(2, 3, 64).double(), ref["dx"], **tol(t))
        torch.testing.assert_close(out["res"].view(2, 3, 64).double(), ref["res"], **tol(t))


def test_layer_norm_grad_original_h_and_reuse(kernel):
    ref = reference(ori_h=50, seed=2)
    out = run(kernel, FLOAT, 0, ref)
    pdx = out["pdx"].view(2, 3, 64)
    torch.testing.assert_close(pdx[..., :50].double(), ref["dx"], **tol(torch.float32))
    assert torch.isnan(pdx[..., 50:]).all()
    out = run(kernel, FLOAT, 2, reference(seed=3))  # isReuseSource: inputX is scratch afterwards
    assert torch.isnan(out["x"]).all()
    out = run(kernel, FLOAT, 3, reference(seed=4))  # outputPdX over inputX: the page allows the reuse
    torch.testing.assert_close(out["x"].view(2, 3, 64).double(), reference(seed=4)["dx"], **tol(torch.float32))
    err = expect_error("bad_argument", run, kernel, FLOAT, 4, reference(seed=4))
    assert err.line == line_of("// @grad_same_out") and "outputPdX and resForGamma overlap" in err.message


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_layer_norm_grad_beta_is_the_mean_over_rows(kernel, dtype):
    t = DTYPES[dtype]
    ref = reference(seed=5)
    rows = 6
    for op in (10, 11):
        out = run(kernel, dtype, op, ref, res=ref["res"])
        # LayerNormGradBeta.md's figures: pd_gamma = (1/m) sum(dy * res_for_gamma), pd_beta = (1/m) sum(dy)
        torch.testing.assert_close(out["pd_gamma"].double(), ref["dgamma"] / rows, **tol(t))
        torch.testing.assert_close(out["pd_beta"].double(), ref["dbeta"] / rows, **tol(t))


def test_rules_and_host_helpers(kernel):
    data = tiling(kernel, 2, 3, 64, 64, 4, 5000)
    _, grad_max, grad_min, beta_max, beta_min = struct.unpack_from("<5I", data)
    assert grad_min == 4 * 256 + 64 and grad_max == 6 * grad_min
    assert beta_min == 2 * 256 + 2 * 256 + 64 and beta_max == 2 * 256 + 6 * (2 * 256 + 64)
    err = expect_error("local_overrun", run, kernel, FLOAT, 0, reference(seed=6), tmp_bytes=grad_min - 32)
    assert err.line == line_of("// @grad") and f"at least {grad_min} bytes" in err.message
    err = expect_error("local_overrun", run, kernel, FLOAT, 10, reference(seed=6), tmp_bytes=beta_min - 32)
    assert err.line == line_of("// @beta")
    out = run(kernel, FLOAT, 0, reference(seed=6), soc="Ascend310P3")  # 310P: as A2
    torch.testing.assert_close(out["pdx"].view(2, 3, 64).double(), reference(seed=6)["dx"], **tol(torch.float32))
