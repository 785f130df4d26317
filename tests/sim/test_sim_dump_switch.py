"""The ASCENDC_DUMP switch (printf.md, DumpTensor.md, assert.md, ascendc_assert.md: "设置ASCENDC_DUMP=0来关闭打印功能").

One kernel source, built three ways: as written (the debug calls print and the assert stops the launch), with
`#define ASCENDC_DUMP 0` before kernel_operator.h and after it (the simulator's headers are precompiled before the
kernel, sim/dump_switch.h reads the switch after it). Off, nothing is printed or dumped, and no assert condition is
evaluated (its side effect does not happen) or stops the launch.
"""

from __future__ import annotations

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

BODY = r"""
using namespace AscendC;

__aicore__ inline bool Touch(GlobalTensor<int32_t>& flag)
{
    flag.SetValue(0, 7);  // the assert condition's side effect
    return false;
}

extern "C" __global__ __aicore__ void dump_switch(GM_ADDR x, GM_ADDR flagGm)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    LocalTensor<float> xl = buf.Get<float>();
    GlobalTensor<float> xg;
    GlobalTensor<int32_t> flag;
    xg.SetGlobalBuffer((__gm__ float*)x);
    flag.SetGlobalBuffer((__gm__ int32_t*)flagGm);
    DataCopy(xl, xg, 64);
    PipeBarrier<PIPE_ALL>();
    printf("value %d\n", 42);
    PRINTF("upper %d\n", 43);
    DumpTensor(xl, 5, 8);
    uint32_t dims[2] = {2, 4};
    DumpTensor(xg, 6, 8, ShapeInfo(2, dims));
    DumpAccChkPoint(xl, 7, 8, 8);
    ascendc_assert(Touch(flag), "ascendc_assert fired\n");  // @assert
    assert(false);
}
"""

PLAIN = '#include "kernel_operator.h"\n' + BODY
OFF_BEFORE = '#define ASCENDC_DUMP 0\n#include "kernel_operator.h"\n' + BODY
OFF_AFTER = '#include "kernel_operator.h"\n#define ASCENDC_DUMP 0\n' + BODY


@pytest.fixture(scope="module")
def kernels():
    return {name: compile_kernel(source, entry="dump_switch")
            for name, source in (("plain", PLAIN), ("off_before", OFF_BEFORE), ("off_after", OFF_AFTER))}


def launch(kernel):
    x = torch.arange(64, dtype=torch.float32)
    flag = torch.zeros(8, dtype=torch.int32)
    return kernel.launch(1, x, flag), flag


def test_as_written_the_calls_print_and_the_assert_stops_the_launch(kernels):
    e = expect_error("bad_argument", launch, kernels["plain"])
    assert e.line == marked_line(PLAIN, "@assert") and "ascendc_assert fired" in e.message
    for text in ("value 42", "upper 43", "desc=5", "desc=6", "desc=7"):
        assert text in e.debug_text


@pytest.mark.parametrize("name", ["off_before", "off_after"])
def test_ascendc_dump_0_turns_every_debug_call_off(kernels, name):
    report, flag = launch(kernels[name])
    assert report.debug_text == ""
    assert flag[0].item() == 0  # the assert's condition was not evaluated
