"""The fused vector instructions (sim/fused_ops.h, deq_scale.h) against torch and the documented examples.

One kernel, built once per session, runs one instruction per launch: FusedArgs picks the op, the
type pair and the form (count, level-0 with a continuous or bitwise mask, or isSetMask = false
after SetVectorMask). Buffers travel as raw bytes so that sources and dst can have different
types. References are computed here from the semantics of the asc-devkit v8.5.0 pages (AddRelu.md,
AddReluCast.md, MulAddDst.md, FusedMulAdd.md, AddDeqRelu.md, CastDeq.md ...); level-0 addressing is
re-derived independently: lane l of repeat r of an operand of esize bytes with strides blk/rep (in
32-byte blocks) is at r*rep*32 + (l // (32/esize))*blk*32 + (l % (32/esize))*esize bytes.
"""

from __future__ import annotations

import ctypes

import pytest
import torch

from kernel_checks import expect_error
from torch_ascendgen.targets.sim.simulator import compile_kernel

OPS = ["AddRelu", "SubRelu", "FusedMulAdd", "FusedMulAddRelu", "MulAddDst", "AddReluCast", "SubReluCast", "MulCast",
       "AddDeqRelu"]

# (dst dtype, source dtype) per pair code, matching Run<T, U> in the kernel.
PAIRS = [(torch.float32, torch.float32), (torch.float16, torch.float16), (torch.int16, torch.int16),
         (torch.float32, torch.float16), (torch.float16, torch.float32), (torch.int8, torch.float16),
         (torch.int8, torch.int16), (torch.uint8, torch.float16), (torch.float16, torch.int32),
         (torch.int32, torch.int32)]
PAIR_TYPES = [("float", "float"), ("half", "half"), ("int16_t", "int16_t"), ("float", "half"), ("half", "float"),
              ("int8_t", "half"), ("int8_t", "int16_t"), ("uint8_t", "half"), ("half", "int32_t"),
              ("int32_t", "int32_t")]


def _op_cases() -> str:
    same = ["AddRelu", "SubRelu", "FusedMulAdd", "FusedMulAddRelu"]
    lines = []
    for k, name in enumerate(OPS):
        guard = "std::is_same_v<T, U>" if name in same else "true"
        marker = f"  // @{name}"
        if name in same:
            count = f"{name}(d, x, y, (int32_t)a.count);"
            lvl = f"{name}<T, isSetMask>(d, x, y, mask, a.repeat, bp);"
        elif name == "AddDeqRelu":
            count = f"{name}(d, x, y, (int32_t)a.count);"
            lvl = f"{name}<T, U, isSetMask>(d, x, y, mask, a.repeat, bp);"
        else:
            count = f"{name}(d, x, y, a.count);"
            lvl = f"{name}<T, U, isSetMask>(d, x, y, mask, a.repeat, bp);"
        lines.append(f"        case {k}:\n            if constexpr ({guard}) {{\n"
                     f"                if (a.form == 0) {count}{marker}\n"
                     f"                else {lvl}{marker}_level0\n            }}\n            break;")
    return "\n".join(lines)


FUSED = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct FusedArgs {
    uint32_t op;
    uint32_t pair;
    uint32_t form;       // 0 count, 1 continuous mask, 2 bitwise mask, 3 isSetMask=false after SetVectorMask(hi, lo)
    uint32_t count;
    uint64_t mask;
    uint64_t mask1;
    uint32_t repeat;
    uint8_t dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep, pad0, pad1;
    uint32_t srcElems;
    uint32_t dstElems;
    float deqScale;      // > 0: SetDeqScale(half(deqScale)) first
    uint32_t layout;     // 1: src0 is dst (in place), 2: src0 starts 32 bytes into dst's buffer
};

template <typename T, typename U, bool isSetMask, typename M>
__aicore__ inline void Op(const FusedArgs& a, const LocalTensor<T>& d, const LocalTensor<U>& x,
                          const LocalTensor<U>& y, M mask)
{
    BinaryRepeatParams bp(a.dstBlk, a.src0Blk, a.src1Blk, a.dstRep, a.src0Rep, a.src1Rep);
    switch (a.op) {
""" + _op_cases() + r"""
        default: break;
    }
}

template <typename T, typename U>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, GM_ADDR dIn, GM_ADDR out, const FusedArgs& a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bd;
    pipe.InitBuffer(bx, a.srcElems * sizeof(U));
    pipe.InitBuffer(by, a.srcElems * sizeof(U));
    pipe.InitBuffer(bd, a.dstElems * sizeof(T) + 64);
    GlobalTensor<U> xg, yg;
    GlobalTensor<T> dg, og;
    xg.SetGlobalBuffer((__gm__ U*)x);
    yg.SetGlobalBuffer((__gm__ U*)y);
    dg.SetGlobalBuffer((__gm__ T*)dIn);
    og.SetGlobalBuffer((__gm__ T*)out);
    LocalTensor<U> xl = bx.Get<U>(), yl = by.Get<U>();
    LocalTensor<T> dl = bd.Get<T>();
    DataCopy(xl, xg, a.srcElems);
    DataCopy(yl, yg, a.srcElems);
    DataCopy(dl, dg, a.dstElems);
    PipeBarrier<PIPE_ALL>();
    if (a.deqScale > 0) SetDeqScale(static_cast<half>(a.deqScale));
    LocalTensor<U> src0 = xl;
    if (a.layout == 1) src0 = bd.Get<U>();
    if (a.layout == 2) src0 = bd.Get<U>()[32 / sizeof(U)];
    uint64_t bits[2] = {a.mask, a.mask1};
    switch (a.form) {
        case 0: Op<T, U, true>(a, dl, src0, yl, a.mask); break;
        case 1: Op<T, U, true>(a, dl, src0, yl, a.mask); break;
        case 2: Op<T, U, true>(a, dl, src0, yl, bits); break;
        default:
            SetVectorMask<U>(a.mask1, a.mask);
            Op<T, U, false>(a, dl, src0, yl, MASK_PLACEHOLDER);
            ResetMask();
            break;
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, dl, a.dstElems);
}

