"""The SoftMax family (sim/softmax.h) and its host tiling helpers (host/tiling/softmax_tiling.h) against torch.

One contract kernel, built once per module: its host tiling function fills SoftMaxTiling with the host helpers
(SoftMaxTilingFunc, SoftMaxFlashV2TilingFunc, SoftMaxGradTilingFunc, LogSoftMaxTilingFunc) for the shape [m, k]
and the temporary space given as a second pseudo-tensor shape [tmpBytes]; the kernel runs one API form per `op`.
Per-row tensors (sum, max, ...) travel as 32 bytes per row in GM whatever their type.
"""

from __future__ import annotations

import math

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF = 0, 1
DTYPES = {FLOAT: torch.float32, HALF: torch.float16}

SOURCE = r"""
#include "kernel_operator.h"
#include "host/tiling/tiling_api.h"
using namespace AscendC;

struct TilingData {
    uint32_t m;
    uint32_t k;
    uint32_t tmpBytes;
    uint32_t minTmp;
    uint32_t maxTmp;
    optiling::SoftMaxTiling softmax;  // the name an op_host TilingData uses (tiling/tiling_api.h)
    SoftMaxTiling flashV2;
    SoftMaxTiling grad;
    LogSoftMaxTiling logSoftmax;
    uint32_t basicBlock;
};

// A stand-in with ge::Shape's accessors: the host helpers take either it or a std::vector<int64_t>.
struct GeShape {
    std::vector<int64_t> dims;
    size_t GetDimNum() const { return dims.size(); }
    int64_t GetDim(size_t i) const { return dims[i]; }
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    std::vector<int64_t> shape = {dims[0], dims[1]};
    GeShape geShape{{1, dims[0], dims[1]}};
    uint32_t typeSize = static_cast<uint32_t>(dims[2]);
    t->m = dims[0];
    t->k = dims[1];
    t->tmpBytes = static_cast<uint32_t>(dims[3]);
    t->minTmp = GetSoftMaxMinTmpSize(geShape, typeSize, false);
    t->maxTmp = GetSoftMaxMaxTmpSize(geShape, typeSize, false);
    SoftMaxTilingFunc(shape, typeSize, t->tmpBytes, t->softmax);
    SoftMaxFlashV2TilingFunc(shape, typeSize, typeSize, t->tmpBytes, t->flashV2, true);
    SoftMaxGradTilingFunc(shape, typeSize, t->tmpBytes, t->grad, false);
    LogSoftMaxTilingFunc(shape, typeSize, t->tmpBytes, t->logSoftmax);
    t->basicBlock = IsBasicBlockInSoftMax(t->softmax, typeSize);
    *workspaceBytes = 0;
    return 1;
}

constexpr SoftmaxConfig NO_BRC = {false, 0, 0, SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC};
constexpr SoftmaxConfig FIXED_8x64 = {true, 8, 64, SoftmaxMode::SOFTMAX_NORMAL};

struct Bufs {
    LocalTensor<uint8_t> x, g, y, sum, max, inSum, inMax, expMax, tmp;
};

template <typename T>
__aicore__ inline void Apply(uint32_t op, const Bufs& b, const TilingData& t, const SoftMaxShapeInfo& shape,
                             uint32_t extra)
{
    LocalTensor<T> x = b.x.ReinterpretCast<T>(), g = b.g.ReinterpretCast<T>(), y = b.y.ReinterpretCast<T>();
    LocalTensor<T> sum = b.sum.ReinterpretCast<T>(), max = b.max.ReinterpretCast<T>();
    LocalTensor<T> inSum = b.inSum.ReinterpretCast<T>(), inMax = b.inMax.ReinterpretCast<T>();
    LocalTensor<T> expMax = b.expMax.ReinterpretCast<T>();
    switch (op) {
        case 0: SoftMax<T>(y, sum, max, x, b.tmp, t.softmax, shape); break;  // @softmax_tmp
        case 1: SoftMax<T>(y, sum, max, x, t.softmax, shape); break;
        case 2: SoftMax<T>(y, x, b.tmp, t.softmax, shape); break;
        case 3: SoftMax<T>(y, x, t.softmax); break;
        case 4: SimpleSoftMax<T>(y, inSum, inMax, x, b.tmp, t.softmax, shape); break;
        case 5: SimpleSoftMax<T>(y, inSum, inMax, x, t.softmax, shape); break;
        case 6: SoftmaxFlash<T>(y, sum, max, x, expMax, inSum, inMax, b.tmp, t.softmax, false, shape); break;
        case 7: SoftmaxFlash<T>(y, sum, max, x, expMax, inSum, inMax, b.tmp, t.softmax, true, shape); break;
        case 8: SoftmaxFlashV2<T, false>(y, sum, max, x, expMax, inSum, inMax, b.tmp, t.flashV2, shape); break;
        case 9: SoftmaxFlashV2<T, true>(y, sum, max, x, expMax, inSum, inMax, b.tmp, t.flashV2, shape); break;
        case 10: SoftmaxFlashV2<T, true>(y, sum, max, x, expMax, inSum, inMax, t.flashV2, shape); break;
        case 11: LogSoftMax<T>(y, sum, max, x, b.tmp, t.logSoftmax, shape); break;  // @log_softmax
        case 12: SoftmaxGrad<T>(y, g, x, b.tmp, t.grad, false, shape); break;
        case 13: SoftmaxGrad<T>(y, g, x, t.grad, true, shape); break;
        case 14: SoftMax<T, false, true>(y, sum, max, x, b.tmp, t.softmax, shape); break;  // @basic_block
        case 15: SoftmaxFlashV2<T, true, false, false, false, NO_BRC>(y, g, sum, max, x, expMax, inSum, inMax,
                                                                      b.tmp, t.flashV2, shape); break;
        case 16: SoftmaxFlashV2<T, true>(y, g, sum, max, x, expMax, inSum, inMax, b.tmp,  // @reduce_max_normal
                                         t.flashV2, shape); break;
        case 17: SoftmaxGradFront<T>(y, g, x, b.tmp, t.grad, shape); break;
        case 18: SoftmaxGradFront<T, true>(y, g, x, t.grad, shape); break;  // @grad_front_basic
        case 30: SoftMax<T, false, false, false, FIXED_8x64>(y, sum, max, x, b.tmp, t.softmax, shape);
            break;  // constant shape
        case 19: {
            bool hit = AdjustSoftMaxRes<T, T>(x, inMax, extra, (T)-1.0f, shape);  // @adjust
            PipeBarrier<PIPE_V>();
            Duplicate(y, hit ? (T)1.0f : (T)0.0f, 32);
            break;
        }
    }
}

// Half data with float max/sum (the "different types" forms).
__aicore__ inline void ApplyMixed(uint32_t op, const Bufs& b, const TilingData& t, const SoftMaxShapeInfo& shape)
{
    LocalTensor<half> x = b.x.ReinterpretCast<half>(), y = b.y.ReinterpretCast<half>();
    LocalTensor<half> expMax = b.expMax.ReinterpretCast<half>();
    LocalTensor<float> sum = b.sum.ReinterpretCast<float>(), max = b.max.ReinterpretCast<float>();
    LocalTensor<float> inSum = b.inSum.ReinterpretCast<float>(), inMax = b.inMax.ReinterpretCast<float>();
    LocalTensor<float> mean = b.g.ReinterpretCast<float>(), inMean = b.g[1024].ReinterpretCast<float>();
    SoftMaxParams params = {t.m, t.k, t.m, t.k, 3, op == 25 ? 4u : 8u, 0.9375f};
    if (op == 20) SoftMax<half>(y, sum, max, x, b.tmp, t.softmax, shape);
    else if (op == 21) SimpleSoftMax<half>(y, inSum, inMax, x, t.softmax, shape);
    else if (op == 22) SoftmaxFlashV2<half, true>(y, sum, max, x, expMax, inSum, inMax, b.tmp, t.flashV2, shape);
    else if (op == 23) SoftmaxFlashV3<half, float, false>(y, mean, sum, max, x, expMax, inMean, inSum, inMax,
                                                          t.flashV2, params);
    else SoftmaxFlashV3<half, float, true>(y, mean, sum, max, x, expMax, inMean, inSum, inMax, b.tmp,  // @v3
                                           t.flashV2, params);
}

extern "C" __global__ __aicore__ void softmax_family(GM_ADDR x, GM_ADDR g, GM_ADDR blocksIn, GM_ADDR y,
                                                     GM_ADDR blocksOut, GM_ADDR workspace, GM_ADDR tiling,
                                                     uint32_t dtype, uint32_t op, uint32_t oriK, uint32_t layout,
                                                     uint32_t extra)
{
    GET_TILING_DATA(t, tiling);
    uint32_t elem = dtype == 0 ? 4 : 2;
    uint32_t rowsBytes = t.m * t.k * elem;
    uint32_t blockBytes = t.m * 32;
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bg, by, bblk, btmp;
    pipe.InitBuffer(bx, rowsBytes);
    pipe.InitBuffer(bg, rowsBytes);
    pipe.InitBuffer(by, rowsBytes);
    pipe.InitBuffer(bblk, 5 * blockBytes);
    pipe.InitBuffer(btmp, t.tmpBytes);
    Bufs b;
    b.x = bx.Get<uint8_t>();
    b.g = bg.Get<uint8_t>();
    b.y = by.Get<uint8_t>();
    LocalTensor<uint8_t> blk = bblk.Get<uint8_t>();
    b.sum = blk;
    b.max = blk[blockBytes];
    b.inSum = blk[2 * blockBytes];
    b.inMax = blk[3 * blockBytes];
    b.expMax = blk[4 * blockBytes];
    b.tmp = btmp.Get<uint8_t>();
    GlobalTensor<uint8_t> xg, gg, bi, yg, bo;
    xg.SetGlobalBuffer((__gm__ uint8_t*)x);
    gg.SetGlobalBuffer((__gm__ uint8_t*)g);
    bi.SetGlobalBuffer((__gm__ uint8_t*)blocksIn);
    yg.SetGlobalBuffer((__gm__ uint8_t*)y);
    bo.SetGlobalBuffer((__gm__ uint8_t*)blocksOut);
    DataCopy(b.x, xg, rowsBytes);
    DataCopy(b.g, gg, rowsBytes);
    DataCopy(blk, bi, 5 * blockBytes);
    PipeBarrier<PIPE_ALL>();
    if (layout == 1) b.y = b.x;                    // in place
    if (layout == 2) b.tmp = b.x;                  // tmp over src
    if (layout == 3) b.tmp = b.tmp[0];             // unchanged; tmpBytes is what the test passed
    SoftMaxShapeInfo shape = {t.m, t.k, t.m, oriK};
    if (op >= 20 && op < 30) ApplyMixed(op, b, t, shape);
    else if (dtype == 0) Apply<float>(op, b, t, shape, extra);
    else Apply<half>(op, b, t, shape, extra);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, b.y, rowsBytes);
    DataCopy(bo, blk, 5 * blockBytes);
    DataCopy(bo[5 * blockBytes], b.g, blockBytes);
    DataCopy(xg, b.x, rowsBytes);
}
"""

