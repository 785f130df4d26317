/*
 * layer_norm: y = (x - mean) / sqrt(var + eps) * gamma + beta over the last dim
 * of a [rows, cols] float matrix (biased variance, as torch.layer_norm).
 * gamma and beta are loaded once per core through one VECIN queue.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t rows;
    uint32_t cols;
    uint32_t colsAligned; // cols rounded up to 8
    uint32_t formerNum;
    uint32_t formerRows;
    uint32_t tailRows;
    float eps;
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

class KernelLayerNorm {
public:
    __aicore__ inline KernelLayerNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, const TilingData &tiling)
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
        eps = tiling.eps;
        if (coreRows == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        gammaGm.SetGlobalBuffer((__gm__ float *)gamma, cols);
        betaGm.SetGlobalBuffer((__gm__ float *)beta, cols);
        pipe.InitBuffer(inQueueX, 2, colsAligned * sizeof(float));
        pipe.InitBuffer(outQueueY, 2, colsAligned * sizeof(float));
        pipe.InitBuffer(paramQueue, 1, 2 * colsAligned * sizeof(float));
        pipe.InitBuffer(centeredBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(workBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(reduceBuf, 32);
    }
    __aicore__ inline void Process()
    {
        if (coreRows == 0) {
            return;
        }
        AscendC::LocalTensor<float> params = paramQueue.AllocTensor<float>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(params, gammaGm, copyParams, padParams);
        AscendC::DataCopyPad(params[colsAligned], betaGm, copyParams, padParams);
        paramQueue.EnQue(params);
        params = paramQueue.DeQue<float>();
        for (uint32_t r = 0; r < coreRows; r++) {
            CopyIn(r);
            Compute(params, params[colsAligned]);
            CopyOut(r);
        }
        paramQueue.FreeTensor(params);
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
    __aicore__ inline void Compute(const AscendC::LocalTensor<float> &gammaLocal,
                                   const AscendC::LocalTensor<float> &betaLocal)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        AscendC::LocalTensor<float> xc = centeredBuf.Get<float>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::LocalTensor<float> red = reduceBuf.Get<float>();
        int32_t count = static_cast<int32_t>(cols);
        float invCols = 1.0f / static_cast<float>(cols);

        AscendC::ReduceSum(red, xLocal, work, count);
        float mean = ReadScalar(red) * invCols;
        AscendC::Adds(xc, xLocal, -mean, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Mul(yLocal, xc, xc, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::ReduceSum(red, yLocal, work, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Muls(red, red, invCols, 1);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Adds(red, red, eps, 1);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Sqrt(red, red, 1);
        float stddev = ReadScalar(red);
        AscendC::Muls(yLocal, xc, 1.0f / stddev, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Mul(yLocal, yLocal, gammaLocal, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Add(yLocal, yLocal, betaLocal, count);
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
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> paramQueue;
    AscendC::TBuf<AscendC::TPosition::VECCALC> centeredBuf, workBuf, reduceBuf;
    AscendC::GlobalTensor<float> xGm, yGm, gammaGm, betaGm;
    uint32_t coreRows = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    float eps = 0.0f;
};

extern "C" __global__ __aicore__ void layer_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelLayerNorm op;
    op.Init(x, gamma, beta, y, t);
    op.Process();
}
