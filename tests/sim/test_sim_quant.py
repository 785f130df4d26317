"""AscendQuant, AscendDequant and AscendAntiQuant (sim/quant.h) against torch.

One kernel, built once per module; `op` picks the API form and type combination. Operands travel as raw bytes
and are reinterpreted in the kernel, sized exactly with SetSize where the API reads a tensor's size.
"""

from __future__ import annotations

import math

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF = 0, 1
BYTES = 8192

SOURCE = r"""
#include "kernel_operator.h"
#include "host/tiling/quant_tiling.h"
using namespace AscendC;

struct TilingData {
    uint32_t quantMax, quantMin, dequantMax, dequantMin, antiMax, antiMin;
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    std::vector<int64_t> shape = {dims[0], dims[1]}, scale = {dims[1]};
    GetAscendQuantMaxMinTmpSize(shape, 2, t->quantMax, t->quantMin);
    GetAscendDequantMaxMinTmpSize(shape, 4, t->dequantMax, t->dequantMin);
    GetAscendAntiQuantMaxMinTmpSize(shape, scale, false, 2, 1, t->antiMax, t->antiMin);
    *workspaceBytes = 0;
    return 1;
}

struct Args {
    uint32_t op, n, scaleCount, m, cols, calCount, k, layout;
    float scale, offset;
};

constexpr AscendQuantConfig CONST_256 = {256, 0, 0, 0};

template <typename T>
__aicore__ inline LocalTensor<T> As(const LocalTensor<uint8_t>& b, uint32_t count)
{
    LocalTensor<T> t = b.ReinterpretCast<T>();
    t.SetSize(count);
    return t;
}

template <typename T>
__aicore__ inline void Quant(const Args& a, const LocalTensor<uint8_t>& dB, const LocalTensor<uint8_t>& sB,
                             const LocalTensor<uint8_t>& scB, const LocalTensor<uint8_t>& ofB,
                             const LocalTensor<uint8_t>& tmp)
{
    LocalTensor<int8_t> dst = As<int8_t>(dB, a.n);
    LocalTensor<T> src = As<T>(sB, a.n), scale = As<T>(scB, a.scaleCount), offset = As<T>(ofB, a.scaleCount);
    switch (a.op) {
        case 0: AscendQuant<T>(dst, src, tmp, a.scale, a.offset, a.n); break;  // @quant
        case 1: AscendQuant<T>(dst, src, a.scale, a.offset, a.n); break;
        case 2: AscendQuant<T>(dst, src, tmp, scale, (T)a.offset, a.scaleCount, a.n); break;  // @quant_channel
        case 3: AscendQuant<T>(dst, src, tmp, scale, offset, a.scaleCount, a.scaleCount, a.n); break;
        case 4: AscendQuant<T>(dst, src, scale, offset, a.scaleCount, a.scaleCount, a.n); break;
        case 5: AscendQuant<T>(dst, src, tmp, scale, offset); break;
        case 6: AscendQuant<T, false, CONST_256>(dst, src, tmp, a.scale, a.offset, a.n); break;  // @quant_const
    }
}

__aicore__ inline void Dequant(const Args& a, const LocalTensor<uint8_t>& dB, const LocalTensor<uint8_t>& sB,
                               const LocalTensor<uint8_t>& scB, const LocalTensor<uint8_t>& tmp)
{
    LocalTensor<int32_t> src = As<int32_t>(sB, a.m * a.cols);
    DequantParams p = {a.m, a.cols, a.calCount};
    switch (a.op) {
        case 10: AscendDequant(As<float>(dB, 2048), src, As<float>(scB, a.calCount), tmp, p); break;  // @dequant
        case 11: AscendDequant<float, float>(As<float>(dB, 2048), src, a.scale, tmp, p); break;
        case 12: AscendDequant(As<bfloat16_t>(dB, 4096), src, As<float>(scB, a.calCount), p); break;
        case 13: AscendDequant(As<half>(dB, 4096), src, As<uint64_t>(scB, a.calCount), tmp, p); break;
        case 14: AscendDequant(As<float>(dB, 2048), src, As<bfloat16_t>(scB, a.calCount), tmp, p); break;
        case 15: AscendDequant<half, float>(As<half>(dB, 4096), src, a.scale, tmp, p); break;  // @dequant_bad
        case 16: AscendDequant<float, float, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(
                     As<float>(dB, 2048), src, As<float>(scB, a.calCount), tmp, p); break;
        case 17: AscendDequant(As<float>(dB, 2048), src, As<float>(scB, a.calCount), p); break;
    }
}

template <typename O>
__aicore__ inline void Anti(const Args& a, const LocalTensor<uint8_t>& dB, const LocalTensor<uint8_t>& sB,
                            const LocalTensor<uint8_t>& scB, const LocalTensor<uint8_t>& ofB,
                            const LocalTensor<uint8_t>& tmp)
{
    LocalTensor<O> dst = As<O>(dB, a.n), scale = As<O>(scB, a.scaleCount), offset = As<O>(ofB, a.scaleCount);
    LocalTensor<int8_t> src = As<int8_t>(sB, a.n);
    switch (a.op) {
        case 20: AscendAntiQuant<int8_t, O, false>(dst, src, offset, scale, tmp, a.k); break;  // @anti
        case 21: AscendAntiQuant<int8_t, O, true>(dst, src, offset, scale, tmp, a.k); break;  // @anti_t
        case 22: AscendAntiQuant<int8_t, O, false>(dst, src, (O)a.offset, (O)a.scale, tmp, a.k); break;
        case 23: AscendAntiQuant<int8_t, O, false>(dst, src, scale, tmp, a.k); break;
        case 24: AscendAntiQuant<int8_t, O, false>(dst, src, offset, scale, a.k); break;
    }
}

extern "C" __global__ __aicore__ void quant_family(GM_ADDR src, GM_ADDR scale, GM_ADDR offset, GM_ADDR dst,
                                                   uint32_t dtype, Args a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bsc, bof, bd, btmp;
    pipe.InitBuffer(bs, 8192);
    pipe.InitBuffer(bsc, 8192);
    pipe.InitBuffer(bof, 8192);
    pipe.InitBuffer(bd, 8192);
    pipe.InitBuffer(btmp, 1024);
    LocalTensor<uint8_t> sB = bs.Get<uint8_t>(), scB = bsc.Get<uint8_t>(), ofB = bof.Get<uint8_t>();
    LocalTensor<uint8_t> dB = bd.Get<uint8_t>(), tmp = btmp.Get<uint8_t>();
    GlobalTensor<uint8_t> sg, scg, ofg, dg;
    sg.SetGlobalBuffer((__gm__ uint8_t*)src);
    scg.SetGlobalBuffer((__gm__ uint8_t*)scale);
    ofg.SetGlobalBuffer((__gm__ uint8_t*)offset);
    dg.SetGlobalBuffer((__gm__ uint8_t*)dst);
    DataCopy(sB, sg, 8192);
    DataCopy(scB, scg, 8192);
    DataCopy(ofB, ofg, 8192);
    DataCopy(dB, dg, 8192);
    PipeBarrier<PIPE_ALL>();
    if (a.layout == 1) dB = sB;
    if (a.layout == 2) tmp = sB;
    if (a.layout == 3) tmp.SetSize(a.k);  // a tmp buffer of k bytes
    if (a.op < 10) {
        if (dtype == 0) Quant<float>(a, dB, sB, scB, ofB, tmp);
        else Quant<half>(a, dB, sB, scB, ofB, tmp);
    } else if (a.op < 20) {
        Dequant(a, dB, sB, scB, tmp);
    } else {
        if (dtype == 0) Anti<half>(a, dB, sB, scB, ofB, tmp);
        else Anti<bfloat16_t>(a, dB, sB, scB, ofB, tmp);
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(dg, dB, 8192);
}
"""


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="quant_family", contract=True)


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def raw(t: torch.Tensor | None) -> torch.Tensor:
    buf = torch.zeros(BYTES, dtype=torch.uint8)
    if t is not None:
        flat = t.contiguous().reshape(-1).view(torch.uint8)
        buf[:flat.numel()] = flat
    return buf