BLOCK_NAMES = ("sum", "max", "inSum", "inMax", "expMax")


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="softmax_family", contract=True)


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def tiling_bytes(kernel, m: int, k: int, elem: int, tmp_bytes: int) -> bytes:
    return kernel.tiling([[m, k], [elem, tmp_bytes]]).data


def run(kernel, dtype, op, x, *, g=None, blocks=None, ori_k=None, layout=0, tmp_bytes=None, block_dtype=None,
        packed=False, extra=0):
    """Runs one op on x [m, k]; returns (y, {block name: [m, per-block elements]}, the 6th block, report)."""
    m, k = x.shape
    elem = x.element_size()
    block_dtype = block_dtype or x.dtype
    tmp = tmp_bytes if tmp_bytes is not None else 2 * (2 * k * 4 + 64) * m
    g = torch.zeros_like(x) if g is None else g
    bin_ = torch.zeros(5 * m * 32, dtype=torch.uint8)
    for i, name in enumerate(BLOCK_NAMES):
        if blocks and name in blocks:
            view = bin_[i * m * 32:(i + 1) * m * 32].view(block_dtype)
            if packed:  # one value per row, back to back (SOFTMAX_OUTPUT_WITHOUT_BRC)
                view[:m] = blocks[name].to(block_dtype)
            else:
                view.view(m, -1)[:] = blocks[name].reshape(m, 1).to(block_dtype)
    y = torch.full_like(x, -7)
    bout = torch.zeros(6 * m * 32, dtype=torch.uint8)
    x = x.contiguous().clone()
    report = kernel.launch(1, x, g.contiguous(), bin_, y, bout, None, tiling_bytes(kernel, m, k, elem, tmp), dtype, op,
                           ori_k or k, layout, extra)
    outs = {name: bout[i * m * 32:(i + 1) * m * 32].view(block_dtype).view(m, -1) for i, name in
            enumerate(BLOCK_NAMES)}
    outs["x"] = x  # src after the call (AdjustSoftMaxRes works in place)
    extra = bout[5 * m * 32:].view(block_dtype)
    return y, outs, extra, report


