/*
 * misaligned_ub (negative test): a vector instruction on LocalTensors offset by 3
 * floats (12 bytes); UB operands must start 32-byte aligned.
 */
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void misaligned_ub(GM_ADDR x, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, 64);
    zGm.SetGlobalBuffer((__gm__ float *)z, 64);
    pipe.InitBuffer(inQueue, 1, 64 * sizeof(float));
    pipe.InitBuffer(outQueue, 1, 64 * sizeof(float));
    AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    AscendC::DataCopy(xLocal, xGm, 64);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    AscendC::LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
    AscendC::Duplicate(zLocal, 0.0f, 64);
    AscendC::Adds(zLocal[3], xLocal[3], 1.0f, 32);
    outQueue.EnQue<float>(zLocal);
    inQueue.FreeTensor(xLocal);
    zLocal = outQueue.DeQue<float>();
    AscendC::DataCopy(zGm, zLocal, 64);
    outQueue.FreeTensor(zLocal);
}
