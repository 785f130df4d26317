"""The simulator's Python API: building, caching, argument passing, errors."""

import ctypes
import struct

import pytest
import torch

from torch_ascendgen import get_soc
from torch_ascendgen.errors import AscendGenError, KernelArgumentError, KernelBuildError, SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel, find_entry

# Scales n floats by alpha with scalar UB accesses: it uses only tensors, queues and DataCopy.
SCALE_SOURCE = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct Params { uint32_t n; float alpha; };

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, uint32_t n, float alpha, Params extra)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> queue;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x);
    yGm.SetGlobalBuffer((__gm__ float*)y);
    pipe.InitBuffer(queue, 1, n * sizeof(float));
    LocalTensor<float> t = queue.AllocTensor<float>();
    DataCopy(t, xGm, n);
    PipeBarrier<PIPE_ALL>();
    for (uint32_t i = 0; i < n; ++i) t.SetValue(i, t.GetValue(i) * alpha * extra.alpha + float(extra.n));
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, t, n);
    queue.FreeTensor(t);
}
"""


class Params(ctypes.Structure):
    _fields_ = [("n", ctypes.c_uint32), ("alpha", ctypes.c_float)]


@pytest.fixture(scope="module")
def scale_kernel():
    return compile_kernel(SCALE_SOURCE)


def test_scalar_and_struct_parameters_reach_the_kernel(scale_kernel):
    x = torch.randn(64)
    y = torch.full_like(x, float("nan"))
    scale_kernel.launch(1, x, y, 64, 0.5, Params(3, 2.0))
    torch.testing.assert_close(y, x * 0.5 * 2.0 + 3.0)


def test_the_report_counts_what_the_kernel_moved(scale_kernel):
    x = torch.randn(64)
    report = scale_kernel.launch(1, x, torch.empty_like(x), 64, 1.0, bytes(Params(0, 1.0)))
    core = report.cores[0]
    assert core["gm_to_ub_bytes"] == 256 and core["ub_to_gm_bytes"] == 256
    assert report.vector_ops()["UB scalar access"][0] == 128
    assert report.estimated_ns > report.launch_ns > 0


def test_an_identical_source_is_built_once():
    first = compile_kernel(SCALE_SOURCE)
    again = compile_kernel(SCALE_SOURCE)
    assert again.build.cached and again.build.directory == first.build.directory
    changed = compile_kernel(SCALE_SOURCE.replace("alpha * extra.alpha", "alpha * extra.alpha * 1.0f"))
    assert changed.build.directory != first.build.directory


def test_a_compile_error_names_the_kernel_line():
    broken = SCALE_SOURCE.replace("DataCopy(t, xGm, n);", "DataCopy(t, xGm, count);")
    with pytest.raises(KernelBuildError) as info:
        compile_kernel(broken)
    line = broken.splitlines().index("    DataCopy(t, xGm, count);") + 1
    assert f"kernel.cpp:{line}:" in info.value.log
    assert "'count' was not declared" in info.value.log.replace("‘", "'").replace("’", "'")


def test_wrong_arguments_are_rejected_before_the_kernel_runs(scale_kernel):
    x = torch.randn(64)
    with pytest.raises(KernelArgumentError, match="takes 5 arguments"):
        scale_kernel.launch(1, x, x)
    with pytest.raises(KernelArgumentError, match="contiguous"):
        scale_kernel.launch(1, torch.randn(8, 16).t(), x, 64, 1.0, Params(0, 1.0))
    with pytest.raises(KernelArgumentError, match="GM_ADDR"):
        scale_kernel.launch(1, 5, x, 64, 1.0, Params(0, 1.0))
    with pytest.raises(KernelArgumentError, match="integer"):
        scale_kernel.launch(1, x, x, 1.5, 1.0, Params(0, 1.0))
    with pytest.raises(KernelArgumentError, match="8-byte struct"):
        scale_kernel.launch(1, x, x, 64, 1.0, b"\0" * 4)
    with pytest.raises(KernelArgumentError, match="does not fit"):
        scale_kernel.launch(1, x, x, -1, 1.0, Params(0, 1.0))
    with pytest.raises(KernelArgumentError, match="block_dim"):
        scale_kernel.launch(0, x, x, 64, 1.0, Params(0, 1.0))


def test_a_violation_names_the_line_and_shows_it(scale_kernel):
    x = torch.randn(64)
    with pytest.raises(SimulatorError) as info:
        scale_kernel.launch(1, x, torch.empty(32), 64, 1.0, Params(0, 1.0))
    error = info.value
    assert error.kind == "gm_out_of_bounds"
    assert error.source_line.strip() == "DataCopy(yGm, t, n);"
    assert error.line == SCALE_SOURCE.splitlines().index("    DataCopy(yGm, t, n);") + 1
    assert error.block == 0 and "kernel.cpp" in str(error)


def test_the_entry_is_found_or_the_ambiguity_explained():
    assert find_entry(SCALE_SOURCE) == "scale"
    with pytest.raises(KernelArgumentError, match="no kernel entry"):
        find_entry("int main() {}")
    two = SCALE_SOURCE + SCALE_SOURCE.replace("void scale(", "void scale2(")
    with pytest.raises(KernelArgumentError, match="several"):
        find_entry(two)


def test_soc_names_are_checked():
    assert get_soc("Ascend910B2").vector_cores == 48
    assert not get_soc("Ascend310P3").has_datacopy_pad
    with pytest.raises(AscendGenError, match="first-generation"):
        get_soc("Ascend910B")
    with pytest.raises(AscendGenError, match="known SoCs"):
        get_soc("Ascend999")


def test_tiling_bytes_are_a_gm_buffer(scale_kernel):
    # bytes given for a pointer parameter become a GM buffer of exactly that size
    x = torch.randn(64)
    data = struct.pack("<64f", *x.tolist())
    y = torch.empty(64)
    scale_kernel.launch(1, data, y, 64, 2.0, Params(0, 1.0))
    torch.testing.assert_close(y, x * 2.0)


# A kernel whose parameters and scale factor come from its own headers, one of them found through "../".
HEADER_KERNEL = r"""
#include "kernel_operator.h"
#include "scale_tiling.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void header_scale(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    ScaleTiling t = *reinterpret_cast<__gm__ ScaleTiling*>(tiling);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> queue;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x);
    yGm.SetGlobalBuffer((__gm__ float*)y);
    pipe.InitBuffer(queue, 1, t.n * sizeof(float));
    LocalTensor<float> v = queue.AllocTensor<float>();
    DataCopy(v, xGm, t.n);
    PipeBarrier<PIPE_ALL>();
    Muls(v, v, SCALE_FACTOR, t.n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, v, t.n);
    queue.FreeTensor(v);
}
"""

HEADERS = {
    "scale_tiling.h": '#pragma once\n#include "../common/factor.h"\nstruct ScaleTiling { uint32_t n; };\n',
    "../common/factor.h": "#pragma once\nconstexpr float SCALE_FACTOR = 3.0f;\n",
}


def test_a_kernel_builds_with_its_own_headers():
    kernel = compile_kernel(HEADER_KERNEL, headers=HEADERS)
    x = torch.randn(64)
    y = torch.zeros(64)
    kernel.launch(1, x, y, struct.pack("<I", 64))
    torch.testing.assert_close(y, x * 3.0)


def test_headers_are_part_of_the_build_key():
    first = compile_kernel(HEADER_KERNEL, headers=HEADERS)
    changed = compile_kernel(HEADER_KERNEL, headers={**HEADERS, "../common/factor.h": HEADERS["../common/factor.h"]
                                                    .replace("3.0f", "5.0f")})
    assert changed.build.directory != first.build.directory
    x = torch.randn(64)
    y = torch.zeros(64)
    changed.launch(1, x, y, struct.pack("<I", 64))
    torch.testing.assert_close(y, x * 5.0)


def test_without_its_header_a_kernel_fails_to_build():
    with pytest.raises(KernelBuildError, match="scale_tiling.h"):
        compile_kernel(HEADER_KERNEL, headers={"../common/factor.h": HEADERS["../common/factor.h"]})


def test_errors_in_a_header_name_it_as_the_kernel_includes_it():
    broken = {**HEADERS, "../common/factor.h": "#pragma once\nconstexpr float SCALE_FACTOR = undefined_name;\n"}
    with pytest.raises(KernelBuildError) as info:
        compile_kernel(HEADER_KERNEL, headers=broken)
    assert "../common/factor.h:2:" in info.value.log and "local_headers" not in info.value.log
    overrun = {**HEADERS, "scale_tiling.h": HEADERS["scale_tiling.h"] + (
        "__aicore__ inline void Scale(AscendC::LocalTensor<float> v, uint32_t n) { AscendC::Muls(v, v, 2.0f, n); }\n")}
    kernel = compile_kernel(HEADER_KERNEL.replace("Muls(v, v, SCALE_FACTOR, t.n);", "Scale(v, t.n + 8);"),
                            headers=overrun)
    with pytest.raises(SimulatorError) as failed:
        kernel.launch_isolated(1, torch.randn(64), torch.zeros(64), struct.pack("<I", 64))
    assert failed.value.kind == "local_overrun" and failed.value.file == "scale_tiling.h"


@pytest.mark.parametrize("name", ["/etc/passwd", "a/../../b.h", "a//b.h", "./a.h", "", "..", "-Ia.h", "a\\b.h"])
def test_a_header_name_must_be_a_plain_relative_path(name):
    with pytest.raises(KernelArgumentError, match="plain relative path"):
        compile_kernel(HEADER_KERNEL, headers={**HEADERS, name: "#pragma once\n"})


TWO_OUTPUTS = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void two_outputs(GM_ADDR a, GM_ADDR b)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    GlobalTensor<int32_t> aGm, bGm;
    aGm.SetGlobalBuffer((__gm__ int32_t*)a);
    bGm.SetGlobalBuffer((__gm__ int32_t*)b);
    pipe.InitBuffer(buf, 64);
    LocalTensor<int32_t> t = buf.Get<int32_t>();
    Duplicate(t, 1, 8);
    Duplicate(t[8], 2, 8);
    PipeBarrier<PIPE_ALL>();
    DataCopy(aGm, t, 8);
    DataCopy(bGm, t[8], 8);
}
"""