def data(m: int, k: int, dtype, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(m, k, generator=g) * 3).to(dtype)


def tol(dtype):
    return dict(atol=1e-6, rtol=1e-5) if dtype == torch.float32 else dict(atol=1e-3, rtol=4e-3)


def assert_block(block: torch.Tensor, expected: torch.Tensor, dtype):
    """Every element of each row's block holds the row's value."""
    torch.testing.assert_close(block.double(), expected.reshape(-1, 1).expand_as(block).to(block.dtype).double(),
                               **tol(dtype))


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_softmax_forms_match_torch(kernel, dtype):
    t = DTYPES[dtype]
    x = data(8, 64, t)
    xd = x.double()
    for op in range(4):
        y, blocks, _, _ = run(kernel, dtype, op, x)
        torch.testing.assert_close(y, torch.softmax(xd, -1).to(t), **tol(t))
        if op < 2:
            assert_block(blocks["max"], xd.amax(-1), t)
            assert_block(blocks["sum"], torch.exp(xd - xd.amax(-1, keepdim=True)).sum(-1), t)


def test_softmax_reduces_only_the_original_columns(kernel):
    x = data(4, 64, torch.float32, seed=1)
    x[:, 50:] = 1e4  # padding that would dominate the row
    y, blocks, _, _ = run(kernel, FLOAT, 0, x, ori_k=50)
    torch.testing.assert_close(y[:, :50], torch.softmax(x[:, :50].double(), -1).float(), **tol(torch.float32))
    assert torch.isnan(y[:, 50:]).all()  # the pages leave the padding columns undefined
    assert_block(blocks["max"], x[:, :50].amax(-1), torch.float32)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_simple_softmax(kernel, dtype):
    t = DTYPES[dtype]
    x = data(8, 64, t, seed=2)
    xd = x.double()
    mx = xd.amax(-1) + 0.5
    sm = torch.exp(xd - mx[:, None]).sum(-1) * 1.25
    for op in (4, 5):
        y, _, _, _ = run(kernel, dtype, op, x, blocks={"inMax": mx, "inSum": sm})
        torch.testing.assert_close(y, (torch.exp(xd - mx.to(t).double()[:, None]) / sm.to(t).double()[:, None])
                                   .to(t), **tol(t))


