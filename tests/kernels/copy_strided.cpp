/*
 * copy_strided: out = -x[:, colStart:colStart + width] for a [rows, cols]
 * float matrix whose cols and width are multiples of 8 (32 bytes); colStart is any
 * column (GM addresses need only element alignment).
 * The column slice is gathered with one strided DataCopy per chunk of rows:
 * DataCopyParams{blockCount = rows, blockLen = width / 8, srcStride =
 * (cols - width) / 8, dstStride = 0}, all in 32-byte blocks. The result is also
 * scattered back into a zeroed [rows, cols] output at the same columns with
 * DataCopyParams{rows, width / 8, srcStride = 0, dstStride = (cols - width) / 8}.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t rows;
    uint32_t cols;
    uint32_t colStart;
    uint32_t width;
    uint32_t formerNum;
    uint32_t formerRows;
    uint32_t tailRows;
    uint32_t chunkRows;
};

class KernelCopyStrided {
public:
    __aicore__ inline KernelCopyStrided() {}
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
        chunkRows = tiling.chunkRows;
        if (coreRows == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)rowStart * cols + tiling.colStart,
                            (uint64_t)coreRows * cols - tiling.colStart);
        outGm.SetGlobalBuffer((__gm__ float *)out + (uint64_t)rowStart * width, (uint64_t)coreRows * width);
        scatterGm.SetGlobalBuffer((__gm__ float *)scatter + (uint64_t)rowStart * cols + tiling.colStart,
                                  (uint64_t)coreRows * cols - tiling.colStart);
        pipe.InitBuffer(inQueue, 2, chunkRows * width * sizeof(float));
        pipe.InitBuffer(outQueue, 2, chunkRows * width * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < coreRows; done += chunkRows) {
            uint32_t n = coreRows - done < chunkRows ? coreRows - done : chunkRows;
            AscendC::LocalTensor<float> inLocal = inQueue.AllocTensor<float>();
            AscendC::DataCopyParams gather{static_cast<uint16_t>(n), static_cast<uint16_t>(width / 8),
                                           static_cast<uint16_t>((cols - width) / 8), 0};
            AscendC::DataCopy(inLocal, xGm[(uint64_t)done * cols], gather);
            inQueue.EnQue(inLocal);

            inLocal = inQueue.DeQue<float>();
            AscendC::LocalTensor<float> outLocal = outQueue.AllocTensor<float>();
            AscendC::Muls(outLocal, inLocal, -1.0f, n * width);
            outQueue.EnQue<float>(outLocal);
            inQueue.FreeTensor(inLocal);

            outLocal = outQueue.DeQue<float>();
            AscendC::DataCopy(outGm[(uint64_t)done * width], outLocal, n * width);
            AscendC::DataCopyParams scatterParams{static_cast<uint16_t>(n), static_cast<uint16_t>(width / 8), 0,
                                                  static_cast<uint16_t>((cols - width) / 8)};
            AscendC::DataCopy(scatterGm[(uint64_t)done * cols], outLocal, scatterParams);
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
    uint32_t chunkRows = 0;
};

extern "C" __global__ __aicore__ void copy_strided(GM_ADDR x, GM_ADDR out, GM_ADDR scatter, GM_ADDR workspace,
                                                    GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelCopyStrided op;
    op.Init(x, out, scatter, t);
    op.Process();
}
