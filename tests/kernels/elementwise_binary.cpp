/*
 * elementwise_binary: z = op(x, y) for op in Add/Sub/Mul/Div/Max/Min.
 *
 * Elements are split between cores by length: the first formerNum cores take
 * formerLength elements, the others tailLength (formerLength = tailLength + 1
 * when the total does not divide), so core boundaries fall anywhere in GM.
 * Inside a core the data goes through double-buffered tiles; a short last
 * tile uses DataCopyPad. opKey and dtypeKey select the operation and type.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;    // number of cores that take formerLength elements
    uint32_t formerLength;
    uint32_t tailLength;   // elements for each remaining core
    uint32_t tileLength;   // elements per tile, a multiple of 32 bytes
    uint32_t opKey;        // 0 add, 1 sub, 2 mul, 3 div, 4 max, 5 min
    uint32_t dtypeKey;     // 0 float, 1 half, 2 int32, 3 int16
};

constexpr int32_t BUFFER_NUM = 2;

template <typename T> struct IsFloating { static constexpr bool value = false; };
template <> struct IsFloating<float> { static constexpr bool value = true; };
template <> struct IsFloating<half> { static constexpr bool value = true; };

template <typename T>
class KernelBinary {
public:
    __aicore__ inline KernelBinary() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &tiling)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint64_t offset = 0;
        if (blockIdx < tiling.formerNum) {
            coreLength = tiling.formerLength;
            offset = (uint64_t)blockIdx * tiling.formerLength;
        } else {
            coreLength = tiling.tailLength;
            offset = (uint64_t)tiling.formerNum * tiling.formerLength +
                     (uint64_t)(blockIdx - tiling.formerNum) * tiling.tailLength;
        }
        tileLength = tiling.tileLength;
        opKey = tiling.opKey;
        if (coreLength == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, coreLength);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, coreLength);
        zGm.SetGlobalBuffer((__gm__ T *)z + offset, coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        uint32_t tileNum = (coreLength + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t offset = i * tileLength;
            uint32_t count = (i == tileNum - 1) ? coreLength - offset : tileLength;
            CopyIn(offset, count);
            Compute(count);
            CopyOut(offset, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        AscendC::DataCopyPad(yLocal, yGm[offset], copyParams, padParams);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        switch (opKey) {
            case 0:
                AscendC::Add(zLocal, xLocal, yLocal, count);
                break;
            case 1:
                AscendC::Sub(zLocal, xLocal, yLocal, count);
                break;
            case 2:
                AscendC::Mul(zLocal, xLocal, yLocal, count);
                break;
            case 3:
                if constexpr (IsFloating<T>::value) {
                    AscendC::Div(zLocal, xLocal, yLocal, count);
                }
                break;
            case 4:
                AscendC::Max(zLocal, xLocal, yLocal, count);
                break;
            default:
                AscendC::Min(zLocal, xLocal, yLocal, count);
                break;
        }
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[offset], zLocal, copyParams);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<T> xGm, yGm, zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t opKey = 0;
};

template <typename T>
__aicore__ inline void RunBinary(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &tiling)
{
    KernelBinary<T> op;
    op.Init(x, y, z, tiling);
    op.Process();
}

extern "C" __global__ __aicore__ void elementwise_binary(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                          GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    switch (t.dtypeKey) {
        case 0: RunBinary<float>(x, y, z, t); break;
        case 1: RunBinary<half>(x, y, z, t); break;
        case 2: RunBinary<int32_t>(x, y, z, t); break;
        default: RunBinary<int16_t>(x, y, z, t); break;
    }
}
