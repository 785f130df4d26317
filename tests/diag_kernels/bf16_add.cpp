/*
 * bf16_add: z = x + y on bfloat16_t tensors of any length, one block.
 *
 * TilingData.mode 0 is correct on Atlas A2/A3: it Casts bfloat16_t to float, adds, and Casts
 * back, and moves the tail with DataCopyPad. It is still wrong on Ascend310P3, which has no
 * bfloat16_t and no DataCopyPad. ADD_IN_BF16 adds in bfloat16_t directly, which no SoC supports.
 */
#include "kernel_operator.h"

enum Mode : uint32_t {
    OK = 0,
    ADD_IN_BF16 = 1,
};

struct TilingData {
    uint32_t length;
    uint32_t tileLength;  // a multiple of 64
    uint32_t mode;
};

class KernelBf16Add {
public:
    __aicore__ inline KernelBf16Add() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &tiling)
    {
        length = tiling.length;
        tileLength = tiling.tileLength;
        mode = tiling.mode;
        xGm.SetGlobalBuffer((__gm__ bfloat16_t *)x, length);
        yGm.SetGlobalBuffer((__gm__ bfloat16_t *)y, length);
        zGm.SetGlobalBuffer((__gm__ bfloat16_t *)z, length);
        pipe.InitBuffer(inQueueX, 1, tileLength * sizeof(bfloat16_t));
        pipe.InitBuffer(inQueueY, 1, tileLength * sizeof(bfloat16_t));
        pipe.InitBuffer(outQueueZ, 1, tileLength * sizeof(bfloat16_t));
        pipe.InitBuffer(xFloat, tileLength * sizeof(float));
        pipe.InitBuffer(yFloat, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < length; done += tileLength) {
            uint32_t count = length - done < tileLength ? length - done : tileLength;
            AscendC::LocalTensor<bfloat16_t> xLocal = inQueueX.AllocTensor<bfloat16_t>();
            AscendC::LocalTensor<bfloat16_t> yLocal = inQueueY.AllocTensor<bfloat16_t>();
            Load(xLocal, xGm[done], count);
            Load(yLocal, yGm[done], count);
            inQueueX.EnQue(xLocal);
            inQueueY.EnQue(yLocal);
            xLocal = inQueueX.DeQue<bfloat16_t>();
            yLocal = inQueueY.DeQue<bfloat16_t>();
            AscendC::LocalTensor<bfloat16_t> zLocal = outQueueZ.AllocTensor<bfloat16_t>();
            if (mode == ADD_IN_BF16) {
                AscendC::Add(zLocal, xLocal, yLocal, count); // <- add_in_bf16
            } else {
                AscendC::LocalTensor<float> xf = xFloat.Get<float>();
                AscendC::LocalTensor<float> yf = yFloat.Get<float>();
                AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);
                AscendC::Cast(yf, yLocal, AscendC::RoundMode::CAST_NONE, count);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Add(xf, xf, yf, count);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Cast(zLocal, xf, AscendC::RoundMode::CAST_RINT, count);
            }
            outQueueZ.EnQue(zLocal);
            inQueueX.FreeTensor(xLocal);
            inQueueY.FreeTensor(yLocal);
            zLocal = outQueueZ.DeQue<bfloat16_t>();
            Store(zLocal, done, count);
            outQueueZ.FreeTensor(zLocal);
        }
    }

private:
    __aicore__ inline void Load(AscendC::LocalTensor<bfloat16_t> &dst, const AscendC::GlobalTensor<bfloat16_t> &src,
                                uint32_t count)
    {
        if (count % 16 == 0) {
            AscendC::DataCopy(dst, src, count); // <- bf16_on_310p
            return;
        }
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(bfloat16_t)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<bfloat16_t> padParams{false, 0, 0, bfloat16_t(0.0f)};
        AscendC::DataCopyPad(dst, src, copyParams, padParams); // <- pad_on_310p
    }
    __aicore__ inline void Store(AscendC::LocalTensor<bfloat16_t> &src, uint32_t done, uint32_t count)
    {
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(bfloat16_t)), 0, 0, 0};
        if (count % 16 == 0) {
            AscendC::DataCopy(zGm[done], src, count);
        } else {
            AscendC::DataCopyPad(zGm[done], src, copyParams);
        }
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueZ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xFloat, yFloat;
    AscendC::GlobalTensor<bfloat16_t> xGm, yGm, zGm;
    uint32_t length;
    uint32_t tileLength;
    uint32_t mode;
};

extern "C" __global__ __aicore__ void bf16_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelBf16Add op;
    op.Init(x, y, z, tilingData);
    op.Process();
}