def flash_reference(xd, in_max, in_sum, v2: bool):
    new_max = torch.maximum(in_max, xd.amax(-1))
    e = torch.exp(xd - new_max[:, None])
    exp_max = torch.exp(in_max - new_max)
    total = exp_max * in_sum + e.sum(-1)
    if v2:
        return e, new_max, total, exp_max
    return e / total[:, None], new_max, total, exp_max * in_sum / total


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_softmax_flash_update(kernel, dtype):
    t = DTYPES[dtype]
    x = data(8, 64, t, seed=3)
    xd = x.double()
    in_max = (torch.randn(8, dtype=torch.float64) * 3).to(t).double()
    in_sum = (torch.rand(8, dtype=torch.float64) * 10 + 1).to(t).double()
    y, b, _, _ = run(kernel, dtype, 6, x, blocks={"inMax": in_max, "inSum": in_sum})
    torch.testing.assert_close(y, torch.softmax(xd, -1).to(t), **tol(t))  # update = false: SoftMax
    y, b, _, _ = run(kernel, dtype, 7, x, blocks={"inMax": in_max, "inSum": in_sum})
    dst, new_max, total, exp_max = flash_reference(xd, in_max, in_sum, v2=False)
    torch.testing.assert_close(y, dst.to(t), **tol(t))
    assert_block(b["max"], new_max, t)
    assert_block(b["sum"], total, t)
    assert_block(b["expMax"], exp_max, t)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_softmax_flash_v2(kernel, dtype):
    t = DTYPES[dtype]
    x = data(8, 64, t, seed=4)
    xd = x.double()
    y, b, _, _ = run(kernel, dtype, 8, x)  # no update: dst = exp(x - max), not divided
    torch.testing.assert_close(y, torch.exp(xd - xd.amax(-1, keepdim=True)).to(t), **tol(t))
    assert_block(b["sum"], torch.exp(xd - xd.amax(-1, keepdim=True)).sum(-1), t)
    in_max = (torch.randn(8, dtype=torch.float64) * 3).to(t).double()
    in_sum = (torch.rand(8, dtype=torch.float64) * 10 + 1).to(t).double()
    dst, new_max, total, exp_max = flash_reference(xd, in_max, in_sum, v2=True)
    for op in (9, 10):
        y, b, _, _ = run(kernel, dtype, op, x, blocks={"inMax": in_max, "inSum": in_sum})
        torch.testing.assert_close(y, dst.to(t), **tol(t))
        assert_block(b["max"], new_max, t)
        assert_block(b["sum"], total, t)
        assert_block(b["expMax"], exp_max, t)


