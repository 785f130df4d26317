"""Pad / UnPad (sim/pad.h) with their host tiling (host/tiling/pad_tiling.h) against torch and the pages' examples.

One contract kernel, built once per module: its host tiling function fills PadTiling and UnPadTiling with
PadTilingFunc / UnPadTilingFunc for [height, width], oriSrcShape's width, the element size and stackBufferSize,
given as the pseudo-shapes [[height, width], [oriWidth, typeSize, stack]]. Pad.md, UnPad.md, Pad-Tiling.md,
UnPad-Tiling.md (asc-devkit v8.5.0).
"""

from __future__ import annotations

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF, I16, I32, I8 = 0, 1, 2, 3, 4
DTYPES = {FLOAT: torch.float32, HALF: torch.float16, I16: torch.int16, I32: torch.int32, I8: torch.int8}
PAD, PAD_NO_TMP, UNPAD, UNPAD_NO_TMP = 0, 1, 2, 3

SOURCE = r"""
#include "kernel_operator.h"
#include "host/tiling/tiling_api.h"
using namespace AscendC;

struct TilingData {
    uint32_t height;
    uint32_t width;
    uint32_t minTmp;
    uint32_t maxTmp;
    uint32_t unpadMinTmp;
    uint32_t unpadMaxTmp;
    optiling::PadTiling pad;  // the name an op_host TilingData uses (TILING_DATA_FIELD_DEF_STRUCT)
    UnPadTiling unpad;
};

// Stand-ins with ge::Shape's and PlatformAscendC's accessors.
struct GeShape {
    std::vector<int64_t> dims;
    size_t GetDimNum() const { return dims.size(); }
    int64_t GetDim(size_t i) const { return dims[i]; }
};
struct Platform {};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    GeShape src{{dims[0], dims[1]}}, ori{{dims[0], dims[2]}};
    uint32_t typeSize = static_cast<uint32_t>(dims[3]), stack = static_cast<uint32_t>(dims[4]);
    t->height = dims[0];
    t->width = dims[1];
    GetPadMaxMinTmpSize(src, typeSize, t->maxTmp, t->minTmp);
    PadTilingFunc(src, ori, stack, typeSize, t->pad);
    GetUnPadMaxMinTmpSize(Platform{}, std::vector<int64_t>{dims[0], dims[1]}, typeSize, t->unpadMaxTmp,
                          t->unpadMinTmp);
    UnPadTilingFunc(std::vector<int64_t>{dims[0], dims[1]}, stack, typeSize, t->unpad);
    *workspaceBytes = 0;
    return 1;
}

template <typename T>
__aicore__ inline void Apply(uint32_t op, LocalTensor<T> dst, LocalTensor<T> src, LocalTensor<uint8_t> tmp,
                             const TilingData& tilingData, uint32_t left, uint32_t right, int32_t value)
{
    TilingData t = tilingData;  // the pages' kernels keep a copy: Pad / UnPad take the tiling by non-const reference
    PadParams padParams{(uint16_t)left, (uint16_t)right, value};
    UnPadParams unPadParams{(uint16_t)left, (uint16_t)right};
    if (op == 0) Pad(dst, src, padParams, tmp, t.pad);  // @pad
    else if (op == 1) Pad(dst, src, padParams, t.pad);  // @pad_no_tmp
    else if (op == 2) UnPad(dst, src, unPadParams, tmp, t.unpad);  // @unpad
    else UnPad(dst, src, unPadParams, t.unpad);  // @unpad_no_tmp
}

extern "C" __global__ __aicore__ void pad_family(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling,
                                                 uint32_t dtype, uint32_t op, uint32_t left, uint32_t right,
                                                 int32_t value, uint32_t tmpBytes, uint32_t sameBuf)
{
    GET_TILING_DATA(t, tiling);
    uint32_t elem = dtype == 0 || dtype == 3 ? 4 : dtype == 4 ? 1 : 2;
    uint32_t rowBytes = (t.width * elem + 31) / 32 * 32;
    uint32_t bytes = t.height * rowBytes;
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, btmp;
    pipe.InitBuffer(bx, bytes);
    pipe.InitBuffer(by, bytes);
    if (tmpBytes != 0) pipe.InitBuffer(btmp, tmpBytes);
    LocalTensor<uint8_t> xl = bx.Get<uint8_t>(), yl = by.Get<uint8_t>();
    LocalTensor<uint8_t> tmp = tmpBytes != 0 ? btmp.Get<uint8_t>() : LocalTensor<uint8_t>();
    GlobalTensor<uint8_t> xg, yg;
    xg.SetGlobalBuffer((__gm__ uint8_t*)x);
    yg.SetGlobalBuffer((__gm__ uint8_t*)y);
    DataCopy(xl, xg, bytes);
    DataCopy(yl, yg, bytes);
    PipeBarrier<PIPE_ALL>();
    if (sameBuf) yl = xl;
    if (dtype == 0) Apply<float>(op, yl.ReinterpretCast<float>(), xl.ReinterpretCast<float>(), tmp, t, left, right,
                                 value);
    else if (dtype == 1) Apply<half>(op, yl.ReinterpretCast<half>(), xl.ReinterpretCast<half>(), tmp, t, left, right,
                                     value);
    else if (dtype == 2) Apply<int16_t>(op, yl.ReinterpretCast<int16_t>(), xl.ReinterpretCast<int16_t>(), tmp, t,
                                        left, right, value);
    else if (dtype == 3) Apply<int32_t>(op, yl.ReinterpretCast<int32_t>(), xl.ReinterpretCast<int32_t>(), tmp, t,
                                        left, right, value);
    else Apply<int8_t>(op, yl.ReinterpretCast<int8_t>(), xl.ReinterpretCast<int8_t>(), tmp, t, left, right, value);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, yl, bytes);
}
"""


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="pad_family", contract=True)


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def aligned(width: int, elem: int) -> int:
    return (width * elem + 31) // 32 * 32 // elem


