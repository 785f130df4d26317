/*
 * bias_relu_rows: z[r, :] = relu(x[r, :] + bias[:]) for a [rows, 64] float matrix in one tile.
 * The bias row is broadcast with the level-0 Add (src1RepStride = 0: every repeat reads the same
 * 64 floats), at most 255 rows per call; relu is CompareScalar + Select over whole 256-byte repeats.
 *
 * TilingData.mode 0 is correct; each other mode is one misuse of the level-0 or compare API, on
 * the line marked "// <- <case>". Only the first `length` elements are compared in
 * COMPARE_ONLY_VALID, where length is not a whole number of 64-float repeats.
 */
#include "kernel_operator.h"

constexpr uint32_t COLS = 64;          // floats per row = one 256-byte repeat
constexpr uint32_t MAX_REPEAT = 255;

enum Mode : uint32_t {
    OK = 0,
    ALL_ROWS_IN_ONE_CALL = 1,
    HALF_MASK_FOR_FLOAT = 2,
    COMPARE_ONLY_VALID = 3,
};

struct TilingData {
    uint32_t rows;
    uint32_t length;  // valid elements, at most rows * COLS
    uint32_t mode;
};

class KernelBiasReluRows {
public:
    __aicore__ inline KernelBiasReluRows() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR z, const TilingData &tiling)
    {
        rows = tiling.rows;
        length = tiling.length;
        mode = tiling.mode;
        xGm.SetGlobalBuffer((__gm__ float *)x, rows * COLS);
        biasGm.SetGlobalBuffer((__gm__ float *)bias, COLS);
        zGm.SetGlobalBuffer((__gm__ float *)z, rows * COLS);
        pipe.InitBuffer(inQueueX, 1, rows * COLS * sizeof(float));
        pipe.InitBuffer(inQueueBias, 1, COLS * sizeof(float));
        pipe.InitBuffer(outQueueZ, 1, rows * COLS * sizeof(float));
        pipe.InitBuffer(maskBuf, rows * COLS / 8);
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::LocalTensor<float> biasLocal = inQueueBias.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm, rows * COLS);
        AscendC::DataCopy(biasLocal, biasGm, COLS);
        inQueueX.EnQue(xLocal);
        inQueueBias.EnQue(biasLocal);
        xLocal = inQueueX.DeQue<float>();
        biasLocal = inQueueBias.DeQue<float>();
        AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();

        AscendC::BinaryRepeatParams broadcastRow(1, 1, 1, 8, 8, 0);
        uint64_t mask = mode == HALF_MASK_FOR_FLOAT ? 128 : COLS;
        if (mode == ALL_ROWS_IN_ONE_CALL || mode == HALF_MASK_FOR_FLOAT) {
            AscendC::Add(zLocal, xLocal, biasLocal, mask, rows, broadcastRow); // <- all_rows_in_one_call, half_mask_for_float
        } else {
            for (uint32_t row = 0; row < rows; row += MAX_REPEAT) {
                uint32_t repeat = rows - row < MAX_REPEAT ? rows - row : MAX_REPEAT;
                AscendC::Add(zLocal[row * COLS], xLocal[row * COLS], biasLocal, mask, repeat, broadcastRow);
            }
        }
        AscendC::PipeBarrier<PIPE_V>();

        AscendC::LocalTensor<uint8_t> positive = maskBuf.Get<uint8_t>();
        uint32_t compared = mode == COMPARE_ONLY_VALID ? length : rows * COLS;
        AscendC::CompareScalar(positive, zLocal, 0.0f, AscendC::CMPMODE::GT, compared); // <- compare_only_valid
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Select(zLocal, positive, zLocal, 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, rows * COLS);

        outQueueZ.EnQue(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueBias.FreeTensor(biasLocal);
        zLocal = outQueueZ.DeQue<float>();
        AscendC::DataCopy(zGm, zLocal, rows * COLS);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueBias;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueZ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> maskBuf;
    AscendC::GlobalTensor<float> xGm, biasGm, zGm;
    uint32_t rows;
    uint32_t length;
    uint32_t mode;
};

extern "C" __global__ __aicore__ void bias_relu_rows(GM_ADDR x, GM_ADDR bias, GM_ADDR z, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelBiasReluRows op;
    op.Init(x, bias, z, tilingData);
    op.Process();
}
