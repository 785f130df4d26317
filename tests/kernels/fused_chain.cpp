/*
 * fused_chain: z = exp(-relu(2 * x + 1)) * y + x, a fused elementwise chain
 * (Muls, Adds, Relu, Muls, Exp, Mul, Add) with the intermediate kept in a
 * TBuf<VECCALC> scratch tensor. float or half.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength;
    uint32_t dtypeKey; // 0 float, 1 half
};

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelFusedChain {
public:
    __aicore__ inline KernelFusedChain() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &tiling)
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
        if (coreLength == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, coreLength);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, coreLength);
        zGm.SetGlobalBuffer((__gm__ T *)z + offset, coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(tmpBuf, tileLength * sizeof(T));
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
        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        AscendC::DataCopyPad(yLocal, yGm[offset], copyParams, padParams);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        AscendC::LocalTensor<T> tmp = tmpBuf.Get<T>();
        AscendC::Muls(tmp, xLocal, static_cast<T>(2.0f), count);
        AscendC::Adds(tmp, tmp, static_cast<T>(1.0f), count);
        AscendC::Relu(tmp, tmp, count);
        AscendC::Muls(tmp, tmp, static_cast<T>(-1.0f), count);
        AscendC::Exp(tmp, tmp, count);
        AscendC::Mul(tmp, tmp, yLocal, count);
        AscendC::Add(zLocal, tmp, xLocal, count);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
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
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tmpBuf;
    AscendC::GlobalTensor<T> xGm, yGm, zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void fused_chain(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        KernelFusedChain<float> op;
        op.Init(x, y, z, t);
        op.Process();
    } else {
        KernelFusedChain<half> op;
        op.Init(x, y, z, t);
        op.Process();
    }
}
