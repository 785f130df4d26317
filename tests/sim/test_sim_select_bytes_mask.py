"""The high-level Select with a byte mask (sim/select_bytes_mask.h) and its host helper (host/tiling/select_tiling.h)
against torch.where. One contract kernel, built once per module.
"""

from __future__ import annotations

import struct

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF = 0, 1
MASKS = {0: torch.bool, 1: torch.int16, 2: torch.uint8, 3: torch.int32}

SOURCE = r"""
#include "kernel_operator.h"
#include "host/tiling/select_tiling.h"
using namespace AscendC;

struct TilingData {
    uint32_t reuseMin, keepMin;
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    std::vector<int64_t> src = {dims[0], dims[1]}, scalar = {1}, mask = {dims[0], dims[2]};
    uint32_t maxValue = 0;
    GetSelectMaxMinTmpSize(src, scalar, 4, mask, 1, true, maxValue, t->reuseMin);
    t->keepMin = GetSelectMinTmpSize(src, scalar, 4, mask, 1, false);
    *workspaceBytes = 0;
    return 1;
}

template <typename T, typename U>
__aicore__ inline void Apply(uint32_t op, const LocalTensor<uint8_t>& sB, const LocalTensor<uint8_t>& mB,
                             const LocalTensor<uint8_t>& dB, const LocalTensor<uint8_t>& tmp,
                             const SelectWithBytesMaskShapeInfo& info, float scalar, uint32_t layout)
{
    LocalTensor<T> src = sB.ReinterpretCast<T>(), dst = layout == 1 ? src : dB.ReinterpretCast<T>();
    LocalTensor<U> mask = mB.ReinterpretCast<U>();
    src.SetSize(info.firstAxis * info.srcLastAxis);
    mask.SetSize(info.firstAxis * info.maskLastAxis);
    if (op == 0) Select(dst, src, (T)scalar, mask, tmp, info);  // @sel
    else if (op == 1) Select(dst, (T)scalar, src, mask, tmp, info);
    else Select<T, U, false>(dst, src, (T)scalar, mask, tmp, info);  // @sel_keep
}

template <typename T>
__aicore__ inline void ByMask(uint32_t maskType, uint32_t op, const LocalTensor<uint8_t>& sB,
                              const LocalTensor<uint8_t>& mB, const LocalTensor<uint8_t>& dB,
                              const LocalTensor<uint8_t>& tmp, const SelectWithBytesMaskShapeInfo& info, float s,
                              uint32_t layout)
{
    if (maskType == 0) Apply<T, bool>(op, sB, mB, dB, tmp, info, s, layout);
    else if (maskType == 1) Apply<T, int16_t>(op, sB, mB, dB, tmp, info, s, layout);
    else if (maskType == 2) Apply<T, uint8_t>(op, sB, mB, dB, tmp, info, s, layout);
    else Apply<T, int32_t>(op, sB, mB, dB, tmp, info, s, layout);
}

extern "C" __global__ __aicore__ void select_bytes(GM_ADDR src, GM_ADDR mask, GM_ADDR dst, GM_ADDR workspace,
                                                   GM_ADDR tiling, uint32_t dtype, uint32_t maskType, uint32_t op,
                                                   uint32_t rows, uint32_t n, uint32_t k, uint32_t tmpBytes,
                                                   uint32_t layout, float scalar)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bm, bd, btmp;
    pipe.InitBuffer(bs, 8192);
    pipe.InitBuffer(bm, 8192);
    pipe.InitBuffer(bd, 8192);
    pipe.InitBuffer(btmp, tmpBytes);
    LocalTensor<uint8_t> s = bs.Get<uint8_t>(), m = bm.Get<uint8_t>(), d = bd.Get<uint8_t>();
    LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
    GlobalTensor<uint8_t> sg, mg, dg;
    sg.SetGlobalBuffer((__gm__ uint8_t*)src);
    mg.SetGlobalBuffer((__gm__ uint8_t*)mask);
    dg.SetGlobalBuffer((__gm__ uint8_t*)dst);
    DataCopy(s, sg, 8192);
    DataCopy(m, mg, 8192);
    PipeBarrier<PIPE_ALL>();
    SelectWithBytesMaskShapeInfo info;
    info.firstAxis = rows;
    info.srcLastAxis = n;
    info.maskLastAxis = k;
    if (dtype == 0) ByMask<float>(maskType, op, s, m, d, tmp, info, scalar, layout);
    else ByMask<half>(maskType, op, s, m, d, tmp, info, scalar, layout);
    PipeBarrier<PIPE_ALL>();
    DataCopy(dg, layout == 1 ? s : d, 8192);
    DataCopy(mg, m, 8192);
}
"""


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="select_bytes", contract=True)


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def raw(t: torch.Tensor) -> torch.Tensor:
    buf = torch.zeros(8192, dtype=torch.uint8)
    flat = t.contiguous().reshape(-1).view(torch.uint8)
    buf[:flat.numel()] = flat
    return buf


