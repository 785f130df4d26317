"""The math library (sim/math_ops.h) against torch.

One kernel per group, built once per session: unary math (Sin ... Sign), binary math (Power in its
three forms, ClampMax/ClampMin, Xor) and the shifts. Scalar parameters select the API and the form.
"""

import math
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from kernel_checks import expect_error
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF, INT32, INT16, UINT16 = range(5)
DTYPES = {FLOAT: torch.float32, HALF: torch.float16, INT32: torch.int32, INT16: torch.int16}
CTYPES = {FLOAT: "float", HALF: "half", INT32: "int32_t", INT16: "int16_t", UINT16: "uint16_t"}

_PRELUDE = r"""
#include "kernel_operator.h"
using namespace AscendC;

__aicore__ inline void AllPipes() { PipeBarrier<PIPE_ALL>(); }
"""

UNARY_NAMES = ["Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Erf", "Erfc", "Floor", "Ceil", "Round",
               "Trunc", "Frac", "Log2", "Log10", "Sign"]


CALCOUNT_ONLY = {"Floor", "Ceil", "Round", "Trunc"}  # Floor.md / Round.md: no whole-tensor forms


def modes_of(name: str) -> range:
    return range(2) if name in CALCOUNT_ONLY else range(4)


def _unary_cases() -> str:
    lines = []
    for k, name in enumerate(UNARY_NAMES):
        marker = "  // @sin_tmp" if name == "Sin" else ""
        lines += [f"        case {4 * k}: {name}<T, false>(dst, src, tmp, n); break;{marker}",
                  f"        case {4 * k + 1}: {name}(dst, src, n); break;"]
        if name not in CALCOUNT_ONLY:
            lines += [f"        case {4 * k + 2}: {name}(dst, src, tmp); break;",
                      f"        case {4 * k + 3}: {name}(dst, src); break;"]
    return "\n".join(lines)


# mode: 0 tmp + count, 1 count, 2 tmp (whole tensor), 3 whole tensor. layout 1: dst = src.
UNARY = _PRELUDE + r"""
template <typename T>
__aicore__ inline void Apply(uint32_t op, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                             const LocalTensor<uint8_t>& tmp, uint32_t n)
{
    switch (op) {
""" + _unary_cases() + r"""
    }
}

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, uint32_t op, uint32_t nPad, uint32_t n, uint32_t tmpBytes,
                           uint32_t layout)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, yBuf, tmpBuf;
    pipe.InitBuffer(xBuf, nPad * sizeof(T));
    pipe.InitBuffer(yBuf, nPad * sizeof(T));
    pipe.InitBuffer(tmpBuf, tmpBytes);
    GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T*)x);
    yGm.SetGlobalBuffer((__gm__ T*)y);
    LocalTensor<T> xLocal = xBuf.Get<T>();
    LocalTensor<T> yLocal = yBuf.Get<T>();
    LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
    DataCopy(xLocal, xGm, nPad);
    AllPipes();
    Apply<T>(op, layout == 1 ? xLocal : yLocal, xLocal, tmp, n);
    AllPipes();
    DataCopy(yGm, yLocal, nPad);
}

extern "C" __global__ __aicore__ void math_unary(GM_ADDR x, GM_ADDR y, uint32_t dtype, uint32_t op, uint32_t nPad,
                                                 uint32_t n, uint32_t tmpBytes, uint32_t layout)
{
    if (dtype == 0) Run<float>(x, y, op, nPad, n, tmpBytes, layout);
    else if (dtype == 1) Run<half>(x, y, op, nPad, n, tmpBytes, layout);
    else Run<int32_t>(x, y, op, nPad, n, tmpBytes, layout);  // @unary_int
}
"""

