/*
 * broadcast_add: y = x + bias for x [rows, cols] and bias [cols] (any cols up
 * to 2040). Rows land 32-byte padded in UB (DataCopyPad, blockCount = rows).
 * The add is a level-0 Add per 64-column segment with one repeat per row and
 * src1RepStride = 0, so every repeat reads the same bias segment.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t rows;
    uint32_t cols;
    uint32_t colsAligned; // cols rounded up to 8
    uint32_t formerNum;
    uint32_t formerRows;
    uint32_t tailRows;
    uint32_t chunkRows; // <= 255
};

class KernelBroadcastAdd {
public:
    __aicore__ inline KernelBroadcastAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, const TilingData &tiling)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint32_t rowStart;
        if (blockIdx < tiling.formerNum) {
            coreRows = tiling.formerRows;
            rowStart = blockIdx * tiling.formerRows;
        } else {
            coreRows = tiling.tailRows;
            rowStart = tiling.formerNum * tiling.formerRows + (blockIdx - tiling.formerNum) * tiling.tailRows;
        }
        cols = tiling.cols;
        colsAligned = tiling.colsAligned;
        chunkRows = tiling.chunkRows;
        if (coreRows == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        biasGm.SetGlobalBuffer((__gm__ float *)bias, cols);
        pipe.InitBuffer(biasQueue, 1, colsAligned * sizeof(float));
        pipe.InitBuffer(inQueueX, 2, chunkRows * colsAligned * sizeof(float));
        pipe.InitBuffer(outQueueY, 2, chunkRows * colsAligned * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        if (coreRows == 0) {
            return;
        }
        AscendC::LocalTensor<float> biasLocal = biasQueue.AllocTensor<float>();
        AscendC::DataCopyExtParams biasParams{1, static_cast<uint32_t>(cols * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(biasLocal, biasGm, biasParams, padParams);
        biasQueue.EnQue(biasLocal);
        biasLocal = biasQueue.DeQue<float>();

        uint8_t rowStride = static_cast<uint8_t>(colsAligned / 8);
        for (uint32_t done = 0; done < coreRows; done += chunkRows) {
            uint32_t n = coreRows - done < chunkRows ? coreRows - done : chunkRows;
            AscendC::DataCopyExtParams rowParams{static_cast<uint16_t>(n), static_cast<uint32_t>(cols * sizeof(float)),
                                                 0, 0, 0};
            AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
            AscendC::DataCopyPad(xLocal, xGm[(uint64_t)done * cols], rowParams, padParams);
            inQueueX.EnQue(xLocal);

            xLocal = inQueueX.DeQue<float>();
            AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
            for (uint32_t seg = 0; seg < cols; seg += 64) {
                uint64_t mask = cols - seg < 64 ? cols - seg : 64;
                AscendC::Add(yLocal[seg], xLocal[seg], biasLocal[seg], mask, static_cast<uint8_t>(n),
                             {1, 1, 1, rowStride, rowStride, 0});
            }
            outQueueY.EnQue<float>(yLocal);
            inQueueX.FreeTensor(xLocal);

            yLocal = outQueueY.DeQue<float>();
            AscendC::DataCopyPad(yGm[(uint64_t)done * cols], yLocal, rowParams);
            outQueueY.FreeTensor(yLocal);
        }
        biasQueue.FreeTensor(biasLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> biasQueue;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueY;
    AscendC::GlobalTensor<float> xGm, yGm, biasGm;
    uint32_t coreRows = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    uint32_t chunkRows = 0;
};

extern "C" __global__ __aicore__ void broadcast_add(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR workspace,
                                                     GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelBroadcastAdd op;
    op.Init(x, bias, y, t);
    op.Process();
}
