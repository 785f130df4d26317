/*
 * cast_saturate: narrowing casts with overflow (Cast.md: "溢出默认按照饱和处理" for integers):
 *   i8  = Cast<int8_t>(half xh, CAST_RINT)        |xh| up to 300
 *   i16 = Cast<int16_t>(float xf, CAST_TRUNC)     |xf| up to 1e5
 *   n16 = Cast<int16_t>(int32 xi, CAST_NONE)      |xi| up to 1e5
 *   h   = Cast<half>(float xf, CAST_RINT)         beyond 65504 -> +-inf on A2/A3, whose
 *         default is INF_NAN mode (saturation mode would give +-65504)
 * One core, any length.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
};

class KernelCastSaturate {
public:
    __aicore__ inline KernelCastSaturate() {}
    __aicore__ inline void Init(GM_ADDR xh, GM_ADDR xf, GM_ADDR xi, GM_ADDR i8, GM_ADDR i16, GM_ADDR n16, GM_ADDR h,
                                uint32_t totalLength)
    {
        length = totalLength;
        uint32_t padded = (length + 31) / 32 * 32;
        xhGm.SetGlobalBuffer((__gm__ half *)xh, length);
        xfGm.SetGlobalBuffer((__gm__ float *)xf, length);
        xiGm.SetGlobalBuffer((__gm__ int32_t *)xi, length);
        i8Gm.SetGlobalBuffer((__gm__ int8_t *)i8, length);
        i16Gm.SetGlobalBuffer((__gm__ int16_t *)i16, length);
        n16Gm.SetGlobalBuffer((__gm__ int16_t *)n16, length);
        hGm.SetGlobalBuffer((__gm__ half *)h, length);
        pipe.InitBuffer(inQueueH, 1, padded * sizeof(half));
        pipe.InitBuffer(inQueueF, 1, padded * sizeof(float));
        pipe.InitBuffer(inQueueI, 1, padded * sizeof(int32_t));
        pipe.InitBuffer(outQueue8, 1, padded * sizeof(int8_t));
        pipe.InitBuffer(outQueue16, 1, 2 * padded * sizeof(int16_t));
        pipe.InitBuffer(outQueueHalf, 1, padded * sizeof(half));
        this->padded = padded;
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<half> xhLocal = inQueueH.AllocTensor<half>();
        AscendC::LocalTensor<float> xfLocal = inQueueF.AllocTensor<float>();
        AscendC::LocalTensor<int32_t> xiLocal = inQueueI.AllocTensor<int32_t>();
        AscendC::DataCopyPadExtParams<half> hPad{false, 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> fPad{false, 0, 0, 0};
        AscendC::DataCopyPadExtParams<int32_t> iPad{false, 0, 0, 0};
        AscendC::DataCopyPad(xhLocal, xhGm, {1, static_cast<uint32_t>(length * sizeof(half)), 0, 0, 0}, hPad);
        AscendC::DataCopyPad(xfLocal, xfGm, {1, static_cast<uint32_t>(length * sizeof(float)), 0, 0, 0}, fPad);
        AscendC::DataCopyPad(xiLocal, xiGm, {1, static_cast<uint32_t>(length * sizeof(int32_t)), 0, 0, 0}, iPad);
        inQueueH.EnQue(xhLocal);
        inQueueF.EnQue(xfLocal);
        inQueueI.EnQue(xiLocal);

        xhLocal = inQueueH.DeQue<half>();
        xfLocal = inQueueF.DeQue<float>();
        xiLocal = inQueueI.DeQue<int32_t>();
        AscendC::LocalTensor<int8_t> i8Local = outQueue8.AllocTensor<int8_t>();
        AscendC::LocalTensor<int16_t> i16Local = outQueue16.AllocTensor<int16_t>();
        AscendC::LocalTensor<half> hLocal = outQueueHalf.AllocTensor<half>();
        AscendC::Cast(i8Local, xhLocal, AscendC::RoundMode::CAST_RINT, length);
        AscendC::Cast(i16Local, xfLocal, AscendC::RoundMode::CAST_TRUNC, length);
        AscendC::Cast(i16Local[padded], xiLocal, AscendC::RoundMode::CAST_NONE, length);
        AscendC::Cast(hLocal, xfLocal, AscendC::RoundMode::CAST_RINT, length);
        outQueue8.EnQue<int8_t>(i8Local);
        outQueue16.EnQue<int16_t>(i16Local);
        outQueueHalf.EnQue<half>(hLocal);
        inQueueH.FreeTensor(xhLocal);
        inQueueF.FreeTensor(xfLocal);
        inQueueI.FreeTensor(xiLocal);

        i8Local = outQueue8.DeQue<int8_t>();
        i16Local = outQueue16.DeQue<int16_t>();
        hLocal = outQueueHalf.DeQue<half>();
        AscendC::DataCopyPad(i8Gm, i8Local, {1, static_cast<uint32_t>(length * sizeof(int8_t)), 0, 0, 0});
        AscendC::DataCopyPad(i16Gm, i16Local, {1, static_cast<uint32_t>(length * sizeof(int16_t)), 0, 0, 0});
        AscendC::DataCopyPad(n16Gm, i16Local[padded], {1, static_cast<uint32_t>(length * sizeof(int16_t)), 0, 0, 0});
        AscendC::DataCopyPad(hGm, hLocal, {1, static_cast<uint32_t>(length * sizeof(half)), 0, 0, 0});
        outQueue8.FreeTensor(i8Local);
        outQueue16.FreeTensor(i16Local);
        outQueueHalf.FreeTensor(hLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueH, inQueueF, inQueueI;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue8, outQueue16, outQueueHalf;
    AscendC::GlobalTensor<half> xhGm, hGm;
    AscendC::GlobalTensor<float> xfGm;
    AscendC::GlobalTensor<int32_t> xiGm;
    AscendC::GlobalTensor<int8_t> i8Gm;
    AscendC::GlobalTensor<int16_t> i16Gm, n16Gm;
    uint32_t length = 0;
    uint32_t padded = 0;
};

extern "C" __global__ __aicore__ void cast_saturate(GM_ADDR xh, GM_ADDR xf, GM_ADDR xi, GM_ADDR i8, GM_ADDR i16,
                                                     GM_ADDR n16, GM_ADDR h, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelCastSaturate op;
    op.Init(xh, xf, xi, i8, i16, n16, h, t.totalLength);
    op.Process();
}