# op: 0..3 Power(t, t) forms, 4..7 Power(t, s), 8..11 Power(s, t), 12/13 ClampMax, 14/15 ClampMin, 16..19 Xor.
BINARY = _PRELUDE + r"""
template <typename T>
__aicore__ inline void Apply(uint32_t op, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                             const LocalTensor<uint8_t>& tmp, uint32_t n, T s)
{
    switch (op) {
        case 0: Power<T, false>(dst, a, b, tmp, n); break;  // @power
        case 1: Power(dst, a, b, n); break;
        case 2: Power(dst, a, b, tmp); break;
        case 3: Power(dst, a, b); break;
        case 4: Power<T, false>(dst, a, s, tmp, n); break;
        case 5: Power(dst, a, s, n); break;
        case 6: Power(dst, a, s, tmp); break;
        case 7: Power(dst, a, s); break;
        case 8: Power<T, false>(dst, s, b, tmp, n); break;
        case 9: Power(dst, s, b, n); break;
        case 10: Power(dst, s, b, tmp); break;
        case 11: Power(dst, s, b); break;
        case 12: ClampMax<T, false>(dst, a, tmp, s, n); break;
        case 13: ClampMax(dst, a, s, n); break;
        case 14: ClampMin<T, false>(dst, a, tmp, s, n); break;
        case 15: ClampMin(dst, a, s, n); break;
        case 16: Xor<T, false>(dst, a, b, tmp, n); break;  // @xor
        case 17: Xor(dst, a, b, n); break;
        case 18: Xor(dst, a, b, tmp); break;
        case 19: Xor(dst, a, b); break;
    }
}

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR z, GM_ADDR y, GM_ADDR sc, uint32_t op, uint32_t nPad, uint32_t n,
                           uint32_t layout)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, zBuf, yBuf, tmpBuf;
    pipe.InitBuffer(xBuf, nPad * sizeof(T));
    pipe.InitBuffer(zBuf, nPad * sizeof(T));
    pipe.InitBuffer(yBuf, nPad * sizeof(T));
    pipe.InitBuffer(tmpBuf, 4096);
    GlobalTensor<T> xGm, zGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T*)x);
    zGm.SetGlobalBuffer((__gm__ T*)z);
    yGm.SetGlobalBuffer((__gm__ T*)y);
    LocalTensor<T> xLocal = xBuf.Get<T>();
    LocalTensor<T> zLocal = zBuf.Get<T>();
    LocalTensor<T> yLocal = yBuf.Get<T>();
    DataCopy(xLocal, xGm, nPad);
    DataCopy(zLocal, zGm, nPad);
    AllPipes();
    Apply<T>(op, layout == 1 ? xLocal : yLocal, xLocal, zLocal, tmpBuf.Get<uint8_t>(), n, *(const T*)sc);
    AllPipes();
    DataCopy(yGm, yLocal, nPad);
}

extern "C" __global__ __aicore__ void math_binary(GM_ADDR x, GM_ADDR z, GM_ADDR y, GM_ADDR sc, uint32_t dtype,
                                                  uint32_t op, uint32_t nPad, uint32_t n, uint32_t layout)
{
    if (dtype == 0) Run<float>(x, z, y, sc, op, nPad, n, layout);
    else if (dtype == 1) Run<half>(x, z, y, sc, op, nPad, n, layout);
    else if (dtype == 2) Run<int32_t>(x, z, y, sc, op, nPad, n, layout);
    else Run<int16_t>(x, z, y, sc, op, nPad, n, layout);
}
"""

# op 0 ShiftLeft count, 1 ShiftRight count, 2 ShiftLeft mask (1 repeat), 3 ShiftRight mask with roundEn.
SHIFT = _PRELUDE + r"""
template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, uint32_t op, uint32_t nPad, uint32_t n, int32_t amount)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, yBuf;
    pipe.InitBuffer(xBuf, nPad * sizeof(T));
    pipe.InitBuffer(yBuf, nPad * sizeof(T));
    GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T*)x);
    yGm.SetGlobalBuffer((__gm__ T*)y);
    LocalTensor<T> xLocal = xBuf.Get<T>();
    LocalTensor<T> yLocal = yBuf.Get<T>();
    DataCopy(xLocal, xGm, nPad);
    AllPipes();
    UnaryRepeatParams rp;
    if (op == 0) ShiftLeft(yLocal, xLocal, (T)amount, (int32_t)n);  // @shl
    else if (op == 1) ShiftRight(yLocal, xLocal, (T)amount, (int32_t)n);
    else if (op == 2) ShiftLeft(yLocal, xLocal, (T)amount, (uint64_t)n, 1, rp);
    else ShiftRight(yLocal, xLocal, (T)amount, (uint64_t)n, 1, rp, true);  // @shr_round
    AllPipes();
    DataCopy(yGm, yLocal, nPad);
}

extern "C" __global__ __aicore__ void math_shift(GM_ADDR x, GM_ADDR y, uint32_t dtype, uint32_t op, uint32_t nPad,
                                                 uint32_t n, int32_t amount)
{
    if (dtype == 2) Run<int32_t>(x, y, op, nPad, n, amount);
    else if (dtype == 3) Run<int16_t>(x, y, op, nPad, n, amount);
    else if (dtype == 4) Run<uint16_t>(x, y, op, nPad, n, amount);
    else Run<float>(x, y, op, nPad, n, amount);
}
"""

