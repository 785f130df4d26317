/*
 * block_reduce: one result per 32-byte block with BlockReduceSum/Max/Min.
 * x has nBlocks * (32 / sizeof(T)) elements; each output has nBlocks elements.
 * Full repeats (8 blocks) go in one call; a last partial repeat uses a
 * continuous mask. Blocks are split between cores (former/tail).
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalBlocks;
    uint32_t formerNum;
    uint32_t formerBlocks;
    uint32_t tailBlocks;
    uint32_t tileBlocks; // multiple of 8 blocks (whole repeats), at most 8 * 255
    uint32_t dtypeKey;   // 0 float, 1 half
};

template <typename T>
class KernelBlockReduce {
public:
    static constexpr uint32_t ELEMS_PER_BLOCK = 32 / sizeof(T);
    static constexpr uint32_t ELEMS_PER_REPEAT = 256 / sizeof(T);

    __aicore__ inline KernelBlockReduce() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR sums, GM_ADDR maxs, GM_ADDR mins, const TilingData &tiling)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint32_t first;
        if (blockIdx < tiling.formerNum) {
            coreBlocks = tiling.formerBlocks;
            first = blockIdx * tiling.formerBlocks;
        } else {
            coreBlocks = tiling.tailBlocks;
            first = tiling.formerNum * tiling.formerBlocks + (blockIdx - tiling.formerNum) * tiling.tailBlocks;
        }
        tileBlocks = tiling.tileBlocks;
        if (coreBlocks == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ T *)x + first * ELEMS_PER_BLOCK, coreBlocks * ELEMS_PER_BLOCK);
        sumGm.SetGlobalBuffer((__gm__ T *)sums + first, coreBlocks);
        maxGm.SetGlobalBuffer((__gm__ T *)maxs + first, coreBlocks);
        minGm.SetGlobalBuffer((__gm__ T *)mins + first, coreBlocks);
        pipe.InitBuffer(inQueueX, 2, tileBlocks * 32);
        pipe.InitBuffer(outQueue, 2, 3 * tileBlocks * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < coreBlocks; done += tileBlocks) {
            uint32_t n = coreBlocks - done < tileBlocks ? coreBlocks - done : tileBlocks;
            CopyIn(done, n);
            Compute(n);
            CopyOut(done, n);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t block, uint32_t n)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::DataCopy(xLocal, xGm[block * ELEMS_PER_BLOCK], n * ELEMS_PER_BLOCK);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> outLocal = outQueue.AllocTensor<T>();
        AscendC::LocalTensor<T> sumLocal = outLocal;
        AscendC::LocalTensor<T> maxLocal = outLocal[tileBlocks];
        AscendC::LocalTensor<T> minLocal = outLocal[2 * tileBlocks];
        int32_t fullRepeats = static_cast<int32_t>(n / 8);
        uint32_t rest = n % 8;
        int32_t fullMask = static_cast<int32_t>(ELEMS_PER_REPEAT);
        if (fullRepeats > 0) {
            AscendC::BlockReduceSum<T>(sumLocal, xLocal, fullRepeats, fullMask, 1, 1, 8);
            AscendC::BlockReduceMax<T>(maxLocal, xLocal, fullRepeats, fullMask, 1, 1, 8);
            AscendC::BlockReduceMin<T>(minLocal, xLocal, fullRepeats, fullMask, 1, 1, 8);
        }
        if (rest > 0) {
            uint32_t dstOff = fullRepeats * 8;
            uint32_t srcOff = fullRepeats * ELEMS_PER_REPEAT;
            int32_t restMask = static_cast<int32_t>(rest * ELEMS_PER_BLOCK);
            AscendC::BlockReduceSum<T>(sumLocal[dstOff], xLocal[srcOff], 1, restMask, 1, 1, 8);
            AscendC::BlockReduceMax<T>(maxLocal[dstOff], xLocal[srcOff], 1, restMask, 1, 1, 8);
            AscendC::BlockReduceMin<T>(minLocal[dstOff], xLocal[srcOff], 1, restMask, 1, 1, 8);
        }
        outQueue.EnQue<T>(outLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t block, uint32_t n)
    {
        AscendC::LocalTensor<T> outLocal = outQueue.DeQue<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(sumGm[block], outLocal, copyParams);
        AscendC::DataCopyPad(maxGm[block], outLocal[tileBlocks], copyParams);
        AscendC::DataCopyPad(minGm[block], outLocal[2 * tileBlocks], copyParams);
        outQueue.FreeTensor(outLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueue;
    AscendC::GlobalTensor<T> xGm, sumGm, maxGm, minGm;
    uint32_t coreBlocks = 0;
    uint32_t tileBlocks = 0;
};

extern "C" __global__ __aicore__ void block_reduce(GM_ADDR x, GM_ADDR sums, GM_ADDR maxs, GM_ADDR mins,
                                                    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        KernelBlockReduce<float> op;
        op.Init(x, sums, maxs, mins, t);
        op.Process();
    } else {
        KernelBlockReduce<half> op;
        op.Init(x, sums, maxs, mins, t);
        op.Process();
    }
}
