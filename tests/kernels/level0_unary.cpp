/*
 * level0_unary: unary/scalar level-0 calls with UnaryRepeatParams on a
 * [rows, 128] float matrix (rows <= 127):
 *   out0[r, :64]        = exp(x[r, :64])                 srcRepStride 16
 *   out1[r, 16b+e]      = relu(x[r, 8b+e]), e < 8         dstBlkStride 2 (other lanes keep 7)
 *   out2                = x + 3 where the bitwise mask is set, else -5 (two repeats per row)
 *   out3[r, :32] = 2.5, out3[r, 32:] = 0                 level-0 Duplicate
 *   out4[r, 8b+e]       = 2 * x[r, e]                     srcBlkStride 0 (block broadcast)
 * Single core.
 */
#include "kernel_operator.h"

struct TilingData {
    uint64_t bits; // bitwise mask for the 64 float lanes of a repeat
    uint32_t rows;
};

constexpr uint32_t COLS = 128;
constexpr uint32_t HALF_COLS = 64;

class KernelLevel0Unary {
public:
    __aicore__ inline KernelLevel0Unary() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR out0, GM_ADDR out1, GM_ADDR out2, GM_ADDR out3, GM_ADDR out4,
                                const TilingData &tiling)
    {
        rows = tiling.rows;
        bits[0] = tiling.bits;
        bits[1] = 0;
        xGm.SetGlobalBuffer((__gm__ float *)x, rows * COLS);
        out0Gm.SetGlobalBuffer((__gm__ float *)out0, rows * HALF_COLS);
        out1Gm.SetGlobalBuffer((__gm__ float *)out1, rows * COLS);
        out2Gm.SetGlobalBuffer((__gm__ float *)out2, rows * COLS);
        out3Gm.SetGlobalBuffer((__gm__ float *)out3, rows * HALF_COLS);
        out4Gm.SetGlobalBuffer((__gm__ float *)out4, rows * HALF_COLS);
        pipe.InitBuffer(inQueueX, 1, rows * COLS * sizeof(float));
        pipe.InitBuffer(outQueueWide, 1, 2 * rows * COLS * sizeof(float));
        pipe.InitBuffer(outQueueNarrow, 1, 3 * rows * HALF_COLS * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm, rows * COLS);
        inQueueX.EnQue(xLocal);

        xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> wide = outQueueWide.AllocTensor<float>();
        AscendC::LocalTensor<float> narrow = outQueueNarrow.AllocTensor<float>();
        AscendC::LocalTensor<float> z1 = wide;
        AscendC::LocalTensor<float> z2 = wide[rows * COLS];
        AscendC::LocalTensor<float> z0 = narrow;
        AscendC::LocalTensor<float> z3 = narrow[rows * HALF_COLS];
        AscendC::LocalTensor<float> z4 = narrow[2 * rows * HALF_COLS];
        uint8_t repeat = static_cast<uint8_t>(rows);

        AscendC::Exp(z0, xLocal, HALF_COLS, repeat, {1, 1, 8, 16});

        AscendC::Duplicate(z1, 7.0f, rows * COLS);
        AscendC::Duplicate(z2, -5.0f, rows * COLS);
        AscendC::Duplicate(z3, 0.0f, rows * HALF_COLS);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Relu(z1, xLocal, HALF_COLS, repeat, {2, 1, 16, 16});
        AscendC::Adds(z2, xLocal, 3.0f, bits, static_cast<uint8_t>(2 * rows), {1, 1, 8, 8});
        AscendC::Duplicate(z3, 2.5f, 32, repeat, 1, 8);
        AscendC::Muls(z4, xLocal, 2.0f, HALF_COLS, repeat, {1, 0, 8, 16});

        outQueueWide.EnQue<float>(wide);
        outQueueNarrow.EnQue<float>(narrow);
        inQueueX.FreeTensor(xLocal);

        wide = outQueueWide.DeQue<float>();
        narrow = outQueueNarrow.DeQue<float>();
        AscendC::DataCopy(out0Gm, narrow, rows * HALF_COLS);
        AscendC::DataCopy(out1Gm, wide, rows * COLS);
        AscendC::DataCopy(out2Gm, wide[rows * COLS], rows * COLS);
        AscendC::DataCopy(out3Gm, narrow[rows * HALF_COLS], rows * HALF_COLS);
        AscendC::DataCopy(out4Gm, narrow[2 * rows * HALF_COLS], rows * HALF_COLS);
        outQueueWide.FreeTensor(wide);
        outQueueNarrow.FreeTensor(narrow);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueWide, outQueueNarrow;
    AscendC::GlobalTensor<float> xGm, out0Gm, out1Gm, out2Gm, out3Gm, out4Gm;
    uint64_t bits[2] = {0, 0};
    uint32_t rows = 0;
};

extern "C" __global__ __aicore__ void level0_unary(GM_ADDR x, GM_ADDR out0, GM_ADDR out1, GM_ADDR out2, GM_ADDR out3,
                                                    GM_ADDR out4, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelLevel0Unary op;
    op.Init(x, out0, out1, out2, out3, out4, t);
    op.Process();
}
