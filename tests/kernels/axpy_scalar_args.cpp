/*
 * axpy_scalar_args: z = alpha * x + y, direct-launch style with scalar kernel
 * arguments passed by value (float alpha, uint32_t totalLength) instead of a
 * tiling struct. The per-core chunk is computed from GetBlockNum().
 */
#include "kernel_operator.h"

constexpr uint32_t TILE_LENGTH = 1024;

class KernelAxpy {
public:
    __aicore__ inline KernelAxpy() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, float alphaIn, uint32_t totalLength)
    {
        alpha = alphaIn;
        uint32_t blockNum = AscendC::GetBlockNum();
        uint32_t chunk = (totalLength + blockNum - 1) / blockNum;
        uint32_t start = AscendC::GetBlockIdx() * chunk;
        coreLength = start < totalLength ? (totalLength - start < chunk ? totalLength - start : chunk) : 0;
        if (coreLength == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + start, coreLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + start, coreLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + start, coreLength);
        pipe.InitBuffer(inQueueX, 2, TILE_LENGTH * sizeof(float));
        pipe.InitBuffer(inQueueY, 2, TILE_LENGTH * sizeof(float));
        pipe.InitBuffer(outQueueZ, 2, TILE_LENGTH * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < coreLength; done += TILE_LENGTH) {
            uint32_t count = coreLength - done < TILE_LENGTH ? coreLength - done : TILE_LENGTH;
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
            AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
            AscendC::DataCopyPad(xLocal, xGm[done], copyParams, padParams);
            AscendC::DataCopyPad(yLocal, yGm[done], copyParams, padParams);
            inQueueX.EnQue(xLocal);
            inQueueY.EnQue(yLocal);

            xLocal = inQueueX.DeQue<float>();
            yLocal = inQueueY.DeQue<float>();
            AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
            AscendC::Muls(zLocal, xLocal, alpha, count);
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Add(zLocal, zLocal, yLocal, count);
            outQueueZ.EnQue<float>(zLocal);
            inQueueX.FreeTensor(xLocal);
            inQueueY.FreeTensor(yLocal);

            zLocal = outQueueZ.DeQue<float>();
            AscendC::DataCopyPad(zGm[done], zLocal, copyParams);
            outQueueZ.FreeTensor(zLocal);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueZ;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    float alpha = 0.0f;
    uint32_t coreLength = 0;
};

extern "C" __global__ __aicore__ void axpy_scalar_args(GM_ADDR x, GM_ADDR y, GM_ADDR z, float alpha,
                                                        uint32_t totalLength)
{
    KernelAxpy op;
    op.Init(x, y, z, alpha, totalLength);
    op.Process();
}
