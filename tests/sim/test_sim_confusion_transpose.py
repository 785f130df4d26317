"""Transpose with TransposeType and ConfusionTransposeTiling (sim/confusion_transpose.h) and its host tiling
(host/tiling/transpose_tiling.h) against torch: the seven scenarios of Transpose-39.md, layouts as its shapes give
them (NZ of [R, C] is [C/16, R/16, 16, 16]), Transpose-Tiling.md's host functions and its [1, 2, 64, 32] example.

One contract kernel, built once per module: the host tiling function fills ConfusionTransposeTiling for the
pseudo-shapes [[B, N, S, H/N], [typeSize, stack, transposeTypeIn]] ([H, W] for scenario 7 travels as B = N = 1).
"""

from __future__ import annotations

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF, I16, I32 = 0, 1, 2, 3
DTYPES = {FLOAT: torch.float32, HALF: torch.float16, I16: torch.int16, I32: torch.int32}

SOURCE = r"""
#include "kernel_operator.h"
#include "host/tiling/tiling_api.h"
using namespace AscendC;

struct TilingData {
    uint32_t total;
    uint32_t minTmp;
    uint32_t maxTmp;
    optiling::ConfusionTransposeTiling transpose;  // as an op_host TilingData names it
};

struct GeShape {
    std::vector<int64_t> dims;
    size_t GetDimNum() const { return dims.size(); }
    int64_t GetDim(size_t i) const { return dims[i]; }
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    uint32_t typeSize = dims[4], stack = dims[5], type = dims[6];
    GeShape shape{type == 7 ? std::vector<int64_t>{dims[2], dims[3]}
                            : std::vector<int64_t>{dims[0], dims[1], dims[2], dims[3]}};
    t->total = dims[0] * dims[1] * dims[2] * dims[3];
    GetTransposeMaxMinTmpSize(shape, typeSize, type, t->maxTmp, t->minTmp);
    if (type == 7) GetConfusionTransposeOnlyTilingInfo(shape, stack, typeSize, t->transpose);
    else GetTransposeTilingInfo(shape, stack, typeSize, type, t->transpose);
    *workspaceBytes = 0;
    return 1;
}

template <typename T>
__aicore__ inline void Apply(LocalTensor<uint8_t> y, LocalTensor<uint8_t> x, LocalTensor<uint8_t> tmp,
                             const TilingData& tilingData, uint32_t callType, uint32_t withTmp)
{
    ConfusionTransposeTiling tiling = tilingData.transpose;
    LocalTensor<T> dst = y.ReinterpretCast<T>(), src = x.ReinterpretCast<T>();
    if (withTmp) Transpose(dst, src, tmp, (TransposeType)callType, tiling);  // @tmp
    else Transpose(dst, src, (TransposeType)callType, tiling);  // @no_tmp
}

extern "C" __global__ __aicore__ void confusion(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling,
                                                uint32_t dtype, uint32_t callType, uint32_t withTmp,
                                                uint32_t tmpBytes, uint32_t sameBuf)
{
    GET_TILING_DATA(t, tiling);
    uint32_t bytes = t.total * (dtype == 0 || dtype == 3 ? 4 : 2);
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bt;
    pipe.InitBuffer(bx, bytes);
    pipe.InitBuffer(by, bytes);
    pipe.InitBuffer(bt, tmpBytes);
    LocalTensor<uint8_t> xl = bx.Get<uint8_t>(), yl = by.Get<uint8_t>(), tmp = bt.Get<uint8_t>();
    GlobalTensor<uint8_t> xg, yg;
    xg.SetGlobalBuffer((__gm__ uint8_t*)x);
    yg.SetGlobalBuffer((__gm__ uint8_t*)y);
    DataCopy(xl, xg, bytes);
    PipeBarrier<PIPE_ALL>();
    if (sameBuf) yl = xl;
    if (dtype == 0) Apply<float>(yl, xl, tmp, t, callType, withTmp);
    else if (dtype == 1) Apply<half>(yl, xl, tmp, t, callType, withTmp);
    else if (dtype == 2) Apply<int16_t>(yl, xl, tmp, t, callType, withTmp);
    else Apply<int32_t>(yl, xl, tmp, t, callType, withTmp);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, yl, bytes);
}
"""


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="confusion", contract=True)


