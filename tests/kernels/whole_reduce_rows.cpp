/*
 * whole_reduce_rows: per-row reductions of a [rows, cols] float matrix
 * (cols a multiple of 8, at most 64) with one repeat per row:
 *   sums[r]          = WholeReduceSum   (mask = cols, srcRepStride = cols / 8)
 *   maxs[r]          = WholeReduceMax   ORDER_ONLY_VALUE
 *   mins[2r], [2r+1] = WholeReduceMin   default order: value, in-row index bits
 * Rows are split between cores (former/tail) and processed chunkRows at a time.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t rows;
    uint32_t cols;
    uint32_t formerNum;
    uint32_t formerRows;
    uint32_t tailRows;
    uint32_t chunkRows; // <= 255
};

class KernelWholeReduceRows {
public:
    __aicore__ inline KernelWholeReduceRows() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR sums, GM_ADDR maxs, GM_ADDR mins, const TilingData &tiling)
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
        chunkRows = tiling.chunkRows;
        if (coreRows == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + rowStart * cols, coreRows * cols);
        sumGm.SetGlobalBuffer((__gm__ float *)sums + rowStart, coreRows);
        maxGm.SetGlobalBuffer((__gm__ float *)maxs + rowStart, coreRows);
        minGm.SetGlobalBuffer((__gm__ float *)mins + 2 * rowStart, 2 * coreRows);
        pipe.InitBuffer(inQueueX, 2, chunkRows * cols * sizeof(float));
        pipe.InitBuffer(outQueueSum, 2, (chunkRows * sizeof(float) + 31) / 32 * 32);
        pipe.InitBuffer(outQueueMax, 2, (chunkRows * sizeof(float) + 31) / 32 * 32);
        pipe.InitBuffer(outQueueMin, 2, (2 * chunkRows * sizeof(float) + 31) / 32 * 32);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < coreRows; done += chunkRows) {
            uint32_t n = coreRows - done < chunkRows ? coreRows - done : chunkRows;
            CopyIn(done, n);
            Compute(n);
            CopyOut(done, n);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t row, uint32_t n)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm[row * cols], n * cols);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> sumLocal = outQueueSum.AllocTensor<float>();
        AscendC::LocalTensor<float> maxLocal = outQueueMax.AllocTensor<float>();
        AscendC::LocalTensor<float> minLocal = outQueueMin.AllocTensor<float>();
        int32_t mask = static_cast<int32_t>(cols);
        int32_t repStride = static_cast<int32_t>(cols / 8);
        AscendC::WholeReduceSum<float>(sumLocal, xLocal, mask, n, 1, 1, repStride);
        AscendC::WholeReduceMax<float>(maxLocal, xLocal, mask, n, 1, 1, repStride,
                                       AscendC::ReduceOrder::ORDER_ONLY_VALUE);
        AscendC::WholeReduceMin<float>(minLocal, xLocal, mask, n, 1, 1, repStride);
        outQueueSum.EnQue<float>(sumLocal);
        outQueueMax.EnQue<float>(maxLocal);
        outQueueMin.EnQue<float>(minLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t row, uint32_t n)
    {
        AscendC::LocalTensor<float> sumLocal = outQueueSum.DeQue<float>();
        AscendC::LocalTensor<float> maxLocal = outQueueMax.DeQue<float>();
        AscendC::LocalTensor<float> minLocal = outQueueMin.DeQue<float>();
        AscendC::DataCopyExtParams oneParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyExtParams twoParams{1, static_cast<uint32_t>(2 * n * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(sumGm[row], sumLocal, oneParams);
        AscendC::DataCopyPad(maxGm[row], maxLocal, oneParams);
        AscendC::DataCopyPad(minGm[2 * row], minLocal, twoParams);
        outQueueSum.FreeTensor(sumLocal);
        outQueueMax.FreeTensor(maxLocal);
        outQueueMin.FreeTensor(minLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueSum, outQueueMax, outQueueMin;
    AscendC::GlobalTensor<float> xGm, sumGm, maxGm, minGm;
    uint32_t coreRows = 0;
    uint32_t cols = 0;
    uint32_t chunkRows = 0;
};

extern "C" __global__ __aicore__ void whole_reduce_rows(GM_ADDR x, GM_ADDR sums, GM_ADDR maxs, GM_ADDR mins,
                                                         GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelWholeReduceRows op;
    op.Init(x, sums, maxs, mins, t);
    op.Process();
}
