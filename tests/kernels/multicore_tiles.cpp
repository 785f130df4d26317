/*
 * multicore_tiles: y = x * scale + bias, with the split between cores
 * computed in the kernel from GetBlockNum()/GetBlockIdx(): every core takes a
 * 32-byte aligned chunk of ceil(total / blockNum) elements; trailing cores may
 * get a short chunk or nothing. Full tiles use DataCopy, the short last tile
 * DataCopyPad.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t tileLength; // multiple of 8 elements
    float scale;
    float bias;
};

class KernelMulticoreTiles {
public:
    __aicore__ inline KernelMulticoreTiles() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TilingData &tiling)
    {
        uint32_t blockNum = AscendC::GetBlockNum();
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint32_t chunk = (tiling.totalLength + blockNum - 1) / blockNum;
        chunk = (chunk + 7) / 8 * 8;
        uint32_t start = blockIdx * chunk;
        coreLength = 0;
        if (start < tiling.totalLength) {
            coreLength = tiling.totalLength - start < chunk ? tiling.totalLength - start : chunk;
        }
        tileLength = tiling.tileLength;
        scale = tiling.scale;
        bias = tiling.bias;
        if (coreLength == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + start, coreLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + start, coreLength);
        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, 2, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < coreLength; done += tileLength) {
            uint32_t count = coreLength - done < tileLength ? coreLength - done : tileLength;
            CopyIn(done, count);
            Compute(count);
            CopyOut(done, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        if (count % 8 == 0) {
            AscendC::DataCopy(xLocal, xGm[offset], count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            AscendC::DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        AscendC::Muls(yLocal, xLocal, scale, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Adds(yLocal, yLocal, bias, count);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        if (count % 8 == 0) {
            AscendC::DataCopy(yGm[offset], yLocal, count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPad(yGm[offset], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueY;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    float scale = 1.0f;
    float bias = 0.0f;
};

extern "C" __global__ __aicore__ void multicore_tiles(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelMulticoreTiles op;
    op.Init(x, y, t);
    op.Process();
}
