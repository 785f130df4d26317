/*
 * bad_datacopy_count (negative test): DataCopy GM -> UB of 20 floats (80 bytes),
 * which is not a multiple of 32 bytes. On the NPU the copy is silently
 * truncated to 64 bytes; the simulator must report it.
 */
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void bad_datacopy_count(GM_ADDR x, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, 32);
    zGm.SetGlobalBuffer((__gm__ float *)z, 32);
    pipe.InitBuffer(inQueue, 1, 32 * sizeof(float));
    pipe.InitBuffer(outQueue, 1, 32 * sizeof(float));
    AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    AscendC::DataCopy(xLocal, xGm, 20);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    AscendC::LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
    AscendC::Adds(zLocal, xLocal, 1.0f, 32);
    outQueue.EnQue<float>(zLocal);
    inQueue.FreeTensor(xLocal);
    zLocal = outQueue.DeQue<float>();
    AscendC::DataCopy(zGm, zLocal, 32);
    outQueue.FreeTensor(zLocal);
}
