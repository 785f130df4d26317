"""Reductions (sim/reduce.h) and high-level activations (sim/activation.h) against torch.

Every kernel here is a small inline source built once per session; scalar parameters select the
API, dtype, mask and strides. Inputs are padded in GM to whole 32-byte blocks, and the padding holds
values that would change the result if an API read past its count.
"""

import math

import pytest
import torch
import torch.nn.functional as F

from kernel_checks import expect_error
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF, INT32 = 0, 1, 2
DTYPES = {FLOAT: torch.float32, HALF: torch.float16, INT32: torch.int32}
BITS = {FLOAT: torch.int32, HALF: torch.int16}
OUT = 64  # elements of every out buffer

_PRELUDE = r"""
#include "kernel_operator.h"
using namespace AscendC;

__aicore__ inline void AllPipes() { PipeBarrier<PIPE_ALL>(); }
"""

# ReduceSum / ReduceMax / ReduceMin, count form. out (64 elements) is read first, so what the API
# leaves alone keeps the caller's values.
REDUCE_COUNT = _PRELUDE + r"""
template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR out, uint32_t n, uint32_t nPad, uint32_t op, uint32_t workElems,
                           uint32_t calIndex, uint32_t dstOff, uint32_t srcOff)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, outBuf, workBuf;
    pipe.InitBuffer(xBuf, nPad * sizeof(T));
    pipe.InitBuffer(outBuf, 64 * sizeof(T));
    pipe.InitBuffer(workBuf, workElems * sizeof(T));
    GlobalTensor<T> xGm, outGm;
    xGm.SetGlobalBuffer((__gm__ T*)x);
    outGm.SetGlobalBuffer((__gm__ T*)out);
    LocalTensor<T> xLocal = xBuf.Get<T>();
    LocalTensor<T> outLocal = outBuf.Get<T>();
    LocalTensor<T> work = workBuf.Get<T>(workElems);
    DataCopy(xLocal, xGm, nPad);
    DataCopy(outLocal, outGm, 64);
    AllPipes();
    if (op == 0) {
        ReduceSum(outLocal[dstOff], xLocal[srcOff], work, (int32_t)n);  // @sum
    } else if (op == 1) {
        ReduceMax(outLocal[dstOff], xLocal[srcOff], work, (int32_t)n, calIndex != 0);  // @max
    } else {
        ReduceMin(outLocal[dstOff], xLocal[srcOff], work, (int32_t)n, calIndex != 0);  // @min
    }
    AllPipes();
    DataCopy(outGm, outLocal, 64);
}

extern "C" __global__ __aicore__ void reduce_count(GM_ADDR x, GM_ADDR out, uint32_t dtype, uint32_t n, uint32_t nPad,
                                                   uint32_t op, uint32_t workElems, uint32_t calIndex, uint32_t dstOff,
                                                   uint32_t srcOff)
{
    if (dtype == 0) Run<float>(x, out, n, nPad, op, workElems, calIndex, dstOff, srcOff);
    else if (dtype == 1) Run<half>(x, out, n, nPad, op, workElems, calIndex, dstOff, srcOff);
    else Run<int32_t>(x, out, n, nPad, op, workElems, calIndex, dstOff, srcOff);
}
"""

