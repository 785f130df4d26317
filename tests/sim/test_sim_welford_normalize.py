"""WelfordUpdate, WelfordFinalize (sim/welford.h) and Normalize (sim/normalization.h), with their host helpers
(host/tiling/welford_tiling.h, host/tiling/norm_tiling.h), against torch.

One contract kernel, built once per module; each launch runs one call (`op`), so a Welford reduction over a split
axis is a Python loop of WelfordUpdate launches that feed each other, then one WelfordFinalize.
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
BUF = 8192

SOURCE = r"""
#include "kernel_operator.h"
#include "host/tiling/welford_tiling.h"
#include "host/tiling/norm_tiling.h"
using namespace AscendC;

struct TilingData {
    uint32_t updateMax, updateMin, finalizeMax, finalizeMin, normalizeMax, normalizeMin;
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    std::vector<int64_t> shape = {dims[0], dims[1]};
    uint32_t typeSize = dims[2];
    GetWelfordUpdateMaxMinTmpSize(shape, typeSize, 4, false, false, t->updateMax, t->updateMin);
    GetWelfordFinalizeMaxMinTmpSize(shape, 4, false, t->finalizeMax, t->finalizeMin);
    GetNormalizeMaxMinTmpSize(shape, typeSize, typeSize, false, true, false, t->normalizeMax, t->normalizeMin);
    *workspaceBytes = 0;
    return 1;
}

struct Args {
    uint32_t op, ab, abCompute, rn, headCount, headLen, tailCount, tailLen, layout, a, r, rPad, tmpBytes;
    float nRec, abRec, rRec, eps;
};

constexpr WelfordUpdateConfig INPLACE = {true};
constexpr NormalizeConfig NO_AFFINE = {ReducePattern{}, -1, true, true, false};  // AR

template <typename T>
__aicore__ inline void Apply(const Args& a, const LocalTensor<uint8_t>& xB, const LocalTensor<uint8_t>& mB,
                             const LocalTensor<uint8_t>& vB, const LocalTensor<uint8_t>& cB,
                             const LocalTensor<uint8_t>& gB, const LocalTensor<uint8_t>& bB,
                             const LocalTensor<uint8_t>& yB, const LocalTensor<uint8_t>& oB,
                             const LocalTensor<uint8_t>& tmp)
{
    LocalTensor<T> x = xB.ReinterpretCast<T>(), y = yB.ReinterpretCast<T>();
    LocalTensor<float> im = mB.ReinterpretCast<float>(), iv = vB.ReinterpretCast<float>();
    LocalTensor<float> om = oB.ReinterpretCast<float>(), ov = oB[512].ReinterpretCast<float>();
    if (a.layout == 1) om = im;
    LocalTensor<int32_t> counts = cB.ReinterpretCast<int32_t>();
    WelfordUpdateParam up = {a.rn, a.ab, a.abCompute, a.nRec};
    WelfordFinalizePara fp = {a.rn, a.ab, a.headCount, a.headLen, a.tailCount, a.tailLen, a.abRec, a.rRec};
    NormalizePara np = {a.a, a.r, a.rPad};
    switch (a.op) {
        case 0: WelfordUpdate<T, float>(om, ov, im, iv, x, tmp, up); break;  // @update
        case 1: WelfordUpdate<T, float, false, INPLACE>(om, ov, im, iv, x, up); break;
        case 2: WelfordFinalize(om, ov, im, iv, tmp, fp); break;  // @finalize
        case 3: WelfordFinalize(om, ov, im, iv, counts, tmp, fp); break;
        case 4: WelfordFinalize(om, ov, im, iv, fp); break;
        case 10: Normalize<T, T>(y, om, im, iv, x, gB.ReinterpretCast<T>(), bB.ReinterpretCast<T>(), tmp,  // @norm
                                 a.eps, np); break;
        case 11: Normalize<float, T>(y, om, im, iv, x, gB.ReinterpretCast<float>(), bB.ReinterpretCast<float>(),
                                     a.eps, np); break;
        case 12: Normalize<T, T, false, NO_AFFINE>(y, om, im, iv, x, gB.ReinterpretCast<T>(),
                                                   bB.ReinterpretCast<T>(), tmp, a.eps, np); break;
    }
}

