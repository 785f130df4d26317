/*
 * syncall_norm: y = x / sum(x) where the sum spans all cores.
 * Phase 1: every core reduces its part and writes [partial, 0 x 7] to its own
 * 32-byte slot of the workspace. SyncAll() waits for every core. Phase 2: every
 * core reads all slots, reduces them to the total and scales its part.
 * The workspace holds blockDim * 8 floats.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength; // multiple of 64 elements
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

class KernelSyncAllNorm {
public:
    __aicore__ inline KernelSyncAllNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, const TilingData &tiling)
    {
        blockIdx = AscendC::GetBlockIdx();
        blockNum = AscendC::GetBlockNum();
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
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, coreLength);
        workGm.SetGlobalBuffer((__gm__ float *)workspace, blockNum * 8);
        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, 2, tileLength * sizeof(float));
        pipe.InitBuffer(partialQueue, 1, blockNum * 8 * sizeof(float));
        pipe.InitBuffer(workBuf, tileLength * sizeof(float));
        pipe.InitBuffer(sumBuf, 8 * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        WritePartialSum();
        AscendC::SyncAll();
        float total = ReadTotal();
        float scale = 1.0f / total;
        for (uint32_t done = 0; done < coreLength; done += tileLength) {
            uint32_t count = coreLength - done < tileLength ? coreLength - done : tileLength;
            CopyIn(done, count);
            AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
            AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
            AscendC::Muls(yLocal, xLocal, scale, count);
            outQueueY.EnQue<float>(yLocal);
            inQueueX.FreeTensor(xLocal);
            yLocal = outQueueY.DeQue<float>();
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPad(yGm[done], yLocal, copyParams);
            outQueueY.FreeTensor(yLocal);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t done, uint32_t count)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[done], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void WritePartialSum()
    {
        AscendC::LocalTensor<float> acc = outQueueY.AllocTensor<float>();
        AscendC::LocalTensor<float> tileSum = sumBuf.Get<float>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::Duplicate(acc, 0.0f, 8);
        AscendC::Duplicate(tileSum, 0.0f, 8);
        AscendC::PipeBarrier<PIPE_V>();
        for (uint32_t done = 0; done < coreLength; done += tileLength) {
            uint32_t count = coreLength - done < tileLength ? coreLength - done : tileLength;
            CopyIn(done, count);
            AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
            AscendC::ReduceSum(tileSum, xLocal, work, static_cast<int32_t>(count));
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Add(acc, acc, tileSum, 1);
            AscendC::PipeBarrier<PIPE_V>();
            inQueueX.FreeTensor(xLocal);
        }
        outQueueY.EnQue<float>(acc);
        acc = outQueueY.DeQue<float>();
        AscendC::DataCopy(workGm[blockIdx * 8], acc, 8);
        outQueueY.FreeTensor(acc);
    }
    __aicore__ inline float ReadTotal()
    {
        AscendC::LocalTensor<float> partials = partialQueue.AllocTensor<float>();
        AscendC::DataCopy(partials, workGm, blockNum * 8);
        partialQueue.EnQue(partials);
        partials = partialQueue.DeQue<float>();
        AscendC::LocalTensor<float> total = sumBuf.Get<float>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::ReduceSum(total, partials, work, static_cast<int32_t>(blockNum * 8));
        float value = ReadScalar(total);
        partialQueue.FreeTensor(partials);
        return value;
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueY;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> partialQueue;
    AscendC::TBuf<AscendC::TPosition::VECCALC> workBuf, sumBuf;
    AscendC::GlobalTensor<float> xGm, yGm, workGm;
    uint32_t blockIdx = 0;
    uint32_t blockNum = 0;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void syncall_norm(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelSyncAllNorm op;
    op.Init(x, y, workspace, t);
    op.Process();
}
