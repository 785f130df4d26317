/*
 * pipelined_add: z = x * y + x with a software-pipelined loop: the copy-in of tile
 * i + 1 is issued before tile i is computed, so two tensors sit in each input queue
 * (depth 2, two buffers) and DeQue must hand them back in FIFO order.
 * Shape-generic: tiles are dealt to cores (former/tail), the last tile is short.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t tileLength;
    uint32_t tileNum;
    uint32_t tilesPerCore;
    uint32_t formerNum;
};

constexpr int32_t BUFFER_NUM = 2;

class KernelPipelinedAdd {
public:
    __aicore__ inline KernelPipelinedAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &tiling)
    {
        totalLength = tiling.totalLength;
        tileLength = tiling.tileLength;
        uint32_t blockIdx = AscendC::GetBlockIdx();
        if (blockIdx < tiling.formerNum) {
            tileCount = tiling.tilesPerCore + 1;
            firstTile = blockIdx * tileCount;
        } else {
            tileCount = tiling.tilesPerCore;
            firstTile = tiling.formerNum * (tiling.tilesPerCore + 1) + (blockIdx - tiling.formerNum) * tileCount;
        }
        if (tileCount == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x, totalLength);
        yGm.SetGlobalBuffer((__gm__ float *)y, totalLength);
        zGm.SetGlobalBuffer((__gm__ float *)z, totalLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        if (tileCount == 0) {
            return;
        }
        CopyIn(0);
        for (uint32_t i = 0; i < tileCount; i++) {
            if (i + 1 < tileCount) {
                CopyIn(i + 1);
            }
            Compute(i);
            CopyOut(i);
        }
    }

private:
    __aicore__ inline uint32_t Start(uint32_t i) { return (firstTile + i) * tileLength; }
    __aicore__ inline uint32_t Count(uint32_t i)
    {
        uint32_t start = Start(i);
        return totalLength - start < tileLength ? totalLength - start : tileLength;
    }
    __aicore__ inline void CopyIn(uint32_t i)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(Count(i) * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[Start(i)], copyParams, padParams);
        AscendC::DataCopyPad(yLocal, yGm[Start(i)], copyParams, padParams);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t i)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        AscendC::Mul(zLocal, xLocal, yLocal, Count(i));
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Add(zLocal, zLocal, xLocal, Count(i));
        outQueueZ.EnQue<float>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t i)
    {
        AscendC::LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(Count(i) * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[Start(i)], zLocal, copyParams);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    uint32_t totalLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileCount = 0;
    uint32_t firstTile = 0;
};

extern "C" __global__ __aicore__ void pipelined_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelPipelinedAdd op;
    op.Init(x, y, z, t);
    op.Process();
}
