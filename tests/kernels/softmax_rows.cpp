/*
 * softmax_rows: y = softmax(x, dim=-1) for a [rows, cols] float matrix, any cols.
 * Per row: ReduceMax -> ReadScalar (V_S, GetValue, S_V) -> Adds(-max) -> Exp ->
 * ReduceSum -> ReadScalar -> Muls(1/sum). Rows are split between cores.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t rows;
    uint32_t cols;
    uint32_t colsAligned; // cols rounded up to 8 (32 bytes)
    uint32_t formerNum;
    uint32_t formerRows;
    uint32_t tailRows;
};

// Read one UB value on the scalar unit: wait for the vector pipe before the read (V_S) and make
// later vector instructions wait for the read (S_V).
__aicore__ inline float ReadScalar(const AscendC::LocalTensor<float> &t)
{
    AscendC::TEventID vToS = GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_S);
    AscendC::SetFlag<AscendC::HardEvent::V_S>(vToS);
    AscendC::WaitFlag<AscendC::HardEvent::V_S>(vToS);
    float value = t.GetValue(0);
    AscendC::TEventID sToV = GetTPipePtr()->FetchEventID(AscendC::HardEvent::S_V);
    AscendC::SetFlag<AscendC::HardEvent::S_V>(sToV);
    AscendC::WaitFlag<AscendC::HardEvent::S_V>(sToV);
    return value;
}

class KernelSoftmaxRows {
public:
    __aicore__ inline KernelSoftmaxRows() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TilingData &tiling)
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
        if (coreRows == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        pipe.InitBuffer(inQueueX, 2, colsAligned * sizeof(float));
        pipe.InitBuffer(outQueueY, 2, colsAligned * sizeof(float));
        pipe.InitBuffer(workBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(reduceBuf, 32);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < coreRows; r++) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t r)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[(uint64_t)r * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::LocalTensor<float> red = reduceBuf.Get<float>();
        int32_t count = static_cast<int32_t>(cols);

        AscendC::ReduceMax(red, xLocal, work, count, false);
        float rowMax = ReadScalar(red);
        AscendC::Adds(yLocal, xLocal, -rowMax, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Exp(yLocal, yLocal, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::ReduceSum(red, yLocal, work, count);
        float rowSum = ReadScalar(red);
        AscendC::Muls(yLocal, yLocal, 1.0f / rowSum, count);

        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t r)
    {
        AscendC::LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(yGm[(uint64_t)r * cols], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueY;
    AscendC::TBuf<AscendC::TPosition::VECCALC> workBuf, reduceBuf;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t coreRows = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
};

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelSoftmaxRows op;
    op.Init(x, y, t);
    op.Process();
}
