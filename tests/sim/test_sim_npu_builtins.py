"""What kernels take from the NPU compiler and newer toolkits rather than from the AscendC API: the builtins
get_block_idx()/get_block_num(), the vector-core pass macro __DAV_C220_VEC__ (kernels that build one file for both
cores guard their vector code with it, sometimes before any include), and kernel_operator.h under the path newer
toolkits install it at (ascendc/basic_api/kernel_operator.h)."""

from __future__ import annotations

import functools

import torch

from torch_ascendgen.targets.sim.simulator import compile_kernel

# Each block writes its index and the block count as int32 into its own 64-byte line, through the builtins; the
# file is empty without the vector-core macro, as it would be on the NPU's cube pass.
BUILTINS = r"""
#ifdef __DAV_C220_VEC__
#include "ascendc/basic_api/kernel_operator.h"

extern "C" __global__ __aicore__ void block_ids(GM_ADDR out)
{
    AscendC::GlobalTensor<int32_t> outGm;
    outGm.SetGlobalBuffer((__gm__ int32_t*)out + 16 * get_block_idx(), 16);
    outGm.SetValue(0, static_cast<int32_t>(get_block_idx()));
    outGm.SetValue(1, static_cast<int32_t>(get_block_num()));
}
#endif
"""


@functools.cache
def kernel():
    return compile_kernel(BUILTINS, "block_ids", filename="block_ids.cpp")


def test_builtins_name_the_block_and_the_block_count():
    blocks = 5
    out = torch.full((blocks, 16), -1, dtype=torch.int32)
    kernel().launch(blocks, out)
    assert out[:, 0].tolist() == list(range(blocks))
    assert out[:, 1].tolist() == [blocks] * blocks
    assert bool((out[:, 2:] == -1).all())
