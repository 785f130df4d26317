/*
 * add_bench: z = x + y over float32, shape-generic. Tiles of tileLength elements are dealt to
 * blockDim cores in contiguous runs (the first formerNum cores take one tile more); each core
 * streams its tiles through TQues with bufferNum buffers each (2: double buffering, CopyIn of
 * the next tile overlaps Add of this one): CopyIn (MTE2) -> Add (V) -> CopyOut (MTE3).
 * The last tile of the tensor may be short and is moved with DataCopyPad.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t tileLength;   // elements per tile, a multiple of 8 (32 bytes of float)
    uint32_t tilesPerCore;
    uint32_t formerNum;
    uint32_t bufferNum;    // buffers per queue: 2 for double buffering, 1 for none
};

class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &t)
    {
        totalLength = t.totalLength;
        tileLength = t.tileLength;
        uint32_t block = AscendC::GetBlockIdx();
        tileCount = t.tilesPerCore + (block < t.formerNum ? 1 : 0);
        firstTile = block * t.tilesPerCore + (block < t.formerNum ? block : t.formerNum);
        if (tileCount == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x, totalLength);
        yGm.SetGlobalBuffer((__gm__ float *)y, totalLength);
        zGm.SetGlobalBuffer((__gm__ float *)z, totalLength);
        pipe.InitBuffer(inQueueX, t.bufferNum, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, t.bufferNum, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, t.bufferNum, tileLength * sizeof(float));
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
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        if (count % 8 == 0) {
            AscendC::DataCopy(xLocal, xGm[offset], count);
            AscendC::DataCopy(yLocal, yGm[offset], count);
        } else {
            AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
            AscendC::DataCopyPad(xLocal, xGm[offset], params, pad);
            AscendC::DataCopyPad(yLocal, yGm[offset], params, pad);
        }
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        AscendC::Add(zLocal, xLocal, yLocal, count);
        outQueueZ.EnQue(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint64_t offset, uint32_t count)
    {
        AscendC::LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        if (count % 8 == 0) {
            AscendC::DataCopy(zGm[offset], zLocal, count);
        } else {
            AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPad(zGm[offset], zLocal, params);
        }
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueY;  // depth 1: one EnQue at a time
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueZ;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    uint32_t totalLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileCount = 0;
    uint32_t firstTile = 0;
};

extern "C" __global__ __aicore__ void add_bench(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelAdd op;
    op.Init(x, y, z, t);
    op.Process();
}
