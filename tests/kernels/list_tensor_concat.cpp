/*
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