def test_flash_v2_without_broadcast_outputs_reduce_max(kernel):
    x = data(8, 64, torch.float32, seed=5)
    xd = x.double()
    in_max = torch.randn(8, dtype=torch.float64).float().double()
    in_sum = (torch.rand(8, dtype=torch.float64) + 1).float().double()
    # SOFTMAX_OUTPUT_WITHOUT_BRC: every per-row tensor is [m, 1]
    y, b, reduce_max, _ = run(kernel, FLOAT, 15, x, blocks={"inMax": in_max, "inSum": in_sum}, packed=True)
    dst, new_max, total, exp_max = flash_reference(xd, in_max, in_sum, v2=True)
    torch.testing.assert_close(y, dst.float(), **tol(torch.float32))
    for name, expected in (("max", new_max), ("sum", total), ("expMax", exp_max)):
        flat = b[name].reshape(-1)
        torch.testing.assert_close(flat[:8].double(), expected, atol=1e-6, rtol=1e-5)
        assert (flat[8:] == 0).all()  # nothing written past the m values
    torch.testing.assert_close(reduce_max[:8].double(), xd.amax(-1))


def test_flash_v2_reduce_max_needs_no_brc_mode(kernel):
    x = data(8, 64, torch.float32, seed=6)
    err = expect_error("bad_argument", run, kernel, FLOAT, 16, x)
    assert err.line == line_of("// @reduce_max_normal")
    assert "SOFTMAX_OUTPUT_WITHOUT_BRC" in err.message


