/*
 * ub_overflow (negative test): two queues of 2 x 64 KB each need 256 KB of
 * Unified Buffer, more than the 192 KB of an Atlas A2 core.
 */
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void ub_overflow(GM_ADDR x, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueue;
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, 16384);
    zGm.SetGlobalBuffer((__gm__ float *)z, 16384);
    pipe.InitBuffer(inQueue, 2, 16384 * sizeof(float));
    pipe.InitBuffer(outQueue, 2, 16384 * sizeof(float));
    AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    AscendC::DataCopy(xLocal, xGm, 16384);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    AscendC::LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
    AscendC::Muls(zLocal, xLocal, 2.0f, 16384);
    outQueue.EnQue<float>(zLocal);
    inQueue.FreeTensor(xLocal);
    zLocal = outQueue.DeQue<float>();
    AscendC::DataCopy(zGm, zLocal, 16384);
    outQueue.FreeTensor(zLocal);
}
