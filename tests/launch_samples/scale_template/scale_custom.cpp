/*
 * scale_custom: y = x * factor, a template kernel entry instantiated at its <<<>>> launch (float and half),
 * and a plain entry, offset_custom (y = x + offset), that main.cpp launches with ACLRT_LAUNCH_KERNEL.
 * Each core takes n / blockDim elements (n a multiple of blockDim * 32 bytes).
 */
#include "kernel_operator.h"

template <typename T>
__global__ __aicore__ void scale_kernel(GM_ADDR x, GM_ADDR y, float factor, uint32_t n)
{
    uint32_t perCore = n / AscendC::GetBlockNum();
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, perCore * sizeof(T));
    AscendC::GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T *)x + perCore * AscendC::GetBlockIdx(), perCore);
    yGm.SetGlobalBuffer((__gm__ T *)y + perCore * AscendC::GetBlockIdx(), perCore);
    AscendC::LocalTensor<T> local = buf.Get<T>();
    AscendC::DataCopy(local, xGm, perCore);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Muls(local, local, static_cast<T>(factor), perCore);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(yGm, local, perCore);
    if (AscendC::GetBlockIdx() == 0) {
        AscendC::printf("scale_kernel on %u cores\n", (uint32_t)AscendC::GetBlockNum());
    }
}

extern "C" __global__ __aicore__ void offset_custom(GM_ADDR x, GM_ADDR y, float offset, uint32_t n)
{
    uint32_t perCore = n / AscendC::GetBlockNum();
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, perCore * sizeof(float));
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + perCore * AscendC::GetBlockIdx(), perCore);
    yGm.SetGlobalBuffer((__gm__ float *)y + perCore * AscendC::GetBlockIdx(), perCore);
    AscendC::LocalTensor<float> local = buf.Get<float>();
    AscendC::DataCopy(local, xGm, perCore);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Adds(local, local, offset, perCore);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(yGm, local, perCore);
}

#ifndef ASCENDC_CPU_DEBUG
void scale_float_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, float factor, uint32_t n)
{
    scale_kernel<float><<<blockDim, nullptr, stream>>>(x, y, factor, n);
}

void scale_half_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, float factor, uint32_t n)
{
    scale_kernel<half><<<blockDim, nullptr, stream>>>(x, y, factor, n);
}
#endif
