/*
 * bf16_arith (negative test): Add on bfloat16_t tensors. Atlas A2/A3 have no bf16
 * vector arithmetic (Add.md lists half, int16_t, int32_t, float): Cast to float first.
 */
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void bf16_arith(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<bfloat16_t> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ bfloat16_t *)x, 128);
    yGm.SetGlobalBuffer((__gm__ bfloat16_t *)y, 128);
    zGm.SetGlobalBuffer((__gm__ bfloat16_t *)z, 128);
    pipe.InitBuffer(inQueueX, 1, 128 * sizeof(bfloat16_t));
    pipe.InitBuffer(inQueueY, 1, 128 * sizeof(bfloat16_t));
    pipe.InitBuffer(outQueue, 1, 128 * sizeof(bfloat16_t));
    AscendC::LocalTensor<bfloat16_t> xLocal = inQueueX.AllocTensor<bfloat16_t>();
    AscendC::LocalTensor<bfloat16_t> yLocal = inQueueY.AllocTensor<bfloat16_t>();
    AscendC::DataCopy(xLocal, xGm, 128);
    AscendC::DataCopy(yLocal, yGm, 128);
    inQueueX.EnQue(xLocal);
    inQueueY.EnQue(yLocal);
    xLocal = inQueueX.DeQue<bfloat16_t>();
    yLocal = inQueueY.DeQue<bfloat16_t>();
    AscendC::LocalTensor<bfloat16_t> zLocal = outQueue.AllocTensor<bfloat16_t>();
    AscendC::Add(zLocal, xLocal, yLocal, 128);
    outQueue.EnQue<bfloat16_t>(zLocal);
    inQueueX.FreeTensor(xLocal);
    inQueueY.FreeTensor(yLocal);
    zLocal = outQueue.DeQue<bfloat16_t>();
    AscendC::DataCopy(zGm, zLocal, 128);
    outQueue.FreeTensor(zLocal);
}
