/*
 * level0_mask_half: level-0 calls on half data with masks.
 *   out0 = fill(-1); Add(out0, x, y) under the bitwise mask {mask0, mask1}
 *   out1 = fill(0);  Mul(out1, x, y) under a continuous mask of contMask lanes
 *   out2 = fill(3);  Relu(out2, x)   under the bitwise mask (UnaryRepeatParams)
 * Every repeat covers 128 halves (256 bytes); lanes outside the mask keep the fill.
 */
#include "kernel_operator.h"

struct TilingData {
    uint64_t mask0;    // lanes 0..63 of each repeat
    uint64_t mask1;    // lanes 64..127 of each repeat
    uint32_t repeats;  // number of 128-element repeats (<= 255)
    uint32_t contMask; // 1..128
};

constexpr uint32_t LANES = 128;

class KernelLevel0MaskHalf {
public:
    __aicore__ inline KernelLevel0MaskHalf() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR out0, GM_ADDR out1, GM_ADDR out2,
                                const TilingData &tiling)
    {
        mask[0] = tiling.mask0;
        mask[1] = tiling.mask1;
        repeats = tiling.repeats;
        contMask = tiling.contMask;
        length = repeats * LANES;
        xGm.SetGlobalBuffer((__gm__ half *)x, length);
        yGm.SetGlobalBuffer((__gm__ half *)y, length);
        out0Gm.SetGlobalBuffer((__gm__ half *)out0, length);
        out1Gm.SetGlobalBuffer((__gm__ half *)out1, length);
        out2Gm.SetGlobalBuffer((__gm__ half *)out2, length);
        pipe.InitBuffer(inQueueX, 1, length * sizeof(half));
        pipe.InitBuffer(inQueueY, 1, length * sizeof(half));
        pipe.InitBuffer(outQueue, 1, 3 * length * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        AscendC::LocalTensor<half> yLocal = inQueueY.AllocTensor<half>();
        AscendC::DataCopy(xLocal, xGm, length);
        AscendC::DataCopy(yLocal, yGm, length);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);

        xLocal = inQueueX.DeQue<half>();
        yLocal = inQueueY.DeQue<half>();
        AscendC::LocalTensor<half> outLocal = outQueue.AllocTensor<half>();
        AscendC::LocalTensor<half> z0 = outLocal;
        AscendC::LocalTensor<half> z1 = outLocal[length];
        AscendC::LocalTensor<half> z2 = outLocal[2 * length];
        AscendC::Duplicate(z0, static_cast<half>(-1.0f), length);
        AscendC::Duplicate(z1, static_cast<half>(0.0f), length);
        AscendC::Duplicate(z2, static_cast<half>(3.0f), length);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Add(z0, xLocal, yLocal, mask, static_cast<uint8_t>(repeats), {1, 1, 1, 8, 8, 8});
        AscendC::Mul(z1, xLocal, yLocal, static_cast<uint64_t>(contMask), static_cast<uint8_t>(repeats),
                     {1, 1, 1, 8, 8, 8});
        AscendC::UnaryRepeatParams unaryParams(1, 1, 8, 8);
        AscendC::Relu(z2, xLocal, mask, static_cast<uint8_t>(repeats), unaryParams);
        outQueue.EnQue<half>(outLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);

        outLocal = outQueue.DeQue<half>();
        AscendC::DataCopy(out0Gm, outLocal, length);
        AscendC::DataCopy(out1Gm, outLocal[length], length);
        AscendC::DataCopy(out2Gm, outLocal[2 * length], length);
        outQueue.FreeTensor(outLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<half> xGm, yGm, out0Gm, out1Gm, out2Gm;
    uint64_t mask[2] = {0, 0};
    uint32_t repeats = 0;
    uint32_t contMask = 0;
    uint32_t length = 0;
};

extern "C" __global__ __aicore__ void level0_mask_half(GM_ADDR x, GM_ADDR y, GM_ADDR out0, GM_ADDR out1, GM_ADDR out2,
                                                        GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelLevel0MaskHalf op;
    op.Init(x, y, out0, out1, out2, t);
    op.Process();
}
