/*
 * slice_pad: out = x[:, colStart:colStart + width] + 1 for a [rows, cols]
 * float matrix with arbitrary (unaligned) cols, colStart and width.
 * GM -> UB: DataCopyPad with blockCount = rows in the chunk, blockLen = width * 4
 * bytes, srcStride = (cols - width) * 4 bytes (GM side, bytes); each row lands
 * 32-byte padded in UB. UB -> GM: DataCopyPad with srcStride 0 blocks; and
 * scattered back into a zeroed [rows, cols] output at the same columns with
 * dstStride = (cols - width) * 4 bytes (GM side, bytes).
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t rows;
    uint32_t cols;
    uint32_t colStart;
    uint32_t width;
    uint32_t widthAligned; // width rounded up to 8
    uint32_t formerNum;
    uint32_t formerRows;
    uint32_t tailRows;
    uint32_t chunkRows;
};

class KernelSlicePad {
public:
    __aicore__ inline KernelSlicePad() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR out, GM_ADDR scatter, const TilingData &tiling)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint32_t rowStart;
        if (blockIdx < tiling.formerNum) {
            coreRows = tiling.formerRows;
            rowStart = blockIdx * tiling.formerRows;
        } else {
            coreRows = tiling.tailRows;
            rowStart = tiling.formerNum * tiling.formerRows + (blockIdx - tiling.formerNum) * tiling.tailRows;
        }
        cols = tiling.cols;
        width = tiling.width;
        widthAligned = tiling.widthAligned;
        chunkRows = tiling.chunkRows;
        if (coreRows == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)rowStart * cols + tiling.colStart,
                            (uint64_t)coreRows * cols - tiling.colStart);
        outGm.SetGlobalBuffer((__gm__ float *)out + (uint64_t)rowStart * width, (uint64_t)coreRows * width);
        scatterGm.SetGlobalBuffer((__gm__ float *)scatter + (uint64_t)rowStart * cols + tiling.colStart,
                                  (uint64_t)coreRows * cols - tiling.colStart);
        pipe.InitBuffer(inQueue, 2, chunkRows * widthAligned * sizeof(float));
        pipe.InitBuffer(outQueue, 2, chunkRows * widthAligned * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < coreRows; done += chunkRows) {
            uint32_t n = coreRows - done < chunkRows ? coreRows - done : chunkRows;
            AscendC::LocalTensor<float> inLocal = inQueue.AllocTensor<float>();
            AscendC::DataCopyExtParams inParams{static_cast<uint16_t>(n), static_cast<uint32_t>(width * sizeof(float)),
                                                static_cast<uint32_t>((cols - width) * sizeof(float)), 0, 0};
            AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            AscendC::DataCopyPad(inLocal, xGm[(uint64_t)done * cols], inParams, padParams);
            inQueue.EnQue(inLocal);

            inLocal = inQueue.DeQue<float>();
            AscendC::LocalTensor<float> outLocal = outQueue.AllocTensor<float>();
            AscendC::Adds(outLocal, inLocal, 1.0f, n * widthAligned);
            outQueue.EnQue<float>(outLocal);
            inQueue.FreeTensor(inLocal);

            outLocal = outQueue.DeQue<float>();
            AscendC::DataCopyExtParams outParams{static_cast<uint16_t>(n), static_cast<uint32_t>(width * sizeof(float)),
                                                 0, 0, 0};
            AscendC::DataCopyPad(outGm[(uint64_t)done * width], outLocal, outParams);
            AscendC::DataCopyExtParams scatterParams{static_cast<uint16_t>(n),
                                                     static_cast<uint32_t>(width * sizeof(float)), 0,
                                                     static_cast<uint32_t>((cols - width) * sizeof(float)), 0};
            AscendC::DataCopyPad(scatterGm[(uint64_t)done * cols], outLocal, scatterParams);
            outQueue.FreeTensor(outLocal);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueue;
    AscendC::GlobalTensor<float> xGm, outGm, scatterGm;
    uint32_t coreRows = 0;
    uint32_t cols = 0;
    uint32_t width = 0;
    uint32_t widthAligned = 0;
    uint32_t chunkRows = 0;
};

extern "C" __global__ __aicore__ void slice_pad(GM_ADDR x, GM_ADDR out, GM_ADDR scatter, GM_ADDR workspace,
                                                 GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelSlicePad op;
    op.Init(x, out, scatter, t);
    op.Process();
}