def tiling_fields(kernel, h: int, w: int, ori: int, elem: int, stack: int, soc: str | None = None) -> list[int]:
    """The host tiling's uint32 words: height, width, Pad min/max, UnPad min/max, then the two structs."""
    data = kernel.tiling([[h, w], [ori, elem, stack]], soc=soc).data
    return list(torch.frombuffer(bytearray(data), dtype=torch.int32).tolist())


def run(kernel, dtype: int, op: int, x: torch.Tensor, *, ori=None, left=0, right=0, value=0, stack=None,
        tmp_bytes=None, tiling_elem=None, same=0, soc=None) -> torch.Tensor:
    """Runs op on x [height, width]; returns the destination buffer as [height, aligned width]."""
    h, w = x.shape
    elem = x.element_size()
    wa = aligned(w, elem)
    stack = 16 * wa * elem if stack is None else stack
    tmp_bytes = stack if tmp_bytes is None else tmp_bytes
    data = kernel.tiling([[h, w], [ori if ori is not None else w, tiling_elem or elem, stack]], soc=soc).data
    xin = torch.zeros(h * wa * elem, dtype=torch.uint8)
    xin[:h * w * elem] = x.contiguous().view(torch.uint8).reshape(-1)
    y = torch.full((h * wa * elem,), 0x11, dtype=torch.uint8)
    kernel.launch(1, xin, y, None, data, dtype, op, left, right, value, tmp_bytes, same, soc=soc)
    return y.view(x.dtype).reshape(h, wa)


def data(dtype: int, h: int, w: int) -> torch.Tensor:
    return (torch.arange(h * w) % 1000 - 300).reshape(h, w).to(DTYPES[dtype])


def pad_reference(x: torch.Tensor, valid: int, left: int, right: int, value: int, wa: int):
    """The written part of Pad's result and a mask of the columns Pad defines."""
    h = x.shape[0]
    out = torch.zeros(h, wa, dtype=x.dtype)
    out[:, :left] = value
    out[:, left:left + valid] = x[:, :valid]
    out[:, left + valid:left + valid + right] = value
    defined = torch.zeros(wa, dtype=torch.bool)
    defined[:left + valid + right] = True
    return out, defined


def test_pad_documented_example(kernel):
    """Pad.md: 16 x 15 half, PadParams{0, 1, 321} gives rows 15i .. 15i + 14 followed by 321."""
    x = torch.arange(240, dtype=torch.float16).reshape(16, 15)
    y = run(kernel, HALF, PAD_NO_TMP, x, left=0, right=1, value=321)
    expected = torch.cat([x, torch.full((16, 1), 321, dtype=torch.float16)], dim=1)
    assert torch.equal(y, expected)


@pytest.mark.parametrize("dtype", [FLOAT, HALF, I16, I32])
@pytest.mark.parametrize("op", [PAD, PAD_NO_TMP])
def test_pad_scenario_1_left_and_right(kernel, dtype, op):
    x = data(dtype, 19, 5)
    elem = x.element_size()
    wa = aligned(5, elem)
    left, right = 1, wa - 5 - 2  # one column left of the pad undefined
    y = run(kernel, dtype, op, x, left=left, right=right, value=-7)
    expected, defined = pad_reference(x, 5, left, right, -7, wa)
    assert torch.equal(y[:, defined], expected[:, defined])
    if dtype in (FLOAT, HALF):  # the column no pad reaches is undefined: poisoned
        assert torch.isnan(y[:, ~defined]).all()


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_pad_scenario_2_fills_redundant_columns_on_the_right(kernel, dtype):
    x = data(dtype, 8, 16)
    y = run(kernel, dtype, PAD, x, ori=11, right=3, value=5)
    expected, defined = pad_reference(x, 11, 0, 3, 5, 16)
    assert torch.equal(y[:, defined], expected[:, defined])
    assert torch.isnan(y[:, ~defined]).all()


