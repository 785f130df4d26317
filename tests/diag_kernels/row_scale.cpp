/*
 * row_scale: y[r, :] = x[r, :] * 2 + bias[:], one row at a time, with the UB laid out the way
 * row-wise kernels (norms, softmax) lay it out: a double-buffered input and output queue sized
 * to a whole row, and TBuf scratch for the bias and temporaries. cols is a multiple of 8.
 *
 * TilingData.mode 0 is the correct kernel; the others each make one UB-budget mistake, on the
 * line marked "// <- <case>". RESET_BETWEEN_ROUNDS and FREE_EVENTS_THEN_MORE are correct uses of
 * TPipe::Reset and TQue::FreeAllEvent that must not be reported.
 */
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;
constexpr int32_t MAX_PARTIALS = 80;
constexpr int32_t EXTRA_INPUTS = 5;

enum Mode : uint32_t {
    OK = 0,
    ROW_DOES_NOT_FIT = 1,     // scratch for two rows on top of the queues
    TBUF_PER_ROW = 2,         // one TBuf per row: more than 64 buffers
    QUEUE_PER_INPUT = 3,      // five double-buffered VECIN queues, every buffer allocated at once: 10 held
    GET_TWO_ROWS = 4,         // TBuf::Get of more elements than the TBuf holds
    PACKED_TEMPORARIES = 5,   // second half temporary at cols * sizeof(half) bytes, not rounded up to 32
    SECOND_TPIPE = 6,
    RESET_BETWEEN_ROUNDS = 7,
    FREE_EVENTS_THEN_MORE = 8,
};

struct TilingData {
    uint32_t rows;
    uint32_t cols;
    uint32_t mode;
};

class KernelRowScale {
public:
    __aicore__ inline KernelRowScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, const TilingData &tiling)
    {
        rows = tiling.rows;
        cols = tiling.cols;
        mode = tiling.mode;
        xGm.SetGlobalBuffer((__gm__ float *)x, rows * cols);
        biasGm.SetGlobalBuffer((__gm__ float *)bias, cols);
        yGm.SetGlobalBuffer((__gm__ float *)y, rows * cols);
        if (mode == RESET_BETWEEN_ROUNDS) {
            // a first round with a layout that fills most of the UB, given back with Reset
            pipe.InitBuffer(warmupBuf, 150 * 1024);
            AscendC::LocalTensor<float> warm = warmupBuf.Get<float>();
            AscendC::Duplicate(warm, 0.0f, 64);
            pipe.Reset();
        }
        if (mode == QUEUE_PER_INPUT || mode == FREE_EVENTS_THEN_MORE) {
            for (int32_t i = 0; i < EXTRA_INPUTS; i++) {
                pipe.InitBuffer(extraQueues[i], BUFFER_NUM, 32);
                if (mode == FREE_EVENTS_THEN_MORE) extraQueues[i].FreeAllEvent();
            }
        }
        pipe.InitBuffer(inQueueX, BUFFER_NUM, cols * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, cols * sizeof(float));
        uint32_t scratch = mode == ROW_DOES_NOT_FIT ? 2 * cols * sizeof(float) : cols * sizeof(float);
        pipe.InitBuffer(biasBuf, scratch); // <- row_does_not_fit
        if (mode == TBUF_PER_ROW) {
            for (uint32_t r = 0; r < rows && r < MAX_PARTIALS; r++) {
                pipe.InitBuffer(partial[r], 32); // <- tbuf_per_row
            }
        }
        if (mode == PACKED_TEMPORARIES) {
            pipe.InitBuffer(tmpBuf, 2 * cols * sizeof(half) + 32);
        }
    }
    __aicore__ inline void Process()
    {
        if (mode == QUEUE_PER_INPUT || mode == FREE_EVENTS_THEN_MORE) {
            AscendC::LocalTensor<float> held[EXTRA_INPUTS][BUFFER_NUM];
            for (int32_t i = 0; i < EXTRA_INPUTS; i++) {
                for (int32_t b = 0; b < BUFFER_NUM; b++) {
                    held[i][b] = extraQueues[i].AllocTensor<float>(); // <- queue_per_input
                    if (mode == FREE_EVENTS_THEN_MORE) extraQueues[i].FreeTensor(held[i][b]);
                }
            }
        }
        AscendC::LocalTensor<float> bias = biasBuf.Get<float>(mode == GET_TWO_ROWS ? 2 * cols : cols); // <- get_two_rows
        AscendC::DataCopy(bias, biasGm, cols);
        if (mode == PACKED_TEMPORARIES) {
            AscendC::LocalTensor<half> t0 = tmpBuf.GetWithOffset<half>(cols, 0);
            AscendC::LocalTensor<half> t1 = tmpBuf.GetWithOffset<half>(cols, cols * sizeof(half)); // <- packed_temporaries
            AscendC::Duplicate(t0, (half)0, cols);
            AscendC::Duplicate(t1, (half)0, cols);
        }
        if (mode == SECOND_TPIPE) {
            AscendC::TPipe scratchPipe; // <- second_tpipe
        }
        AscendC::PipeBarrier<PIPE_ALL>();
        for (uint32_t r = 0; r < rows; r++) {
            AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
            AscendC::DataCopy(xLocal, xGm[r * cols], cols);
            inQueueX.EnQue(xLocal);
            xLocal = inQueueX.DeQue<float>();
            AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
            AscendC::Add(yLocal, xLocal, xLocal, cols);
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Add(yLocal, yLocal, bias, cols);
            outQueueY.EnQue(yLocal);
            inQueueX.FreeTensor(xLocal);
            yLocal = outQueueY.DeQue<float>();
            AscendC::DataCopy(yGm[r * cols], yLocal, cols);
            outQueueY.FreeTensor(yLocal);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> extraQueues[EXTRA_INPUTS];
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueY;
    AscendC::TBuf<AscendC::TPosition::VECCALC> biasBuf, tmpBuf, warmupBuf;
    AscendC::TBuf<AscendC::TPosition::VECCALC> partial[MAX_PARTIALS];
    AscendC::GlobalTensor<float> xGm, biasGm, yGm;
    uint32_t rows;
    uint32_t cols;
    uint32_t mode;
};

extern "C" __global__ __aicore__ void row_scale(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRowScale op;
    op.Init(x, bias, y, tilingData);
    op.Process();
}
