/*
 * gm_out_of_bounds (negative test): the kernel reads and writes 256 floats
 * while the tensors passed in hold only 200.
 */
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void gm_out_of_bounds(GM_ADDR x, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x);
    zGm.SetGlobalBuffer((__gm__ float *)z);
    pipe.InitBuffer(inQueue, 1, 256 * sizeof(float));
    pipe.InitBuffer(outQueue, 1, 256 * sizeof(float));
    AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    AscendC::DataCopy(xLocal, xGm, 256);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    AscendC::LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
    AscendC::Muls(zLocal, xLocal, 2.0f, 256);
    outQueue.EnQue<float>(zLocal);
    inQueue.FreeTensor(xLocal);
    zLocal = outQueue.DeQue<float>();
    AscendC::DataCopy(zGm, zLocal, 256);
    outQueue.FreeTensor(zLocal);
}