extern "C" __global__ __aicore__ void fused(GM_ADDR x, GM_ADDR y, GM_ADDR dIn, GM_ADDR out, FusedArgs a)
{
    switch (a.pair) {
""" + "\n".join(f"        case {k}: Run<{t}, {u}>(x, y, dIn, out, a); break;"
            for k, (t, u) in enumerate(PAIR_TYPES)) + r"""
        default: break;
    }
}
"""


class FusedArgs(ctypes.Structure):
    _fields_ = [("op", ctypes.c_uint32), ("pair", ctypes.c_uint32), ("form", ctypes.c_uint32),
                ("count", ctypes.c_uint32), ("mask", ctypes.c_uint64), ("mask1", ctypes.c_uint64),
                ("repeat", ctypes.c_uint32), ("dstBlk", ctypes.c_uint8), ("src0Blk", ctypes.c_uint8),
                ("src1Blk", ctypes.c_uint8), ("dstRep", ctypes.c_uint8), ("src0Rep", ctypes.c_uint8),
                ("src1Rep", ctypes.c_uint8), ("pad0", ctypes.c_uint8), ("pad1", ctypes.c_uint8),
                ("srcElems", ctypes.c_uint32), ("dstElems", ctypes.c_uint32), ("deqScale", ctypes.c_float),
                ("layout", ctypes.c_uint32)]


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(FUSED, entry="fused")


def line_of(marker: str) -> int:
    hits = [i + 1 for i, text in enumerate(FUSED.splitlines()) if text.rstrip().endswith(marker)]
    assert len(hits) == 1, marker
    return hits[0]


def rounded_up(n: int, dtype: torch.dtype) -> int:
    per_block = 32 // torch.empty(0, dtype=dtype).element_size()
    return max(per_block, (n + per_block - 1) // per_block * per_block)


def sentinel(dtype: torch.dtype):
    return -7 if dtype != torch.uint8 else 249


def run(kernel, op, pair, x, y, d, *, form=0, count=None, mask=0, mask1=0, repeat=0, strides=(1, 1, 1, 8, 8, 8),
        deq_scale=0.0, layout=0, soc=None):
    """Launches one instruction; returns dst afterwards (as many elements as d) and the report."""
    dst_t, src_t = PAIRS[pair]
    n_src = rounded_up(max(x.numel(), y.numel()), src_t)
    n_dst = rounded_up(d.numel(), dst_t)
    xs, ys = torch.zeros(n_src, dtype=src_t), torch.zeros(n_src, dtype=src_t)
    xs[:x.numel()], ys[:y.numel()] = x, y
    ds = torch.full((n_dst,), sentinel(dst_t), dtype=dst_t)
    ds[:d.numel()] = d
    out = torch.zeros(n_dst, dtype=dst_t)
    args = FusedArgs(OPS.index(op), pair, form, x.numel() if count is None else count, mask, mask1, repeat, *strides,
                     0, 0, n_src, n_dst, deq_scale, layout)
    report = kernel.launch(1, xs, ys, ds, out, args, soc=soc)
    return out[:d.numel()], report


def sat(v: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    info = torch.iinfo(dtype)
    return torch.round(v).clamp(info.min, info.max).to(dtype)  # torch.round: half to even


def reference(op, x, y, d, dst_t, deq_scale=0.0):
    """The documented result, from float64 with the rounding steps the pages give."""
    src_t = x.dtype
    if op in ("AddRelu", "SubRelu", "AddReluCast", "SubReluCast"):
        s = x.double() + y.double() if op.startswith("Add") else x.double() - y.double()
        s = s.to(torch.int64).to(src_t) if src_t == torch.int16 else s.to(src_t)  # wraps / rounds to the source type
        s = torch.clamp(s.double(), min=0)
        if op.endswith("Relu"):
            return s.to(dst_t)
        if dst_t == torch.float16:
            return s.clamp(max=65504.0).to(dst_t)
        return sat(s, dst_t)
    if op in ("FusedMulAdd", "FusedMulAddRelu"):  # the product rounds before the sum (the pages' examples)
        r = ((x.double() * d.double()).to(dst_t).double() + y.double()).to(dst_t)
        return torch.clamp(r, min=0) if op.endswith("Relu") else r
    if op == "MulAddDst":
        return ((x.double() * y.double()).to(dst_t).double() + d.double()).to(dst_t)
    if op == "MulCast":
        return sat((x.double() * y.double()).to(torch.float16).double(), dst_t)
    if op == "AddDeqRelu":
        s = (x.to(torch.int64) + y.to(torch.int64)).to(torch.int32)  # wraps
        scale = torch.tensor(deq_scale, dtype=torch.float16).float()
        v = s.float() * 2.0**-17 * scale * 2.0**17
        return torch.clamp(v.to(torch.float16), min=0)
    raise AssertionError(op)


def inputs(src_t, n, seed):
    g = torch.Generator().manual_seed(seed)
    if src_t == torch.int16:
        return (torch.randint(-20000, 20000, (n,), generator=g, dtype=torch.int16),
                torch.randint(-20000, 20000, (n,), generator=g, dtype=torch.int16))
    if src_t == torch.int32:
        return (torch.randint(-5000, 5000, (n,), generator=g, dtype=torch.int32),
                torch.randint(-5000, 5000, (n,), generator=g, dtype=torch.int32))
    return ((torch.randn(n, generator=g) * 40).to(src_t), (torch.randn(n, generator=g) * 40).to(src_t))


COUNT_CASES = [("AddRelu", 0), ("AddRelu", 1), ("AddRelu", 2), ("SubRelu", 0), ("SubRelu", 1), ("SubRelu", 2),
               ("FusedMulAdd", 0), ("FusedMulAdd", 1), ("FusedMulAddRelu", 0), ("FusedMulAddRelu", 1),
               ("MulAddDst", 0), ("MulAddDst", 1), ("MulAddDst", 3), ("AddReluCast", 4), ("AddReluCast", 5),
               ("AddReluCast", 6), ("SubReluCast", 4), ("SubReluCast", 5), ("SubReluCast", 6), ("MulCast", 5),
               ("MulCast", 7), ("AddDeqRelu", 8)]


@pytest.mark.parametrize("op,pair", COUNT_CASES)
def test_count_form_matches_the_documented_semantics(kernel, op, pair):
    dst_t, src_t = PAIRS[pair]
    n = 300
    x, y = inputs(src_t, n, seed=OPS.index(op) * 10 + pair)
    d = (torch.randn(n + 20) * 10).to(dst_t) if dst_t.is_floating_point else torch.zeros(n + 20, dtype=dst_t)
    scale = 0.1 if op == "AddDeqRelu" else 0.0
    out, report = run(kernel, op, pair, x, y, d, count=n, deq_scale=scale)
    expected = reference(op, x, y, d[:n], dst_t, scale)
    torch.testing.assert_close(out[:n], expected, atol=0, rtol=0, equal_nan=True)
    assert torch.equal(out[n:], d[n:]), "elements past count were written"
    wide = max(dst_t.itemsize, src_t.itemsize)
    assert report.vector_ops()[op] == (1, -(-n * wide // 256))


def test_documented_examples(kernel):
    f = torch.tensor
    out, _ = run(kernel, "AddRelu", 0, f([1.0, -2, 3, -6]), f([1.0, 3, -4, 5]), torch.zeros(4))
    assert out.tolist() == [2, 1, 0, 0]  # AddRelu.md
    h = torch.float16
    out, _ = run(kernel, "AddReluCast", 5, f([1, 1, 3, 512], dtype=h), f([0, 0.5, -4, -513], dtype=h),
                 torch.zeros(4, dtype=torch.int8))
    assert out.tolist() == [1, 2, 0, 0]  # AddReluCast.md
    out, _ = run(kernel, "SubReluCast", 5, f([1, 2, 3, 512], dtype=h), f([0, 0.5, 4, 513], dtype=h),
                 torch.zeros(4, dtype=torch.int8))
    assert out.tolist() == [1, 2, 0, 0]  # SubReluCast.md
    out, _ = run(kernel, "MulCast", 5, f([1, -2, 3, -6], dtype=h), f([1, 3, -4, 5], dtype=h),
                 torch.zeros(4, dtype=torch.int8))
    assert out.tolist() == [1, -6, -12, -30]  # MulCast.md
    a = f([70, 36, 43, 54, 28, 49, 27, 82, 95], dtype=torch.int32)
    b = f([19, 33, 34, 50, 42, 2, 97, 93, 99], dtype=torch.int32)
    out, _ = run(kernel, "AddDeqRelu", 8, a, b, torch.zeros(9, dtype=h), deq_scale=0.1)
    documented = [8.9, 6.9, 7.7, 10.4, 7.0, 5.1, 12.4, 17.5, 19.4]  # AddDeqRelu.md, printed to one decimal
    assert [round(v, 1) for v in out.float().tolist()] == documented


@pytest.mark.parametrize("op,pair", [("FusedMulAdd", 1), ("FusedMulAddRelu", 1), ("MulAddDst", 3)])
def test_documented_multiply_add_examples(kernel, op, pair):
    dst_t, src_t = PAIRS[pair]
    src0, src1, before, after = DOC_EXAMPLES[op]
    x, y = torch.tensor(src0, dtype=src_t), torch.tensor(src1, dtype=src_t)
    out, _ = run(kernel, op, pair, x, y, torch.tensor(before, dtype=dst_t))
    assert torch.equal(out, torch.tensor(after, dtype=dst_t))


def test_saturating_conversions(kernel):
    h = torch.float16
    big = torch.tensor([60000.0, 200.0, -300.0, 70000.0])
    out, _ = run(kernel, "AddReluCast", 4, big, big, torch.zeros(4, dtype=h))
    assert out.tolist() == [65504.0, 400.0, 0.0, 65504.0]  # float -> half overflows to the largest half
    out, _ = run(kernel, "MulCast", 7, torch.tensor([20.0, -3.0, 2.5, 0.5], dtype=h),
                 torch.tensor([20.0, 4.0, 1.0, 1.0], dtype=h), torch.zeros(4, dtype=torch.uint8))
    assert out.tolist() == [255, 0, 2, 0]  # saturated; 2.5 and 0.5 round to even
    i16 = torch.int16
    out, _ = run(kernel, "AddReluCast", 6, torch.tensor([100, 30000, -5, 7], dtype=i16),
                 torch.tensor([100, 5000, 2, -7], dtype=i16), torch.zeros(4, dtype=torch.int8))
    assert out.tolist() == [127, 0, 0, 0]  # 30000 + 5000 wraps negative in int16, then Relu


def lane_index(r: int, lane: int, esize: int, blk: int, rep: int) -> int:
    per_block = 32 // esize
    return (r * rep * 32 + (lane // per_block) * blk * 32 + (lane % per_block) * esize) // esize


def level0_reference(op, pair, x, y, d, lanes_on, repeat, strides, deq_scale=0.0):
    dst_t, src_t = PAIRS[pair]
    expected = d.clone()
    for r in range(repeat):
        for lane in lanes_on:
            di = lane_index(r, lane, dst_t.itemsize, strides[0], strides[3])
            i0 = lane_index(r, lane, src_t.itemsize, strides[1], strides[4])
            i1 = lane_index(r, lane, src_t.itemsize, strides[2], strides[5])
            expected[di] = reference(op, x[i0:i0 + 1], y[i1:i1 + 1], d[di:di + 1], dst_t, deq_scale)[0]
    return expected


LEVEL0_CASES = [("AddRelu", 0, 1, (1, 1, 1, 8, 8, 8)), ("SubRelu", 1, 2, (2, 1, 1, 16, 8, 8)),
                ("FusedMulAdd", 0, 3, (1, 2, 1, 8, 16, 8)), ("MulAddDst", 3, 1, (1, 1, 1, 8, 4, 4)),
                ("AddReluCast", 5, 2, (1, 1, 1, 4, 8, 8)), ("MulCast", 7, 3, (1, 1, 2, 4, 8, 16)),
                ("AddDeqRelu", 8, 1, (1, 1, 1, 4, 8, 8)), ("FusedMulAddRelu", 1, 1, (1, 1, 1, 8, 8, 8))]


@pytest.mark.parametrize("op,pair,form,strides", LEVEL0_CASES)
def test_level0_forms_follow_mask_and_strides(kernel, op, pair, form, strides):
    dst_t, src_t = PAIRS[pair]
    lanes = 256 // max(dst_t.itemsize, src_t.itemsize)
    repeat = 3
    n_src = 3 * 256 // src_t.itemsize * 2
    x, y = inputs(src_t, n_src, seed=7 + pair)
    n_dst = 3 * 256 // dst_t.itemsize * 2
    d = (torch.randn(n_dst) * 10).to(dst_t) if dst_t.is_floating_point else torch.full((n_dst,), 5, dtype=dst_t)
    if form == 1:
        lanes_on, mask, mask1 = range(lanes - 3), lanes - 3, 0
    else:
        bits = [lane for lane in range(lanes) if lane % 3 != 1]
        lanes_on = bits
        mask = sum(1 << b for b in bits if b < 64)
        mask1 = sum(1 << (b - 64) for b in bits if b >= 64)
    scale = 0.05 if op == "AddDeqRelu" else 0.0
    out, report = run(kernel, op, pair, x, y, d, form=form, mask=mask, mask1=mask1, repeat=repeat, strides=strides,
                      deq_scale=scale)
    expected = level0_reference(op, pair, x, y, d, lanes_on, repeat, strides, scale)
    torch.testing.assert_close(out, expected, atol=0, rtol=0)
    assert report.vector_ops()[op] == (1, repeat)


def test_is_set_mask_false_takes_the_mask_register(kernel):
    x, y = inputs(torch.float32, 128, seed=3)
    d = torch.zeros(128)
    out, _ = run(kernel, "AddRelu", 0, x, y, d, form=3, mask=(1 << 10) - 1, repeat=2)
    expected = d.clone()
    for r in range(2):
        expected[r * 64:r * 64 + 10] = torch.relu(x[r * 64:r * 64 + 10] + y[r * 64:r * 64 + 10])
    assert torch.equal(out, expected)


def test_in_place_fused_mul_add(kernel):
    x, y = inputs(torch.float32, 64, seed=5)
    d = torch.randn(64)
    # layout 1: src0 is dst itself: dst = dst * dst + src1
    out, _ = run(kernel, "FusedMulAdd", 0, x, y, d, layout=1)
    assert torch.equal(out, d * d + y)


def test_unsupported_pairs_are_reported_at_the_line(kernel):
    i32 = torch.arange(64, dtype=torch.int32)
    err = expect_error("unsupported_dtype", run, kernel, "AddRelu", 9, i32, i32, i32)
    assert err.line == line_of("// @AddRelu") and "int16_t -> int16_t" in err.message
    h = torch.ones(64, dtype=torch.float16)
    err = expect_error("unsupported_dtype", run, kernel, "AddReluCast", 7, h, h, torch.zeros(64, dtype=torch.uint8))
    assert err.line == line_of("// @AddReluCast") and "half -> int8_t" in err.message
    err = expect_error("unsupported_dtype", run, kernel, "MulAddDst", 4, torch.ones(64), torch.ones(64), h)
    assert err.line == line_of("// @MulAddDst")
    err = expect_error("unsupported_dtype", run, kernel, "FusedMulAdd", 2, i32.short(), i32.short(), i32.short())
    assert err.line == line_of("// @FusedMulAdd")


def test_constraints_are_reported(kernel):
    h = torch.ones(128, dtype=torch.float16)
    # MulAddDst half -> float: source and dst may not overlap at all (MulAddDst.md)
    err = expect_error("bad_argument", run, kernel, "MulAddDst", 3, h, h, torch.ones(128), layout=1)
    assert err.line == line_of("// @MulAddDst")
    err = expect_error("bad_argument", run, kernel, "MulAddDst", 3, h, h, torch.ones(128), layout=1, form=1, mask=64,
                       repeat=1, strides=(1, 1, 1, 8, 4, 4))
    assert err.line == line_of("// @MulAddDst_level0") and "overlap" in err.message
    # AddDeqRelu reads DEQSCALE: without SetDeqScale it would use a stale register
    i32 = torch.ones(64, dtype=torch.int32)
    err = expect_error("bad_argument", run, kernel, "AddDeqRelu", 8, i32, i32, torch.zeros(64, dtype=torch.float16))
    assert err.line == line_of("// @AddDeqRelu") and "SetDeqScale" in err.message
    # a partial overlap of dst and src0
    f = torch.ones(128)
    err = expect_error("bad_argument", run, kernel, "AddRelu", 0, f, f, f, layout=2)
    assert err.line == line_of("// @AddRelu")
    # level-0 limits
    err = expect_error("repeat_overflow", run, kernel, "SubRelu", 0, f, f, f, form=1, mask=64, repeat=256)
    assert err.line == line_of("// @SubRelu_level0")
    err = expect_error("bad_mask", run, kernel, "AddReluCast", 5, h, h, torch.zeros(128, dtype=torch.int8), form=1,
                       mask=129, repeat=1, strides=(1, 1, 1, 4, 8, 8))
    assert "1..128" in err.message
    err = expect_error("local_overrun", run, kernel, "FusedMulAdd", 0, f, f, f, form=1, mask=64, repeat=4)
    assert err.line == line_of("// @FusedMulAdd_level0")


def test_half_results_saturate_on_310p(kernel):
    h = torch.float16
    x = torch.tensor([60000.0, 1.0] * 8, dtype=h)
    out, _ = run(kernel, "AddRelu", 1, x, x, torch.zeros(16, dtype=h), soc="Ascend310P3")
    assert out[:2].tolist() == [65504.0, 2.0]
    out, _ = run(kernel, "AddRelu", 1, x, x, torch.zeros(16, dtype=h))
    assert out[0].item() == float("inf")  # A2/A3: IEEE 754 (INF_NAN mode)


# ---------------------------------------------------------------------------------------------
# CastDeq and Cast int32_t -> half: the DEQSCALE register (SetDeqScale's three forms)
# ---------------------------------------------------------------------------------------------

DEQ = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct DeqArgs {
    uint32_t mode;   // see the switch
    uint32_t count;
    float scale;
    int32_t offset;
    uint32_t sign;
    uint32_t repeat;
    uint64_t mask;
};

__aicore__ inline void Groups(const DeqArgs& a, const LocalTensor<uint64_t>& vdeq)
{
    float scale[16];
    int16_t offset[16];
    bool sign[16];
    for (int j = 0; j < 16; ++j) {
        scale[j] = a.scale * (j + 1);
        offset[j] = static_cast<int16_t>(a.offset - j);
        sign[j] = a.sign != 0;
    }
    SetDeqScale(vdeq, VdeqInfo(scale, offset, sign));
}

extern "C" __global__ __aicore__ void deq(GM_ADDR src, GM_ADDR dIn, GM_ADDR out, DeqArgs a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd, bq;
    pipe.InitBuffer(bs, 1024);
    pipe.InitBuffer(bd, 1024);
    pipe.InitBuffer(bq, 128);
    GlobalTensor<uint8_t> sg, dg, og;
    sg.SetGlobalBuffer((__gm__ uint8_t*)src);
    dg.SetGlobalBuffer((__gm__ uint8_t*)dIn);
    og.SetGlobalBuffer((__gm__ uint8_t*)out);
    LocalTensor<uint8_t> s8 = bs.Get<uint8_t>(), d8 = bd.Get<uint8_t>();
    DataCopy(s8, sg, 1024);
    DataCopy(d8, dg, 1024);
    PipeBarrier<PIPE_ALL>();
    LocalTensor<int16_t> s16 = bs.Get<int16_t>();
    LocalTensor<int32_t> s32 = bs.Get<int32_t>();
    LocalTensor<int8_t> dI8 = bd.Get<int8_t>();
    LocalTensor<half> dH = bd.Get<half>();
    UnaryRepeatParams up(1, 1, 8, 8);
    switch (a.mode) {
        case 0:
            SetDeqScale(a.scale, static_cast<int16_t>(a.offset), a.sign != 0);
            CastDeq<uint8_t, int16_t, false, true>(d8, s16, a.count);
            break;
        case 1:
            SetDeqScale(a.scale, static_cast<int16_t>(a.offset), a.sign != 0);
            CastDeq<int8_t, int16_t, false, false>(dI8, s16, a.count);  // @deq_signed
            break;
        case 2:
            Groups(a, bq.Get<uint64_t>());
            CastDeq<int8_t, int16_t, true, true>(dI8, s16, a.count);  // @deq_vec
            break;
        case 3:
            SetDeqScale(static_cast<half>(a.scale));
            CastDeq<half, int32_t>(dH, s32, a.count);
            break;
        case 4:
            SetDeqScale(static_cast<half>(a.scale));
            Cast(dH, s32, RoundMode::CAST_NONE, a.count);  // @cast_deq
            break;
        case 5:
            SetDeqScale(a.scale, static_cast<int16_t>(a.offset), a.sign != 0);
            CastDeq<uint8_t, int16_t, true, false, false>(d8, s16, static_cast<int32_t>(a.mask), a.repeat, up);
            break;
        case 6:
            SetDeqScale(static_cast<half>(a.scale));
            CastDeq<uint8_t, int16_t, false, true>(d8, s16, a.count);  // @deq_wrong_form
            break;
        case 7:
            Cast(dH, s32, RoundMode::CAST_NONE, a.count);  // @cast_no_deq
            break;
        default:
            SetDeqScale(static_cast<half>(a.scale));
            Cast(dH, s32, RoundMode::CAST_NONE, static_cast<uint64_t>(a.mask), a.repeat, up);
            break;
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, d8, 1024);
}
"""


