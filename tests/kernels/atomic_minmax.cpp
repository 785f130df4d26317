/*
 * atomic_minmax: column-wise max, min and sum of x [blockDim, width] with GM atomics.
 * Block r loads row r and writes it three times with DataCopyPad under
 * SetAtomicMax<float>(), SetAtomicMin<float>() and SetAtomicAdd<float>(), then
 * SetAtomicNone(). The caller initialises colMax to -3e38, colMin to 3e38 and colSum to 0.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t width;
};

class KernelAtomicMinMax {
public:
    __aicore__ inline KernelAtomicMinMax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR colMax, GM_ADDR colMin, GM_ADDR colSum, uint32_t width)
    {
        this->width = width;
        xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)AscendC::GetBlockIdx() * width, width);
        maxGm.SetGlobalBuffer((__gm__ float *)colMax, width);
        minGm.SetGlobalBuffer((__gm__ float *)colMin, width);
        sumGm.SetGlobalBuffer((__gm__ float *)colSum, width);
        pipe.InitBuffer(queue, 1, (width * sizeof(float) + 31) / 32 * 32);
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> row = queue.AllocTensor<float>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(width * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(row, xGm, params, padParams);
        AscendC::TEventID loaded = GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE2_MTE3);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(loaded);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(loaded);

        AscendC::SetAtomicMax<float>();
        AscendC::DataCopyPad(maxGm, row, params);
        AscendC::SetAtomicMin<float>();
        AscendC::DataCopyPad(minGm, row, params);
        AscendC::SetAtomicAdd<float>();
        AscendC::DataCopyPad(sumGm, row, params);
        AscendC::SetAtomicNone();
        queue.FreeTensor(row);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> queue;
    AscendC::GlobalTensor<float> xGm, maxGm, minGm, sumGm;
    uint32_t width = 0;
};

extern "C" __global__ __aicore__ void atomic_minmax(GM_ADDR x, GM_ADDR colMax, GM_ADDR colMin, GM_ADDR colSum,
                                                     GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelAtomicMinMax op;
    op.Init(x, colMax, colMin, colSum, t.width);
    op.Process();
}