def nz(m: torch.Tensor) -> torch.Tensor:
    """[..., R, C] in NZ: [..., C/16, R/16, 16, 16], flattened."""
    *lead, r, c = m.shape
    blocks = m.reshape(*lead, r // 16, 16, c // 16, 16)
    k = len(lead)
    return blocks.permute(*range(k), k + 2, k, k + 1, k + 3).reshape(-1)


def layout(x: torch.Tensor, name: str) -> torch.Tensor:
    """Logical x [B, N, S, H/N] flattened in one of the layouts the seven scenarios move between."""
    b, n, s, hn = x.shape
    bsnh = x.permute(0, 2, 1, 3)
    if name == "nz_bns":  # NZ [S, H/N] per (b, n)
        return nz(x)
    if name == "nz_bsh":  # NZ [S, H] per b
        return nz(bsnh.reshape(b, s, n * hn))
    if name == "nz_bsn":  # NZ [N, H/N] per (b, s)
        return nz(bsnh)
    return x.reshape(-1) if name == "nd_bnsh" else bsnh.reshape(-1)  # nd_bsnh and nd_bsh: the same memory


SCENARIOS = {1: ("nz_bns", "nd_bsnh"), 2: ("nz_bns", "nz_bsn"), 3: ("nz_bsh", "nz_bns"), 4: ("nz_bsh", "nd_bnsh"),
             5: ("nz_bns", "nd_bsh"), 6: ("nz_bns", "nz_bsh")}


def tiling(kernel, shape, elem, stack, ttype) -> bytes:
    return kernel.tiling([list(shape), [elem, stack, ttype]]).data


def run(kernel, dtype, ttype, src, shape, *, call_type=None, with_tmp=1, stack=1 << 20, tmp_bytes=None,
        tiling_elem=None, same=0, soc=None) -> torch.Tensor:
    elem = src.element_size()
    words = torch.frombuffer(bytearray(tiling(kernel, shape, tiling_elem or elem, stack, ttype)), dtype=torch.int32)
    tmp_bytes = int(words[2]) + 32 if tmp_bytes is None else tmp_bytes  # the reported maximum, 32 bytes spare
    y = torch.zeros_like(src)
    kernel.launch(1, src.clone(), y, None, tiling(kernel, shape, tiling_elem or elem, stack, ttype), dtype,
                  call_type if call_type is not None else ttype, with_tmp, tmp_bytes, same, soc=soc)
    return y


def data(dtype, shape, seed=0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(-1000, 1000, shape, generator=g).to(DTYPES[dtype])


@pytest.mark.parametrize("ttype", sorted(SCENARIOS))
@pytest.mark.parametrize("dtype", [HALF, FLOAT])
def test_scenarios_1_to_6_match_torch(kernel, ttype, dtype):
    shape = (2, 2, 32, 16) if ttype != 2 else (1, 16, 16, 32)  # NZ2NZ_0213 makes N the NZ rows
    x = data(dtype, shape, seed=ttype)
    src_name, dst_name = SCENARIOS[ttype]
    y = run(kernel, dtype, ttype, layout(x, src_name), shape, with_tmp=ttype % 2)
    assert torch.equal(y, layout(x, dst_name))


@pytest.mark.parametrize("dtype", [I16, I32])
def test_scenario_7_two_dimensional_transpose(kernel, dtype):
    x = data(dtype, (48, 32), seed=7)
    y = run(kernel, dtype, 7, x.reshape(-1), (1, 1, 48, 32))
    assert torch.equal(y, x.T.reshape(-1))


def test_transpose_tiling_page_example(kernel):
    """Transpose-Tiling.md: scenario 1 on [1, 2, 64, 32] half with the minimum temporary space."""
    words = torch.frombuffer(bytearray(tiling(kernel, (1, 2, 64, 32), 2, 0, 1)), dtype=torch.int32)
    min_tmp, max_tmp = int(words[1]), int(words[2])
    assert 0 < min_tmp <= max_tmp
    x = data(HALF, (1, 2, 64, 32))
    y = run(kernel, HALF, 1, layout(x, "nz_bns"), (1, 2, 64, 32), stack=min_tmp, tmp_bytes=min_tmp)
    assert torch.equal(y, layout(x, "nd_bsnh"))


CONSTRAINTS = [
    # (kind, marker, dtype, type, shape, kwargs, words)
    ("bad_argument", "@tmp", HALF, 1, (1, 2, 32, 16), dict(call_type=2), "computed for transposeTypeIn 1"),
    ("unsupported_api", "@tmp", HALF, 10, (1, 1, 16, 16), dict(), "TransposeParamsExt"),
    ("bad_argument", "@tmp", HALF, 1, (1, 2, 32, 16), dict(tiling_elem=4), "4-byte elements"),
    ("bad_argument", "@tmp", HALF, 1, (1, 2, 32, 16), dict(stack=64), "below the"),
    ("local_overrun", "@tmp", HALF, 3, (1, 2, 32, 16), dict(tmp_bytes=64), "sharedTmpBuffer"),
    ("unsupported_api", "@tmp", HALF, 4, (1, 2, 32, 8), dict(), "multiples of 16"),
    ("bad_argument", "@tmp", HALF, 7, (1, 1, 24, 16), dict(), "multiples of 16"),
    ("bad_argument", "@tmp", HALF, 1, (1, 2, 32, 16), dict(same=1), "overlap"),
    ("unsupported_api", "@tmp", HALF, 1, (1, 2, 32, 16), dict(soc="Ascend310P3"), "not available"),
]


@pytest.mark.parametrize("kind,marker,dtype,ttype,shape,kwargs,words", CONSTRAINTS)
def test_constraints_name_the_kernel_line(kernel, kind, marker, dtype, ttype, shape, kwargs, words):
    src = torch.zeros(shape, dtype=DTYPES[dtype]).reshape(-1)
    e = expect_error(kind, run, kernel, dtype, ttype, src, shape, **kwargs)
    assert words in e.message and e.line == marked_line(SOURCE, marker), e.message