def run(kernel, dtype, op, src, *, scale=None, offset=None, n=0, scale_count=0, m=0, cols=0, cal=0, k=0, layout=0,
        s=0.0, o=0.0, soc=None):
    dst = torch.full((BYTES,), 0x77, dtype=torch.uint8)
    args = torch.tensor([op, n, scale_count, m, cols, cal, k, layout], dtype=torch.int32).view(torch.uint8)
    args = bytes(args.numpy()) + torch.tensor([s, o], dtype=torch.float32).numpy().tobytes()
    report = kernel.launch(1, raw(src), raw(scale), raw(offset), dst, dtype, args, soc=soc)
    return dst, report


def quant_ref(x, scale, offset):
    """AscendQuant.md's steps: to half, multiply and add in half, round half to even to int8, saturating."""
    t = x.half() * scale.half()
    t = t + offset.half()
    return torch.round(t.float()).clamp(-128, 127).to(torch.int8)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_quant_per_tensor(kernel, dtype):
    t = torch.float32 if dtype == FLOAT else torch.float16
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(256, generator=g) * 40).to(t)
    x[:4] = torch.tensor([0.5, 2.5, 1000.0, -1000.0])  # 0.5 and 1.5: ties go to even; out of range saturates
    expected = quant_ref(x, torch.tensor(0.5), torch.tensor(0.25))
    for op in (0, 1):
        dst, _ = run(kernel, dtype, op, x, n=256, s=0.5, o=0.25)
        assert torch.equal(dst[:256].view(torch.int8), expected)
    assert dst[:4].view(torch.int8).tolist() == [0, 2, 127, -128]
    assert (dst[256:] == 0x77).all()


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_quant_per_channel(kernel, dtype):
    t = torch.float32 if dtype == FLOAT else torch.float16
    g = torch.Generator().manual_seed(1)
    x = (torch.randn(4, 64, generator=g) * 20).to(t)
    scale = (torch.rand(64, generator=g) * 2).to(t)
    offset = (torch.randn(64, generator=g) * 3).to(t)
    dst, _ = run(kernel, dtype, 2, x, scale=scale, n=256, scale_count=64, o=1.5)
    assert torch.equal(dst[:256].view(torch.int8).view(4, 64), quant_ref(x, scale, torch.tensor(1.5)))
    for op in (3, 4):
        dst, _ = run(kernel, dtype, op, x, scale=scale, offset=offset, n=256, scale_count=64)
        assert torch.equal(dst[:256].view(torch.int8).view(4, 64), quant_ref(x, scale, offset))
    # the whole-tensor form takes the counts from the tensors' sizes
    dst, _ = run(kernel, dtype, 5, x, scale=scale, offset=offset, n=256, scale_count=64)
    assert torch.equal(dst[:256].view(torch.int8).view(4, 64), quant_ref(x, scale, offset))


