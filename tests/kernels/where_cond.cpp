/*
 * where_cond: z = torch.where(cond, x, y) with a uint8 (bool) condition.
 * cond -> half (Cast uint8->half, CAST_NONE) -> CompareScalar(NE 0) bit mask
 * -> Select(VSEL_TENSOR_TENSOR_MODE) on float data. The half buffer is zeroed
 * up to a whole number of 256-byte repeats before the Cast.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength; // multiple of 256 elements
};

constexpr uint32_t HALF_PER_REPEAT = 128;

class KernelWhere {
public:
    __aicore__ inline KernelWhere() {}
    __aicore__ inline void Init(GM_ADDR cond, GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &tiling)
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
        condGm.SetGlobalBuffer((__gm__ uint8_t *)cond + offset, coreLength);
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, coreLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, coreLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + offset, coreLength);
        pipe.InitBuffer(inQueueCond, 2, tileLength * sizeof(uint8_t));
        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, 2, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, 2, tileLength * sizeof(float));
        pipe.InitBuffer(condHalfBuf, tileLength * sizeof(half));
        pipe.InitBuffer(maskBuf, tileLength / 8);
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
        AscendC::LocalTensor<uint8_t> condLocal = inQueueCond.AllocTensor<uint8_t>();
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        AscendC::DataCopyExtParams condParams{1, count, 0, 0, 0};
        AscendC::DataCopyPadExtParams<uint8_t> condPad{false, 0, 0, 0};
        AscendC::DataCopyPad(condLocal, condGm[offset], condParams, condPad);
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        AscendC::DataCopyPad(yLocal, yGm[offset], copyParams, padParams);
        inQueueCond.EnQue(condLocal);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<uint8_t> condLocal = inQueueCond.DeQue<uint8_t>();
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        AscendC::LocalTensor<half> condHalf = condHalfBuf.Get<half>();
        AscendC::LocalTensor<uint8_t> mask = maskBuf.Get<uint8_t>();
        uint32_t repeatAligned = (count + HALF_PER_REPEAT - 1) / HALF_PER_REPEAT * HALF_PER_REPEAT;
        AscendC::Duplicate(condHalf, static_cast<half>(0.0f), repeatAligned);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Cast(condHalf, condLocal, AscendC::RoundMode::CAST_NONE, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::CompareScalar(mask, condHalf, static_cast<half>(0.0f), AscendC::CMPMODE::NE, repeatAligned);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Select(zLocal, mask, xLocal, yLocal, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
        outQueueZ.EnQue<float>(zLocal);
        inQueueCond.FreeTensor(condLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[offset], zLocal, copyParams);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueCond, inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueZ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> condHalfBuf, maskBuf;
    AscendC::GlobalTensor<uint8_t> condGm;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void where_cond(GM_ADDR cond, GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                  GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelWhere op;
    op.Init(cond, x, y, z, t);
    op.Process();
}