@pytest.mark.parametrize("op", [20, 21, 22])
def test_half_data_with_float_statistics(kernel, op):
    x = data(8, 64, torch.float16, seed=7)
    xd = x.double()
    in_max = torch.randn(8, dtype=torch.float64)
    in_sum = torch.rand(8, dtype=torch.float64) * 5 + 1
    y, b, _, _ = run(kernel, HALF, op, x, blocks={"inMax": in_max, "inSum": in_sum}, block_dtype=torch.float32)
    if op == 20:
        torch.testing.assert_close(y, torch.softmax(xd, -1).half(), **tol(torch.float16))
        assert_block(b["max"], xd.amax(-1), torch.float32)
    elif op == 21:
        ref = torch.exp(xd - in_max.float().double()[:, None]) / in_sum.float().double()[:, None]
        torch.testing.assert_close(y, ref.half(), **tol(torch.float16))
    else:
        dst, new_max, total, _ = flash_reference(xd, in_max.float().double(), in_sum.float().double(), v2=True)
        torch.testing.assert_close(y, dst.half(), **tol(torch.float16))
        torch.testing.assert_close(b["sum"][:, 0].double(), total, atol=1e-4, rtol=1e-5)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_log_softmax_is_log10_as_documented(kernel, dtype):
    t = DTYPES[dtype]
    x = data(8, 64, t, seed=8)
    y, b, _, _ = run(kernel, dtype, 11, x)
    # LogSoftMax.md: dst = np.log10(softmax(x)) (its step 8: "log10"), i.e. log_softmax / ln(10)
    torch.testing.assert_close(y, (torch.log_softmax(x.double(), -1) / math.log(10)).to(t),
                               **(dict(atol=1e-5, rtol=1e-5) if dtype == FLOAT else dict(atol=4e-3, rtol=4e-3)))
    assert_block(b["max"], x.double().amax(-1), t)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_softmax_grad(kernel, dtype):
    t = DTYPES[dtype]
    y_soft = torch.softmax(data(8, 64, torch.float32, seed=9).double(), -1).to(t)
    grad = data(8, 64, t, seed=10)
    d = (grad.double() * y_soft.double()).sum(-1, keepdim=True)
    out, _, _, _ = run(kernel, dtype, 12, y_soft, g=grad)
    torch.testing.assert_close(out, ((grad.double() - d) * y_soft.double()).to(t), **tol(t))
    # isFront: one block per row holding rowsum(grad * src), written into dst
    out, _, _, _ = run(kernel, dtype, 13, y_soft, g=grad)
    per_block = 32 // y_soft.element_size()
    front = out.reshape(-1)[:8 * per_block].reshape(8, per_block)
    assert_block(front, d.reshape(-1), t)


def test_softmax_in_place_and_log_softmax_refuses_it(kernel):
    x = data(8, 64, torch.float32, seed=11)
    y, _, _, _ = run(kernel, FLOAT, 0, x, layout=1)  # dst = src: SoftMax.md allows the reuse
    torch.testing.assert_close(y, torch.softmax(x.double(), -1).float(), **tol(torch.float32))
    err = expect_error("bad_argument", run, kernel, FLOAT, 11, x, layout=1)
    assert err.line == line_of("// @log_softmax")
    assert "dst and src overlap" in err.message


def test_temporary_space_rules(kernel):
    x = data(8, 64, torch.float32, seed=12)
    row = 2 * 64 * 4 + 64
    err = expect_error("local_overrun", run, kernel, FLOAT, 0, x, tmp_bytes=row - 32)
    assert err.line == line_of("// @softmax_tmp")
    assert f"at least {row} bytes" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 0, x, layout=2)
    assert err.line == line_of("// @softmax_tmp") and "sharedTmpBuffer overlaps srcTensor" in err.message
    # one row of workspace is enough when the tiling was made for it
    y, _, _, _ = run(kernel, FLOAT, 0, x, tmp_bytes=row)
    torch.testing.assert_close(y, torch.softmax(x.double(), -1).float(), **tol(torch.float32))


def test_tiling_for_more_workspace_than_given_is_reported(kernel):
    x = data(8, 64, torch.float32, seed=13)
    row = 2 * 64 * 4 + 64
    m, k = x.shape
    big = tiling_bytes(kernel, m, k, 4, 8 * row)  # host planned 8 rows per pass...
    small = tiling_bytes(kernel, m, k, 4, row)    # ...but the kernel's buffer has room for one
    assert big != small
    g = torch.zeros_like(x)
    with pytest.raises(SimulatorError) as info:
        kernel.launch(1, x, g, torch.zeros(5 * m * 32, dtype=torch.uint8), torch.zeros_like(x),
                      torch.zeros(6 * m * 32, dtype=torch.uint8), None,
                      big[:8] + row.to_bytes(4, "little") + big[12:], FLOAT, 0, k, 0, 0)
    assert info.value.kind == "local_overrun" and "8 rows per pass" in info.value.message


def test_basic_block_conditions(kernel):
    x = data(8, 96, torch.float32, seed=14)  # 96 is not a multiple of 64
    err = expect_error("bad_argument", run, kernel, FLOAT, 14, x)
    assert err.line == line_of("// @basic_block")
    y, _, _, _ = run(kernel, FLOAT, 14, data(8, 128, torch.float32, seed=14))
    assert torch.isfinite(y).all()


