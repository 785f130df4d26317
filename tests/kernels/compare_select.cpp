/*
 * compare_select: z = where(x > y, x, y) with Compare (bit mask) + Select
 * (VSEL_TENSOR_TENSOR_MODE); the raw comparison bits are a second output
 * (uint8, bit i of byte j is element 8*j + i).
 * Compare needs a count covering whole 256-byte repeats: the tail of a tile is
 * zero-padded (DataCopyPad rightPadding up to the next 32 bytes, Duplicate for
 * the rest), so the padding bits compare 0 > 0 = false.
 * Whole tiles are dealt to cores (the first formerNum cores take one more).
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t tileLength;   // multiple of 256 elements
    uint32_t tileNum;
    uint32_t tilesPerCore;
    uint32_t formerNum;
    uint32_t dtypeKey;     // 0 float, 1 half
};

template <typename T>
class KernelCompareSelect {
public:
    static constexpr uint32_t ELEMS_PER_REPEAT = 256 / sizeof(T);
    static constexpr uint32_t ELEMS_PER_BLOCK = 32 / sizeof(T);

    __aicore__ inline KernelCompareSelect() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR maskOut, const TilingData &tiling)
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
        xGm.SetGlobalBuffer((__gm__ T *)x, totalLength);
        yGm.SetGlobalBuffer((__gm__ T *)y, totalLength);
        zGm.SetGlobalBuffer((__gm__ T *)z, totalLength);
        maskGm.SetGlobalBuffer((__gm__ uint8_t *)maskOut, (totalLength + 7) / 8);
        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, 2, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, 2, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueMask, 2, tileLength / 8);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileCount; i++) {
            uint32_t start = (firstTile + i) * tileLength;
            uint32_t count = totalLength - start < tileLength ? totalLength - start : tileLength;
            CopyIn(start, count);
            Compute(count);
            CopyOut(start, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t start, uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        uint32_t blockAligned = (count + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK * ELEMS_PER_BLOCK;
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> padParams{true, 0, static_cast<uint8_t>(blockAligned - count), 0};
        AscendC::DataCopyPad(xLocal, xGm[start], copyParams, padParams);
        AscendC::DataCopyPad(yLocal, yGm[start], copyParams, padParams);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        AscendC::LocalTensor<uint8_t> maskLocal = outQueueMask.AllocTensor<uint8_t>();
        uint32_t blockAligned = (count + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK * ELEMS_PER_BLOCK;
        uint32_t repeatAligned = (count + ELEMS_PER_REPEAT - 1) / ELEMS_PER_REPEAT * ELEMS_PER_REPEAT;
        if (repeatAligned > blockAligned) {
            AscendC::Duplicate(xLocal[blockAligned], static_cast<T>(0), repeatAligned - blockAligned);
            AscendC::Duplicate(yLocal[blockAligned], static_cast<T>(0), repeatAligned - blockAligned);
            AscendC::PipeBarrier<PIPE_V>();
        }
        AscendC::Compare(maskLocal, xLocal, yLocal, AscendC::CMPMODE::GT, repeatAligned);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Select(zLocal, maskLocal, xLocal, yLocal, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
        outQueueZ.EnQue<T>(zLocal);
        outQueueMask.EnQue<uint8_t>(maskLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t start, uint32_t count)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        AscendC::LocalTensor<uint8_t> maskLocal = outQueueMask.DeQue<uint8_t>();
        AscendC::DataCopyExtParams zParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[start], zLocal, zParams);
        AscendC::DataCopyExtParams maskParams{1, (count + 7) / 8, 0, 0, 0};
        AscendC::DataCopyPad(maskGm[start / 8], maskLocal, maskParams);
        outQueueZ.FreeTensor(zLocal);
        outQueueMask.FreeTensor(maskLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueZ, outQueueMask;
    AscendC::GlobalTensor<T> xGm, yGm, zGm;
    AscendC::GlobalTensor<uint8_t> maskGm;
    uint32_t totalLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileCount = 0;
    uint32_t firstTile = 0;
};

extern "C" __global__ __aicore__ void compare_select(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR maskOut,
                                                      GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        KernelCompareSelect<float> op;
        op.Init(x, y, z, maskOut, t);
        op.Process();
    } else {
        KernelCompareSelect<half> op;
        op.Init(x, y, z, maskOut, t);
        op.Process();
    }
}
