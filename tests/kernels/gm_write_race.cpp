/*
 * gm_write_race (negative test): every block writes its row to the same 64 floats of
 * the output without atomics, so the result depends on the order the cores finish.
 */
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void gm_write_race(GM_ADDR x, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TQueBind<AscendC::TPosition::VECIN, AscendC::TPosition::VECOUT, 1> queue;
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + AscendC::GetBlockIdx() * 64, 64);
    zGm.SetGlobalBuffer((__gm__ float *)z, 64);
    pipe.InitBuffer(queue, 1, 64 * sizeof(float));
    AscendC::LocalTensor<float> row = queue.AllocTensor<float>();
    AscendC::DataCopy(row, xGm, 64);
    queue.EnQue(row);
    row = queue.DeQue<float>();
    AscendC::DataCopy(zGm, row, 64);
    queue.FreeTensor(row);
}