def test_host_tiling_helpers(kernel):
    import struct

    m, k = 10, 96
    row = 2 * k * 4 + 64
    data_ = tiling_bytes(kernel, m, k, 4, 3 * row + 5)
    fields = struct.unpack_from("<5I16I", data_)
    assert fields[:5] == (m, k, 3 * row + 5, row, m * row)  # m, k, tmpBytes, GetSoftMaxMin/MaxTmpSize
    sm = fields[5:]
    assert sm[0:3] == (m, k, m * k)             # srcM srcK srcSize
    assert sm[3:6] == (m, 8, m * 8)             # outMaxM outMaxK outMaxSize (float: 8 per block)
    assert sm[6:9] == (3, k, 3 * k)             # splitM splitK splitSize: 3 rows fit the workspace
    assert sm[12:16] == (3, 1, k, 8)            # rangeM tailM tailSplitSize tailReduceSize
    assert struct.unpack_from("<I", data_, 20 + 4 * 64)[0] == 0  # IsBasicBlockInSoftMax: 96 is not a multiple of 64
    basic = tiling_bytes(kernel, 16, 128, 4, 16 * (2 * 128 * 4 + 64))
    assert struct.unpack_from("<I", basic, 20 + 4 * 64)[0] == 1


def test_cost_is_one_composite_instruction(kernel):
    x = data(8, 64, torch.float32, seed=15)
    _, _, _, report = run(kernel, FLOAT, 0, x)
    repeats = math.ceil(8 * 64 * 4 / 256)
    assert report.vector_ops()["SoftMax"] == (1, 5 * repeats)
    _, _, _, report = run(kernel, HALF, 1, x.half())
    assert report.vector_ops()["SoftMax"] == (1, 7 * repeats)  # + Cast in and out


def test_empty_shape_is_reported(kernel):
    x = data(8, 64, torch.float32, seed=16)
    m, k = x.shape
    with pytest.raises(SimulatorError) as info:
        kernel.launch(1, x, torch.zeros_like(x), torch.zeros(5 * m * 32, dtype=torch.uint8), torch.zeros_like(x),
                      torch.zeros(6 * m * 32, dtype=torch.uint8), None,
                      tiling_bytes(kernel, m, k, 4, 4096)[:20] + bytes(64 * 4 + 4), FLOAT, 3, k, 0, 0)
    assert info.value.kind == "bad_argument" and "shape is empty" in info.value.message


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_softmax_grad_front(kernel, dtype):
    t = DTYPES[dtype]
    y_soft = torch.softmax(data(8, 128, torch.float32, seed=17).double(), -1).to(t)
    grad = data(8, 128, t, seed=18)
    d = (grad.double() * y_soft.double()).sum(-1)
    per_block = 32 // y_soft.element_size()
    for op in (17, 18):
        out, _, _, _ = run(kernel, dtype, op, y_soft, g=grad)
        assert_block(out.reshape(-1)[:8 * per_block].reshape(8, per_block), d, t)
    err = expect_error("bad_argument", run, kernel, dtype, 18, y_soft[:6], g=grad[:6])  # 6 rows: not a basic block
    assert err.line == line_of("// @grad_front_basic")


def test_adjust_softmax_res(kernel):
    x = data(8, 64, torch.float32, seed=19)
    in_max = torch.tensor([1.0, 0.5, 1.0, 2.0, 3.0, 1.0, 0.0, -1.0])
    y, outs, _, _ = run(kernel, FLOAT, 19, x, blocks={"inMax": in_max}, extra=0x3F800000)  # the bits of 1.0
    adjusted = x.clone()
    adjusted[in_max == 1.0] = -1.0
    assert torch.equal(outs["x"], adjusted)
    assert y[0, 0].item() == 1.0  # the API returned true
    y, outs, _, _ = run(kernel, FLOAT, 19, x, blocks={"inMax": in_max}, extra=0x40400001)  # no row holds that value
    assert y[0, 0].item() == 0.0 and torch.equal(outs["x"], x)