def run(kernel, dtype, mask_type, op, src, mask, scalar, *, tmp_bytes=2048, layout=0, soc=None):
    rows, n = src.shape
    k = mask.shape[1]
    d, m = torch.zeros(8192, dtype=torch.uint8), raw(mask)
    kernel.launch(1, raw(src), m, d, None, bytes(8), dtype, mask_type, op, rows, n, k, tmp_bytes, layout, scalar,
                  soc=soc)
    return d.view(src.dtype)[:rows * n].view(rows, n), m.view(mask.dtype)[:mask.numel()].view(mask.shape)


def mask_of(rows, k, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    bits = torch.rand(rows, k, generator=g) > 0.5
    return bits if dtype == torch.bool else (bits.to(torch.int32) * 3).to(dtype)


@pytest.mark.parametrize("mask_type", [0, 1, 2, 3])
@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_select_matches_torch_where(kernel, dtype, mask_type):
    t = torch.float32 if dtype == FLOAT else torch.float16
    src = torch.randn(4, 32, generator=torch.Generator().manual_seed(1)).to(t)
    mask = mask_of(4, 32, MASKS[mask_type])
    y, _ = run(kernel, dtype, mask_type, 0, src, mask, 2.5)
    assert torch.equal(y, torch.where(mask != 0, torch.tensor(2.5, dtype=t), src))  # mask 0: src0 (the tensor)
    y, _ = run(kernel, dtype, mask_type, 1, src, mask, 2.5)
    assert torch.equal(y, torch.where(mask != 0, src, torch.tensor(2.5, dtype=t)))  # scalar src0: mask 0 picks it


def test_wider_mask_rows_are_cut_and_may_be_rewritten(kernel):
    src = torch.randn(3, 16)
    mask = mask_of(3, 64, torch.bool, seed=2)
    y, mask_after = run(kernel, FLOAT, 0, 0, src, mask, -1.0)
    assert torch.equal(y, torch.where(mask[:, :16], torch.tensor(-1.0), src))
    assert not torch.equal(mask_after, mask)  # isReuseMask (default): the mask is scratch afterwards
    y, mask_after = run(kernel, FLOAT, 0, 2, src, mask, -1.0)  # isReuseMask = false keeps it
    assert torch.equal(y, torch.where(mask[:, :16], torch.tensor(-1.0), src)) and torch.equal(mask_after, mask)


def test_in_place_and_rules(kernel):
    src = torch.randn(2, 32)
    mask = mask_of(2, 32, torch.bool)
    y, _ = run(kernel, FLOAT, 0, 0, src, mask, 0.0, layout=1)  # dst over src: allowed
    assert torch.equal(y, torch.where(mask, torch.tensor(0.0), src))
    err = expect_error("bad_argument", run, kernel, FLOAT, 0, 0, src, mask_of(2, 8, torch.bool), 0.0)
    assert err.line == line_of("// @sel") and "multiple of 16" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 0, 0, torch.randn(2, 12), mask_of(2, 32, torch.bool), 0.0)
    assert "32-byte aligned" in err.message
    y, _ = run(kernel, FLOAT, 0, 0, src, mask, 0.0, soc="Ascend310P3")  # 310P: as A2
    assert torch.equal(y, torch.where(mask, torch.tensor(0.0), src))


def test_host_minimum_is_what_the_kernel_needs(kernel):
    reuse_min, keep_min = struct.unpack_from("<2I", kernel.tiling([[3, 16, 64]]).data)
    assert reuse_min == 256 and keep_min == 256 + 3 * 32
    src, mask = torch.randn(3, 16), mask_of(3, 64, torch.bool)
    run(kernel, FLOAT, 0, 2, src, mask, 1.0, tmp_bytes=keep_min)
    err = expect_error("local_overrun", run, kernel, FLOAT, 0, 2, src, mask, 1.0, tmp_bytes=keep_min - 32)
    assert err.line == line_of("// @sel_keep")
