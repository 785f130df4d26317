/*
 * cast_bf16: bfloat16 storage, float arithmetic (no bf16 arithmetic on 910B).
 *   f = Cast<float>(x) * Cast<float>(y) + Cast<float>(x)      (CAST_NONE up)
 *   z    = Cast<bfloat16_t>(f, CAST_RINT)
 *   zTr  = Cast<bfloat16_t>(f, CAST_TRUNC)
 * Shape-generic (former/tail cores, DataCopyPad tails).
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength; // multiple of 16 elements
};

constexpr int32_t BUFFER_NUM = 2;

class KernelCastBf16 {
public:
    __aicore__ inline KernelCastBf16() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR zTrunc, const TilingData &tiling)
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
        xGm.SetGlobalBuffer((__gm__ bfloat16_t *)x + offset, coreLength);
        yGm.SetGlobalBuffer((__gm__ bfloat16_t *)y + offset, coreLength);
        zGm.SetGlobalBuffer((__gm__ bfloat16_t *)z + offset, coreLength);
        zTruncGm.SetGlobalBuffer((__gm__ bfloat16_t *)zTrunc + offset, coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(bfloat16_t));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(bfloat16_t));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, 2 * tileLength * sizeof(bfloat16_t));
        pipe.InitBuffer(calcBuf, 2 * tileLength * sizeof(float));
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
        AscendC::LocalTensor<bfloat16_t> xLocal = inQueueX.AllocTensor<bfloat16_t>();
        AscendC::LocalTensor<bfloat16_t> yLocal = inQueueY.AllocTensor<bfloat16_t>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(bfloat16_t)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<bfloat16_t> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        AscendC::DataCopyPad(yLocal, yGm[offset], copyParams, padParams);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<bfloat16_t> xLocal = inQueueX.DeQue<bfloat16_t>();
        AscendC::LocalTensor<bfloat16_t> yLocal = inQueueY.DeQue<bfloat16_t>();
        AscendC::LocalTensor<bfloat16_t> zLocal = outQueueZ.AllocTensor<bfloat16_t>();
        AscendC::LocalTensor<float> xf = calcBuf.Get<float>();
        AscendC::LocalTensor<float> yf = xf[tileLength];
        AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);
        AscendC::Cast(yf, yLocal, AscendC::RoundMode::CAST_NONE, count);
        AscendC::Mul(yf, xf, yf, count);
        AscendC::Add(yf, yf, xf, count);
        AscendC::Cast(zLocal, yf, AscendC::RoundMode::CAST_RINT, count);
        AscendC::Cast(zLocal[tileLength], yf, AscendC::RoundMode::CAST_TRUNC, count);
        outQueueZ.EnQue<bfloat16_t>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<bfloat16_t> zLocal = outQueueZ.DeQue<bfloat16_t>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(bfloat16_t)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[offset], zLocal, copyParams);
        AscendC::DataCopyPad(zTruncGm[offset], zLocal[tileLength], copyParams);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> calcBuf;
    AscendC::GlobalTensor<bfloat16_t> xGm, yGm, zGm, zTruncGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void cast_bf16(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR zTrunc, GM_ADDR workspace,
                                                 GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelCastBf16 op;
    op.Init(x, y, z, zTrunc, t);
    op.Process();
}