# The level-0 reductions. Parameters arrive in a uint32 tensor `p` (see level0() below).
LEVEL0 = _PRELUDE + r"""
template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR out, const uint32_t* p, uint64_t mask0, uint64_t mask1)
{
    uint32_t op = p[0], bitwise = p[1], n = p[3], srcLen = p[4], workElems = p[5], calIndex = p[6], dstOff = p[7];
    int32_t mask = (int32_t)p[2];
    int32_t repeat = (int32_t)p[8], dstRep = (int32_t)p[9], srcBlk = (int32_t)p[10], srcRep = (int32_t)p[11];
    ReduceOrder order = static_cast<ReduceOrder>(p[12]);
    (void)n;
    uint64_t bits[2] = {mask0, mask1};
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, outBuf, workBuf;
    pipe.InitBuffer(xBuf, srcLen * sizeof(T));
    pipe.InitBuffer(outBuf, 64 * sizeof(T));
    pipe.InitBuffer(workBuf, workElems * sizeof(T));
    GlobalTensor<T> xGm, outGm;
    xGm.SetGlobalBuffer((__gm__ T*)x);
    outGm.SetGlobalBuffer((__gm__ T*)out);
    LocalTensor<T> src = xBuf.Get<T>();
    LocalTensor<T> outLocal = outBuf.Get<T>();
    LocalTensor<T> dst = outLocal[dstOff];
    LocalTensor<T> work = workBuf.Get<T>(workElems);
    DataCopy(src, xGm, srcLen);
    DataCopy(outLocal, outGm, 64);
    AllPipes();
    if (bitwise) {
        switch (op) {
            case 0: WholeReduceSum<T>(dst, src, bits, repeat, dstRep, srcBlk, srcRep); break;  // @wsum_bits
            case 1: WholeReduceMax<T>(dst, src, bits, repeat, dstRep, srcBlk, srcRep, order); break;
            case 2: WholeReduceMin<T>(dst, src, bits, repeat, dstRep, srcBlk, srcRep, order); break;
            case 3: BlockReduceSum<T>(dst, src, repeat, bits, dstRep, srcBlk, srcRep); break;
            case 4: BlockReduceMax<T>(dst, src, repeat, bits, dstRep, srcBlk, srcRep); break;
            case 5: BlockReduceMin<T>(dst, src, repeat, bits, dstRep, srcBlk, srcRep); break;
            case 6: PairReduceSum<T>(dst, src, repeat, bits, dstRep, srcBlk, srcRep); break;
            case 8: ReduceSum<T>(dst, src, work, bits, repeat, srcRep); break;
            case 9: ReduceMax<T>(dst, src, work, bits, repeat, srcRep, calIndex != 0); break;
            case 10: ReduceMin<T>(dst, src, work, bits, repeat, srcRep, calIndex != 0); break;
        }
    } else {
        switch (op) {
            case 0: WholeReduceSum<T>(dst, src, mask, repeat, dstRep, srcBlk, srcRep); break;  // @wsum
            case 1: WholeReduceMax<T>(dst, src, mask, repeat, dstRep, srcBlk, srcRep, order); break;
            case 2: WholeReduceMin<T>(dst, src, mask, repeat, dstRep, srcBlk, srcRep, order); break;
            case 3: BlockReduceSum<T>(dst, src, repeat, mask, dstRep, srcBlk, srcRep); break;  // @bsum
            case 4: BlockReduceMax<T>(dst, src, repeat, mask, dstRep, srcBlk, srcRep); break;
            case 5: BlockReduceMin<T>(dst, src, repeat, mask, dstRep, srcBlk, srcRep); break;
            case 6: PairReduceSum<T>(dst, src, repeat, mask, dstRep, srcBlk, srcRep); break;
            case 7: RepeatReduceSum<T>(dst, src, repeat, mask, 0, srcBlk, dstRep, srcRep); break;
            case 8: ReduceSum<T>(dst, src, work, mask, repeat, srcRep); break;
            case 9: ReduceMax<T>(dst, src, work, mask, repeat, srcRep, calIndex != 0); break;  // @rmax0
            case 10: ReduceMin<T>(dst, src, work, mask, repeat, srcRep, calIndex != 0); break;
            case 11:  // the mask register in normal mode: mask0 = low lanes, mask1 = high lanes
                SetVectorMask<T>(mask1, mask0);
                WholeReduceSum<T, false>(dst, src, MASK_PLACEHOLDER, repeat, dstRep, srcBlk, srcRep);
                ResetMask();
                break;
            case 12:  // counter mode: n elements, repeatTime ignored
                SetMaskCount();
                SetVectorMask<T, MaskMode::COUNTER>(0, n);
                WholeReduceSum<T, false>(dst, src, MASK_PLACEHOLDER, 1, dstRep, srcBlk, srcRep);
                BlockReduceMax<T, false>(dst[32], src, 1, MASK_PLACEHOLDER, 1, srcBlk, srcRep);
                SetMaskNorm();
                ResetMask();
                break;
        }
    }
    AllPipes();
    DataCopy(outGm, outLocal, 64);
}

extern "C" __global__ __aicore__ void level0(GM_ADDR x, GM_ADDR out, GM_ADDR params, uint64_t mask0, uint64_t mask1)
{
    const uint32_t* p = (const uint32_t*)params;
    if (p[13] == 0) Run<float>(x, out, p, mask0, mask1);
    else Run<half>(x, out, p, mask0, mask1);
}
"""

# Activations. mode: 0 tmp + count, 1 count only, 2 tmp, whole tensor, 3 whole tensor (Sigmoid/Tanh).
ACTIVATION = _PRELUDE + r"""
template <typename T>
__aicore__ inline void Apply(uint32_t op, uint32_t mode, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                             const LocalTensor<uint8_t>& tmp, uint32_t n)
{
    switch (op * 4 + mode) {
        case 0: Sigmoid<T, false>(dst, src, tmp, n); break;  // @sigmoid_tmp
        case 1: Sigmoid(dst, src, n); break;  // @sigmoid
        case 2: Sigmoid(dst, src, tmp); break;
        case 3: Sigmoid(dst, src); break;
        case 4: Tanh<T, false>(dst, src, tmp, n); break;
        case 5: Tanh(dst, src, n); break;
        case 6: Tanh(dst, src, tmp); break;
        case 7: Tanh(dst, src); break;
        case 8: Gelu<T, false, false>(dst, src, tmp, n); break;  // @gelu_tmp
        case 9: Gelu(dst, src, n); break;
        case 10: Gelu<T, true, false>(dst, src, tmp, n); break;
        case 11: Gelu<T, false, true>(dst, src, n); break;
        case 13: Silu(dst, src, n); break;
        case 16: FasterGelu(dst, src, tmp, n); break;
        case 17: FasterGelu(dst, src, n); break;
        case 20: FasterGeluV2(dst, src, tmp, n); break;
        case 21: FasterGeluV2(dst, src, n); break;
    }
}

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, uint32_t op, uint32_t mode, uint32_t n, uint32_t nPad,
                           uint32_t tmpBytes, uint32_t layout, uint32_t fillerBytes)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, yBuf, tmpBuf, filler;
    pipe.InitBuffer(xBuf, nPad * sizeof(T));
    pipe.InitBuffer(yBuf, nPad * sizeof(T));
    pipe.InitBuffer(tmpBuf, tmpBytes);
    if (fillerBytes) pipe.InitBuffer(filler, fillerBytes);
    GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T*)x);
    yGm.SetGlobalBuffer((__gm__ T*)y);
    LocalTensor<T> xLocal = xBuf.Get<T>();
    LocalTensor<T> yLocal = yBuf.Get<T>();
    LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
    DataCopy(xLocal, xGm, nPad);
    AllPipes();
    // layout 1: in place (dst = src); layout 2: tmp is the src buffer.
    if (layout == 1) {
        Apply<T>(op, mode, xLocal, xLocal, tmp, n);
        AllPipes();
        DataCopy(yGm, xLocal, nPad);
    } else {
        Apply<T>(op, mode, yLocal, xLocal, layout == 2 ? xBuf.Get<uint8_t>() : tmp, n);
        AllPipes();
        DataCopy(yGm, yLocal, nPad);
    }
}

extern "C" __global__ __aicore__ void activation(GM_ADDR x, GM_ADDR y, uint32_t dtype, uint32_t op, uint32_t mode,
                                                 uint32_t n, uint32_t nPad, uint32_t tmpBytes, uint32_t layout,
                                                 uint32_t fillerBytes)
{
    if (dtype == 0) Run<float>(x, y, op, mode, n, nPad, tmpBytes, layout, fillerBytes);
    else Run<half>(x, y, op, mode, n, nPad, tmpBytes, layout, fillerBytes);
}
"""