def test_quant_rules(kernel):
    x = torch.randn(256)
    err = expect_error("bad_argument", run, kernel, FLOAT, 0, x, n=100, s=1.0)
    assert err.line == line_of("// @quant") and "multiple of 32" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 0, x, n=256, s=1e6)
    assert err.line == line_of("// @quant") and "half's range" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 2, x, scale=torch.ones(48), n=256, scale_count=48)
    assert err.line == line_of("// @quant_channel") and "scaleCount 48" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 0, x, n=256, s=1.0, layout=2)
    assert "sharedTmpBuffer overlaps srcTensor" in err.message
    dst, _ = run(kernel, FLOAT, 0, x, n=256, s=2.0, layout=1)  # dst over src: allowed
    assert torch.equal(dst[:256].view(torch.int8), quant_ref(x, torch.tensor(2.0), torch.tensor(0.0)))


def test_quant_config_constants_must_match(kernel):
    x = torch.randn(256)
    dst, _ = run(kernel, FLOAT, 6, x, n=256, s=2.0)  # calcCount 256 == calCount: fine
    assert torch.equal(dst[:256].view(torch.int8), quant_ref(x, torch.tensor(2.0), torch.tensor(0.0)))
    err = expect_error("bad_argument", run, kernel, FLOAT, 6, x, n=128, s=2.0)
    assert err.line == line_of("// @quant_const") and "calcCount 256" in err.message


