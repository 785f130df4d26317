/*
 * bitwise_int16: and = x & y, or = x | y, not = ~x on 16-bit integers
 * (int16_t or uint16_t views of the same bits). The three results share one
 * VECOUT buffer, addressed with LocalTensor::operator[] at 32-byte aligned
 * offsets.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength; // multiple of 16 elements
    uint32_t dtypeKey;   // 0 int16, 1 uint16
};

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelBitwise {
public:
    __aicore__ inline KernelBitwise() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR zAnd, GM_ADDR zOr, GM_ADDR zNot,
                                const TilingData &tiling)
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
        andGm.SetGlobalBuffer((__gm__ T *)zAnd + offset, coreLength);
        orGm.SetGlobalBuffer((__gm__ T *)zOr + offset, coreLength);
        notGm.SetGlobalBuffer((__gm__ T *)zNot + offset, coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueue, BUFFER_NUM, 3 * tileLength * sizeof(T));
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
        AscendC::LocalTensor<T> outLocal = outQueue.AllocTensor<T>();
        AscendC::And(outLocal, xLocal, yLocal, count);
        AscendC::Or(outLocal[tileLength], xLocal, yLocal, count);
        AscendC::Not(outLocal[2 * tileLength], xLocal, count);
        outQueue.EnQue<T>(outLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> outLocal = outQueue.DeQue<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(andGm[offset], outLocal, copyParams);
        AscendC::DataCopyPad(orGm[offset], outLocal[tileLength], copyParams);
        AscendC::DataCopyPad(notGm[offset], outLocal[2 * tileLength], copyParams);
        outQueue.FreeTensor(outLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueue;
    AscendC::GlobalTensor<T> xGm, yGm, andGm, orGm, notGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void bitwise_int16(GM_ADDR x, GM_ADDR y, GM_ADDR zAnd, GM_ADDR zOr, GM_ADDR zNot,
                                                     GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        KernelBitwise<int16_t> op;
        op.Init(x, y, zAnd, zOr, zNot, t);
        op.Process();
    } else {
        KernelBitwise<uint16_t> op;
        op.Init(x, y, zAnd, zOr, zNot, t);
        op.Process();
    }
}
