/*
 * select_mode0: Select in VSEL_CMPMASK_SPR mode (mode 0) with the count form:
 * every 256-byte repeat uses the same first 256 / sizeof(T) bits of selMask
 * (Select.md: "每轮repeat迭代中，maskLocal只有前64bit生效" for float), so
 * z[i] = bit(i % (256 / sizeof(T))) ? x[i] : y[i]. The sel buffer holds 32
 * bytes; the bytes past the first 8 (float) / 16 (half) must be ignored.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t dtypeKey; // 0 float, 1 half
};

template <typename T>
class KernelSelectMode0 {
public:
    __aicore__ inline KernelSelectMode0() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR sel, GM_ADDR z, uint32_t totalLength)
    {
        length = totalLength;
        bufferBytes = (length * sizeof(T) + 31) / 32 * 32;
        xGm.SetGlobalBuffer((__gm__ T *)x, length);
        yGm.SetGlobalBuffer((__gm__ T *)y, length);
        selGm.SetGlobalBuffer((__gm__ uint8_t *)sel, 32);
        zGm.SetGlobalBuffer((__gm__ T *)z, length);
        pipe.InitBuffer(inQueueX, 1, bufferBytes);
        pipe.InitBuffer(inQueueY, 1, bufferBytes);
        pipe.InitBuffer(inQueueSel, 1, 32);
        pipe.InitBuffer(outQueueZ, 1, bufferBytes);
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        AscendC::LocalTensor<uint8_t> selLocal = inQueueSel.AllocTensor<uint8_t>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm, copyParams, padParams);
        AscendC::DataCopyPad(yLocal, yGm, copyParams, padParams);
        AscendC::DataCopy(selLocal, selGm, 32);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
        inQueueSel.EnQue(selLocal);

        xLocal = inQueueX.DeQue<T>();
        yLocal = inQueueY.DeQue<T>();
        selLocal = inQueueSel.DeQue<uint8_t>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        AscendC::Select(zLocal, selLocal, xLocal, yLocal, AscendC::SELMODE::VSEL_CMPMASK_SPR, length);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
        inQueueSel.FreeTensor(selLocal);

        zLocal = outQueueZ.DeQue<T>();
        AscendC::DataCopyPad(zGm, zLocal, copyParams);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueY, inQueueSel;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueZ;
    AscendC::GlobalTensor<T> xGm, yGm, zGm;
    AscendC::GlobalTensor<uint8_t> selGm;
    uint32_t length = 0;
    uint32_t bufferBytes = 0;
};

extern "C" __global__ __aicore__ void select_mode0(GM_ADDR x, GM_ADDR y, GM_ADDR sel, GM_ADDR z, GM_ADDR workspace,
                                                    GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        KernelSelectMode0<float> op;
        op.Init(x, y, sel, z, t.totalLength);
        op.Process();
    } else {
        KernelSelectMode0<half> op;
        op.Init(x, y, sel, z, t.totalLength);
        op.Process();
    }
}
