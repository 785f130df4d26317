"""The scalar helpers (sim/scalar_ops.h) and system queries (sim/system_vars.h) against the documented
examples and Python.

Pages: asc-devkit v8.5.0 ScalarGetCountOfValue.md, ScalarCountLeadingZero.md, ScalarCast.md,
CountBitsCntSameAsSignBit.md, ScalarGetSFFValue.md, GetSystemCycle(ISASI).md, GetArchVersion.md,
GetDataBlockSizeInBytes.md, GetSubBlockNum(ISASI).md, GetProgramCounter(ISASI).md, InitSocState.md.
"""

from __future__ import annotations

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

SCALAR = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void scalar_ops(GM_ADDR out, uint64_t value, int64_t signedValue, float f,
                                                 uint32_t which)
{
    GlobalTensor<int64_t> og;
    og.SetGlobalBuffer((__gm__ int64_t*)out);
    if (which == 1) {
        (void)ScalarCast<float, half, RoundMode::CAST_RINT>(f);  // @bad_mode
        return;
    }
    og.SetValue(0, ScalarGetCountOfValue<1>(value));
    og.SetValue(1, ScalarGetCountOfValue<0>(value));
    og.SetValue(2, ScalarCountLeadingZero(value));
    og.SetValue(3, CountBitsCntSameAsSignBit(signedValue));
    og.SetValue(4, ScalarGetSFFValue<0>(value));
    og.SetValue(5, ScalarGetSFFValue<1>(value));
    og.SetValue(6, ScalarCast<float, int32_t, RoundMode::CAST_ROUND>(f));
    og.SetValue(7, ScalarCast<float, int32_t, RoundMode::CAST_CEIL>(f));
    og.SetValue(8, ScalarCast<float, int32_t, RoundMode::CAST_FLOOR>(f));
    og.SetValue(9, ScalarCast<float, int32_t, RoundMode::CAST_RINT>(f));
    half h = ScalarCast<float, half, RoundMode::CAST_ODD>(f);
    uint16_t bits;
    __builtin_memcpy(&bits, &h, 2);
    og.SetValue(10, bits);
    uint32_t coreVersion = 0;
    GetArchVersion(coreVersion);
    og.SetValue(11, coreVersion);
    static_assert(GetDataBlockSizeInBytes() == 32, "a constant expression");
    og.SetValue(12, GetDataBlockSizeInBytes());
    og.SetValue(13, GetSubBlockNum());
    og.SetValue(14, GetProgramCounter());
    og.SetValue(15, GetProgramCounter());
}

// A previous operator's global state (counter mode, an atomic add) cleared by InitSocState.
extern "C" __global__ __aicore__ void soc_state(GM_ADDR out, uint32_t init)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx;
    pipe.InitBuffer(bx, 64 * sizeof(float));
    LocalTensor<float> x = bx.Get<float>();
    GlobalTensor<float> og;
    og.SetGlobalBuffer((__gm__ float*)out);
    Duplicate(x, 0.0f, 64);
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, 10);
    SetAtomicAdd<float>();
    if (init) InitSocState();
    Adds<float, false>(x, x, 1.0f, MASK_PLACEHOLDER, 1, UnaryRepeatParams());
    PipeBarrier<PIPE_ALL>();
    DataCopy(og, x, 64);
    SetAtomicNone();
    SetMaskNorm();
    ResetMask();
}