def test_outputs_that_start_equal_stay_separate_buffers_in_the_child():
    """Two zeroed outputs hold the same bytes: the sandboxed launch must still hand the kernel two buffers."""
    kernel = compile_kernel(TWO_OUTPUTS)
    a, b = torch.zeros(8, dtype=torch.int32), torch.zeros(8, dtype=torch.int32)
    kernel.launch_isolated(1, a, b)
    assert a.tolist() == [1] * 8 and b.tolist() == [2] * 8


# A kernel-launch file: the entry and, below it, the launcher its project's host code calls, with the <<<>>> syntax
# (in a header too). compile_kernel builds it unmodified; the entry is what a launch runs.
LAUNCHER_SOURCE = SCALE_SOURCE.replace("struct Params", '#include "launch_scale.h"\nstruct Params', 1) + r"""
extern "C" uint32_t scale_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y, uint32_t n)
{
    Params extra{0, 1.0f};
    scale<<<blockDim, nullptr, stream>>>(x, y, n, 2.0f, extra);  // a comment with <<<1>>> stays a comment
    return 0;
}
"""
LAUNCHER_HEADER = "#pragma once\ntemplate <typename F> void launch_twice(F f) { f<<<1, nullptr, nullptr>>>(); }\n"


def test_a_kernel_launch_file_builds_unmodified_and_runs_its_entry():
    kernel = compile_kernel(LAUNCHER_SOURCE, "scale", headers={"launch_scale.h": LAUNCHER_HEADER})
    x = torch.arange(16, dtype=torch.float32)
    y = torch.zeros(16)
    kernel.launch(1, x, y, 16, 2.0, Params(1, 3.0))
    assert torch.equal(y, x * 6.0 + 1.0)
    broken = LAUNCHER_SOURCE.replace("(x, y, n, 2.0f, extra);", "(x, y, n);")
    with pytest.raises(KernelBuildError, match="different number of arguments"):
        compile_kernel(broken, "scale", headers={"launch_scale.h": LAUNCHER_HEADER})
