/*
 * compare_count (negative test): Compare over 100 floats (400 bytes); the count form
 * needs the elements to cover whole 256-byte repeats (Compare.md).
 */
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void compare_count(GM_ADDR x, GM_ADDR y, GM_ADDR mask)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<float> xGm, yGm;
    AscendC::GlobalTensor<uint8_t> maskGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, 128);
    yGm.SetGlobalBuffer((__gm__ float *)y, 128);
    maskGm.SetGlobalBuffer((__gm__ uint8_t *)mask, 32);
    pipe.InitBuffer(inQueueX, 1, 128 * sizeof(float));
    pipe.InitBuffer(inQueueY, 1, 128 * sizeof(float));
    pipe.InitBuffer(outQueue, 1, 32);
    AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
    AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
    AscendC::DataCopy(xLocal, xGm, 128);
    AscendC::DataCopy(yLocal, yGm, 128);
    inQueueX.EnQue(xLocal);
    inQueueY.EnQue(yLocal);
    xLocal = inQueueX.DeQue<float>();
    yLocal = inQueueY.DeQue<float>();
    AscendC::LocalTensor<uint8_t> maskLocal = outQueue.AllocTensor<uint8_t>();
    AscendC::Compare(maskLocal, xLocal, yLocal, AscendC::CMPMODE::LT, 100);
    outQueue.EnQue<uint8_t>(maskLocal);
    inQueueX.FreeTensor(xLocal);
    inQueueY.FreeTensor(yLocal);
    maskLocal = outQueue.DeQue<uint8_t>();
    AscendC::DataCopy(maskGm, maskLocal, 32);
    outQueue.FreeTensor(maskLocal);
}