extern "C" __global__ __aicore__ void system_cycle(GM_ADDR out, uint32_t adds)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by;
    pipe.InitBuffer(bx, 8192 * sizeof(float));
    pipe.InitBuffer(by, 8192 * sizeof(float));
    LocalTensor<float> x = bx.Get<float>(), y = by.Get<float>();
    Duplicate(x, 1.0f, 8192);
    PipeBarrier<PIPE_ALL>();
    int64_t before = GetSystemCycle();
    for (uint32_t i = 0; i < adds; ++i) Add(y, x, x, 8192);
    PipeBarrier<PIPE_ALL>();
    int64_t after = GetSystemCycle();
    GlobalTensor<int64_t> og;
    og.SetGlobalBuffer((__gm__ int64_t*)out);
    og.SetValue(0, before);
    og.SetValue(8, after);  // a cache line apart
}
"""


@pytest.fixture(scope="module")
def kernels():
    return {name: compile_kernel(SCALAR, entry=name) for name in ("scalar_ops", "system_cycle", "soc_state")}


def run(kernels, value: int, signed: int, f: float, *, soc=None) -> list[int]:
    out = torch.zeros(16, dtype=torch.int64)
    kernels["scalar_ops"].launch(1, out, value, signed, f, 0, soc=soc)
    return out.tolist()


def sign_run(v: int) -> int:
    if v in (0, -1):
        return -1
    bits = format(v & (2**64 - 1), "064b")
    return len(bits[1:]) - len(bits[1:].lstrip(bits[0]))


def first_index(v: int, bit: str) -> int:
    text = format(v, "064b")[::-1]
    return text.find(bit)


def test_documented_examples(kernels):
    out = run(kernels, 0xFFFF, 0x0F00000000000000, 2.5)
    assert out[0] == 16  # ScalarGetCountOfValue<1>(0xffff)
    assert out[3] == 3  # CountBitsCntSameAsSignBit(0x0f00000000000000)
    assert out[6] == 3  # ScalarCast<float, int32_t, CAST_ROUND>(2.5)
    assert run(kernels, 0x0FFFFFFFFFFFFFFF, 0, 0.0)[2] == 4  # ScalarCountLeadingZero
    assert run(kernels, 28, 0, 0.0)[5] == 2  # ScalarGetSFFValue<1>(28)


@pytest.mark.parametrize("value,signed", [(0, 0), (1, -1), (2**64 - 1, -2), (0x8000000000000000, 2**62),
                                          (0x00F0F0F0F0F0F0F0, -(2**40)), (12345678901234, 7)])
def test_bit_helpers_match_python(kernels, value, signed):
    out = run(kernels, value, signed, 0.0)
    ones = bin(value).count("1")
    assert out[0:2] == [ones, 64 - ones]
    assert out[2] == (64 - value.bit_length())
    assert out[3] == sign_run(signed)
    assert out[4:6] == [first_index(value, "0"), first_index(value, "1")]


@pytest.mark.parametrize("f,expected", [(2.5, [3, 3, 2, 2]), (-2.5, [-3, -2, -3, -2]), (3.7, [4, 4, 3, 4]),
                                        (-0.2, [0, 0, -1, 0]), (1e10, [2**31 - 1] * 4), (-1e10, [-(2**31)] * 4)])
def test_scalar_cast_to_int32_rounds_and_saturates(kernels, f, expected):
    assert run(kernels, 0, 0, f)[6:10] == expected  # ROUND, CEIL, FLOOR, RINT


@pytest.mark.parametrize("f,bits", [(1.0 + 2**-11, 0x3C01), (1.0 + 2**-12, 0x3C01), (1.0 + 2**-10 + 2**-12, 0x3C01),
                                    (3.0, 0x4200), (-(1.0 + 2**-11), 0xBC01), (70000.0, 0x7BFF)])
def test_scalar_cast_to_half_rounds_to_odd(kernels, f, bits):
    # CAST_ODD: truncate, then set the last bit when inexact; it never overflows to inf
    assert run(kernels, 0, 0, f)[10] == bits


def test_scalar_cast_refuses_an_undocumented_mode(kernels):
    with pytest.raises(SimulatorError) as info:
        kernels["scalar_ops"].launch(1, torch.zeros(16, dtype=torch.int64), 0, 0, 1.0, 1)
    line = next(i for i, text in enumerate(SCALAR.splitlines(), 1) if text.rstrip().endswith("// @bad_mode"))
    assert (info.value.kind, info.value.line) == ("bad_argument", line)
    assert "CAST_ODD" in info.value.message


def test_arch_version_per_soc(kernels):
    assert run(kernels, 0, 0, 0.0)[11] == 0x220  # GetArchVersion.md: 220 on Atlas A2/A3
    assert run(kernels, 0, 0, 0.0, soc="Ascend310P3")[11] == 0x200


def cycles(kernels, adds: int) -> int:
    out = torch.zeros(16, dtype=torch.int64)
    kernels["system_cycle"].launch(1, out, adds)
    assert out[8] >= out[0] >= 0
    return int(out[8] - out[0])


def test_system_cycle_counts_the_work_between_two_reads_at_50_mhz(kernels):
    one, two = cycles(kernels, 100), cycles(kernels, 200)
    assert one > 20, one
    assert abs(two - 2 * one) <= 2, (one, two)
    assert cycles(kernels, 0) == 0


def test_system_variables(kernels):
    out = run(kernels, 0, 0, 0.0)
    assert out[12:14] == [32, 1]  # GetDataBlockSizeInBytes, GetSubBlockNum of a vector-only kernel
    assert out[14] != out[15], "GetProgramCounter differs from line to line"


def test_init_soc_state_clears_the_mask_mode_and_atomics(kernels):
    out = torch.full((64,), 5.0)
    kernels["soc_state"].launch(1, out, 0)
    assert out.tolist() == [6.0] * 10 + [5.0] * 54  # counter mode: 10 elements; atomic add onto GM
    out = torch.full((64,), 5.0)
    kernels["soc_state"].launch(1, out, 1)
    assert out.tolist() == [1.0] * 64  # normal mode, all lanes, plain copy
