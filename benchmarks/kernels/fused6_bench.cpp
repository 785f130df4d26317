/*
 * fused6_bench: z = min(max(x * y + x, y) - y, x) * y over float32, shape-generic: six
 * elementwise vector instructions per tile (Mul, Add, Max, Sub, Min, Mul) on UB, with the
 * intermediate kept in a TBuf, where torch eager runs six separate ops over memory.
 * Tiles are dealt to cores in contiguous runs (the first formerNum cores take one more);
 * x, y and z stream through double-buffered TQues. The last tile may be short and is moved
 * with DataCopyPad.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t tileLength;   // elements per tile, a multiple of 64 (one 256-byte repeat of float)
    uint32_t tilesPerCore;
    uint32_t formerNum;
};

constexpr int32_t BUFFER_NUM = 2;

class KernelFused6 {
public:
    __aicore__ inline KernelFused6() {}
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
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(tmpBuf, tileLength * sizeof(float));
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
        AscendC::LocalTensor<float> tmp = tmpBuf.Get<float>();
        AscendC::Mul(tmp, xLocal, yLocal, count);
        AscendC::Add(tmp, tmp, xLocal, count);
        AscendC::Max(tmp, tmp, yLocal, count);
        AscendC::Sub(tmp, tmp, yLocal, count);
        AscendC::Min(tmp, tmp, xLocal, count);
        AscendC::Mul(zLocal, tmp, yLocal, count);
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
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tmpBuf;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    uint32_t totalLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileCount = 0;
    uint32_t firstTile = 0;
};

extern "C" __global__ __aicore__ void fused6_bench(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelFused6 op;
    op.Init(x, y, z, t);
    op.Process();
}