def test_dequant_rows_and_padding(kernel):
    g = torch.Generator().manual_seed(2)
    src = torch.randint(-1000, 1000, (4, 16), generator=g, dtype=torch.int32)
    scale = torch.rand(16, generator=g) * 0.01
    dst, _ = run(kernel, 0, 10, src, scale=scale, m=4, cols=16, cal=12)
    out = dst.view(torch.float32)[:64].view(4, 16)
    torch.testing.assert_close(out[:, :12], (src[:, :12].double() * scale[:12].double()).float(), rtol=1e-6, atol=0)
    assert torch.isnan(out[:, 12:]).all()  # AscendDequant.md: the rest of each row is undefined
    dst, _ = run(kernel, 0, 11, src, m=4, cols=16, cal=16, s=0.125)
    torch.testing.assert_close(dst.view(torch.float32)[:64].view(4, 16), src.float() * 0.125)


def test_dequant_type_combinations(kernel):
    g = torch.Generator().manual_seed(3)
    src = torch.randint(-5000, 5000, (2, 8), generator=g, dtype=torch.int32)
    scale = torch.rand(8, generator=g) * 0.1
    # bfloat16 dst: rows padded to 16 elements (32 bytes)
    dst, _ = run(kernel, 0, 12, src, scale=scale, m=2, cols=8, cal=8)
    out = dst.view(torch.bfloat16)[:32].view(2, 16)
    assert torch.equal(out[:, :8], (src.float() * scale).to(torch.bfloat16))
    # half dst with a uint64_t scale: the low 32 bits are the float
    packed = scale.view(torch.int32).to(torch.int64) | (0x5 << 40)
    dst, _ = run(kernel, 0, 13, src, scale=packed, m=2, cols=8, cal=8)
    assert torch.equal(dst.view(torch.float16)[:32].view(2, 16)[:, :8], (src.float() * scale).half())
    bf = scale.to(torch.bfloat16)
    dst, _ = run(kernel, 0, 14, src, scale=bf, m=2, cols=8, cal=8)
    torch.testing.assert_close(dst.view(torch.float32)[:16].view(2, 8), src.float() * bf.float())
    err = expect_error("unsupported_dtype", run, kernel, 0, 15, src, m=2, cols=8, cal=8, s=1.0)
    assert err.line == line_of("// @dequant_bad") and "not a documented combination" in err.message


def test_dequant_single_row_mode(kernel):
    src = torch.arange(32, dtype=torch.int32).view(1, 32)
    scale = torch.arange(1, 9, dtype=torch.float32)
    # {1, 32, 8} with SINGLE_ROW (default) is {4, 8, 8}: the scale repeats every 8 elements
    dst, _ = run(kernel, 0, 10, src, scale=scale, m=1, cols=32, cal=8)
    assert torch.equal(dst.view(torch.float32)[:32], src.float().view(4, 8).mul(scale).reshape(-1))
    # MULTI_ROW keeps one row: only the first 8 elements are computed
    dst, _ = run(kernel, 0, 16, src, scale=scale, m=1, cols=32, cal=8)
    out = dst.view(torch.float32)[:32]
    assert torch.equal(out[:8], src[0, :8].float() * scale) and torch.isnan(out[8:]).all()


def test_dequant_rules(kernel):
    src = torch.zeros(4, 12, dtype=torch.int32)
    err = expect_error("bad_argument", run, kernel, 0, 10, src, scale=torch.ones(12), m=4, cols=12, cal=12)
    assert err.line == line_of("// @dequant") and "multiple of 32 bytes" in err.message
    src = torch.arange(16, dtype=torch.int32).view(2, 8)
    dst, _ = run(kernel, 0, 10, src, scale=torch.full((8,), 0.5), m=2, cols=8, cal=8, soc="Ascend310P3")
    assert torch.equal(dst.view(torch.float32)[:16].view(2, 8), src.float() * 0.5)  # 310P AI Core (hiascend's page)
    err = expect_error("unsupported_dtype", run, kernel, 0, 12, src, scale=torch.ones(8), m=2, cols=8, cal=8,
                       soc="Ascend310P3")  # but no bfloat16_t there
    assert "bfloat16_t" in err.message


def anti_ref_half(src, offset, scale):
    return (src.half() + offset.half()) * scale.half()


