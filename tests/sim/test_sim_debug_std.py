"""AscendC::Std utilities and the kernel debug APIs (printf/PRINTF, DumpTensor, DumpAccChkPoint, assert).

Debug text must never reach the process's stdout: the simulator collects it per launch, the runtime takes it
through the library's ascendc_sim_debug_output export after every launch and returns it with the launch
(RunReport.debug_text, or a failed launch's SimulatorError.debug_text); a failed assert fails the launch at the
kernel's line.
"""

from __future__ import annotations

import ctypes
import functools
import os
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.generators.llm.screen import ScreenRejected, screen
from torch_ascendgen.targets.sim.simulator import DEBUG_TAIL_CHARS, compile_kernel

N = 16

DEBUG = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct Pair { int32_t a; float b; };

extern "C" __global__ __aicore__ void debug_std(GM_ADDR x, GM_ADDR out, uint32_t n, uint32_t mode)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx;
    pipe.InitBuffer(bx, n * sizeof(float));
    GlobalTensor<float> xg, og;
    xg.SetGlobalBuffer((__gm__ float*)x, n);
    og.SetGlobalBuffer((__gm__ float*)out, 8);
    LocalTensor<float> xl = bx.Get<float>();
    DataCopy(xl, xg, n);
    PipeBarrier<PIPE_ALL>();
    PRINTF("block %d of %d: n=%u first=%f\n", (int)GetBlockIdx(), (int)GetBlockNum(), n, xl.GetValue(0));
    AscendC::printf("half prints as float: %.2f\n", (half)1.5f);
    DumpTensor(xl, 7, 4);
    DumpAccChkPoint(xl, 9, 8, 2);
    DumpTensor(xg, 11, 3);
    ascendc_assert(n >= 8, "n is %u", n);
    assert(n > 0);
    if (mode == 1) assert(n < 4, "n is %u", n);  // <- ASSERT_MSG
    if (mode == 2) assert(n == 0);  // <- ASSERT_BARE
    if (mode == 3) DumpTensor(xl, 1, n + 8);  // <- DUMP_OVERRUN
    if (mode == 4) DumpAccChkPoint(xl, 1, 3, 2);  // <- DUMP_MISALIGNED

    if (GetBlockIdx() != 0) return;
    Std::tuple<uint32_t, float, bool> t = Std::make_tuple(22u, 3.5f, true);
    og.SetValue(0, static_cast<float>(Std::max(n, 40u)));
    og.SetValue(1, static_cast<float>(Std::min(n, 3)));
    og.SetValue(2, static_cast<float>(Std::get<0>(t)) + Std::get<1>(t) + (Std::get<2>(t) ? 100.0f : 0.0f));
    og.SetValue(3, Std::is_same<Std::remove_cv_t<const float>, float>::value ? 1.0f : 0.0f);
    og.SetValue(4, Std::is_same_v<Std::decay_t<int&>, float> ? 1.0f : 0.0f);
    og.SetValue(5, static_cast<float>(Std::tuple_size<decltype(t)>::value + Std::Int<4>::value));
    og.SetValue(6, Std::is_convertible_v<int, float> && Std::integral_constant<int, 2>() == 2 ? 1.0f : 0.0f);
    og.SetValue(7, static_cast<float>(Std::max(2.5f, 1)));
}
"""


def _source_line(marker: str) -> int:
    return next(i for i, text in enumerate(DEBUG.splitlines(), 1) if f"// <- {marker}" in text)


@functools.cache
def kernel():
    return compile_kernel(DEBUG, filename="debug_std.cpp")


@pytest.fixture(scope="module", autouse=True)
def _build():
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        list(pool.map(lambda _: kernel(), [0]))


def take_output(k) -> str:
    """The debug text the library collected since the last take (the same handle the runtime loaded)."""
    library = ctypes.CDLL(str(k.build.library))
    take = library.ascendc_sim_debug_output
    take.restype, take.argtypes = ctypes.c_uint64, [ctypes.c_char_p, ctypes.c_uint64]
    buffer = ctypes.create_string_buffer(1 << 17)
    length = take(buffer, len(buffer))
    assert length < len(buffer)
    return buffer.value.decode()


def run(mode: int, blocks: int = 1):
    k = kernel()
    x = torch.arange(N, dtype=torch.float32) + 0.25
    out = torch.zeros(8)
    report = k.launch(blocks, x, out, N, mode)
    return out, report.debug_text


def test_std_utilities_match_their_documented_semantics():
    out, _ = run(0)
    assert out.tolist() == [40.0, 3.0, 22 + 3.5 + 100, 1.0, 0.0, 3 + 4, 1.0, 2.5]


def test_printf_and_dumps_are_collected_per_launch_not_printed(capfd):
    _, text = run(0, blocks=2)
    captured = capfd.readouterr()
    assert "DumpTensor" not in captured.out and "block 0 of 2" not in captured.out
    assert "[block 0] block 0 of 2: n=16 first=0.250000" in text
    assert "[block 1] block 1 of 2: n=16 first=0.250000" in text
    assert "[block 0] half prints as float: 1.50" in text
    assert "DumpTensor: desc=7, addr=0x" in text
    assert "data_type=DT_FLOAT, position=UB, dump_size=4\n[0.25, 1.25, 2.25, 3.25]" in text
    assert "desc=9," in text and "[8.25, 9.25]" in text  # DumpAccChkPoint: from element 8
    assert "desc=11," in text and "position=GM, dump_size=3\n[0.25, 1.25, 2.25]" in text
    assert "[ASSERT]" not in text
    _, again = run(0)
    assert again.count("[block 0] block 0 of 1") == 1 and "of 2" not in again


@pytest.mark.parametrize("mode, marker, expected", [
    (1, "ASSERT_MSG", ["Assertion `n < 4'", "n is 16", "printf: this block's last debug output", "block 0 of 1"]),
    (2, "ASSERT_BARE", ["Assertion `n == 0'"]),
])
def test_failed_assert_fails_the_launch_at_the_kernel_line(mode, marker, expected):
    with pytest.raises(SimulatorError) as info:
        run(mode)
    err = info.value
    assert err.kind == "bad_argument" and str(err.message).startswith("assert failed")
    assert err.line == _source_line(marker)
    for text in expected:
        assert text in str(err)
    assert "[block 0] [ASSERT] " in err.debug_text and f":{err.line}: Assertion `" in err.debug_text
    assert "[block 0] block 0 of 1: n=16" in err.debug_text  # the printf before it
    assert take_output(kernel()) == ""  # the runtime took the failed launch's text with it


@pytest.mark.parametrize("mode, marker, kind, words", [
    (3, "DUMP_OVERRUN", "local_overrun", "offset + dumpSize"),
    (4, "DUMP_MISALIGNED", "ub_misaligned", "32-byte aligned"),
])
def test_dump_constraints_name_the_kernel_line(mode, marker, kind, words):
    with pytest.raises(SimulatorError) as info:
        run(mode)
    assert info.value.kind == kind and info.value.line == _source_line(marker) and words in str(info.value)
    quoted = str(info.value.message).split("printf: the launch's last debug output:\n", 1)[1]
    assert 0 < len(quoted) <= DEBUG_TAIL_CHARS and info.value.debug_text.endswith(quoted)
    assert "[block 0] block 0 of 1: n=16" in info.value.debug_text


def test_each_launch_reports_its_own_debug_text_only():
    k = kernel()
    x = torch.arange(N, dtype=torch.float32) + 0.25
    first = k.launch(2, x, torch.zeros(8), N, 0)
    second = k.launch(1, x, torch.zeros(8), N, 0)
    assert first.debug_text.count("block 0 of 2: n=16") == 1 and first.debug_text.count("block 1 of 2: n=16") == 1
    assert second.debug_text.count("[block 0] block 0 of 1: n=16") == 1 and "of 2" not in second.debug_text
    assert "[block 0] half prints as float: 1.50" in second.debug_text
    assert take_output(k) == ""


def test_isolated_launches_bring_their_debug_text_back():
    k = kernel()
    x = torch.arange(N, dtype=torch.float32) + 0.25
    report = k.launch_isolated(1, x, torch.zeros(8), N, 0, checked=True)
    assert "[block 0] block 0 of 1: n=16" in report.debug_text
    with pytest.raises(SimulatorError) as info:
        k.launch_isolated(1, x, torch.zeros(8), N, 1, checked=True)
    assert "[block 0] [ASSERT] " in info.value.debug_text and "printf: this block" in str(info.value)


def _entry(body: str) -> str:
    return ('#include "kernel_operator.h"\nusing namespace AscendC;\n'
            'extern "C" __global__ __aicore__ void k(GM_ADDR x, uint32_t n)\n{\n'
            "    GlobalTensor<float> xg;\n    xg.SetGlobalBuffer((__gm__ float*)x, n);\n" + body + "}\n")


def test_the_ascendc_debug_apis_pass_the_screen_and_c_printf_does_not():
    screen(_entry('    PRINTF("n=%u\\n", n);\n    AscendC::printf("n=%u\\n", n);\n    DumpTensor(xg, 1, n);\n'
                  '    DumpAccChkPoint(xg, 2, 0, n);\n'
                  '    assert(n > 0, "n=%u", n);\n    ascendc_assert(n > 0);\n'
                  '    uint32_t m = Std::max(n, 1u) + Std::min(n, 2u);\n    (void)m;\n'), contract=False)
    for body in ('    printf("n=%u\\n", n);\n', '    std::printf("n=%u\\n", n);\n',
                 '    auto p = &AscendC::printf<uint32_t>;\n    (void)p;\n'):
        with pytest.raises(ScreenRejected):
            screen(_entry(body), contract=False)


SHAPED = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void shaped(GM_ADDR x, GM_ADDR out, uint32_t mode)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx;
    pipe.InitBuffer(bx, 6 * sizeof(float));
    GlobalTensor<float> xg, og;
    xg.SetGlobalBuffer((__gm__ float*)x, 8);
    og.SetGlobalBuffer((__gm__ float*)out, 4);
    LocalTensor<float> xl = bx.Get<float>();
    PrintTimeStamp(0x10001);
    DataCopy(xl, xg, 8);
    PipeBarrier<PIPE_ALL>();
    PrintTimeStamp(0x10002);
    uint32_t dims[] = {2, 3};
    xl.SetShapeInfo(ShapeInfo(2, dims, DataFormat::ND));
    ShapeInfo back = xl.GetShapeInfo();
    og.SetValue(0, static_cast<float>(back.shapeDim * 100 + back.shape[0] * 10 + back.shape[1]));
    og.SetValue(1, static_cast<float>(GetShapeSize(back)));
    DumpTensor(xl, 3, 6, back);
    uint32_t flat[] = {6};
    DumpTensor(xg, 4, 4, ShapeInfo(1, flat));
    uint32_t zero[] = {2, 0};
    if (mode == 1) DumpTensor(xl, 5, 6, ShapeInfo(2, zero));  // <- ZERO_DIM
    if (mode == 2) Trap();  // <- TRAP
}
"""


