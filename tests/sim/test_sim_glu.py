"""Swish, SwiGLU, GeGLU and ReGlu (sim/glu.h) and their host helpers (host/tiling/glu_tiling.h) against torch.

One contract kernel, built once per module; its host tiling function reports the helpers' temporary-space range
for the element count (first pseudo-shape) and type size (second), and the kernel runs one API form per `op`.
"""

from __future__ import annotations

import math
import struct

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF, BF16 = 0, 1, 2
DTYPES = {FLOAT: torch.float32, HALF: torch.float16, BF16: torch.bfloat16}
BETA = 1.5

SOURCE = r"""
#include "kernel_operator.h"
#include "host/tiling/glu_tiling.h"
using namespace AscendC;

struct TilingData {
    uint32_t n, swigluMax, swigluMin, gegluMax, gegluMin, regluMax, regluMin, swishMax, swishMin;
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    std::vector<int64_t> shape = {dims[0]};
    uint32_t typeSize = dims[1];
    t->n = dims[0];
    GetSwiGLUMaxMinTmpSize(shape, typeSize, t->swigluMax, t->swigluMin, false);
    GetGeGLUMaxMinTmpSize(shape, typeSize, false, t->gegluMax, t->gegluMin);
    GetReGluMaxMinTmpSize(shape, typeSize, false, t->regluMax, t->regluMin);
    GetSwishTmpSize(shape, typeSize, false, t->swishMax, t->swishMin);
    *workspaceBytes = 0;
    return 1;
}

template <typename T>
__aicore__ inline void Apply(uint32_t op, LocalTensor<T> y, LocalTensor<T> a, LocalTensor<T> b,
                             const LocalTensor<uint8_t>& tmp, uint32_t n, float beta)
{
    y.SetSize(n);
    a.SetSize(n);
    b.SetSize(n);
    switch (op) {
        case 0: Swish(y, a, n, (T)beta); break;  // @swish
        case 1: SwiGLU<T>(y, a, b, beta, tmp, n); break;  // @swiglu
        case 2: SwiGLU<T>(y, a, b, beta, tmp); break;
        case 3: SwiGLU<T>(y, a, b, beta, n); break;
        case 4: SwiGLU<T>(y, a, b, beta); break;
        case 5: GeGLU<T>(y, a, b, tmp, n); break;  // @geglu
        case 6: GeGLU<T>(y, a, b, tmp); break;
        case 7: GeGLU<T>(y, a, b, n); break;
        case 8: GeGLU<T>(y, a, b); break;
        case 9: ReGlu<T>(y, a, b, tmp, n); break;  // @reglu
        case 10: ReGlu<T>(y, a, b, n); break;
    }
}

extern "C" __global__ __aicore__ void glu_family(GM_ADDR x0, GM_ADDR x1, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling,
                                                 uint32_t dtype, uint32_t op, uint32_t tmpBytes, uint32_t layout,
                                                 float beta)
{
    GET_TILING_DATA(t, tiling);
    uint32_t bytes = (t.n * (dtype == 0 ? 4 : 2) + 31) / 32 * 32;
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, by, btmp;
    pipe.InitBuffer(ba, bytes);
    pipe.InitBuffer(bb, bytes);
    pipe.InitBuffer(by, bytes);
    pipe.InitBuffer(btmp, tmpBytes);
    LocalTensor<uint8_t> a = ba.Get<uint8_t>(), b = bb.Get<uint8_t>(), yl = by.Get<uint8_t>();
    LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
    GlobalTensor<uint8_t> ag, bg, yg;
    ag.SetGlobalBuffer((__gm__ uint8_t*)x0);
    bg.SetGlobalBuffer((__gm__ uint8_t*)x1);
    yg.SetGlobalBuffer((__gm__ uint8_t*)y);
    DataCopy(a, ag, bytes);
    DataCopy(b, bg, bytes);
    DataCopy(yl, yg, bytes);
    PipeBarrier<PIPE_ALL>();
    if (layout == 1) yl = a;
    if (layout == 2) tmp = b;
    if (dtype == 0) Apply<float>(op, yl.ReinterpretCast<float>(), a.ReinterpretCast<float>(),
                                 b.ReinterpretCast<float>(), tmp, t.n, beta);
    else if (dtype == 1) Apply<half>(op, yl.ReinterpretCast<half>(), a.ReinterpretCast<half>(),
                                     b.ReinterpretCast<half>(), tmp, t.n, beta);
    else Apply<bfloat16_t>(op, yl.ReinterpretCast<bfloat16_t>(), a.ReinterpretCast<bfloat16_t>(),
                           b.ReinterpretCast<bfloat16_t>(), tmp, t.n, beta);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, yl, bytes);
}
"""


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="glu_family", contract=True)


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def host_sizes(kernel, n: int, elem: int) -> dict[str, tuple[int, int]]:
    fields = struct.unpack_from("<9I", kernel.tiling([[n], [elem]]).data)
    names = ("swiglu", "geglu", "reglu", "swish")
    return {name: (fields[1 + 2 * i], fields[2 + 2 * i]) for i, name in enumerate(names)}  # (max, min)