class DeqArgs(ctypes.Structure):
    _fields_ = [("mode", ctypes.c_uint32), ("count", ctypes.c_uint32), ("scale", ctypes.c_float),
                ("offset", ctypes.c_int32), ("sign", ctypes.c_uint32), ("repeat", ctypes.c_uint32),
                ("mask", ctypes.c_uint64)]


@pytest.fixture(scope="module")
def deq_kernel():
    return compile_kernel(DEQ, entry="deq")


def deq_line(marker: str) -> int:
    return next(i for i, text in enumerate(DEQ.splitlines(), 1) if text.rstrip().endswith(marker))


FILL = 0xA5


def run_deq(kernel, mode, src: torch.Tensor, *, count, scale=1.0, offset=0, sign=False, repeat=0, mask=0):
    raw = torch.zeros(1024, dtype=torch.uint8)
    raw[:src.numel() * src.element_size()] = src.view(torch.uint8)
    out = torch.zeros(1024, dtype=torch.uint8)
    d_in = torch.full((1024,), FILL, dtype=torch.uint8)
    report = kernel.launch(1, raw, d_in, out, DeqArgs(mode, count, scale, offset, int(sign), repeat, mask))
    return out, report


def deq8(x: torch.Tensor, scale, offset, dtype) -> torch.Tensor:
    v = torch.round(x.float() * torch.tensor(scale, dtype=torch.float32) + offset)  # half to even
    info = torch.iinfo(dtype)
    return v.clamp(info.min, info.max).to(dtype)