def test_constant_shape_config_must_match(kernel):
    x = data(8, 64, torch.float32, seed=20)
    y, _, _, _ = run(kernel, FLOAT, 30, x)  # SoftmaxConfig {8, 64} and an 8 x 64 call
    torch.testing.assert_close(y, torch.softmax(x.double(), -1).float(), **tol(torch.float32))
    err = expect_error("bad_argument", run, kernel, FLOAT, 30, data(16, 64, torch.float32, seed=20))
    assert "fixes the shape at oriSrcM 8" in err.message


def flash_v3_reference(x, alpha, in_mean=None, in_sum=None, in_max=None, loop_cnt=3):
    """SoftmaxFlashV3.md's Python, with the per-group local mean over lanes [8g, 8g + 8) of each 64-lane repeat."""
    m, n = x.shape
    scalar = alpha / (1 - alpha)
    groups = x.view(m, n // 64, 8, 8).sum(dim=(1, 3)) / (n // 8)  # [m, 8]
    mean_global = x.mean(-1, keepdim=True)
    shift = (mean_global - groups) * scalar  # [m, 8]
    # element r*64 + g*8 + i belongs to group g
    src = x - shift[:, None, :, None].expand(m, n // 64, 8, 8).reshape(m, n)
    max_tmp = src.amax(-1, keepdim=True)
    if in_mean is None:
        x_max = max_tmp
        dst = torch.exp(src - x_max)
        return dst, mean_global[:, 0], dst.sum(-1), x_max[:, 0], None
    x_mean = (mean_global + in_mean[:, None] * (loop_cnt - 1)) / loop_cnt
    shift_curr = (mean_global - x_mean) * scalar
    shift_prev = (in_mean[:, None] - x_mean) * scalar
    x_max = torch.maximum(shift_curr + max_tmp, shift_prev + in_max[:, None])
    dst = torch.exp(src - (x_max - shift_curr))
    exp_max = torch.exp(in_max[:, None] - x_max + shift_prev)
    total = exp_max * in_sum[:, None] + dst.sum(-1, keepdim=True)
    return dst, x_mean[:, 0], total[:, 0], x_max[:, 0], exp_max[:, 0]


def test_softmax_flash_v3(kernel):
    x = data(8, 512, torch.float16, seed=21)
    xd = x.double()
    dst, mean, total, x_max, _ = flash_v3_reference(xd, 0.9375)
    y, b, extra, _ = run(kernel, HALF, 23, x, block_dtype=torch.float32)
    torch.testing.assert_close(y.double(), dst.half().double(), atol=2e-3, rtol=4e-3)
    torch.testing.assert_close(extra.view(torch.float32)[:64].view(8, 8)[:, 0].double(), mean, atol=1e-4, rtol=1e-4)
    assert_block(b["max"], x_max, torch.float32)
    torch.testing.assert_close(b["sum"][:, 0].double(), total, atol=1e-3, rtol=1e-4)
    in_max = torch.randn(8, dtype=torch.float64).float().double() + 3
    in_sum = (torch.rand(8, dtype=torch.float64) * 100 + 1).float().double()
    dst, mean, total, x_max, exp_max = flash_v3_reference(xd, 0.9375, torch.zeros(8, dtype=torch.float64), in_sum,
                                                          in_max)
    y, b, _, _ = run(kernel, HALF, 24, x, blocks={"inMax": in_max, "inSum": in_sum}, block_dtype=torch.float32)
    torch.testing.assert_close(y.double(), dst.half().double(), atol=2e-3, rtol=4e-3)
    torch.testing.assert_close(b["max"][:, 0].double(), x_max, atol=1e-4, rtol=1e-5)
    torch.testing.assert_close(b["sum"][:, 0].double(), total, atol=1e-3, rtol=1e-4)
    torch.testing.assert_close(b["expMax"].view(torch.float16)[:, 0].double(),
                               exp_max.half().double(), atol=1e-3, rtol=2e-3)
    err = expect_error("bad_argument", run, kernel, HALF, 25, x, block_dtype=torch.float32)
    assert err.line == line_of("// @v3") and "splitMeanCnt 4" in err.message
