"""The list-tensor API (ListTensorDesc, TensorDesc) against the layout of its documentation page."""

from __future__ import annotations

import struct

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.list_tensor import list_tensor_desc
from torch_ascendgen.targets.sim.simulator import compile_kernel

KERNEL = r"""/*
 * list_tensor_concat: the tensors a ListTensorDesc describes, flattened one after another into out, and what
 * the list says about them into meta: [size, then per tensor dim, index, shape...]. a and b are the listed
 * tensors, passed as well so that the launch knows their GM.
 */
#include "kernel_operator_list_tensor_intf.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void list_tensor_concat(GM_ADDR list, GM_ADDR a, GM_ADDR b, GM_ADDR out,
                                                         GM_ADDR meta, uint32_t checkedLength, uint32_t readIndex)
{
    ListTensorDesc listDesc(reinterpret_cast<__gm__ void *>(list), checkedLength);
    GlobalTensor<float> outGm;
    GlobalTensor<int64_t> metaGm;
    outGm.SetGlobalBuffer((__gm__ float *)out);
    metaGm.SetGlobalBuffer((__gm__ int64_t *)meta);
    uint32_t size = listDesc.GetSize();
    metaGm.SetValue(0, size);
    uint64_t shapeBuf[8] = {0};
    uint64_t written = 0;
    uint64_t metaPos = 1;
    for (uint32_t i = 0; i < size + readIndex; i++) {
        TensorDesc<float> desc;
        desc.SetShapeAddr(shapeBuf);
        listDesc.GetDesc(desc, i);
        metaGm.SetValue(metaPos++, desc.GetDim());
        metaGm.SetValue(metaPos++, desc.GetIndex());
        uint64_t count = 1;
        for (uint32_t d = 0; d < desc.GetDim(); d++) {
            metaGm.SetValue(metaPos++, desc.GetShape(d));
            count *= desc.GetShape(d);
        }
        GlobalTensor<float> data = desc.GetDataObj();
        for (uint64_t e = 0; e < count; e++) {
            outGm.SetValue(written++, data.GetValue(e));
        }
        if (listDesc.GetDataPtr<float>(i) != desc.GetDataPtr()) {
            metaGm.SetValue(0, -1);
        }
    }
}
"""
UNCHECKED = 0xFFFFFFFF


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(KERNEL, filename="list_tensor_concat.cpp")


def test_the_layout_is_the_documented_example():
    """ListTensorDesc.md's example: two 3-dim tensors of shapes (1, 2, 3) and (3, 4, 5): 72, then the descriptors."""
    a, b = torch.zeros(1, 2, 3), torch.zeros(3, 4, 5)
    words = struct.unpack("<11Q", list_tensor_desc([a, b]).numpy().tobytes())
    assert words[:9] == (72, 3, 1, 2, 3, 3 | (1 << 32), 3, 4, 5)
    assert words[9:] == (a.data_ptr(), b.data_ptr())


def _run(kernel, a, b, length=UNCHECKED, read_index=0):
    listed = list_tensor_desc([a, b])
    out = torch.full((a.numel() + b.numel(),), float("nan"))
    meta = torch.zeros(16, dtype=torch.int64)
    kernel.launch(1, listed, a, b, out, meta, length, read_index)
    return out, meta


def test_descs_shapes_and_data_come_from_the_list(kernel):
    a, b = torch.randn(1, 2, 3), torch.randn(5, 4)
    out, meta = _run(kernel, a, b, length=8 * 11 - 8)
    assert torch.equal(out, torch.cat([a.flatten(), b.flatten()]))
    assert meta[:11].tolist() == [2, 3, 0, 1, 2, 3, 2, 1, 5, 4, 0]


@pytest.mark.parametrize(("length", "read_index", "message"), [
    (64, 0, "length is 64 bytes but the list takes 56"),  # two 1-dim tensors: 7 words
    (UNCHECKED, 1, r"GetDesc\(2\): the list holds 2 tensors"),
])
def test_list_misuse_is_reported_at_the_kernel_line(kernel, length, read_index, message):
    with pytest.raises(SimulatorError, match=message) as caught:
        _run(kernel, torch.randn(2), torch.randn(3), length, read_index)
    assert caught.value.kind == "bad_argument" and caught.value.file == "list_tensor_concat.cpp"
