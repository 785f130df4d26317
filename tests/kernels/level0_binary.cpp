/*
 * level0_binary: binary level-0 calls (mask, repeatTimes, BinaryRepeatParams)
 * on a [rows, 128] float matrix; each repeat handles one row.
 *   out0[:, :64]  = x + y   (mask 64, repeat stride 16 blocks = one row)
 *   out0[:, 64:]  = x * y   (same call on tensors offset by 64 elements)
 *   out1[r, 8b+e] = x[r, 16b+e] - y[r, 16b+e]   (source block stride 2)
 *   out2[:, :40]  = max(x, y)[:, :40], out2[:, 40:] = 0  (mask 40 over a zero fill)
 * Rows are split between cores (former/tail).
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t rows;
    uint32_t formerNum;
    uint32_t formerRows;
    uint32_t tailRows; // every core takes at most 255 rows (one repeat per row)
};

constexpr uint32_t COLS = 128;
constexpr uint32_t HALF_COLS = 64;

class KernelLevel0Binary {
public:
    __aicore__ inline KernelLevel0Binary() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR out0, GM_ADDR out1, GM_ADDR out2,
                                const TilingData &tiling)
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
        if (coreRows == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + rowStart * COLS, coreRows * COLS);
        yGm.SetGlobalBuffer((__gm__ float *)y + rowStart * COLS, coreRows * COLS);
        out0Gm.SetGlobalBuffer((__gm__ float *)out0 + rowStart * COLS, coreRows * COLS);
        out1Gm.SetGlobalBuffer((__gm__ float *)out1 + rowStart * HALF_COLS, coreRows * HALF_COLS);
        out2Gm.SetGlobalBuffer((__gm__ float *)out2 + rowStart * HALF_COLS, coreRows * HALF_COLS);
        pipe.InitBuffer(inQueueX, 1, coreRows * COLS * sizeof(float));
        pipe.InitBuffer(inQueueY, 1, coreRows * COLS * sizeof(float));
        pipe.InitBuffer(outQueue0, 1, coreRows * COLS * sizeof(float));
        pipe.InitBuffer(outQueue1, 1, coreRows * HALF_COLS * sizeof(float));
        pipe.InitBuffer(outQueue2, 1, coreRows * HALF_COLS * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        if (coreRows == 0) {
            return;
        }
        CopyIn();
        Compute();
        CopyOut();
    }

private:
    __aicore__ inline void CopyIn()
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm, coreRows * COLS);
        AscendC::DataCopy(yLocal, yGm, coreRows * COLS);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute()
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        AscendC::LocalTensor<float> z0 = outQueue0.AllocTensor<float>();
        AscendC::LocalTensor<float> z1 = outQueue1.AllocTensor<float>();
        AscendC::LocalTensor<float> z2 = outQueue2.AllocTensor<float>();
        uint8_t repeat = static_cast<uint8_t>(coreRows);

        // one row (16 blocks) per repeat, first 64 elements of each row
        AscendC::Add(z0, xLocal, yLocal, HALF_COLS, repeat, {1, 1, 1, 16, 16, 16});
        AscendC::Mul(z0[HALF_COLS], xLocal[HALF_COLS], yLocal[HALF_COLS], HALF_COLS, repeat, {1, 1, 1, 16, 16, 16});

        // sources read every other 32-byte block, destination packed
        AscendC::BinaryRepeatParams strided(1, 2, 2, 8, 16, 16);
        AscendC::Sub(z1, xLocal, yLocal, HALF_COLS, repeat, strided);

        // only the first 40 lanes of each repeat are computed; the rest keep the fill
        AscendC::Duplicate(z2, 0.0f, coreRows * HALF_COLS);
        AscendC::PipeBarrier<PIPE_V>();
        uint64_t mask = 40;
        AscendC::Max(z2, xLocal, yLocal, mask, repeat, {1, 1, 1, 8, 16, 16});

        outQueue0.EnQue<float>(z0);
        outQueue1.EnQue<float>(z1);
        outQueue2.EnQue<float>(z2);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut()
    {
        AscendC::LocalTensor<float> z0 = outQueue0.DeQue<float>();
        AscendC::LocalTensor<float> z1 = outQueue1.DeQue<float>();
        AscendC::LocalTensor<float> z2 = outQueue2.DeQue<float>();
        AscendC::DataCopy(out0Gm, z0, coreRows * COLS);
        AscendC::DataCopy(out1Gm, z1, coreRows * HALF_COLS);
        AscendC::DataCopy(out2Gm, z2, coreRows * HALF_COLS);
        outQueue0.FreeTensor(z0);
        outQueue1.FreeTensor(z1);
        outQueue2.FreeTensor(z2);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue0, outQueue1, outQueue2;
    AscendC::GlobalTensor<float> xGm, yGm, out0Gm, out1Gm, out2Gm;
    uint32_t coreRows = 0;
};

extern "C" __global__ __aicore__ void level0_binary(GM_ADDR x, GM_ADDR y, GM_ADDR out0, GM_ADDR out1, GM_ADDR out2,
                                                     GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelLevel0Binary op;
    op.Init(x, y, out0, out1, out2, t);
    op.Process();
}
