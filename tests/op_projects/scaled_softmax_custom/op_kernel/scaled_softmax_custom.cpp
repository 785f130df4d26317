#include "kernel_operator.h"
using namespace AscendC;

__aicore__ inline float ReadScalar(const LocalTensor<float> &t)
{
    TEventID vToS = GetTPipePtr()->FetchEventID(HardEvent::V_S);
    SetFlag<HardEvent::V_S>(vToS);
    WaitFlag<HardEvent::V_S>(vToS);
    float value = t.GetValue(0);
    TEventID sToV = GetTPipePtr()->FetchEventID(HardEvent::S_V);
    SetFlag<HardEvent::S_V>(sToV);
    WaitFlag<HardEvent::S_V>(sToV);
    return value;
}

class KernelScaledSoftmax {
public:
    __aicore__ inline KernelScaledSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ScaledSoftmaxTilingData &tiling)
    {
        uint32_t blockIdx = GetBlockIdx();
        uint32_t rowStart;
        if (blockIdx < tiling.split.formerNum) {
            coreRows = tiling.split.formerRows;
            rowStart = blockIdx * tiling.split.formerRows;
        } else {
            coreRows = tiling.split.tailRows;
            rowStart = tiling.split.formerNum * tiling.split.formerRows +
                       (blockIdx - tiling.split.formerNum) * tiling.split.tailRows;
        }
        cols = tiling.shape[1];
        scale = tiling.scale;
        logMode = tiling.logMode != 0;
        if (coreRows == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ DTYPE_X *)x + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        yGm.SetGlobalBuffer((__gm__ DTYPE_Y *)y + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        pipe.InitBuffer(inQueueX, 2, tiling.colsAligned * sizeof(float));
        pipe.InitBuffer(outQueueY, 2, tiling.colsAligned * sizeof(float));
        pipe.InitBuffer(workBuf, tiling.colsAligned * sizeof(float));
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
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[(uint64_t)r * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> red = reduceBuf.Get<float>();
        int32_t count = static_cast<int32_t>(cols);

        Muls(xLocal, xLocal, scale, count);
        PipeBarrier<PIPE_V>();
        ReduceMax(red, xLocal, work, count, false);
        float rowMax = ReadScalar(red);
        Adds(xLocal, xLocal, -rowMax, count);
        PipeBarrier<PIPE_V>();
        Exp(yLocal, xLocal, count);
        PipeBarrier<PIPE_V>();
        ReduceSum(red, yLocal, work, count);
        if (logMode) {
            PipeBarrier<PIPE_V>();
            Ln(red, red, 1);
            float logSum = ReadScalar(red);
            Adds(yLocal, xLocal, -logSum, count);
        } else {
            float rowSum = ReadScalar(red);
            Muls(yLocal, yLocal, 1.0f / rowSum, count);
        }
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t r)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(float)), 0, 0, 0};
        DataCopyPad(yGm[(uint64_t)r * cols], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueueX;
    TQue<QuePosition::VECOUT, 2> outQueueY;
    TBuf<TPosition::VECCALC> workBuf, reduceBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t coreRows = 0;
    uint32_t cols = 0;
    float scale = 1.0f;
    bool logMode = false;
};

extern "C" __global__ __aicore__ void scaled_softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelScaledSoftmax op;
    op.Init(x, y, tilingData);
    op.Process();
}
