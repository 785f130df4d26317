/*
 * missing_sync (negative test): TBuf buffers with no synchronisation between the
 * GM -> UB copy (MTE2) and the vector instruction that reads it (V), nor between the
 * vector result and the UB -> GM copy (MTE3). On the NPU the pipes run in parallel.
 */
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void missing_sync(GM_ADDR x, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xBuf, zBuf;
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, 256);
    zGm.SetGlobalBuffer((__gm__ float *)z, 256);
    pipe.InitBuffer(xBuf, 256 * sizeof(float));
    pipe.InitBuffer(zBuf, 256 * sizeof(float));
    AscendC::LocalTensor<float> xLocal = xBuf.Get<float>();
    AscendC::LocalTensor<float> zLocal = zBuf.Get<float>();
    AscendC::DataCopy(xLocal, xGm, 256);
    AscendC::Muls(zLocal, xLocal, 2.0f, 256);
    AscendC::DataCopy(zGm, zLocal, 256);
}
