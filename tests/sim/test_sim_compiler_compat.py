"""What public kernels take from the NPU compiler and CANN's CPU-debug build rather than from the documented API:
scalar `min`/`max`, the mask intrinsics `set_mask_count`/`set_mask_norm`, `AscendCUtils::ResetMask`, `dcci` and
DataCacheCleanAndInvalid (no data cache to flush here) and the ACL header for a launcher's types. The kernel below
is written without `using namespace AscendC`, as such kernels are."""

from __future__ import annotations

import functools

import torch

from tests.kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

SOURCE = r"""
#include "acl/acl.h"
#include "kernel_operator.h"

struct LaunchConfig { aclrtStream stream; uint32_t rows; };

extern "C" __global__ __aicore__ void clamp_rows(GM_ADDR x, GM_ADDR y, GM_ADDR flags, int64_t limit, uint32_t mode)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256 * sizeof(float));
    AscendC::GlobalTensor<float> xg, yg;
    AscendC::GlobalTensor<int64_t> fg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    if (mode == 1) AscendC::DataCacheCleanAndInvalid<int64_t, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                                     AscendC::DcciDst::CACHELINE_OUT>(fg);  // @unset
    fg.SetGlobalBuffer((__gm__ int64_t*)flags, 4);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    int64_t count = min(limit, 256u);
    AscendC::DataCopy(t, xg, 256);
    AscendC::PipeBarrier<PIPE_ALL>();
    set_mask_count();
    AscendC::SetVectorMask<float, AscendC::MaskMode::COUNTER>(count);
    AscendC::Muls<float, false>(t, t, 2.0f, AscendC::MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
    set_mask_norm();
    AscendC::AscendCUtils::ResetMask();
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(yg, t, 256);
    fg.SetValue(0, count);
    fg.SetValue(1, max(count, int64_t(7)));
    fg.SetValue(2, static_cast<int64_t>(max(1.5f, 2)));
    dcci((__gm__ int64_t*)flags, 1);
    AscendC::DataCacheCleanAndInvalid<int64_t, AscendC::CacheLine::ENTIRE_DATA_CACHE>(fg);
}
"""


@functools.cache
def kernel():
    return compile_kernel(SOURCE, filename="clamp_rows.cpp")


def _run(limit: int, mode: int = 0):
    x = torch.linspace(-1, 1, 256)
    y = torch.zeros(256)
    flags = torch.zeros(4, dtype=torch.int64)
    kernel().launch(1, x, y, flags, limit, mode)
    return x, y, flags


def test_intrinsics_and_scalar_min_max_compute_as_the_npu_does():
    x, y, flags = _run(100)
    expected = x.clone()
    expected[:100] *= 2
    torch.testing.assert_close(y, expected)
    assert flags.tolist() == [100, 100, 2, 0]


def test_min_takes_the_common_type_of_its_operands():
    _, y, flags = _run(1000)
    assert flags[0] == 256
    torch.testing.assert_close(y, torch.linspace(-1, 1, 256) * 2)


def test_a_cache_flush_of_a_tensor_with_no_buffer_is_reported_at_its_line():
    error = expect_error("bad_argument", _run, 10, 1)
    assert error.line == marked_line(SOURCE, "// @unset") and "SetGlobalBuffer" in error.message