# Row-wise softmax from ReduceMax, Adds, Exp, ReduceSum, Duplicate and Div, one row per core.
SOFTMAX = _PRELUDE + r"""
__aicore__ inline void VectorToScalar()
{
    TEventID id = GetTPipePtr()->FetchEventID(HardEvent::V_S);
    SetFlag<HardEvent::V_S>(id);
    WaitFlag<HardEvent::V_S>(id);
}

__aicore__ inline void ScalarToVector()
{
    TEventID id = GetTPipePtr()->FetchEventID(HardEvent::S_V);
    SetFlag<HardEvent::S_V>(id);
    WaitFlag<HardEvent::S_V>(id);
}

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, uint32_t cols, uint32_t colsPad)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> workBuf, redBuf, denBuf;
    pipe.InitBuffer(inQueue, 1, colsPad * sizeof(T));
    pipe.InitBuffer(outQueue, 1, colsPad * sizeof(T));
    pipe.InitBuffer(workBuf, colsPad * sizeof(T));
    pipe.InitBuffer(redBuf, 32);
    pipe.InitBuffer(denBuf, colsPad * sizeof(T));
    GlobalTensor<T> xGm, yGm;
    uint64_t row = GetBlockIdx();
    xGm.SetGlobalBuffer((__gm__ T*)x + row * colsPad);
    yGm.SetGlobalBuffer((__gm__ T*)y + row * colsPad);

    LocalTensor<T> xLocal = inQueue.AllocTensor<T>();
    DataCopy(xLocal, xGm, colsPad);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<T>();
    LocalTensor<T> yLocal = outQueue.AllocTensor<T>();
    LocalTensor<T> work = workBuf.Get<T>();
    LocalTensor<T> red = redBuf.Get<T>();
    LocalTensor<T> den = denBuf.Get<T>();
    ReduceMax(red, xLocal, work, (int32_t)cols);
    VectorToScalar();
    T rowMax = red.GetValue(0);
    ScalarToVector();
    Adds(yLocal, xLocal, T(-float(rowMax)), (int32_t)cols);
    PipeBarrier<PIPE_V>();
    Exp(yLocal, yLocal, (int32_t)cols);
    PipeBarrier<PIPE_V>();
    ReduceSum(red, yLocal, work, (int32_t)cols);
    VectorToScalar();
    T rowSum = red.GetValue(0);
    ScalarToVector();
    Duplicate(den, rowSum, (int32_t)cols);
    PipeBarrier<PIPE_V>();
    Div(yLocal, yLocal, den, (int32_t)cols);
    outQueue.EnQue(yLocal);
    inQueue.FreeTensor(xLocal);
    yLocal = outQueue.DeQue<T>();
    DataCopy(yGm, yLocal, colsPad);
    outQueue.FreeTensor(yLocal);
}

extern "C" __global__ __aicore__ void softmax(GM_ADDR x, GM_ADDR y, uint32_t dtype, uint32_t cols, uint32_t colsPad)
{
    if (dtype == 0) Run<float>(x, y, cols, colsPad);
    else Run<half>(x, y, cols, colsPad);
}
"""

_kernels: dict[str, object] = {}


def kernel(name: str):
    if name not in _kernels:
        source = {"reduce_count": REDUCE_COUNT, "level0": LEVEL0, "activation": ACTIVATION, "softmax": SOFTMAX}[name]
        _kernels[name] = compile_kernel(source, entry=name)
    return _kernels[name]


def line_of(source: str, marker: str) -> int:
    lines = source.splitlines()
    hits = [i + 1 for i, text in enumerate(lines) if text.rstrip().endswith(marker)]
    assert len(hits) == 1, marker
    return hits[0]