def test_cast_deq_int16_fills_one_half_of_each_block(deq_kernel):
    # CastDeq.md's example: scale 1, offset 0, uint8_t, halfBlock = true: each 16-element source block lands in
    # the upper 16 bytes of a 32-byte dst block; the lower 16 stay as they were
    g = torch.Generator().manual_seed(11)
    x = torch.randint(0, 100, (256,), generator=g, dtype=torch.int16)
    out, report = run_deq(deq_kernel, 0, x, count=256)
    blocks = out[:512].view(16, 32)
    assert torch.equal(blocks[:, 16:].reshape(-1), x.to(torch.uint8))
    assert bool((blocks[:, :16] == FILL).all())
    assert report.vector_ops()["CastDeq"] == (1, 2)
    # scale, offset, saturation, signed output in the lower halves (halfBlock = false), a partial last block
    x = torch.tensor([-300, -3, -1, 0, 1, 3, 5, 7, 100, 200, 300, 1000] * 3, dtype=torch.int16)
    out, _ = run_deq(deq_kernel, 1, x, count=36, scale=0.5, offset=-2, sign=True)
    got = torch.cat([out[0:16], out[32:48], out[64:68]]).view(torch.int8)
    assert torch.equal(got, deq8(x, 0.5, -2, torch.int8))
    assert bool((out[16:32] == FILL).all()) and bool((out[68:96] == FILL).all())


