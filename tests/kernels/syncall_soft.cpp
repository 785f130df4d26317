/*
 * syncall_soft: y = x - max(x) with the max taken over all cores, using the
 * software SyncAll(gmWorkspace, ubWorkspace).
 * workspace layout: blockDim * 8 int32 sync flags (zeroed by the caller),
 * then blockDim * 8 floats of per-core partial maxima (each core fills its
 * 32-byte slot with its partial max).
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength; // multiple of 64 elements
};

constexpr float LOWEST = -3.0e38f;

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

class KernelSoftSyncMax {
public:
    __aicore__ inline KernelSoftSyncMax() {}
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
        syncGm.SetGlobalBuffer((__gm__ int32_t *)workspace, blockNum * 8);
        partialGm.SetGlobalBuffer((__gm__ float *)workspace + blockNum * 8, blockNum * 8);
        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, 2, tileLength * sizeof(float));
        pipe.InitBuffer(partialQueue, 1, blockNum * 8 * sizeof(float));
        pipe.InitBuffer(syncQueue, 1, blockNum * 8 * sizeof(int32_t));
        pipe.InitBuffer(workBuf, tileLength * sizeof(float));
        pipe.InitBuffer(maxBuf, 8 * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        WritePartialMax();
        AscendC::LocalTensor<int32_t> syncLocal = syncQueue.AllocTensor<int32_t>();
        AscendC::SyncAll(syncGm, syncLocal);
        syncQueue.FreeTensor(syncLocal);
        float globalMax = ReadGlobalMax();
        for (uint32_t done = 0; done < coreLength; done += tileLength) {
            uint32_t count = coreLength - done < tileLength ? coreLength - done : tileLength;
            CopyIn(done, count);
            AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
            AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
            AscendC::Adds(yLocal, xLocal, -globalMax, count);
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
    __aicore__ inline void WritePartialMax()
    {
        AscendC::LocalTensor<float> slot = outQueueY.AllocTensor<float>();
        AscendC::LocalTensor<float> tileMax = maxBuf.Get<float>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::Duplicate(slot, LOWEST, 8);
        AscendC::PipeBarrier<PIPE_V>();
        for (uint32_t done = 0; done < coreLength; done += tileLength) {
            uint32_t count = coreLength - done < tileLength ? coreLength - done : tileLength;
            CopyIn(done, count);
            AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
            AscendC::ReduceMax(tileMax, xLocal, work, static_cast<int32_t>(count), false);
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Max(slot, slot, tileMax, 1);
            AscendC::PipeBarrier<PIPE_V>();
            inQueueX.FreeTensor(xLocal);
        }
        float partial = ReadScalar(slot);
        AscendC::Duplicate(slot, partial, 8);
        outQueueY.EnQue<float>(slot);
        slot = outQueueY.DeQue<float>();
        AscendC::DataCopy(partialGm[blockIdx * 8], slot, 8);
        outQueueY.FreeTensor(slot);
    }
    __aicore__ inline float ReadGlobalMax()
    {
        AscendC::LocalTensor<float> partials = partialQueue.AllocTensor<float>();
        AscendC::DataCopy(partials, partialGm, blockNum * 8);
        partialQueue.EnQue(partials);
        partials = partialQueue.DeQue<float>();
        AscendC::LocalTensor<float> result = maxBuf.Get<float>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::ReduceMax(result, partials, work, static_cast<int32_t>(blockNum * 8), false);
        float value = ReadScalar(result);
        partialQueue.FreeTensor(partials);
        return value;
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueY;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> partialQueue;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> syncQueue;
    AscendC::TBuf<AscendC::TPosition::VECCALC> workBuf, maxBuf;
    AscendC::GlobalTensor<float> xGm, yGm, partialGm;
    AscendC::GlobalTensor<int32_t> syncGm;
    uint32_t blockIdx = 0;
    uint32_t blockNum = 0;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void syncall_soft(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelSoftSyncMax op;
    op.Init(x, y, workspace, t);
    op.Process();
}