def test_anti_quant_per_channel(kernel):
    g = torch.Generator().manual_seed(4)
    src = torch.randint(-128, 128, (8, 64), generator=g, dtype=torch.int8)  # [K, N], K = 8
    offset = torch.randn(2, 64, generator=g).half()  # groupSize 4 along K
    scale = torch.rand(2, 64, generator=g).half()
    dst, _ = run(kernel, 0, 20, src, scale=scale, offset=offset, n=512, scale_count=128, k=8)
    expected = anti_ref_half(src, offset.repeat_interleave(4, 0), scale.repeat_interleave(4, 0))
    assert torch.equal(dst.view(torch.float16)[:512].view(8, 64), expected)
    # isTranspose: src [N, K] = [8, 64] with K = 64, scale/offset [N, K/groupSize] = [8, 2]
    offset_t, scale_t = offset.reshape(8, 16)[:, :2].contiguous(), scale.reshape(8, 16)[:, :2].contiguous()
    dst, _ = run(kernel, 0, 21, src, scale=scale_t, offset=offset_t, n=512, scale_count=16, k=64)
    expected = anti_ref_half(src, offset_t.repeat_interleave(32, 1), scale_t.repeat_interleave(32, 1))
    assert torch.equal(dst.view(torch.float16)[:512].view(8, 64), expected)
    # no offset
    dst, _ = run(kernel, 0, 23, src, scale=scale, n=512, scale_count=128, k=8)
    assert torch.equal(dst.view(torch.float16)[:512].view(8, 64), src.half() * scale.repeat_interleave(4, 0))


def test_anti_quant_per_tensor_and_bfloat16(kernel):
    g = torch.Generator().manual_seed(5)
    src = torch.randint(-128, 128, (4, 32), generator=g, dtype=torch.int8)
    dst, _ = run(kernel, 0, 22, src, n=128, k=4, s=0.5, o=-3.0)
    assert torch.equal(dst.view(torch.float16)[:128].view(4, 32),
                       anti_ref_half(src, torch.tensor(-3.0), torch.tensor(0.5)).expand(4, 32))
    offset = torch.randn(1, 32, generator=g).to(torch.bfloat16)
    scale = torch.rand(1, 32, generator=g).to(torch.bfloat16)
    dst, _ = run(kernel, 1, 20, src, scale=scale, offset=offset, n=128, scale_count=32, k=4)
    expected = ((src.float() + offset.float()) * scale.float()).to(torch.bfloat16)
    assert torch.equal(dst.view(torch.bfloat16)[:128].view(4, 32), expected)


def test_anti_quant_rules(kernel):
    src = torch.zeros(4, 48, dtype=torch.int8)
    err = expect_error("bad_argument", run, kernel, 0, 21, src, scale=torch.ones(4).half(),
                       offset=torch.ones(4).half(), n=192, scale_count=4, k=48)
    assert err.line == line_of("// @anti_t") and "k itself 32-byte aligned" in err.message
    err = expect_error("bad_argument", run, kernel, 0, 20, torch.zeros(8, 32, dtype=torch.int8),
                       scale=torch.ones(96).half(), offset=torch.ones(96).half(), n=256, scale_count=96, k=8)
    assert err.line == line_of("// @anti") and "equal groups" in err.message
    err = expect_error("bad_argument", run, kernel, 0, 20, torch.zeros(8, 32, dtype=torch.int8),
                       scale=torch.ones(32).half(), offset=torch.ones(32).half(), n=256, scale_count=32, k=8,
                       layout=1)
    assert "dst and src overlap" in err.message


def test_cost(kernel):
    _, report = run(kernel, FLOAT, 0, torch.randn(256), n=256, s=1.0)
    assert report.vector_ops()["AscendQuant"] == (1, 4 * math.ceil(256 * 4 / 256))


def test_host_tmp_sizes_are_what_the_kernel_needs(kernel):
    import struct

    sizes = struct.unpack_from("<6I", kernel.tiling([[4, 64], [1]]).data)
    assert sizes[1] == sizes[3] == sizes[5] == 512  # the minimum of every quantization API
    assert sizes[0] == sizes[2] == sizes[4] == 2 * 4 * 64 * 4
    x = torch.randn(256)
    run(kernel, FLOAT, 0, x, n=256, s=1.0, layout=3, k=512)
    err = expect_error("local_overrun", run, kernel, FLOAT, 0, x, n=256, s=1.0, layout=3, k=480)
    assert "at least 512 bytes" in err.message