def test_cast_deq_vector_groups_cycle_per_element(deq_kernel):
    x = torch.arange(-40, 40, dtype=torch.int16)
    out, _ = run_deq(deq_kernel, 2, x, count=80, scale=0.25, offset=3, sign=True)
    got = out[:160].view(5, 32)[:, 16:].reshape(-1).view(torch.int8)
    j = torch.arange(80) % 16
    expected = torch.stack([deq8(x[i:i + 1], 0.25 * (int(j[i]) + 1), 3 - int(j[i]), torch.int8)[0] for i in range(80)])
    assert torch.equal(got, expected)


def test_cast_deq_level0_uses_mask_and_strides(deq_kernel):
    x = torch.arange(0, 512, dtype=torch.int16) % 200
    out, _ = run_deq(deq_kernel, 5, x, count=0, scale=1.0, offset=0, repeat=2, mask=100)
    expected = torch.full((1024,), FILL, dtype=torch.uint8)
    for r in range(2):
        for lane in range(100):
            i = r * 128 + lane  # strides 1/8: repeats and blocks contiguous
            expected[r * 256 + (lane // 16) * 32 + lane % 16] = min(255, int(x[i]))  # halfBlock = false: lower half
    assert torch.equal(out, expected)


def test_int32_to_half_dequantises_with_the_half_scale(deq_kernel):
    x = torch.tensor([0, 1, -7, 1000, 123456, -99999, 1 << 20, 3] * 8, dtype=torch.int32)
    scale = torch.tensor(0.1, dtype=torch.float16).float()
    expected = (x.float() * 2.0**-17 * scale * 2.0**17).to(torch.float16)
    for mode in (3, 4):  # CastDeq<half, int32_t>, Cast(..., CAST_NONE) after SetDeqScale(half)
        out, _ = run_deq(deq_kernel, mode, x, count=64, scale=0.1)
        assert torch.equal(out[:128].view(torch.float16), expected), mode
    out, _ = run_deq(deq_kernel, 8, x, count=0, scale=0.1, repeat=1, mask=40)  # Cast level-0: 40 of 64 lanes
    got = out[:128].view(torch.float16)
    assert torch.equal(got[:40], expected[:40]) and bool((out[80:128] == FILL).all())


def test_deq_register_misuse_is_reported(deq_kernel):
    x = torch.ones(64, dtype=torch.int16)
    err = expect_error("bad_argument", run_deq, deq_kernel, 1, x, count=64, sign=False)
    assert err.line == deq_line("// @deq_signed") and "signMode = true" in err.message
    err = expect_error("bad_argument", run_deq, deq_kernel, 6, x, count=64)
    assert err.line == deq_line("// @deq_wrong_form") and "SetDeqScale(half scale)" in err.message
    err = expect_error("bad_argument", run_deq, deq_kernel, 7, x.int(), count=64)
    assert err.line == deq_line("// @cast_no_deq") and "no SetDeqScale has set" in err.message
    err = expect_error("bad_argument", run_deq, deq_kernel, 2, x, count=64, sign=False)
    assert err.line == deq_line("// @deq_vec") and "every vdeq group" in err.message


# ---------------------------------------------------------------------------------------------
# In a pipelined multi-core kernel, written the way AscendC samples are (TQue stages, double buffering)
# ---------------------------------------------------------------------------------------------

PIPELINE = r"""
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

// out = Relu(x * w + b) with FusedMulAddRelu (dst = src0 * dst + src1: dst arrives holding w), and
// q = Relu(Deq(acc0 + acc1)) with AddDeqRelu, tile by tile on every core.
class KernelFused {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR w, GM_ADDR b, GM_ADDR acc, GM_ADDR out, GM_ADDR q,
                                uint32_t blockLength, uint32_t tileLength, float scale)
    {
        const uint32_t offset = blockLength * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float*)x + offset, blockLength);
        wGm.SetGlobalBuffer((__gm__ float*)w + offset, blockLength);
        bGm.SetGlobalBuffer((__gm__ float*)b + offset, blockLength);
        accGm.SetGlobalBuffer((__gm__ int32_t*)acc + 2 * offset, 2 * blockLength);
        outGm.SetGlobalBuffer((__gm__ float*)out + offset, blockLength);
        qGm.SetGlobalBuffer((__gm__ half*)q + offset, blockLength);
        this->tileLength = tileLength;
        this->tileNum = blockLength / tileLength;
        this->scale = scale;
        pipe.InitBuffer(inX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inW, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inB, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inAcc, BUFFER_NUM, 2 * tileLength * sizeof(int32_t));
        pipe.InitBuffer(outQ, BUFFER_NUM, tileLength * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        SetDeqScale(static_cast<half>(scale));
        for (uint32_t i = 0; i < tileNum; ++i) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t i)
    {
        LocalTensor<float> x = inX.AllocTensor<float>(), w = inW.AllocTensor<float>(), b = inB.AllocTensor<float>();
        LocalTensor<int32_t> acc = inAcc.AllocTensor<int32_t>();
        DataCopy(x, xGm[i * tileLength], tileLength);
        DataCopy(w, wGm[i * tileLength], tileLength);
        DataCopy(b, bGm[i * tileLength], tileLength);
        DataCopy(acc, accGm[2 * i * tileLength], 2 * tileLength);
        inX.EnQue(x);
        inW.EnQue(w);
        inB.EnQue(b);
        inAcc.EnQue(acc);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> x = inX.DeQue<float>(), w = inW.DeQue<float>(), b = inB.DeQue<float>();
        LocalTensor<int32_t> acc = inAcc.DeQue<int32_t>();
        LocalTensor<half> q = outQ.AllocTensor<half>();
        FusedMulAddRelu(w, x, b, tileLength);
        AddDeqRelu(q, acc, acc[tileLength], tileLength);
        inW.EnQue(w);
        outQ.EnQue(q);
        inX.FreeTensor(x);
        inB.FreeTensor(b);
        inAcc.FreeTensor(acc);
    }
    __aicore__ inline void CopyOut(uint32_t i)
    {
        LocalTensor<float> w = inW.DeQue<float>();
        LocalTensor<half> q = outQ.DeQue<half>();
        DataCopy(outGm[i * tileLength], w, tileLength);
        DataCopy(qGm[i * tileLength], q, tileLength);
        inW.FreeTensor(w);
        outQ.FreeTensor(q);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX, inW, inB, inAcc;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQ;
    GlobalTensor<float> xGm, wGm, bGm, outGm;
    GlobalTensor<int32_t> accGm;
    GlobalTensor<half> qGm;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    float scale = 0.0f;
};

extern "C" __global__ __aicore__ void fused_pipeline(GM_ADDR x, GM_ADDR w, GM_ADDR b, GM_ADDR acc, GM_ADDR out,
                                                     GM_ADDR q, uint32_t blockLength, uint32_t tileLength, float scale)
{
    KernelFused op;
    op.Init(x, w, b, acc, out, q, blockLength, tileLength, scale);
    op.Process();
}
"""


def test_fused_ops_in_a_pipelined_multicore_kernel():
    kernel = compile_kernel(PIPELINE, entry="fused_pipeline")
    blocks, block_length, tile = 4, 1024, 256
    n = blocks * block_length
    g = torch.Generator().manual_seed(21)
    x, w, b = torch.randn(n, generator=g), torch.randn(n, generator=g), torch.randn(n, generator=g)
    acc = torch.randint(-3000, 3000, (2 * n,), generator=g, dtype=torch.int32)
    out, q = torch.zeros(n), torch.zeros(n, dtype=torch.float16)
    report = kernel.launch(blocks, x, w, b, acc, out, q, block_length, tile, 0.02)
    assert torch.equal(out, torch.relu(x * w + b))  # float32: the product rounds, then the sum
    pairs = acc.view(blocks, -1, 2, tile)  # per core, per tile: acc0 then acc1
    s = (pairs[:, :, 0] + pairs[:, :, 1]).reshape(-1)
    scale = torch.tensor(0.02, dtype=torch.float16).float()
    assert torch.equal(q, torch.relu((s.float() * 2.0**-17 * scale * 2.0**17).half()))
    ops = report.vector_ops()
    assert ops["FusedMulAddRelu"] == (blocks * 4, blocks * 4 * tile * 4 // 256)
    assert ops["AddDeqRelu"] == (blocks * 4, blocks * 4 * tile * 4 // 256)


# The first 48 elements of the worked examples of FusedMulAdd.md, FusedMulAddRelu.md (half) and MulAddDst.md
# (half sources, float dst): src0, src1, dst before, dst after.
DOC_EXAMPLES = {
    "FusedMulAdd": (
        [
            51.4, 25.92, 28.3, 26.62, -4.523, -93.6, 8.71, 21.02, -49.8, -80.4, 95.94, 4.74, 70.25, -60.38, 79.5,
            -18.19, 79.1, -66.7, 62.5, 83.6, -73.1, 72.56, -63.03, 81.3, -62.28, -49.94, -78.7, 56.2, -52.97, 66.2,
            43.94, 13.43, 43.06, 51.16, 34.16, -64.56, -73.1, -94.7, -68.94, 73.06, -93.4, -46.62, -83.75, 15.46,
            32.88, -76.4, 53.84, 70.6],
        [
            -43.1, -90.0, -0.7295, 49.28, -52.12, -55.53, 99.6, 94.4, 62.56, 20.67, -25.4, -70.6, 43.44, 57.97,
            5.355, 38.66, -67.3, -26.72, 43.7, -81.06, 54.47, -71.3, 84.8, 92.9, 49.88, -49.94, 79.75, -71.8, 6.5,
            42.3, 22.44, 6.64, -83.6, -24.3, -97.06, 43.47, -31.06, -9.55, -7.734, -30.27, 70.3, 10.91, 55.72, 60.03,
            85.8, -21.86, -34.28, -1.962],
        [
            -18.36, 44.94, 32.34, -50.0, -99.5, 89.4, 1.568, 61.4, -36.0, -46.28, 54.88, 14.92, 61.2, -16.14, 42.72,
            87.25, -2.787, -66.8, 58.3, 23.94, 89.0, -78.56, -38.94, -78.25, 52.6, 77.94, 84.4, -63.94, 90.7, 51.97,
            84.1, 99.3, -70.1, -3.691, 4.16, 24.98, -91.94, 91.2, 65.3, -47.28, 68.1, -60.2, -90.4, 0.1636, 9.32,
            51.4, 10.45, 46.9],
        [
            -987.0, 1075.0, 914.5, -1282.0, 398.0, -8424.0, 113.3, 1384.0, 1856.0, 3740.0, 5240.0, 0.0625, 4344.0,
            1032.0, 3402.0, -1548.0, -287.8, 4428.0, 3688.0, 1921.0, -6452.0, -5772.0, 2538.0, -6272.0, -3226.0,
            -3942.0, -6560.0, -3664.0, -4796.0, 3482.0, 3718.0, 1341.0, -3104.0, -213.1, 45.06, -1570.0, 6692.0,
            -8640.0, -4512.0, -3484.0, -6288.0, 2816.0, 7624.0, 62.56, 392.2, -3948.0, 528.5, 3310.0],
    ),
    "FusedMulAddRelu": (
        [
            77.25, 59.84, -39.5, 19.3, -45.88, 11.81, -60.75, -99.6, -12.164, 25.75, 100.0, -68.0, -48.12, -4.504,
            -78.5, -53.4, 71.56, -33.5, -78.75, 81.6, 61.25, -6.414, -31.77, -50.38, 84.9, -75.56, 89.06, -50.7,
            93.0, 99.75, 8.1, 58.34, -47.3, 40.78, -98.94, 41.34, 98.5, -21.11, 30.7, 39.3, -82.06, -34.88, -51.44,
            -91.7, -33.12, 71.2, -66.3, -60.2],
        [
            -20.95, -1.547, -46.25, 27.14, 43.16, 21.44, 65.6, 78.25, -72.9, 25.39, 2.133, 76.3, 17.56, -96.9,
            -41.16, -10.734, -2.305, 74.5, -42.2, -63.44, -67.5, -11.62, -78.44, 52.66, 18.8, 45.16, -35.94, 82.44,
            -53.9, 10.54, -86.9, -55.9, 7.22, 85.3, 14.32, -57.53, 52.9, -92.4, 45.0, 31.64, 40.56, 42.06, 70.25,
            -1.671, -24.27, 74.9, 34.56, 96.44],
        [
            -69.5, -8.8, -38.3, 19.9, -70.0, 71.75, -23.17, -13.48, 70.0, -31.16, 29.6, -2.914, 47.6, 83.5, -33.75,
            44.25, -87.9, 3.54, 46.1, 53.8, -4.164, -83.56, -35.6, 58.47, -43.56, -38.03, 63.72, 4.9, -25.56, 73.7,
            34.7, 96.3, -58.34, -56.78, -39.44, 82.5, 34.4, -30.34, -4.72, -97.75, 2.406, -83.1, 17.06, 41.34,
            -45.84, -35.6, 19.58, 27.45],
        [
            0.0, 0.0, 1467.0, 411.5, 3256.0, 869.0, 1474.0, 1421.0, 0.0, 0.0, 2962.0, 274.5, 0.0, 0.0, 2608.0, 0.0,
            0.0, 0.0, 0.0, 4328.0, 0.0, 524.5, 1053.0, 0.0, 0.0, 2920.0, 5640.0, 0.0, 0.0, 7364.0, 194.1, 5564.0,
            2768.0, 0.0, 3916.0, 3352.0, 3442.0, 548.0, 0.0, 0.0, 0.0, 2940.0, 0.0, 0.0, 1495.0, 0.0, 0.0, 0.0],
    ),
    "MulAddDst": (
        [
            -83.0, 58.2, -14.28, -43.12, 20.72, -79.9, 54.16, 31.56, -1.464, 68.25, -28.31, -93.5, -4.2, -46.56,
            -22.23, 78.5, -69.56, -37.03, -53.12, 58.28, -71.56, -34.44, 85.94, 96.3, 66.06, 99.94, -45.94, 8.75,
            -93.9, 35.56, 82.56, -70.8, -68.75, -35.4, 95.3, -49.1, -56.34, 86.75, 90.25, 24.17, 79.06, -49.66,
            -95.3, -6.965, -63.72, -33.16, -15.56, -43.28],
        [
            -57.97, 43.5, 8.08, 72.4, -81.44, -52.0, 69.1, -84.25, 31.12, 34.34, 74.75, 83.56, -83.0, 80.1, 42.84,
            -31.6, 88.56, 47.34, 18.89, -95.25, 16.88, -85.75, 76.75, -17.19, 23.39, 92.56, 22.81, 77.94, 38.62,
            -55.8, 38.22, -88.6, -99.4, -66.75, 90.44, 80.56, 12.78, -12.6, -68.4, 2.816, 27.45, -60.88, 70.0, 61.78,
            -90.56, -99.25, 38.25, -14.49],
        [
            -97.94773, -61.303955, 32.56878, -87.50743, -78.92147, 59.20739, 50.336506, 49.039738, -76.2525,
            0.25441223, -71.73807, 6.481831, -55.5052, -51.057415, 31.403702, 63.285076, 98.1897, 86.71727,
            -50.16466, 88.94256, 72.111435, 8.4164915, 34.524082, 73.14016, 4.838548, 69.67902, -97.855736,
            90.358696, 9.051491, 37.595695, -66.01661, -97.110634, 82.84477, 69.46122, 25.561102, 47.926853,
            -10.202202, 78.2545, 31.339691, 12.940468, -31.499294, -3.351652, 62.46355, 45.0427, -86.02812,
            -43.48385, -62.274956, -36.077827],
        [
            4713.4585, 2469.85229, -82.7969437, -3208.6792, -1766.20471, 4212.70752, 3793.88721, -2610.10083,
            -121.815369, 2344.21533, -2188.09741, -7806.61182, 293.029968, -3781.87769, -921.200317, -2416.82422,
            -6062.43945, -1666.48096, -1053.72913, -5462.34668, -1135.50574, 2961.43213, 6630.22705, -1582.23096,
            1550.08167, 9320.14355, -1145.80493, 772.311829, -3616.87036, -1947.23633, 3089.41895, 6178.64697,
            6914.87598, 2432.82837, 8645.38574, -3907.18848, -730.345764, -1014.93103, -6139.50391, 81.0182877,
            2139.01343, 3019.47266, -6609.41162, -385.254059, 5684.50098, 3247.27393, -657.540588, 591.16217],
    ),
}
