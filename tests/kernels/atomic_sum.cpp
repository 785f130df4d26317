/*
 * atomic_sum: global sum of x across cores with atomic adds to GM.
 * Each core reduces its elements tile by tile (ReduceSum + Add into an
 * accumulator), then with SetAtomicAdd<float>() adds its partial sum into
 *   sum8 (8 floats, DataCopy of [partial, 0 x 7]) and
 *   sum1 (1 float, DataCopyPad of 4 bytes).
 * Both outputs must be zero-initialised by the caller.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength; // multiple of 64 elements
};

class KernelAtomicSum {
public:
    __aicore__ inline KernelAtomicSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR sum8, GM_ADDR sum1, const TilingData &tiling)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint64_t offset;
        if (blockIdx < tiling.formerNum) {
            coreLength = tiling.formerLength;
            offset = (uint64_t)blockIdx * tiling.formerLength;
        } else {
            coreLength = tiling.tailLength;
            offset = (uint64_t)tiling.formerNum * tiling.formerLength +
                     (uint64_t)(blockIdx - tiling.formerNum) * tiling.tailLength;
        }
        tileLength = tiling.tileLength;
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, coreLength);
        sum8Gm.SetGlobalBuffer((__gm__ float *)sum8, 8);
        sum1Gm.SetGlobalBuffer((__gm__ float *)sum1, 1);
        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueAcc, 1, 8 * sizeof(float));
        pipe.InitBuffer(workBuf, tileLength * sizeof(float));
        pipe.InitBuffer(tileSumBuf, 8 * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> acc = outQueueAcc.AllocTensor<float>();
        AscendC::LocalTensor<float> tileSum = tileSumBuf.Get<float>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::Duplicate(acc, 0.0f, 8);
        AscendC::Duplicate(tileSum, 0.0f, 8);
        AscendC::PipeBarrier<PIPE_V>();
        for (uint32_t done = 0; done < coreLength; done += tileLength) {
            uint32_t count = coreLength - done < tileLength ? coreLength - done : tileLength;
            AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            AscendC::DataCopyPad(xLocal, xGm[done], copyParams, padParams);
            inQueueX.EnQue(xLocal);
            xLocal = inQueueX.DeQue<float>();
            AscendC::ReduceSum(tileSum, xLocal, work, static_cast<int32_t>(count));
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Add(acc, acc, tileSum, 1);
            AscendC::PipeBarrier<PIPE_V>();
            inQueueX.FreeTensor(xLocal);
        }
        outQueueAcc.EnQue<float>(acc);
        acc = outQueueAcc.DeQue<float>();
        AscendC::SetAtomicAdd<float>();
        AscendC::DataCopy(sum8Gm, acc, 8);
        AscendC::DataCopyExtParams oneParams{1, sizeof(float), 0, 0, 0};
        AscendC::DataCopyPad(sum1Gm, acc, oneParams);
        AscendC::SetAtomicNone();
        outQueueAcc.FreeTensor(acc);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueAcc;
    AscendC::TBuf<AscendC::TPosition::VECCALC> workBuf, tileSumBuf;
    AscendC::GlobalTensor<float> xGm, sum8Gm, sum1Gm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void atomic_sum(GM_ADDR x, GM_ADDR sum8, GM_ADDR sum1, GM_ADDR workspace,
                                                  GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelAtomicSum op;
    op.Init(x, sum8, sum1, t);
    op.Process();
}