def padded(n: int, dtype: int) -> int:
    per_block = 32 // torch.empty(0, dtype=DTYPES[dtype]).element_size()
    return max(per_block, (n + per_block - 1) // per_block * per_block)


def lanes_of(dtype: int) -> int:
    return 128 if dtype == HALF else 64


# ---- reference models (the orders the docs describe) ----------------------------------------------


def add_sat(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Elementwise a + b in the tensors' dtype; a finite half result beyond +-65504 saturates."""
    s = a + b
    if s.dtype == torch.float16:
        over = torch.isinf(s) & ~torch.isinf(a) & ~torch.isinf(b)
        s = torch.where(over, torch.sign(s.float()).half() * 65504, s)
    return s


def tree(values: torch.Tensor) -> torch.Tensor:
    """Adjacent-pair binary tree over the last dimension (a power of two)."""
    v = values
    while v.shape[-1] > 1:
        v = add_sat(v[..., 0::2], v[..., 1::2])
    return v[..., 0]


def ref_reduce_sum_count(x: torch.Tensor) -> torch.Tensor:
    lanes = 128 if x.dtype == torch.float16 else 64
    n = x.numel()
    rows = torch.zeros((n + lanes - 1) // lanes * lanes, dtype=x.dtype)
    rows[:n] = x
    partial = tree(rows.view(-1, lanes))
    acc = partial[0:1]
    for value in partial[1:]:
        acc = add_sat(acc, value.view(1))
    return acc[0]


def lane_offsets(dtype: int, blk_stride: int) -> torch.Tensor:
    lanes, per_block = lanes_of(dtype), 32 // torch.empty(0, dtype=DTYPES[dtype]).element_size()
    lane = torch.arange(lanes)
    return (lane // per_block) * blk_stride * per_block + lane % per_block


def mask_lanes(dtype: int, mask: int | None, bits: tuple[int, int] | None) -> torch.Tensor:
    lanes = lanes_of(dtype)
    if bits is None:
        return torch.arange(lanes) < mask
    words = bits if lanes == 128 else (bits[0], 0)
    return torch.tensor([(words[i // 64] >> (i % 64)) & 1 == 1 for i in range(lanes)])


def gather_repeats(src, dtype, repeat, blk, rep, on):
    """[repeat, lanes] values of each repeat (0 where the mask is off)."""
    per_block = 32 // src.element_size()
    offsets = lane_offsets(dtype, blk)
    rows = []
    for r in range(repeat):
        idx = r * rep * per_block + offsets
        values = torch.zeros(lanes_of(dtype), dtype=src.dtype)
        values[on] = src[idx[on]]
        rows.append(values)
    return torch.stack(rows)


def first_extreme(values: torch.Tensor, on: torch.Tensor, is_max: bool) -> tuple[float, int]:
    best, best_i = None, -1
    for i in range(values.numel()):
        if not on[i]:
            continue
        v = values[i].item()
        if best is None or (not math.isnan(best) and (math.isnan(v) or (v > best if is_max else v < best))):
            best, best_i = v, i
    return best, best_i


# ---- launch helpers ------------------------------------------------------------------------------------

SENTINEL = -7.0


def run_count(dtype, x, op, work_elems=None, cal_index=False, dst_off=0, src_off=0, pad_value=1000.0):
    n = x.numel()
    n_pad = padded(n + src_off, dtype)
    xg = torch.full((n_pad,), pad_value, dtype=DTYPES[dtype])
    xg[src_off:src_off + n] = x
    out = torch.full((OUT,), SENTINEL, dtype=DTYPES[dtype])
    if work_elems is None:
        work_elems = padded(4 * n // lanes_of(dtype) + 64, dtype)
    kernel("reduce_count").launch(1, xg, out, dtype, n, n_pad, op, work_elems, int(cal_index), dst_off, src_off)
    return out


def level0(dtype, src, op, *, mask=None, bits=None, repeat=1, dst_rep=1, src_blk=1, src_rep=8, order=0,
           work_elems=64, cal_index=False, dst_off=0, n=0, words=None):
    src_len = padded(src.numel(), dtype)
    xg = torch.zeros(src_len, dtype=DTYPES[dtype])
    xg[: src.numel()] = src
    out = torch.full((OUT,), SENTINEL, dtype=DTYPES[dtype])
    params = torch.tensor([op, int(bits is not None), mask or 0, n, src_len, work_elems, int(cal_index), dst_off,
                           repeat, dst_rep, src_blk, src_rep, order, dtype, 0, 0], dtype=torch.int64).to(torch.int32)
    words = words or bits or (0, 0)
    kernel("level0").launch(1, xg, out, params, words[0], words[1])
    return out


def activation(dtype, op, mode, x, *, tmp_bytes=4096, layout=0, filler=0):
    n = x.numel()
    n_pad = padded(n, dtype)
    xg = torch.zeros(n_pad, dtype=DTYPES[dtype])
    xg[:n] = x
    y = torch.full((n_pad,), SENTINEL, dtype=DTYPES[dtype])
    report = kernel("activation").launch(1, xg, y, dtype, op, mode, n, n_pad, tmp_bytes, layout, filler)
    return y[:n], report


def index_of(out: torch.Tensor, position: int, dtype: int) -> int:
    return out.view(BITS[dtype])[position].item() & (0xFFFF if dtype == HALF else 0xFFFFFFFF)


# ---- ReduceSum / ReduceMax / ReduceMin, count form ----------------------------------------------------


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
@pytest.mark.parametrize("n", [1, 37, 64, 128, 200, 1000, 4099])
def test_reduce_sum_count_matches_the_documented_order(dtype, n):
    torch.manual_seed(n)
    x = torch.randn(n).to(DTYPES[dtype])
    out = run_count(dtype, x, 0)
    expected = ref_reduce_sum_count(x)
    assert out[0].item() == expected.item() or (math.isnan(out[0].item()) and math.isnan(expected.item()))
    tol = 1e-4 if dtype == FLOAT else 2e-2
    assert abs(out[0].item() - x.double().sum().item()) <= tol * x.double().abs().sum().item() + 1e-3
    assert torch.all(out[1:] == SENTINEL)


def test_reduce_sum_half_saturates_like_the_doc_example():
    # 60000 + 60000 -> 65504 (not inf); -30000 + 100 -> -29904 in half; 65504 - 29904 = 35600 -> 35584
    # (ties to even). The page writes the unrounded 35604.
    x = torch.tensor([60000, 60000, -30000, 100], dtype=torch.float16)
    assert run_count(HALF, x, 0)[0].item() == 35584.0
    assert level0(HALF, x, 0, mask=4)[0].item() == 35584.0


def test_reduce_sum_accepts_any_work_buffer_size():
    x = torch.ones(8320, dtype=torch.float16)
    assert run_count(HALF, x, 0, work_elems=1)[0].item() == 8320.0


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
@pytest.mark.parametrize("n", [5, 64, 129, 1000])
@pytest.mark.parametrize("op", [1, 2])
def test_reduce_max_min_count_value_and_first_index(dtype, n, op):
    torch.manual_seed(op * 1000 + n)
    x = torch.randn(n).to(DTYPES[dtype])
    target = x.max() if op == 1 else x.min()
    x[n // 2] = target  # a tie: the first index wins
    out = run_count(dtype, x, op, cal_index=True, pad_value=1000.0 if op == 1 else -1000.0)
    assert out[0].item() == target.item()
    expected_index = int(torch.nonzero(x == target)[0])
    assert index_of(out, 1, dtype) == expected_index
    assert torch.all(out[2:] == SENTINEL)


def test_reduce_max_without_index_writes_only_the_value():
    x = torch.arange(300, dtype=torch.float32)
    out = run_count(FLOAT, x, 1, cal_index=False, pad_value=-1.0)
    assert out[0].item() == 299.0 and out[1].item() == SENTINEL


def test_reduce_max_nan_wins_with_its_first_index():
    x = torch.randn(200)
    x[150] = float("nan")
    x[170] = float("nan")
    out = run_count(FLOAT, x, 1, cal_index=True)
    assert math.isnan(out[0].item()) and index_of(out, 1, FLOAT) == 150
    out = run_count(FLOAT, x, 2, cal_index=True)
    assert math.isnan(out[0].item()) and index_of(out, 1, FLOAT) == 150


def test_reduce_max_work_buffer_minimum_follows_the_doc_formula():
    # ReduceMax.md example six: float, 130 repeats, with index -> 288 elements.
    x = torch.randn(8320)
    x[4321] = 50.0
    out = run_count(FLOAT, x, 1, work_elems=288, cal_index=True)
    assert out[0].item() == 50.0 and index_of(out, 1, FLOAT) == 4321
    err = expect_error("local_overrun", run_count, FLOAT, x, 1, work_elems=280, cal_index=True)
    assert err.line == line_of(REDUCE_COUNT, "// @max")
    assert "288" in err.message and "sharedTmpBuffer" in err.message
    # Without the index only the first round's pairs: RoundUp(2 * 130, 8) = 264.
    assert run_count(FLOAT, x, 1, work_elems=264)[0].item() == 50.0
    err = expect_error("local_overrun", run_count, FLOAT, x, 2, work_elems=256)
    assert err.line == line_of(REDUCE_COUNT, "// @min")


def test_reduce_max_half_work_examples():
    # ReduceMax.md example four (4 repeats, with index): 32 elements; example one (65 repeats): 176.
    x = torch.randn(512).half()
    assert run_count(HALF, x, 1, work_elems=32, cal_index=True)[0].item() == x.max().item()
    expect_error("local_overrun", run_count, HALF, x, 1, work_elems=16, cal_index=True)
    x = torch.randn(8320).half()
    run_count(HALF, x, 1, work_elems=176, cal_index=True)
    expect_error("local_overrun", run_count, HALF, x, 1, work_elems=160, cal_index=True)


def test_reduce_max_half_index_limit():
    # ReduceMax.md: for half only indexes up to 65535 can be returned.
    x = torch.zeros(65537, dtype=torch.float16)
    x[65535] = 1.0
    out = run_count(HALF, x[:65536], 1, cal_index=True, work_elems=1200)
    assert out[0].item() == 1.0 and index_of(out, 1, HALF) == 65535
    err = expect_error("bad_argument", run_count, HALF, x, 1, cal_index=True, work_elems=1200)
    assert "65535" in err.message
    assert run_count(HALF, x, 1, cal_index=False, work_elems=1200)[0].item() == 1.0


def test_reduce_count_diagnostics():
    x = torch.randn(100)
    err = expect_error("unsupported_dtype", run_count, INT32, torch.arange(100, dtype=torch.int32), 0)
    assert err.line == line_of(REDUCE_COUNT, "// @sum")
    expect_error("ub_misaligned", run_count, FLOAT, x, 0, src_off=1)
    # ReduceMax's dst needs 8-byte alignment for float (value, index); ReduceSum's only 4.
    expect_error("ub_misaligned", run_count, FLOAT, x, 1, dst_off=1)
    assert run_count(FLOAT, x, 0, dst_off=1)[1].item() == pytest.approx(x.sum().item(), rel=1e-5)
    expect_error("ub_misaligned", run_count, HALF, x.half(), 2, dst_off=1)


# ---- WholeReduce / RepeatReduceSum -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
@pytest.mark.parametrize("mask,bits,blk,rep,dst_rep", [
    (None, None, 1, 8, 1),             # full mask
    (37, None, 1, 8, 1),               # partial continuous mask
    (None, (0x8000000F000000F1, 0x3), 1, 8, 2),  # bitwise, results spaced by 2
    (20, None, 2, 16, 1),              # block stride 2, repeat stride 16
])
def test_whole_reduce_sum(dtype, mask, bits, blk, rep, dst_rep):
    lanes = lanes_of(dtype)
    mask = lanes if mask is None and bits is None else mask
    repeat = 5
    src = torch.randn(repeat * rep * 32 // (4 if dtype == FLOAT else 2) + lanes * blk).to(DTYPES[dtype])
    on = mask_lanes(dtype, mask, bits)
    values = gather_repeats(src, dtype, repeat, blk, rep, on)
    expected = tree(values)
    for op in (0, 7) if bits is None else (0,):
        out = level0(dtype, src, op, mask=mask, bits=bits, repeat=repeat, dst_rep=dst_rep, src_blk=blk, src_rep=rep)
        assert torch.equal(out[0:repeat * dst_rep:dst_rep], expected)
        if dst_rep == 2:
            assert torch.all(out[1:repeat * 2:2] == SENTINEL)
        assert torch.all(out[repeat * dst_rep:] == SENTINEL)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
@pytest.mark.parametrize("op", [1, 2])
@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_whole_reduce_max_min_orders(dtype, op, order):
    torch.manual_seed(order)
    repeat, mask = 3, 50
    src = torch.randn(repeat * lanes_of(dtype)).to(DTYPES[dtype])
    src[lanes_of(dtype) + 7] = float("nan")
    on = mask_lanes(dtype, mask, None)
    values = gather_repeats(src, dtype, repeat, 1, 8, on)
    out = level0(dtype, src, op, mask=mask, repeat=repeat, order=order)
    unit = {0: 2, 1: 2, 2: 1, 3: 2 if dtype == HALF else 1}[order]
    for r in range(repeat):
        value, index = first_extreme(values[r], on, op == 1)
        got = out[r * unit:(r + 1) * unit]
        if order in (0, 1):
            v, i = (got[0], 1) if order == 0 else (got[1], 0)
            assert (math.isnan(value) and math.isnan(v.item())) or v.item() == value
            assert index_of(got, i, dtype) == index
        elif order == 2:
            assert (math.isnan(value) and math.isnan(got[0].item())) or got[0].item() == value
        else:
            assert got.view(torch.int32)[0].item() == index
    assert torch.all(out[repeat * unit:] == SENTINEL)


def test_whole_reduce_diagnostics():
    src = torch.randn(256)
    line = line_of(LEVEL0, "// @wsum")
    assert expect_error("bad_mask", level0, FLOAT, src, 0, mask=65).line == line
    assert expect_error("bad_mask", level0, FLOAT, src, 0, mask=0).line == line
    assert expect_error("bad_mask", level0, HALF, src.half(), 0, bits=(0, 0)).line == line_of(LEVEL0, "// @wsum_bits")
    # For float only mask[0] counts, so a mask in mask[1] alone enables nothing.
    expect_error("bad_mask", level0, FLOAT, src, 0, bits=(0, 1))
    expect_error("repeat_overflow", level0, FLOAT, torch.randn(256 * 64), 0, mask=64, repeat=256)
    expect_error("local_overrun", level0, FLOAT, src, 0, mask=64, repeat=3, dst_rep=40)
    expect_error("local_overrun", level0, FLOAT, src, 0, mask=64, repeat=5)
    # srcBlkStride 2: one repeat reads up to element 7*2*8 + 7 = 119
    expect_error("local_overrun", level0, FLOAT, src[:64], 0, mask=64, repeat=1, src_blk=2)
    assert level0(FLOAT, src[:120], 0, mask=64, repeat=1, src_blk=2)[0].item() == pytest.approx(
        src[:120].view(-1, 8)[0::2].sum().item(), rel=1e-5)
    # value + index pairs need 8-byte alignment for float
    expect_error("ub_misaligned", level0, FLOAT, src, 1, mask=64, repeat=1, dst_off=1)
    assert level0(FLOAT, src, 0, mask=64, repeat=1, dst_off=1)[1].item() == pytest.approx(
        src[:64].sum().item(), rel=1e-5)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_level0_with_the_mask_register(dtype):
    lanes = lanes_of(dtype)
    torch.manual_seed(11)
    src = torch.randn(4 * lanes).to(DTYPES[dtype])
    # normal mode: SetVectorMask(maskHigh, maskLow), then WholeReduceSum<T, false>(..., MASK_PLACEHOLDER, ...)
    words = (0x0F0F0F0F0F0F0F0F, 0x3)
    on = mask_lanes(dtype, None, words)
    out = level0(dtype, src, 11, repeat=3, words=words)
    assert torch.equal(out[:3], tree(gather_repeats(src, dtype, 3, 1, 8, on)))
    assert out[3].item() == SENTINEL
    # counter mode: n elements over ceil(n / lanes) repeats, the last one partial; repeatTime is ignored
    n = 2 * lanes + 5
    out = level0(dtype, src, 12, n=n)
    full = torch.zeros(3 * lanes, dtype=src.dtype)
    full[:n] = src[:n]
    assert torch.equal(out[:3], tree(full.view(3, lanes)))
    assert out[3].item() == SENTINEL
    per_block = lanes // 8
    assert torch.equal(out[32:32 + 8], src[:lanes].view(8, per_block).max(dim=1).values)


def test_mask_placeholder_needs_is_set_mask_false():
    err = expect_error("bad_mask", level0, FLOAT, torch.randn(64), 0, mask=0)
    assert "MASK_PLACEHOLDER" in err.message


# ---- BlockReduce / PairReduceSum -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
@pytest.mark.parametrize("op", [3, 4, 5])
def test_block_reduce(dtype, op):
    torch.manual_seed(op)
    lanes = lanes_of(dtype)
    per_block = lanes // 8
    mask = per_block * 5 + 3  # blocks 0..4 full, block 5 partial, 6 and 7 off
    repeat, dst_rep = 3, 2
    src = torch.randn(repeat * lanes).to(DTYPES[dtype])
    on = mask_lanes(dtype, mask, None)
    values = gather_repeats(src, dtype, repeat, 1, 8, on)
    out = level0(dtype, src, op, mask=mask, repeat=repeat, dst_rep=dst_rep)
    for r in range(repeat):
        got = out[r * dst_rep * 8:r * dst_rep * 8 + 8]
        for b in range(8):
            block_on = on[b * per_block:(b + 1) * per_block]
            if not block_on.any():
                assert got[b].item() == SENTINEL
                continue
            block = values[r, b * per_block:(b + 1) * per_block]
            if op == 3:
                assert got[b].item() == tree(block).item()
            else:
                assert got[b].item() == first_extreme(block, block_on, op == 4)[0]
        assert torch.all(out[r * dst_rep * 8 + 8:(r + 1) * dst_rep * 8] == SENTINEL)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_pair_reduce_sum(dtype):
    lanes = lanes_of(dtype)
    src = torch.randn(2 * lanes).to(DTYPES[dtype])
    out = level0(dtype, src, 6, mask=lanes - 1, repeat=1)  # the last pair has one lane on
    expected = src[: lanes - 1]
    pairs = torch.cat([expected, torch.zeros(1, dtype=src.dtype)]).view(-1, 2)
    assert torch.equal(out[: lanes // 2], pairs[:, 0] + pairs[:, 1])


def test_block_reduce_diagnostics():
    src = torch.randn(512)
    # float BlockReduce dst needs 32-byte alignment (8 results of one repeat)
    err = expect_error("ub_misaligned", level0, FLOAT, src, 3, mask=64, repeat=1, dst_off=4)
    assert err.line == line_of(LEVEL0, "// @bsum")
    expect_error("local_overrun", level0, FLOAT, src, 3, mask=64, repeat=2, dst_rep=8)


# ---- ReduceSum / ReduceMax level-0 form -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_reduce_sum_level0_is_a_tree_over_repeats(dtype):
    lanes = lanes_of(dtype)
    repeat, mask = 70, lanes - 3
    torch.manual_seed(3)
    src = torch.randn(repeat * lanes).to(DTYPES[dtype])
    on = mask_lanes(dtype, mask, None)
    partial = tree(gather_repeats(src, dtype, repeat, 1, 8, on))
    while partial.numel() > 1:
        groups = torch.zeros((partial.numel() + lanes - 1) // lanes * lanes, dtype=partial.dtype)
        groups[: partial.numel()] = partial
        partial = tree(groups.view(-1, lanes))
    out = level0(dtype, src, 8, mask=mask, repeat=repeat, work_elems=8)
    assert out[0].item() == partial[0].item()
    assert out[1].item() == SENTINEL


@pytest.mark.parametrize("op", [9, 10])
def test_reduce_max_min_level0_index_counts_whole_repeats(op):
    lanes, repeat = 64, 6
    src = torch.randn(repeat * 2 * lanes)  # srcRepStride 16: every other repeat's worth is skipped
    pick = 3 * 2 * lanes + 17
    src[pick] = 100.0 if op == 9 else -100.0
    src[3 * 2 * lanes + 40] = 200.0 if op == 9 else -200.0  # masked off (mask 32)
    out = level0(FLOAT, src, op, mask=32, repeat=repeat, src_rep=16, work_elems=64, cal_index=True)
    assert out[0].item() == src[pick].item()
    assert index_of(out, 1, FLOAT) == 3 * lanes + 17
    err = expect_error("local_overrun", level0, FLOAT, src, 9, mask=32, repeat=repeat, src_rep=16, work_elems=8,
                       cal_index=True)
    assert err.line == line_of(LEVEL0, "// @rmax0")


# ---- activations ---------------------------------------------------------------------------------------------

SIGMOID, TANH, GELU, SILU, FASTER_GELU, FASTER_GELU_V2 = range(6)


def fast_gelu_ref(x):
    return x / (1 + torch.exp(-1.702 * x))


def fast_gelu_v2_ref(x):
    sgn = torch.sign(x + 1e-12)
    t = torch.clamp(torch.abs(0.7071 * x), max=1.769) - 1.769
    return x * (sgn * (-0.1444 * t * t + 0.5) + 0.5)


REFERENCES = {
    SIGMOID: torch.sigmoid,
    TANH: torch.tanh,
    GELU: lambda x: F.gelu(x, approximate="tanh"),
    SILU: F.silu,
    FASTER_GELU: fast_gelu_ref,
    FASTER_GELU_V2: fast_gelu_v2_ref,
}
MODES = {SIGMOID: (0, 1, 2, 3), TANH: (0, 1, 2, 3), GELU: (0, 1, 2, 3), SILU: (1,), FASTER_GELU: (0, 1),
         FASTER_GELU_V2: (0, 1)}


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
@pytest.mark.parametrize("op", list(REFERENCES))
def test_activation_matches_torch(dtype, op):
    torch.manual_seed(op)
    n = 1000 if dtype == FLOAT else 1003
    x = torch.randn(n) * 4
    x[:6] = torch.tensor([0.0, -0.0, 30.0, -30.0, 1e-3, float("nan")])
    x = x.to(DTYPES[dtype])
    expected = REFERENCES[op](x.double()).to(DTYPES[dtype])
    atol, rtol = (2e-6, 2e-5) if dtype == FLOAT else (1e-3, 2e-3)
    if op == FASTER_GELU_V2:
        atol = 2e-3 if dtype == FLOAT else 4e-3  # a polynomial approximation of Gelu's shape
    for mode in MODES[op]:
        y, _ = activation(dtype, op, mode, x)
        if mode in (2, 3):  # whole tensor: n rounded up to the padded length
            y = y[:n]
        torch.testing.assert_close(y, expected, atol=atol, rtol=rtol, equal_nan=True)
        assert torch.isnan(y[5])


def test_gelu_is_the_tanh_approximation():
    x = torch.linspace(-5, 5, 512)
    y, _ = activation(FLOAT, GELU, 0, x)
    torch.testing.assert_close(y, F.gelu(x, approximate="tanh"), atol=2e-6, rtol=1e-5)
    assert (y - F.gelu(x)).abs().max() > 1e-4  # not the erf form


def test_activation_counts_the_instructions_it_expands_to():
    x = torch.randn(1000)
    float_repeats = math.ceil(1000 * 4 / 256)
    _, report = activation(FLOAT, SIGMOID, 0, x)
    assert report.vector_ops()["Sigmoid"] == (1, 4 * float_repeats)
    _, report = activation(HALF, SIGMOID, 1, x.half())
    assert report.vector_ops()["Sigmoid"] == (1, 6 * float_repeats)  # + Cast in and out
    _, report = activation(FLOAT, TANH, 0, x)
    assert report.vector_ops()["Tanh"] == (1, 7 * float_repeats)
    _, report = activation(FLOAT, GELU, 0, x)
    assert report.vector_ops()["Gelu"] == (1, 8 * float_repeats)
    _, report = activation(FLOAT, SILU, 1, x)
    assert report.vector_ops()["Silu"] == (1, 4 * float_repeats)


def test_activation_tmp_buffer_too_small():
    x = torch.randn(100)
    err = expect_error("local_overrun", activation, FLOAT, SIGMOID, 0, x, tmp_bytes=224)
    assert err.line == line_of(ACTIVATION, "// @sigmoid_tmp")
    assert "at least 256 bytes" in err.message
    activation(FLOAT, SIGMOID, 0, x, tmp_bytes=256)
    err = expect_error("local_overrun", activation, HALF, GELU, 0, x.half(), tmp_bytes=256)
    assert err.line == line_of(ACTIVATION, "// @gelu_tmp") and "at least 512 bytes" in err.message


def test_activation_overlap_rules():
    x = torch.randn(100)
    # Sigmoid.md: src and dst must not overlap; Gelu.md allows it.
    err = expect_error("bad_argument", activation, FLOAT, SIGMOID, 0, x, layout=1)
    assert err.line == line_of(ACTIVATION, "// @sigmoid_tmp")
    expect_error("bad_argument", activation, FLOAT, TANH, 1, x, layout=1)
    expect_error("bad_argument", activation, HALF, SILU, 1, x.half(), layout=1)
    y, _ = activation(FLOAT, GELU, 0, x, layout=1)
    torch.testing.assert_close(y, F.gelu(x, approximate="tanh"), atol=2e-6, rtol=2e-5)
    # sharedTmpBuffer must not overlap src.
    expect_error("bad_argument", activation, FLOAT, GELU, 0, x, layout=2)


def test_activation_without_tmp_needs_free_ub():
    x = torch.randn(64)
    ub = 196608
    used = 2 * 256 + 256  # x, y and tmp buffers
    err = expect_error("ub_overflow", activation, FLOAT, SIGMOID, 1, x, tmp_bytes=256, filler=ub - used - 128)
    assert err.line == line_of(ACTIVATION, "// @sigmoid")
    activation(FLOAT, SIGMOID, 1, x, tmp_bytes=256, filler=ub - used - 256)


# ---- a composite: row-wise softmax ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
@pytest.mark.parametrize("cols", [37, 1000])
def test_softmax_rows(dtype, cols):
    rows = 4
    torch.manual_seed(cols)
    x = (torch.randn(rows, cols) * 3).to(DTYPES[dtype])
    cols_pad = padded(cols, dtype)
    xg = torch.full((rows, cols_pad), -1e4 if dtype == HALF else -1e30, dtype=DTYPES[dtype])
    xg[:, :cols] = x
    y = torch.zeros_like(xg)
    report = kernel("softmax").launch(rows, xg, y, dtype, cols, cols_pad)
    expected = torch.softmax(x.float(), dim=-1)
    tol = dict(atol=1e-6, rtol=1e-5) if dtype == FLOAT else dict(atol=2e-3, rtol=1e-2)
    torch.testing.assert_close(y[:, :cols].float(), expected, **tol)
    ops = report.vector_ops()
    assert ops["ReduceMax"][0] == rows and ops["ReduceSum"][0] == rows
