/*
 * reduce_level0: the level-0 (mask, repeatTimes, stride) forms of the reductions on a
 * [rows, cols] float matrix (cols a multiple of 8, at least 64), one core:
 *   scalars[0]  = ReduceSum(mask = K, repeat = rows, srcRepStride = cols / 8): sum of x[:, :K]
 *   scalars[8]  = ReduceMax(mask = 64, repeat = rows * cols / 64, srcRepStride = 8, calIndex)
 *   scalars[9]  = flat index of that max (integer bits in a float slot)
 *   wsum[2r]    = WholeReduceSum over the lanes of row r's first 64 columns selected by the
 *                 bitwise mask, dstRepStride = 2; wsum[2r + 1] keeps the fill value -1.
 */
#include "kernel_operator.h"

struct TilingData {
    uint64_t bits;     // bitwise mask over the 64 lanes of a repeat
    uint32_t rows;     // <= 255
    uint32_t cols;
    uint32_t k;        // 1..64
    uint32_t tmpLength;
};

class KernelReduceLevel0 {
public:
    __aicore__ inline KernelReduceLevel0() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR scalars, GM_ADDR wsum, const TilingData &tiling)
    {
        rows = tiling.rows;
        cols = tiling.cols;
        k = tiling.k;
        bits[0] = tiling.bits;
        bits[1] = 0;
        xGm.SetGlobalBuffer((__gm__ float *)x, rows * cols);
        scalarGm.SetGlobalBuffer((__gm__ float *)scalars, 32);
        wsumGm.SetGlobalBuffer((__gm__ float *)wsum, 2 * rows);
        pipe.InitBuffer(inQueueX, 1, rows * cols * sizeof(float));
        pipe.InitBuffer(outQueueScalars, 1, 32 * sizeof(float));
        pipe.InitBuffer(outQueueWsum, 1, (2 * rows * sizeof(float) + 31) / 32 * 32);
        pipe.InitBuffer(workBuf, tiling.tmpLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm, rows * cols);
        inQueueX.EnQue(xLocal);

        xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> scalars = outQueueScalars.AllocTensor<float>();
        AscendC::LocalTensor<float> wsum = outQueueWsum.AllocTensor<float>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::Duplicate(scalars, 0.0f, 32);
        AscendC::Duplicate(wsum, -1.0f, 2 * rows);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::ReduceSum<float>(scalars, xLocal, work, static_cast<int32_t>(k), static_cast<int32_t>(rows),
                                  static_cast<int32_t>(cols / 8));
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::ReduceMax<float>(scalars[8], xLocal, work, 64, static_cast<int32_t>(rows * cols / 64), 8, true);
        AscendC::WholeReduceSum<float>(wsum, xLocal, bits, static_cast<int32_t>(rows), 2, 1,
                                       static_cast<int32_t>(cols / 8));
        outQueueScalars.EnQue<float>(scalars);
        outQueueWsum.EnQue<float>(wsum);
        inQueueX.FreeTensor(xLocal);

        scalars = outQueueScalars.DeQue<float>();
        wsum = outQueueWsum.DeQue<float>();
        AscendC::DataCopy(scalarGm, scalars, 32);
        AscendC::DataCopyExtParams wsumParams{1, static_cast<uint32_t>(2 * rows * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(wsumGm, wsum, wsumParams);
        outQueueScalars.FreeTensor(scalars);
        outQueueWsum.FreeTensor(wsum);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueScalars, outQueueWsum;
    AscendC::TBuf<AscendC::TPosition::VECCALC> workBuf;
    AscendC::GlobalTensor<float> xGm, scalarGm, wsumGm;
    uint64_t bits[2] = {0, 0};
    uint32_t rows = 0;
    uint32_t cols = 0;
    uint32_t k = 0;
};

extern "C" __global__ __aicore__ void reduce_level0(GM_ADDR x, GM_ADDR scalars, GM_ADDR wsum, GM_ADDR workspace,
                                                     GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelReduceLevel0 op;
    op.Init(x, scalars, wsum, t);
    op.Process();
}
