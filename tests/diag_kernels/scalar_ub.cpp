/*
 * scalar_ub: y = x + 1 over `length` floats (one block), the addition done one element at a time on
 * the scalar unit: through LocalTensor GetValue/SetValue (mode VIA_API, charged by the cost model),
 * through a raw pointer made from LocalTensor::GetPhyAddr (mode RAW_POINTER: refused in a checked
 * launch), or with one vector instruction (mode VECTOR, the baseline the scalar loop must not beat).
 */
#include "kernel_operator.h"

using namespace AscendC;

enum Mode : uint32_t {
    VECTOR = 0,
    VIA_API = 1,
    RAW_POINTER = 2,
};

struct TilingData {
    uint32_t length;  // a multiple of 8, at most 4096
    uint32_t mode;
};

extern "C" __global__ __aicore__ void scalar_ub(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.length);
    yGm.SetGlobalBuffer((__gm__ float*)y, t.length);
    pipe.InitBuffer(inQueue, 1, 4096 * sizeof(float));
    pipe.InitBuffer(outQueue, 1, 4096 * sizeof(float));
    LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    DataCopy(xLocal, xGm, t.length);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
    if (t.mode == VECTOR) {
        Adds(yLocal, xLocal, 1.0f, t.length);
    } else if (t.mode == VIA_API) {
        for (uint32_t i = 0; i < t.length; ++i) yLocal.SetValue(i, xLocal.GetValue(i) + 1.0f);
    } else {
        float* in = reinterpret_cast<float*>(xLocal.GetPhyAddr());
        float* out = reinterpret_cast<float*>(yLocal.GetPhyAddr());
        for (uint32_t i = 0; i < t.length; ++i) out[i] = in[i] + 1.0f; // <- raw_pointer
    }
    outQueue.EnQue(yLocal);
    inQueue.FreeTensor(xLocal);
    yLocal = outQueue.DeQue<float>();
    DataCopy(yGm, yLocal, t.length);
    outQueue.FreeTensor(yLocal);
}
