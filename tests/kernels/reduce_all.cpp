/*
 * reduce_all: whole-tensor reductions with the count-form APIs and a shared
 * work buffer, one core:
 *   out[0]  = ReduceSum(x)
 *   out[8]  = ReduceMax(x), out[9]  = index of the first max (integer bits in a T slot)
 *   out[16] = ReduceMin(x), out[17] = index of the first min
 * out has 32 elements, zero-filled first. x may have any length (DataCopyPad).
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t tmpLength; // elements in the work buffer
    uint32_t dtypeKey;  // 0 float, 1 half
};

constexpr uint32_t OUT_LENGTH = 32;

template <typename T>
class KernelReduceAll {
public:
    __aicore__ inline KernelReduceAll() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR out, const TilingData &tiling)
    {
        totalLength = tiling.totalLength;
        xGm.SetGlobalBuffer((__gm__ T *)x, totalLength);
        outGm.SetGlobalBuffer((__gm__ T *)out, OUT_LENGTH);
        pipe.InitBuffer(inQueueX, 1, (totalLength * sizeof(T) + 31) / 32 * 32);
        pipe.InitBuffer(outQueue, 1, OUT_LENGTH * sizeof(T));
        pipe.InitBuffer(workBuf, tiling.tmpLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(totalLength * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm, copyParams, padParams);
        inQueueX.EnQue(xLocal);

        xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> outLocal = outQueue.AllocTensor<T>();
        AscendC::LocalTensor<T> work = workBuf.Get<T>();
        AscendC::Duplicate(outLocal, static_cast<T>(0), OUT_LENGTH);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::ReduceSum(outLocal, xLocal, work, totalLength);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::ReduceMax(outLocal[8], xLocal, work, totalLength, true);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::ReduceMin(outLocal[16], xLocal, work, totalLength, true);
        outQueue.EnQue<T>(outLocal);
        inQueueX.FreeTensor(xLocal);

        outLocal = outQueue.DeQue<T>();
        AscendC::DataCopy(outGm, outLocal, OUT_LENGTH);
        outQueue.FreeTensor(outLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::TBuf<AscendC::TPosition::VECCALC> workBuf;
    AscendC::GlobalTensor<T> xGm, outGm;
    uint32_t totalLength = 0;
};

extern "C" __global__ __aicore__ void reduce_all(GM_ADDR x, GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        KernelReduceAll<float> op;
        op.Init(x, out, t);
        op.Process();
    } else {
        KernelReduceAll<half> op;
        op.Init(x, out, t);
        op.Process();
    }
}
