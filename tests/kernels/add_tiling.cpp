/*
 * add_tiling: z = x + y, shape-generic, in the kernel-contract form.
 *
 * The data is cut into tiles of tileLength elements; tiles are dealt to cores,
 * the first formerNum cores take one tile more than the others. The last tile
 * of the tensor may be short and is moved with DataCopyPad. Cores that get no
 * tile (more blocks than tiles) return at once. dtypeKey picks the element type
 * at run time, the way tiling keys do in operator projects.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;  // elements in x, y and z
    uint32_t tileLength;   // elements per full tile (tileLength * sizeof(T) is a multiple of 32)
    uint32_t tileNum;      // ceil(totalLength / tileLength)
    uint32_t tilesPerCore; // tileNum / blockDim
    uint32_t formerNum;    // tileNum % blockDim: these cores take tilesPerCore + 1 tiles
    uint32_t dtypeKey;     // 0 float, 1 half, 2 int32, 3 int16
};

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelAddTiling {
public:
    __aicore__ inline KernelAddTiling() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &tiling)
    {
        totalLength = tiling.totalLength;
        tileLength = tiling.tileLength;
        uint32_t blockIdx = AscendC::GetBlockIdx();
        if (blockIdx < tiling.formerNum) {
            tileCount = tiling.tilesPerCore + 1;
            firstTile = blockIdx * (tiling.tilesPerCore + 1);
        } else {
            tileCount = tiling.tilesPerCore;
            firstTile = tiling.formerNum * (tiling.tilesPerCore + 1) +
                        (blockIdx - tiling.formerNum) * tiling.tilesPerCore;
        }
        if (tileCount == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ T *)x, totalLength);
        yGm.SetGlobalBuffer((__gm__ T *)y, totalLength);
        zGm.SetGlobalBuffer((__gm__ T *)z, totalLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileCount; i++) {
            uint64_t offset = (uint64_t)(firstTile + i) * tileLength;
            uint32_t count = tileLength;
            if (offset + count > totalLength) {
                count = (uint32_t)(totalLength - offset);
            }
            CopyIn(offset, count);
            Compute(count);
            CopyOut(offset, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint64_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        if ((count * sizeof(T)) % 32 == 0) {
            AscendC::DataCopy(xLocal, xGm[offset], count);
            AscendC::DataCopy(yLocal, yGm[offset], count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            AscendC::DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
            AscendC::DataCopyPad(yLocal, yGm[offset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        AscendC::Add(zLocal, xLocal, yLocal, count);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint64_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        if ((count * sizeof(T)) % 32 == 0) {
            AscendC::DataCopy(zGm[offset], zLocal, count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPad(zGm[offset], zLocal, copyParams);
        }
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<T> xGm, yGm, zGm;
    uint32_t totalLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileCount = 0;
    uint32_t firstTile = 0;
};

template <typename T>
__aicore__ inline void RunAddTiling(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &tiling)
{
    KernelAddTiling<T> op;
    op.Init(x, y, z, tiling);
    op.Process();
}

extern "C" __global__ __aicore__ void add_tiling(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        RunAddTiling<float>(x, y, z, t);
    } else if (t.dtypeKey == 1) {
        RunAddTiling<half>(x, y, z, t);
    } else if (t.dtypeKey == 2) {
        RunAddTiling<int32_t>(x, y, z, t);
    } else if (t.dtypeKey == 3) {
        RunAddTiling<int16_t>(x, y, z, t);
    }
}
