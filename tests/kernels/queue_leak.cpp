/*
 * queue_leak (negative test): a queue initialised with one buffer is asked for
 * a second tensor in the loop while the first is never freed (a hang on the
 * NPU). The simulator must report the queue misuse.
 */
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void queue_leak(GM_ADDR x, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, 256);
    zGm.SetGlobalBuffer((__gm__ float *)z, 256);
    pipe.InitBuffer(inQueue, 1, 128 * sizeof(float));
    pipe.InitBuffer(outQueue, 1, 128 * sizeof(float));
    for (int32_t i = 0; i < 2; i++) {
        AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm[i * 128], 128);
        inQueue.EnQue(xLocal);
        xLocal = inQueue.DeQue<float>();
        AscendC::LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
        AscendC::Muls(zLocal, xLocal, 2.0f, 128);
        outQueue.EnQue<float>(zLocal);
        zLocal = outQueue.DeQue<float>();
        AscendC::DataCopy(zGm[i * 128], zLocal, 128);
        outQueue.FreeTensor(zLocal);
        // missing: inQueue.FreeTensor(xLocal);
    }
}