@functools.cache
def shaped_kernel():
    return compile_kernel(SHAPED, filename="shaped.cpp")


def _shaped_line(marker: str) -> int:
    return next(i for i, text in enumerate(SHAPED.splitlines(), 1) if f"// <- {marker}" in text)


def _run_shaped(mode: int, soc: str | None = None):
    x = torch.arange(8, dtype=torch.float32)
    out = torch.zeros(4)
    return out, shaped_kernel().launch(1, x, out, mode, soc=soc)


def test_shape_info_is_kept_by_the_tensor_and_shapes_the_dump():
    out, report = _run_shaped(0)
    assert out[:2].tolist() == [223.0, 6.0]
    text = report.debug_text
    assert "desc=3," in text and "dump_size=6, shape=[2, 3]\n[[0, 1, 2],\n[3, 4, 5]]" in text
    assert "desc=4," in text and "position=GM, dump_size=4, shape=[6]\n[0, 1, 2, 3]" in text


def test_print_time_stamp_records_the_estimated_cycles_in_order():
    _, report = _run_shaped(0)
    stamps = [int(line.split("timeStamp is ")[1].split(",")[0]) for line in report.debug_text.splitlines()
              if "descId is 6553" in line]
    assert len(stamps) == 2 and stamps[1] > stamps[0], report.debug_text
    assert "descId is 65537, rsv is 0, timeStamp is" in report.debug_text
    with pytest.raises(SimulatorError) as info:
        _run_shaped(0, soc="Ascend310P3")
    assert info.value.kind == "unsupported_api" and "PrintTimeStamp" in str(info.value)


@pytest.mark.parametrize("mode, marker, words", [(1, "ZERO_DIM", "dimension 1 is 0"), (2, "TRAP", "Trap() called")])
def test_a_bad_shape_and_trap_fail_at_the_kernel_line(mode, marker, words):
    with pytest.raises(SimulatorError) as info:
        _run_shaped(mode)
    assert info.value.line == _shaped_line(marker) and words in str(info.value)
