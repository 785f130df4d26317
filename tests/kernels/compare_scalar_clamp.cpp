/*
 * compare_scalar_clamp: z = clamp(x, lo, hi) with CompareScalar + Select in
 * VSEL_TENSOR_SCALAR_MODE:
 *   m = x >= lo;  t = select(m, x, lo)
 *   m = t <= hi;  z = select(m, t, hi)
 * CompareScalar counts are rounded up to whole 256-byte repeats over a
 * zero-padded tail. float or half; former/tail cores.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength; // multiple of 256 elements
    uint32_t dtypeKey;   // 0 float, 1 half
    float lo;
    float hi;
};

template <typename T>
class KernelClamp {
public:
    static constexpr uint32_t ELEMS_PER_REPEAT = 256 / sizeof(T);
    static constexpr uint32_t ELEMS_PER_BLOCK = 32 / sizeof(T);

    __aicore__ inline KernelClamp() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, const TilingData &tiling)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint64_t offset;
        if (blockIdx < tiling.formerNum) {
            coreLength = tiling.formerLength;
            offset = (uint64_t)blockIdx * tiling.formerLength;
        } else {
            coreLength = tiling.tailLength;
            offset = (uint64_t)tiling.formerNum * tiling.formerLength +
                     (uint64_t)(blockIdx - tiling.formerNum) * tiling.tailLength;
        }
        tileLength = tiling.tileLength;
        lo = static_cast<T>(tiling.lo);
        hi = static_cast<T>(tiling.hi);
        if (coreLength == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, coreLength);
        zGm.SetGlobalBuffer((__gm__ T *)z + offset, coreLength);
        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, 2, tileLength * sizeof(T));
        pipe.InitBuffer(tmpBuf, tileLength * sizeof(T));
        pipe.InitBuffer(maskBuf, tileLength / 8);
    }
    __aicore__ inline void Process()
    {
        uint32_t tileNum = (coreLength + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = (i == tileNum - 1) ? coreLength - i * tileLength : tileLength;
            CopyIn(i * tileLength, count);
            Compute(count);
            CopyOut(i * tileLength, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        uint32_t blockAligned = (count + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK * ELEMS_PER_BLOCK;
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> padParams{true, 0, static_cast<uint8_t>(blockAligned - count), 0};
        AscendC::DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        AscendC::LocalTensor<T> tLocal = tmpBuf.Get<T>();
        AscendC::LocalTensor<uint8_t> mask = maskBuf.Get<uint8_t>();
        uint32_t blockAligned = (count + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK * ELEMS_PER_BLOCK;
        uint32_t repeatAligned = (count + ELEMS_PER_REPEAT - 1) / ELEMS_PER_REPEAT * ELEMS_PER_REPEAT;
        if (repeatAligned > blockAligned) {
            AscendC::Duplicate(xLocal[blockAligned], static_cast<T>(0), repeatAligned - blockAligned);
            AscendC::PipeBarrier<PIPE_V>();
        }
        AscendC::CompareScalar(mask, xLocal, lo, AscendC::CMPMODE::GE, repeatAligned);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Select(tLocal, mask, xLocal, lo, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, repeatAligned);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::CompareScalar(mask, tLocal, hi, AscendC::CMPMODE::LE, repeatAligned);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Select(zLocal, mask, tLocal, hi, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
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
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueZ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tmpBuf, maskBuf;
    AscendC::GlobalTensor<T> xGm, zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    T lo, hi;
};

extern "C" __global__ __aicore__ void compare_scalar_clamp(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        KernelClamp<float> op;
        op.Init(x, z, t);
        op.Process();
    } else {
        KernelClamp<half> op;
        op.Init(x, z, t);
        op.Process();
    }
}