def run(kernel, dtype, op, a, b, *, tmp_bytes=4096, layout=0, soc=None):
    n = a.numel()
    pad = (-n) % (32 // a.element_size())
    ag = torch.cat([a, torch.zeros(pad, dtype=a.dtype)])
    bg = torch.cat([b, torch.zeros(pad, dtype=a.dtype)])
    y = torch.full_like(ag, -7)
    report = kernel.launch(1, ag, bg, y, None, kernel.tiling([[n], [a.element_size()]]).data, dtype, op, tmp_bytes,
                           layout, BETA, soc=soc)
    return y[:n], y[n:], report


def inputs(n, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(n, generator=g) * 3).to(dtype), (torch.randn(n, generator=g) * 3).to(dtype)


def gelu_tanh(x):
    return x / (1 + torch.exp(-0.0713548162726 * x * (22.363860002236 + x * x)))


REFS = {
    "swiglu": lambda a, b: a * b / (1 + torch.exp(-BETA * b)),
    "geglu": lambda a, b: a * gelu_tanh(b),
    "reglu": lambda a, b: a * torch.relu(b),
}
OPS = {"swiglu": range(1, 5), "geglu": range(5, 9), "reglu": (9, 10)}


def tol(t):
    return dict(atol=1e-5, rtol=1e-5) if t == torch.float32 else dict(atol=2e-2, rtol=1e-2)


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
@pytest.mark.parametrize("name", ["swiglu", "geglu", "reglu"])
def test_glu_forms_match_torch(kernel, name, dtype):
    t = DTYPES[dtype]
    a, b = inputs(300, t, seed=len(name))
    expected = REFS[name](a.double(), b.double()).to(t)
    for op in OPS[name]:
        y, tail, _ = run(kernel, dtype, op, a, b)
        torch.testing.assert_close(y, expected, **tol(t))
        assert (tail == -7).all()  # nothing past the count


def test_geglu_is_the_tanh_gelu(kernel):
    a, b = inputs(256, torch.float32, seed=9)
    y, _, _ = run(kernel, FLOAT, 5, a, b)
    ref = a.double() * torch.nn.functional.gelu(b.double(), approximate="tanh")
    torch.testing.assert_close(y.double(), ref, atol=1e-5, rtol=1e-5)


def test_reglu_bfloat16(kernel):
    a, b = inputs(256, torch.bfloat16, seed=3)
    y, _, _ = run(kernel, BF16, 9, a, b)
    assert torch.equal(y, (a.float() * torch.relu(b.float())).to(torch.bfloat16))
    err = expect_error("unsupported_dtype", run, kernel, BF16, 1, a, b)
    assert err.line == line_of("// @swiglu") and "SwiGLU does not support bfloat16_t" in err.message


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_swish(kernel, dtype):
    t = DTYPES[dtype]
    a, _ = inputs(200, t, seed=4)
    y, _, _ = run(kernel, dtype, 0, a, a)
    beta = torch.tensor(BETA, dtype=t).double()
    torch.testing.assert_close(y, (a.double() / (1 + torch.exp(-beta * a.double()))).to(t), **tol(t))


def test_overlap_and_soc_rules(kernel):
    a, b = inputs(64, torch.float32, seed=5)
    for op, marker in ((0, "// @swish"), (1, "// @swiglu"), (5, "// @geglu"), (9, "// @reglu")):
        err = expect_error("bad_argument", run, kernel, FLOAT, op, a, b, layout=1)
        assert err.line == line_of(marker) and "overlap" in err.message
    err = expect_error("bad_argument", run, kernel, FLOAT, 1, a, b, layout=2)
    assert "sharedTmpBuffer overlaps srcTensor1" in err.message
    y, _, _ = run(kernel, FLOAT, 9, a, b, soc="Ascend310P3")  # 310P: the A2 types without bfloat16_t
    assert torch.equal(y, a * torch.relu(b))
    err = expect_error("unsupported_dtype", run, kernel, BF16, 9, a.bfloat16(), b.bfloat16(), soc="Ascend310P3")
    assert err.line == line_of("// @reglu") and "bfloat16_t" in err.message


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_host_minimum_is_what_the_kernel_needs(kernel, dtype):
    t = DTYPES[dtype]
    a, b = inputs(1000, t, seed=6)
    sizes = host_sizes(kernel, 1000, a.element_size())
    assert sizes["swish"] == (0, 0)
    for name, op in (("swiglu", 1), ("geglu", 5), ("reglu", 9)):
        high, low = sizes[name]
        assert high >= low and high == math.ceil(1000 * 4 / 256) * 256 * (2 if dtype == HALF else 1)
        run(kernel, dtype, op, a, b, tmp_bytes=low)
        err = expect_error("local_overrun", run, kernel, dtype, op, a, b, tmp_bytes=low - 32)
        assert f"at least {low} bytes" in err.message


def test_cost(kernel):
    a, b = inputs(256, torch.float32, seed=7)
    _, _, report = run(kernel, FLOAT, 5, a, b)
    assert report.vector_ops()["GeGLU"] == (1, 8 * math.ceil(256 * 4 / 256))
