/*
 * elementwise_scalar: z = Mins(Maxs(Muls(Adds(x, addend), factor), lo), hi),
 * i.e. clamp((x + a) * b, lo, hi) with the four tensor-scalar APIs, computed
 * in place in the output buffer. Scalars come from the tiling data.
 * Shape-generic with former/tail cores and DataCopyPad tails.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength;
    uint32_t dtypeKey; // 0 float, 1 half, 2 int32, 3 int16
    float addend;
    float factor;
    float lo;
    float hi;
};

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelScalarChain {
public:
    __aicore__ inline KernelScalarChain() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, const TilingData &tiling)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint64_t offset;
        if (blockIdx < tiling.formerNum) {
            coreLength = tiling.formerLength;
            offset = (uint64_t)blockIdx * tiling.formerLength;
        } else {
            coreLength = tiling.tailLength;
            offset = (uint64_t)tiling.formerNum * tiling.formerLength +
                     (uint64_t)(blockIdx - tiling.formerNum) * tiling.tailLength;
        }
        tileLength = tiling.tileLength;
        addend = static_cast<T>(tiling.addend);
        factor = static_cast<T>(tiling.factor);
        lo = static_cast<T>(tiling.lo);
        hi = static_cast<T>(tiling.hi);
        if (coreLength == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, coreLength);
        zGm.SetGlobalBuffer((__gm__ T *)z + offset, coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        uint32_t tileNum = (coreLength + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = (i == tileNum - 1) ? coreLength - i * tileLength : tileLength;
            CopyIn(i * tileLength, count);
            Compute(count);
            CopyOut(i * tileLength, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> padParams{true, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        AscendC::Adds(zLocal, xLocal, addend, count);
        AscendC::Muls(zLocal, zLocal, factor, count);
        AscendC::Maxs(zLocal, zLocal, lo, count);
        AscendC::Mins(zLocal, zLocal, hi, count);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[offset], zLocal, copyParams);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<T> xGm, zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    T addend, factor, lo, hi;
};

template <typename T>
__aicore__ inline void RunScalarChain(GM_ADDR x, GM_ADDR z, const TilingData &tiling)
{
    KernelScalarChain<T> op;
    op.Init(x, z, tiling);
    op.Process();
}

extern "C" __global__ __aicore__ void elementwise_scalar(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    switch (t.dtypeKey) {
        case 0: RunScalarChain<float>(x, z, t); break;
        case 1: RunScalarChain<half>(x, z, t); break;
        case 2: RunScalarChain<int32_t>(x, z, t); break;
        default: RunScalarChain<int16_t>(x, z, t); break;
    }
}