def test_unpad_documented_shape(kernel):
    """UnPad.md: 16 x 16 half with UnPadParams{0, 1} becomes 16 x 15, rows packed."""
    x = torch.arange(256, dtype=torch.float16).reshape(16, 16)
    y = run(kernel, HALF, UNPAD_NO_TMP, x, right=1)
    assert torch.equal(y.reshape(-1)[:240], x[:, :15].reshape(-1))


@pytest.mark.parametrize("dtype", [FLOAT, I16, I32])
def test_unpad_matches_torch(kernel, dtype):
    x = data(dtype, 21, 32)
    right = 32 // x.element_size() - 1
    y = run(kernel, dtype, UNPAD, x, right=right)
    keep = 32 - right
    assert torch.equal(y.reshape(-1)[:21 * keep], x[:, :keep].reshape(-1))


def test_host_tiling_sizes_and_the_page_example(kernel):
    """Pad-Tiling.md's [320, 63] half with the minimum: the kernel runs with what the host reported."""
    words = tiling_fields(kernel, 320, 63, 63, 2, 0)
    min_tmp, max_tmp, un_min, un_max = words[2:6]
    assert 0 < min_tmp <= max_tmp and 0 < un_min <= un_max
    x = data(HALF, 320, 63)
    y = run(kernel, HALF, PAD, x, right=1, value=9, stack=min_tmp)
    assert torch.equal(y[:, :63], x) and (y[:, 63] == 9).all()
    y = run(kernel, HALF, PAD, x, right=1, value=9, stack=max_tmp)
    assert torch.equal(y[:, :63], x)


def test_pad_runs_on_310p(kernel):
    x = data(FLOAT, 4, 7)
    y = run(kernel, FLOAT, PAD, x, right=1, value=3, soc="Ascend310P3")
    assert torch.equal(y[:, :7], x) and (y[:, 7] == 3).all()


CONSTRAINTS = [
    # (kind, marker, dtype, op, shape, kwargs, words in the message)
    ("bad_argument", "@pad", HALF, PAD, (16, 15), dict(left=1, right=1), "more than the width rounded up"),
    ("bad_argument", "@pad", FLOAT, PAD, (4, 8), dict(right=1), "already 32-byte aligned"),
    ("bad_argument", "@pad", FLOAT, PAD, (4, 8), dict(ori=6, left=1, right=1), "only be padded on the right"),
    ("bad_argument", "@pad", FLOAT, PAD, (4, 7), dict(ori=5, right=1), "every column is valid"),
    ("bad_argument", "@pad", HALF, PAD, (16, 15), dict(right=1, stack=32), "below the minimum"),
    ("bad_argument", "@pad", HALF, PAD, (16, 15), dict(right=1, tiling_elem=4), "4-byte elements"),
    ("local_overrun", "@pad", HALF, PAD, (32, 15), dict(right=1, stack=1024, tmp_bytes=512), "sharedTmpBuffer"),
    ("bad_argument", "@pad", HALF, PAD, (16, 15), dict(right=1, same=1), "overlap"),
    ("unsupported_dtype", "@pad", I8, PAD, (4, 31), dict(right=1), "int8"),
    ("bad_argument", "@unpad", HALF, UNPAD, (16, 15), dict(right=1), "not 32-byte aligned"),
    ("bad_argument", "@unpad", HALF, UNPAD, (16, 16), dict(left=1, right=1), "not in effect"),
    ("bad_argument", "@unpad", FLOAT, UNPAD, (4, 8), dict(right=8), "less than 32 bytes"),
    ("bad_argument", "@unpad_no_tmp", FLOAT, UNPAD_NO_TMP, (4, 8), dict(right=0), "more than 0"),
]


@pytest.mark.parametrize("kind,marker,dtype,op,shape,kwargs,words", CONSTRAINTS)
def test_constraints_name_the_kernel_line(kernel, kind, marker, dtype, op, shape, kwargs, words):
    x = torch.zeros(shape, dtype=DTYPES[dtype])
    e = expect_error(kind, run, kernel, dtype, op, x, **kwargs)
    assert words in e.message and e.line == line_of(marker), e.message


def test_framework_tmp_must_fit_in_the_ub_left(kernel):
    """Without sharedTmpBuffer the framework takes the tiling's temporary space from the UB left after InitBuffer."""
    x = torch.zeros(2560, 15, dtype=torch.float16)  # src and dst take 160 KiB, the tiling asks for 80 KiB more
    e = expect_error("ub_overflow", run, kernel, HALF, PAD_NO_TMP, x, right=1, stack=10**7, tmp_bytes=0)
    assert e.line == line_of("@pad_no_tmp")