SOURCES = {"math_unary": UNARY, "math_binary": BINARY, "math_shift": SHIFT}


@pytest.fixture(scope="module")
def kernels():
    with ThreadPoolExecutor(max_workers=2) as pool:
        built = {name: pool.submit(compile_kernel, src, entry=name) for name, src in SOURCES.items()}
        return {name: future.result() for name, future in built.items()}


def line_of(source: str, marker: str) -> int:
    hits = [i + 1 for i, text in enumerate(source.splitlines()) if text.rstrip().endswith(marker)]
    assert len(hits) == 1, marker
    return hits[0]


def padded(n: int, elem: int) -> int:
    per_block = 32 // elem
    return max(per_block, (n + per_block - 1) // per_block * per_block)


SENTINEL = -7


def unary(kernels, dtype, op, mode, x, *, tmp_bytes=4096, layout=0):
    n = x.numel()
    n_pad = padded(n, x.element_size())
    xg = torch.zeros(n_pad, dtype=x.dtype)
    xg[:n] = x
    y = torch.full((n_pad,), SENTINEL, dtype=x.dtype)
    report = kernels["math_unary"].launch(1, xg, y, dtype, 4 * op + mode, n_pad, n, tmp_bytes, layout)
    return y[:n], report


def binary(kernels, dtype, op, a, b, scalar, *, layout=0):
    n = a.numel()
    n_pad = padded(n, a.element_size())
    ag, bg = torch.zeros(n_pad, dtype=a.dtype), torch.ones(n_pad, dtype=a.dtype)
    ag[:n], bg[:n] = a, b
    y = torch.full((n_pad,), SENTINEL, dtype=a.dtype)
    sc = torch.tensor([scalar] * 16, dtype=a.dtype)
    report = kernels["math_binary"].launch(1, ag, bg, y, sc, dtype, op, n_pad, n, layout)
    return y[:n], report


def domain(name: str, n: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(len(name))
    if name in ("Asin", "Acos"):
        return torch.rand(n, generator=g) * 1.98 - 0.99
    if name in ("Log2", "Log10"):
        return torch.rand(n, generator=g) * 100 + 1e-3
    if name in ("Sinh", "Cosh"):
        return torch.randn(n, generator=g) * 3
    if name == "Tan":
        return torch.rand(n, generator=g) * 2.8 - 1.4
    x = torch.randn(n, generator=g) * 4
    x[:4] = torch.tensor([0.5, -2.5, 1.5, -0.0])
    return x


def frac(x):
    return x - torch.trunc(x)


def round_half_away(x):
    return torch.sign(x) * torch.floor(torch.abs(x) + 0.5)


REFERENCES = {"Sin": torch.sin, "Cos": torch.cos, "Tan": torch.tan, "Asin": torch.asin, "Acos": torch.acos,
              "Atan": torch.atan, "Sinh": torch.sinh, "Cosh": torch.cosh, "Erf": torch.erf, "Erfc": torch.erfc,
              "Floor": torch.floor, "Ceil": torch.ceil, "Round": round_half_away, "Trunc": torch.trunc, "Frac": frac,
              "Log2": torch.log2, "Log10": torch.log10, "Sign": torch.sign}


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
@pytest.mark.parametrize("name", UNARY_NAMES)
def test_unary_matches_torch(kernels, dtype, name):
    n = 1000 if dtype == FLOAT else 1003
    x = domain(name, n).to(DTYPES[dtype])
    expected = REFERENCES[name](x.double()).to(DTYPES[dtype])
    tol = dict(atol=1e-5, rtol=2e-6 * 8) if dtype == FLOAT else dict(atol=1e-3, rtol=2e-3)
    op = UNARY_NAMES.index(name)
    for mode in modes_of(name):
        y, _ = unary(kernels, dtype, op, mode, x)
        torch.testing.assert_close(y, expected, **tol, equal_nan=True)


def test_round_takes_halves_away_from_zero(kernels):
    x = torch.tensor([3.5, -3.4, 0.5, 2.5, -0.5, -2.5, 2.4, -2.6] * 4)
    y, _ = unary(kernels, FLOAT, UNARY_NAMES.index("Round"), 1, x)
    assert y[:8].tolist() == [4.0, -3.0, 1.0, 3.0, -1.0, -3.0, 2.0, -3.0]  # Round.md: Round(3.5) = 4, Round(-3.4) = -3


def test_unary_counts_its_passes(kernels):
    x = domain("Sin", 1000)
    repeats = math.ceil(1000 * 4 / 256)
    _, report = unary(kernels, FLOAT, UNARY_NAMES.index("Sin"), 0, x)
    assert report.vector_ops()["Sin"] == (1, 14 * repeats)
    _, report = unary(kernels, HALF, UNARY_NAMES.index("Floor"), 1, x.half())
    assert report.vector_ops()["Floor"] == (1, 4 * repeats)  # + Cast in and out


def test_unary_refuses_int32(kernels):
    x = torch.arange(64, dtype=torch.int32)
    err = expect_error("unsupported_dtype", unary, kernels, INT32, 0, 0, x)
    assert "Sin does not support int32_t" in err.message
    assert err.line == line_of(UNARY, "// @sin_tmp")


def test_unary_constraints(kernels):
    x = domain("Sin", 100)
    err = expect_error("local_overrun", unary, kernels, FLOAT, 0, 0, x, tmp_bytes=224)
    assert err.line == line_of(UNARY, "// @sin_tmp") and "at least 256 bytes" in err.message
    err = expect_error("bad_argument", unary, kernels, FLOAT, 0, 0, x, layout=1)
    assert err.line == line_of(UNARY, "// @sin_tmp")


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_power_three_forms(kernels, dtype):
    g = torch.Generator().manual_seed(3)
    n = 300
    a = (torch.rand(n, generator=g) * 4 + 0.1).to(DTYPES[dtype])
    b = (torch.rand(n, generator=g) * 4 - 2).to(DTYPES[dtype])
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == FLOAT else dict(atol=1e-3, rtol=2e-3)
    s = torch.tensor(1.25, dtype=DTYPES[dtype])
    refs = [torch.pow(a.double(), b.double()), torch.pow(a.double(), s.double()), torch.pow(s.double(), b.double())]
    for form, ref in enumerate(refs):
        for variant in range(4):
            y, _ = binary(kernels, dtype, 4 * form + variant, a, b, s.item())
            torch.testing.assert_close(y, ref.to(DTYPES[dtype]), **tol)


def test_power_int32(kernels):
    a = torch.arange(-8, 56, dtype=torch.int32)
    b = torch.arange(64, dtype=torch.int32) % 6
    y, _ = binary(kernels, INT32, 1, a, b, 0)
    assert torch.equal(y, torch.pow(a.long(), b.long()).to(torch.int32))
    err = expect_error("bad_argument", binary, kernels, INT32, 0, a, b - 1, 0)
    assert err.line == line_of(BINARY, "// @power")


def test_power_rejects_overlap_and_int16(kernels):
    a = torch.rand(64) + 0.5
    err = expect_error("bad_argument", binary, kernels, FLOAT, 0, a, a, 0.0, layout=1)
    assert err.line == line_of(BINARY, "// @power")
    x = torch.arange(64, dtype=torch.int16)
    err = expect_error("unsupported_dtype", binary, kernels, INT16, 0, x, x, 0)
    assert "Power does not support int16_t" in err.message


@pytest.mark.parametrize("dtype", [FLOAT, HALF])
def test_clamp(kernels, dtype):
    x = (torch.randn(500) * 3).to(DTYPES[dtype])
    x[0] = float("nan")
    for op, ref in ((12, torch.clamp(x, max=0.5)), (13, torch.clamp(x, max=0.5)), (14, torch.clamp(x, min=0.5)),
                    (15, torch.clamp(x, min=0.5))):
        y, _ = binary(kernels, dtype, op, x, x, 0.5)
        torch.testing.assert_close(y, ref, atol=0, rtol=0, equal_nan=True)


def test_xor_int16_and_refusal(kernels):
    g = torch.Generator().manual_seed(5)
    a = torch.randint(-32768, 32767, (200,), generator=g, dtype=torch.int16)
    b = torch.randint(-32768, 32767, (200,), generator=g, dtype=torch.int16)
    for op in range(16, 20):
        y, report = binary(kernels, INT16, op, a, b, 0)
        assert torch.equal(y, a ^ b)
    err = expect_error("unsupported_dtype", binary, kernels, FLOAT, 16, a.float(), b.float(), 0.0)
    assert err.line == line_of(BINARY, "// @xor")


def shift(kernels, dtype, op, x_bits, amount, soc=None):
    n = x_bits.numel()
    elem = 4 if dtype in (INT32, FLOAT) else 2
    n_pad = padded(n, elem)
    xg = torch.zeros(n_pad, dtype=x_bits.dtype)
    xg[:n] = x_bits
    y = torch.zeros(n_pad, dtype=x_bits.dtype)
    kernels["math_shift"].launch(1, xg, y, dtype, op, n_pad, n, amount, soc=soc)
    return y[:n]


def test_shift_documented_examples(kernels):
    x = torch.tensor([0b1010101010101010 - 65536] * 16, dtype=torch.int16)
    assert shift(kernels, INT16, 0, x, 1)[0].item() & 0xFFFF == 0b1101010101010100
    assert shift(kernels, INT16, 0, x, 3)[0].item() & 0xFFFF == 0b1101010101010000
    assert shift(kernels, INT16, 1, x, 1)[0].item() & 0xFFFF == 0b1101010101010101
    assert shift(kernels, INT16, 1, x, 3)[0].item() & 0xFFFF == 0b1111010101010101
    # uint16 (held in int16 storage): logical shifts
    assert shift(kernels, UINT16, 1, x, 1)[0].item() & 0xFFFF == 0b0101010101010101
    assert shift(kernels, UINT16, 0, x, 1)[0].item() & 0xFFFF == 0b0101010101010100


def test_shift_int32_matches_torch(kernels):
    g = torch.Generator().manual_seed(7)
    x = torch.randint(-(2**20), 2**20, (100,), generator=g, dtype=torch.int32)
    assert torch.equal(shift(kernels, INT32, 1, x, 5), x >> 5)
    assert torch.equal(shift(kernels, INT32, 0, x, 4), x << 4)  # no overflow at this range
    masked = shift(kernels, INT32, 2, x[:64], 4)  # mask form, 64 lanes, 1 repeat
    assert torch.equal(masked, x[:64] << 4)


def test_shift_constraints(kernels):
    x = torch.arange(64, dtype=torch.int32)
    err = expect_error("bad_argument", shift, kernels, INT32, 0, x, 32)
    assert err.line == line_of(SHIFT, "// @shl")
    err = expect_error("bad_argument", shift, kernels, INT32, 3, x, 1)
    assert err.line == line_of(SHIFT, "// @shr_round")
    err = expect_error("unsupported_dtype", shift, kernels, FLOAT, 0, x.float(), 1)
    assert err.line == line_of(SHIFT, "// @shl")
    err = expect_error("unsupported_dtype", shift, kernels, INT32, 0, x, 1, soc="Ascend310P3")
    assert "Ascend310P3" in err.message or "310P" in err.message
