/*
 * rms_norm: y = x / sqrt(mean(x^2, -1) + eps) * gamma over the last dim of a
 * [rows, cols] matrix. half inputs are Cast to float for the arithmetic and
 * back (CAST_RINT). gamma is loaded once per core and kept in UB.
 * Per row: Mul -> ReduceSum -> Muls(1/cols) -> Adds(eps) -> Sqrt on one
 * element -> ReadScalar (V_S, GetValue, S_V) -> Muls(1/rms) -> Mul(gamma).
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t rows;
    uint32_t cols;
    uint32_t colsAligned; // cols rounded up to 16 elements
    uint32_t formerNum;
    uint32_t formerRows;
    uint32_t tailRows;
    uint32_t dtypeKey; // 0 float, 1 half
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

template <typename T> struct IsHalfType { static constexpr bool value = false; };
template <> struct IsHalfType<half> { static constexpr bool value = true; };

template <typename T>
class KernelRmsNorm {
public:
    __aicore__ inline KernelRmsNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, const TilingData &tiling)
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
        xGm.SetGlobalBuffer((__gm__ T *)x + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        yGm.SetGlobalBuffer((__gm__ T *)y + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        gammaGm.SetGlobalBuffer((__gm__ T *)gamma, cols);
        pipe.InitBuffer(inQueueX, 2, colsAligned * sizeof(T));
        pipe.InitBuffer(outQueueY, 2, colsAligned * sizeof(T));
        pipe.InitBuffer(gammaQueue, 1, colsAligned * sizeof(T));
        pipe.InitBuffer(floatBuf, 3 * colsAligned * sizeof(float));
        pipe.InitBuffer(workBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(reduceBuf, 32);
    }
    __aicore__ inline void Process()
    {
        if (coreRows == 0) {
            return;
        }
        LoadGamma();
        for (uint32_t r = 0; r < coreRows; r++) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
        gammaQueue.FreeTensor(gammaLocal);
    }

private:
    __aicore__ inline void LoadGamma()
    {
        AscendC::LocalTensor<T> g = gammaQueue.AllocTensor<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(g, gammaGm, copyParams, padParams);
        gammaQueue.EnQue(g);
        gammaLocal = gammaQueue.DeQue<T>();
        AscendC::LocalTensor<float> all = floatBuf.Get<float>();
        gammaF = all[2 * colsAligned];
        if constexpr (IsHalfType<T>::value) {
            AscendC::Cast(gammaF, gammaLocal, AscendC::RoundMode::CAST_NONE, cols);
        } else {
            AscendC::Adds(gammaF, gammaLocal, 0.0f, cols);
        }
        AscendC::PipeBarrier<PIPE_V>();
    }
    __aicore__ inline void CopyIn(uint32_t r)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[(uint64_t)r * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        AscendC::LocalTensor<float> all = floatBuf.Get<float>();
        AscendC::LocalTensor<float> xf = all;
        AscendC::LocalTensor<float> yf = all[colsAligned];
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::LocalTensor<float> red = reduceBuf.Get<float>();
        int32_t count = static_cast<int32_t>(cols);

        if constexpr (IsHalfType<T>::value) {
            AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);
        } else {
            AscendC::Adds(xf, xLocal, 0.0f, count);
        }
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Mul(yf, xf, xf, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::ReduceSum(red, yf, work, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Muls(red, red, 1.0f / static_cast<float>(cols), 1);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Adds(red, red, eps, 1);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Sqrt(red, red, 1);
        float rms = ReadScalar(red);
        AscendC::Muls(yf, xf, 1.0f / rms, count);
        AscendC::PipeBarrier<PIPE_V>();
        if constexpr (IsHalfType<T>::value) {
            AscendC::Mul(yf, yf, gammaF, count);
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Cast(yLocal, yf, AscendC::RoundMode::CAST_RINT, count);
        } else {
            AscendC::Mul(yLocal, yf, gammaF, count);
        }
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t r)
    {
        AscendC::LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(yGm[(uint64_t)r * cols], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueY;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> gammaQueue;
    AscendC::TBuf<AscendC::TPosition::VECCALC> floatBuf, workBuf, reduceBuf;
    AscendC::GlobalTensor<T> xGm, yGm, gammaGm;
    AscendC::LocalTensor<T> gammaLocal;
    AscendC::LocalTensor<float> gammaF;
    uint32_t coreRows = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    float eps = 0.0f;
};

extern "C" __global__ __aicore__ void rms_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        KernelRmsNorm<float> op;
        op.Init(x, gamma, y, t);
        op.Process();
    } else {
        KernelRmsNorm<half> op;
        op.Init(x, gamma, y, t);
        op.Process();
    }
}