extern "C" __global__ __aicore__ void welford_family(GM_ADDR x, GM_ADDR mean, GM_ADDR var, GM_ADDR counts,
                                                     GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, GM_ADDR out,
                                                     GM_ADDR workspace, GM_ADDR tiling, uint32_t dtype, Args a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufs[8];
    LocalTensor<uint8_t> l[8];
    GM_ADDR gms[8] = {x, mean, var, counts, gamma, beta, y, out};
    for (int i = 0; i < 8; ++i) {
        pipe.InitBuffer(bufs[i], 8192);
        l[i] = bufs[i].Get<uint8_t>();
        GlobalTensor<uint8_t> g;
        g.SetGlobalBuffer((__gm__ uint8_t*)gms[i]);
        DataCopy(l[i], g, 8192);
    }
    TBuf<TPosition::VECCALC> btmp;
    pipe.InitBuffer(btmp, a.tmpBytes);
    LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
    if (a.layout == 2) tmp = l[1];
    PipeBarrier<PIPE_ALL>();
    if (dtype == 0) Apply<float>(a, l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], tmp);
    else Apply<half>(a, l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], tmp);
    PipeBarrier<PIPE_ALL>();
    for (int i = 1; i < 8; ++i) {
        GlobalTensor<uint8_t> g;
        g.SetGlobalBuffer((__gm__ uint8_t*)gms[i]);
        DataCopy(g, l[i], 8192);
    }
}
"""

FIELDS = ("op", "ab", "abCompute", "rn", "headCount", "headLen", "tailCount", "tailLen", "layout", "a", "r", "rPad",
          "tmpBytes")


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="welford_family", contract=True)


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def raw(t: torch.Tensor | None) -> torch.Tensor:
    buf = torch.zeros(BUF, dtype=torch.uint8)
    if t is not None:
        flat = t.contiguous().reshape(-1).view(torch.uint8)
        buf[:flat.numel()] = flat
    return buf


def launch(kernel, dtype, *, x=None, mean=None, var=None, counts=None, gamma=None, beta=None, soc=None,
           n_rec=0.0, ab_rec=0.0, r_rec=0.0, **fields):
    """Runs one call; returns the GM buffers after it: mean, var, y, out (uint8)."""
    values = [fields.get(name, 0) for name in FIELDS]
    values[FIELDS.index("tmpBytes")] = fields.get("tmpBytes", 1024)
    args = struct.pack("<13I4f", *values, n_rec, ab_rec, r_rec, EPS)
    bufs = [raw(x), raw(mean), raw(var), raw(counts), raw(gamma), raw(beta), raw(None), raw(None)]
    kernel.launch(1, *bufs, None, bytes(24), dtype, args, soc=soc)
    return bufs[1], bufs[2], bufs[6], bufs[7]


def welford_pass(kernel, dtype, chunks, ab):
    """WelfordUpdate over the rows of `chunks`, each launch feeding the next (nRec = 1/i)."""
    mean = torch.zeros(ab)
    m2 = torch.zeros(ab)
    for i, row in enumerate(chunks, start=1):
        _, _, _, out = launch(kernel, dtype, x=row, mean=mean, var=m2, op=0 if i % 2 else 1, ab=ab, abCompute=ab,
                              rn=1, n_rec=1.0 / i)
        mean, m2 = out[:ab * 4].view(torch.float32).clone(), out[512:512 + ab * 4].view(torch.float32).clone()
    return mean, m2


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_welford_update_then_finalize_is_the_mean_and_variance(kernel, dtype):
    t = DTYPES[dtype]
    g = torch.Generator().manual_seed(0)
    rn, ab = 5, 64
    data = (torch.randn(rn, ab, generator=g) * 2 + 3).to(t)
    mean, m2 = welford_pass(kernel, dtype, data, ab)
    xd = data.double()
    torch.testing.assert_close(mean.double(), xd.mean(0), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(m2.double(), ((xd - xd.mean(0)) ** 2).sum(0), atol=1e-4, rtol=1e-5)
    for op in (2, 4):
        _, _, _, out = launch(kernel, FLOAT, mean=mean, var=m2, op=op, ab=ab, rn=rn, headCount=rn, headLen=ab,
                              ab_rec=1 / ab, r_rec=1 / (rn * ab))
        result = out.view(torch.float32)
        torch.testing.assert_close(result[0].double(), xd.mean(), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(result[128].double(), xd.var(unbiased=False), atol=1e-5, rtol=1e-5)


def test_welford_with_a_tail_block(kernel):
    g = torch.Generator().manual_seed(1)
    ab, tail = 32, 8
    values = torch.randn(3 * ab + tail, generator=g)  # R = 104: three full blocks and an 8-element tail
    chunks = torch.zeros(4, ab)
    chunks.view(-1)[:values.numel()] = values
    mean, m2 = welford_pass(kernel, FLOAT, chunks[:3], ab)
    # the tail block: nRec = 1/4 on the first 8 positions only (isInplace keeps the rest)
    _, _, _, out = launch(kernel, FLOAT, x=chunks[3], mean=mean, var=m2, op=1, ab=ab, abCompute=tail, rn=1,
                          n_rec=0.25)
    mean, m2 = out[:ab * 4].view(torch.float32).clone(), out[512:512 + ab * 4].view(torch.float32).clone()
    expected_mean, expected_var = values.double().mean(), values.double().var(unbiased=False)
    counts = torch.tensor([4] * tail + [3] * (ab - tail), dtype=torch.int32)
    # the counts tensor, and the head/tail form of the same counts
    for op, extra in ((3, {"counts": counts}), (2, {"headCount": 4, "headLen": tail, "tailCount": 3,
                                                    "tailLen": ab - tail})):
        _, _, _, res = launch(kernel, FLOAT, mean=mean, var=m2, op=op, ab=ab, rn=4, r_rec=1 / values.numel(),
                              ab_rec=1 / ab, **extra)
        result = res.view(torch.float32)
        torch.testing.assert_close(result[0].double(), expected_mean, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(result[128].double(), expected_var, atol=1e-5, rtol=1e-5)


def test_welford_rules(kernel):
    x = torch.randn(64)
    err = expect_error("bad_argument", launch, kernel, FLOAT, x=x, op=0, ab=60, abCompute=60, rn=1, n_rec=1.0)
    assert err.line == line_of("// @update") and "multiple of 8" in err.message
    err = expect_error("bad_argument", launch, kernel, FLOAT, x=x, op=0, ab=64, abCompute=64, rn=2, n_rec=1.0)
    assert "rnLength must be 1" in err.message
    err = expect_error("bad_argument", launch, kernel, FLOAT, x=x, op=0, ab=64, abCompute=64, rn=1, n_rec=1.0,
                       layout=1)  # outputMean over inputMean without isInplace
    assert "outputMean and inputMean overlap" in err.message
    err = expect_error("bad_argument", launch, kernel, FLOAT, op=2, ab=64, rn=2, headCount=2, headLen=60, tailCount=0,
                       tailLen=4, ab_rec=1 / 64, r_rec=1 / 128)
    assert err.line == line_of("// @finalize") and "tailCountLength must be 0" in err.message
    err = expect_error("bad_argument", launch, kernel, FLOAT, op=2, ab=64, rn=2, headCount=2, headLen=64, layout=2,
                       ab_rec=1 / 64, r_rec=1 / 128)
    assert "sharedTmpBuffer overlaps inputMean" in err.message
    _, _, _, out = launch(kernel, FLOAT, x=x, op=0, ab=64, abCompute=64, rn=1, n_rec=1.0, soc="Ascend310P3")
    torch.testing.assert_close(out[:256].view(torch.float32), x)  # 310P: as A2; the first update's mean is x


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_normalize_from_given_statistics(kernel, dtype):
    t = DTYPES[dtype]
    g = torch.Generator().manual_seed(2)
    a, r, r_pad = 4, 40, 48
    x = torch.zeros(a, r_pad)
    x[:, :r] = torch.randn(a, r, generator=g) * 2
    x = x.to(t)
    xd = x[:, :r].double()
    mean, var = xd.mean(1).float(), xd.var(1, unbiased=False).float()
    gamma = (torch.rand(r_pad, generator=g) + 0.5).to(t)
    beta = torch.randn(r_pad, generator=g).to(t)
    rstd = 1 / torch.sqrt(var.double() + EPS)
    ref = (xd - mean.double()[:, None]) * rstd[:, None]
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == FLOAT else dict(atol=4e-3, rtol=4e-3)
    for op, gm, bt, expected in ((10, gamma, beta, ref * gamma[:r].double() + beta[:r].double()),
                                 (11, gamma.float(), beta.float(), ref * gamma[:r].float().double()
                                  + beta[:r].float().double()),
                                 (12, gamma, beta, ref)):
        _, _, y, out = launch(kernel, dtype, x=x, mean=mean, var=var, gamma=gm, beta=bt, op=op, a=a, r=r, rPad=r_pad)
        torch.testing.assert_close(y.view(t)[:a * r_pad].view(a, r_pad)[:, :r], expected.to(t), **tol)
        assert torch.isnan(y.view(t)[:a * r_pad].view(a, r_pad)[:, r:]).all()
        torch.testing.assert_close(out.view(torch.float32)[:a].double(), rstd, atol=1e-5, rtol=1e-5)


def test_normalize_rules(kernel):
    x = torch.randn(2, 16)
    err = expect_error("bad_argument", launch, kernel, FLOAT, x=x, mean=torch.zeros(2), var=torch.ones(2),
                       gamma=torch.ones(16), beta=torch.zeros(16), op=10, a=2, r=16, rPad=12)
    assert err.line == line_of("// @norm") and "rLength <= rLengthWithPadding" in err.message
    err = expect_error("local_overrun", launch, kernel, FLOAT, x=x, mean=torch.zeros(2), var=torch.ones(2),
                       gamma=torch.ones(16), beta=torch.zeros(16), op=10, a=2, r=16, rPad=16, tmpBytes=224)
    assert err.line == line_of("// @norm") and "at least 256 bytes" in err.message


def test_host_helpers(kernel):
    sizes = struct.unpack_from("<6I", kernel.tiling([[4, 96], [2]]).data)
    assert sizes[1] == sizes[3] == 256 and sizes[0] == sizes[2] == 2 * 96 * 4
    assert sizes[5] == 3 * 96 * 4 + 64 and sizes[4] == 4 * sizes[5]  # Normalize: LayerNorm [A, R]'s model
