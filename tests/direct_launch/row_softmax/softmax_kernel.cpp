// y[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(x[r, :] - max(x[r, :]))), one row at a time.
#include "kernel_operator.h"
#include "softmax_tiling.h"

using namespace AscendC;

class KernelRowSoftmax {
public:
    __aicore__ inline KernelRowSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const RowSoftmaxTiling &tiling)
    {
        cols = tiling.cols;
        uint32_t firstRow = GetBlockIdx() * tiling.rowsPerCore;
        rowCount = firstRow >= tiling.rows ? 0 : tiling.rows - firstRow;
        rowCount = rowCount > tiling.rowsPerCore ? tiling.rowsPerCore : rowCount;
        xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)firstRow * cols, (uint64_t)rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + (uint64_t)firstRow * cols, (uint64_t)rowCount * cols);
        pipe.InitBuffer(inQueue, 2, cols * sizeof(float));
        pipe.InitBuffer(outQueue, 2, cols * sizeof(float));
        pipe.InitBuffer(workBuf, cols * sizeof(float));
        pipe.InitBuffer(scalarBuf, 32);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t row = 0; row < rowCount; row++) {
            CopyIn(row);
            Compute();
            CopyOut(row);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t row)
    {
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopy(xLocal, xGm[(uint64_t)row * cols], cols);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueue.DeQue<float>();
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> scalar = scalarBuf.Get<float>();
        ReduceMax(scalar, xLocal, work, cols);
        float maxValue = scalar.GetValue(0);
        Adds(yLocal, xLocal, -maxValue, cols);
        Exp(yLocal, yLocal, cols);
        ReduceSum(scalar, yLocal, work, cols);
        float sum = scalar.GetValue(0);
        Muls(yLocal, yLocal, 1.0f / sum, cols);
        outQueue.EnQue<float>(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t row)
    {
        LocalTensor<float> yLocal = outQueue.DeQue<float>();
        DataCopy(yGm[(uint64_t)row * cols], yLocal, cols);
        outQueue.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 2> outQueue;
    TBuf<TPosition::VECCALC> workBuf, scalarBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t cols = 0;
    uint32_t rowCount = 0;
};

extern "C" __global__ __aicore__ void row_softmax(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols,
                                                  uint32_t rowsPerCore)
{
    KernelRowSoftmax op;
    op.Init(x, y, RowSoftmaxTiling{rows, cols, rowsPerCore});
    op.Process();
}
