/*
 * cast_round_modes: float -> half with every rounding mode (CAST_RINT, FLOOR, CEIL,
 * ROUND, TRUNC, ODD) and float -> bfloat16 with RINT, FLOOR, CEIL, ROUND, TRUNC.
 * Row m of halfOut / bf16Out holds the result of mode m. One core, any length.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
};

constexpr uint32_t HALF_MODES = 6;
constexpr uint32_t BF16_MODES = 5;

class KernelCastRoundModes {
public:
    __aicore__ inline KernelCastRoundModes() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR halfOut, GM_ADDR bf16Out, uint32_t totalLength)
    {
        length = totalLength;
        stride = (length + 15) / 16 * 16; // elements between rows in UB (32-byte aligned)
        xGm.SetGlobalBuffer((__gm__ float *)x, length);
        halfGm.SetGlobalBuffer((__gm__ half *)halfOut, HALF_MODES * length);
        bf16Gm.SetGlobalBuffer((__gm__ bfloat16_t *)bf16Out, BF16_MODES * length);
        pipe.InitBuffer(inQueueX, 1, stride * sizeof(float));
        pipe.InitBuffer(outQueueHalf, 1, HALF_MODES * stride * sizeof(half));
        pipe.InitBuffer(outQueueBf16, 1, BF16_MODES * stride * sizeof(bfloat16_t));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::DataCopyExtParams inParams{1, static_cast<uint32_t>(length * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm, inParams, padParams);
        inQueueX.EnQue(xLocal);

        xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<half> halfLocal = outQueueHalf.AllocTensor<half>();
        AscendC::LocalTensor<bfloat16_t> bf16Local = outQueueBf16.AllocTensor<bfloat16_t>();
        const AscendC::RoundMode halfModes[HALF_MODES] = {
            AscendC::RoundMode::CAST_RINT, AscendC::RoundMode::CAST_FLOOR, AscendC::RoundMode::CAST_CEIL,
            AscendC::RoundMode::CAST_ROUND, AscendC::RoundMode::CAST_TRUNC, AscendC::RoundMode::CAST_ODD};
        for (uint32_t m = 0; m < HALF_MODES; m++) {
            AscendC::Cast(halfLocal[m * stride], xLocal, halfModes[m], length);
        }
        for (uint32_t m = 0; m < BF16_MODES; m++) {
            AscendC::Cast(bf16Local[m * stride], xLocal, halfModes[m], length);
        }
        outQueueHalf.EnQue<half>(halfLocal);
        outQueueBf16.EnQue<bfloat16_t>(bf16Local);
        inQueueX.FreeTensor(xLocal);

        halfLocal = outQueueHalf.DeQue<half>();
        bf16Local = outQueueBf16.DeQue<bfloat16_t>();
        AscendC::DataCopyExtParams outParams{1, static_cast<uint32_t>(length * sizeof(half)), 0, 0, 0};
        for (uint32_t m = 0; m < HALF_MODES; m++) {
            AscendC::DataCopyPad(halfGm[m * length], halfLocal[m * stride], outParams);
        }
        for (uint32_t m = 0; m < BF16_MODES; m++) {
            AscendC::DataCopyPad(bf16Gm[m * length], bf16Local[m * stride], outParams);
        }
        outQueueHalf.FreeTensor(halfLocal);
        outQueueBf16.FreeTensor(bf16Local);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueHalf, outQueueBf16;
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<half> halfGm;
    AscendC::GlobalTensor<bfloat16_t> bf16Gm;
    uint32_t length = 0;
    uint32_t stride = 0;
};

extern "C" __global__ __aicore__ void cast_round_modes(GM_ADDR x, GM_ADDR halfOut, GM_ADDR bf16Out, GM_ADDR workspace,
                                                        GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelCastRoundModes op;
    op.Init(x, halfOut, bf16Out, t.totalLength);
    op.Process();
}
