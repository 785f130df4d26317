/*
 * mask_modes: vector calls with isSetMask = false, using the mask set outside the
 * call (SetVectorMask.md):
 *   counter mode: SetMaskCount(); SetVectorMask<float, MaskMode::COUNTER>(n);
 *                 z0 = x + y, z1 = x * y over n elements (any n; the repeat count is
 *                 inferred by the vector unit), then SetMaskNorm(); ResetMask();
 *   normal mode:  SetVectorMask<float, MaskMode::NORMAL>(0, bits);
 *                 z2 = x - y on the lanes set in bits, -1 elsewhere (fill), ResetMask().
 * One core; x and y hold repeats * 64 floats, n <= repeats * 64.
 */
#include "kernel_operator.h"

struct TilingData {
    uint64_t bits;
    uint32_t repeats; // <= 255
    uint32_t n;
};

class KernelMaskModes {
public:
    __aicore__ inline KernelMaskModes() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z0, GM_ADDR z1, GM_ADDR z2, const TilingData &tiling)
    {
        bits = tiling.bits;
        repeats = tiling.repeats;
        n = tiling.n;
        length = repeats * 64;
        xGm.SetGlobalBuffer((__gm__ float *)x, length);
        yGm.SetGlobalBuffer((__gm__ float *)y, length);
        z0Gm.SetGlobalBuffer((__gm__ float *)z0, n);
        z1Gm.SetGlobalBuffer((__gm__ float *)z1, n);
        z2Gm.SetGlobalBuffer((__gm__ float *)z2, length);
        pipe.InitBuffer(inQueueX, 1, length * sizeof(float));
        pipe.InitBuffer(inQueueY, 1, length * sizeof(float));
        pipe.InitBuffer(outQueue, 1, 3 * length * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm, length);
        AscendC::DataCopy(yLocal, yGm, length);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);

        xLocal = inQueueX.DeQue<float>();
        yLocal = inQueueY.DeQue<float>();
        AscendC::LocalTensor<float> outLocal = outQueue.AllocTensor<float>();
        AscendC::LocalTensor<float> z0 = outLocal;
        AscendC::LocalTensor<float> z1 = outLocal[length];
        AscendC::LocalTensor<float> z2 = outLocal[2 * length];

        AscendC::SetMaskCount();
        AscendC::SetVectorMask<float, AscendC::MaskMode::COUNTER>(n);
        AscendC::Add<float, false>(z0, xLocal, yLocal, AscendC::MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8});
        AscendC::Mul<float, false>(z1, xLocal, yLocal, AscendC::MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8});
        AscendC::SetMaskNorm();
        AscendC::ResetMask();

        AscendC::Duplicate(z2, -1.0f, length);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::SetVectorMask<float, AscendC::MaskMode::NORMAL>(0, bits);
        AscendC::Sub<float, false>(z2, xLocal, yLocal, AscendC::MASK_PLACEHOLDER, static_cast<uint8_t>(repeats),
                                   {1, 1, 1, 8, 8, 8});
        AscendC::ResetMask();

        outQueue.EnQue<float>(outLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);

        outLocal = outQueue.DeQue<float>();
        AscendC::DataCopyExtParams nParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(z0Gm, outLocal, nParams);
        AscendC::DataCopyPad(z1Gm, outLocal[length], nParams);
        AscendC::DataCopy(z2Gm, outLocal[2 * length], length);
        outQueue.FreeTensor(outLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<float> xGm, yGm, z0Gm, z1Gm, z2Gm;
    uint64_t bits = 0;
    uint32_t repeats = 0;
    uint32_t n = 0;
    uint32_t length = 0;
};

extern "C" __global__ __aicore__ void mask_modes(GM_ADDR x, GM_ADDR y, GM_ADDR z0, GM_ADDR z1, GM_ADDR z2,
                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelMaskModes op;
    op.Init(x, y, z0, z1, z2, t);
    op.Process();
}
