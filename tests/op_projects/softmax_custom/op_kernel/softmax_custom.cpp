#include "kernel_operator.h"
using namespace AscendC;

class KernelSoftmax {
public:
    __aicore__ inline KernelSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxCustomTilingData &tilingData)
    {
        tiling = tilingData;
        uint32_t rowStart = GetBlockIdx() * tiling.rowsPerCore;
        coreRows = rowStart >= tiling.rows ? 0 : tiling.rows - rowStart;
        if (coreRows > tiling.rowsPerCore) {
            coreRows = tiling.rowsPerCore;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)rowStart * tiling.cols, (uint64_t)coreRows * tiling.cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + (uint64_t)rowStart * tiling.cols, (uint64_t)coreRows * tiling.cols);
        uint32_t tileBytes = tiling.tileRows * tiling.cols * sizeof(float);
        pipe.InitBuffer(inQueue, 2, tileBytes);
        pipe.InitBuffer(outQueue, 2, tileBytes);
        pipe.InitBuffer(tmpBuf, tiling.tmpBytes);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t row = 0; row < coreRows; row += tiling.tileRows) {
            uint32_t rows = coreRows - row < tiling.tileRows ? coreRows - row : tiling.tileRows;
            CopyIn(row, rows);
            Compute(rows);
            CopyOut(row, rows);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t row, uint32_t rows)
    {
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopy(xLocal, xGm[(uint64_t)row * tiling.cols], rows * tiling.cols);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t rows)
    {
        LocalTensor<float> xLocal = inQueue.DeQue<float>();
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
        SoftMaxShapeInfo shapeInfo = {rows, tiling.cols, rows, tiling.cols};
        SoftMax<float>(yLocal, xLocal, tmp, tiling.softmaxTilingData, shapeInfo);
        outQueue.EnQue<float>(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t row, uint32_t rows)
    {
        LocalTensor<float> yLocal = outQueue.DeQue<float>();
        DataCopy(yGm[(uint64_t)row * tiling.cols], yLocal, rows * tiling.cols);
        outQueue.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> tmpBuf;
    GlobalTensor<float> xGm, yGm;
    SoftmaxCustomTilingData tiling;
    uint32_t coreRows = 0;
};

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSoftmax op;
    op.Init(x, y, tilingData);
    op.Process();
}
