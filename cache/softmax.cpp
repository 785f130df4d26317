// Seed kernel: softmax over the last dimension
//
//     y = exp(x - max(x, -1)) / sum(exp(x - max(x, -1)), -1)
//
// x, y: [..., cols] of T (half or float); computed in float. Written for torch_ascendgen's kernel
// contract (see torch_ascendgen/generate.py).
//
// Layout. The rows are split over the blocks in contiguous ranges; a block walks its range in
// tiles of up to rowsPerTile rows. In UB a row takes colsPad elements: cols rounded up to 64 (one
// 256-byte float repeat) when a row is longer than that, else to 16 (32 bytes of half), so that
// every row starts 32-byte aligned. DataCopyPad moves a whole tile of rows in one copy each way;
// the input queue has IN_BUFFERS buffers, so several tiles' reads are in flight while one is computed.
//
// Per tile (n rows), in one float tile:
//   xf  = float(x), padding = -inf   one Cast (half only; float works in the input buffer), one Duplicate
//   m   = row maxima of xf           RowReduce: BlockReduceMax over the tile, then one WholeReduceMax
//   xf  = exp(xf - m)                per-row subtract, one Exp over the tile (the padding becomes 0)
//   s   = row sums of xf             RowReduce: BlockReduceSum over the tile, then one WholeReduceSum
//   y   = T(xf * (1 / s))            per-row scale (and one Cast for half)
//
// Row reductions (RowReduce). The padding of every row holds a neutral value (-inf for a maximum,
// 0 for a sum), so whole 64-float chunks can be reduced without masks: BlockReduce turns each chunk
// of every row of the tile into 8 values with one instruction (per 255 repeats), again while a row
// still has a multiple of 64 values; what is left (up to 2040 values a row) is combined chunk by
// chunk over all rows (level-0, one repeat per row) and finished with one WholeReduce for the tile.
// Per-row values (ApplyRows) are broadcast with Brcb and applied by whichever is fewer cycles: one
// level-0 instruction per 64-float chunk (a repeat per row, src1 block stride 0), one per 8 rows (a
// repeat per 32-byte column, the 8 blocks from 8 rows, src1 repeat stride 0), or one Adds/Muls per
// row.
//
// The tiling function returns 0 (the caller runs the original function) when a row does not fit
// the UB: colsPad * (19 bytes for half, 21 for float) must stay under about 180 KB, i.e. rows of
// up to about 9000 half or 8000 float elements.
#include "kernel_operator.h"

using namespace AscendC;

// <<config
using T = float;
// >>config

struct TilingData {
    uint32_t rows;         // product of the leading dimensions
    uint32_t cols;         // the reduced (last) dimension
    uint32_t colsPad;      // a row in UB: cols rounded up to 64 (to 16 when cols <= 64)
    uint32_t rowsPerBlock;
    uint32_t rowsPerTile;
};

constexpr uint32_t LANES = 64;            // floats in one 256-byte repeat
constexpr uint32_t MAX_TILE_ROWS = 248;   // rows per tile: at most 255 repeats, a multiple of 8
constexpr uint32_t MAX_REPEAT = 248;      // repeats per level-0 instruction (at most 255)
constexpr uint32_t UB_BUDGET = 184 * 1024;
constexpr int32_t IN_BUFFERS = 3;   // tiles of each input in flight: a GM read lands long after it is issued
constexpr int32_t OUT_BUFFERS = 2;
constexpr bool IS_HALF = sizeof(T) == 2;
constexpr float NEG_INF = -__builtin_inff();
// UB bytes per element of a tile row: in and out (their queues' buffers), the BlockReduce results (1/8
// and 1/64 of a float) and, for half, the float copy.
constexpr uint32_t BYTES_PER_ELEMENT = (IN_BUFFERS + OUT_BUFFERS) * sizeof(T) + 1 + (IS_HALF ? 4 : 0);
// UB bytes per tile row besides: its 64 partial results.
constexpr uint32_t BYTES_PER_ROW = LANES * 4;
// Column values (maxima, sums, reciprocals, ones: a float per row each) and the Brcb broadcast of a
// column (8 floats per row).
constexpr uint32_t COLUMN_BYTES = (4 + 8) * MAX_TILE_ROWS * 4;

enum class Op { Sum, Max };

class SoftmaxKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TilingData& t)
    {
        cols_ = t.cols;
        colsPad_ = t.colsPad;
        rowsPerTile_ = t.rowsPerTile;
        uint32_t first = t.rowsPerBlock * GetBlockIdx();
        firstRow_ = first;
        rowCount_ = first >= t.rows ? 0 : (t.rows - first < t.rowsPerBlock ? t.rows - first : t.rowsPerBlock);
        xGm_.SetGlobalBuffer((__gm__ T*)x);
        yGm_.SetGlobalBuffer((__gm__ T*)y);
        uint32_t tile = rowsPerTile_ * colsPad_;
        pipe_.InitBuffer(inQueue_, IN_BUFFERS, tile * sizeof(T));
        pipe_.InitBuffer(outQueue_, OUT_BUFFERS, tile * sizeof(T));
        if (IS_HALF) pipe_.InitBuffer(floatBuf_, tile * sizeof(float));
        pipe_.InitBuffer(reduceBuf_, (tile / 8 + Level2Size() + rowsPerTile_ * LANES) * sizeof(float));
        pipe_.InitBuffer(columnBuf_, COLUMN_BYTES);
    }

    __aicore__ inline void Process()
    {
        if (rowCount_ == 0) return;
        Duplicate(Column(3), 1.0f, static_cast<int32_t>(MAX_TILE_ROWS));
        for (uint32_t done = 0; done < rowCount_; done += rowsPerTile_) {
            uint32_t n = rowCount_ - done < rowsPerTile_ ? rowCount_ - done : rowsPerTile_;
            CopyIn(firstRow_ + done, n);
            Compute(n);
            CopyOut(firstRow_ + done, n);
        }
    }

private:
    __aicore__ inline LocalTensor<float> Column(uint32_t i) { return columnBuf_.Get<float>()[i * MAX_TILE_ROWS]; }

    // Floats of the second BlockReduce level of a tile, rounded up to 32 bytes.
    __aicore__ inline uint32_t Level2Size() const { return (rowsPerTile_ * colsPad_ / 64 + 7) / 8 * 8; }

    __aicore__ inline void CopyIn(uint32_t row, uint32_t n)
    {
        LocalTensor<T> x = inQueue_.AllocTensor<T>();
        DataCopyExtParams params{static_cast<uint16_t>(n), static_cast<uint32_t>(cols_ * sizeof(T)), 0, RowGap(), 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
        DataCopyPad(x, xGm_[uint64_t(row) * cols_], params, pad);
        inQueue_.EnQue(x);
    }

    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<T> x = inQueue_.DeQue<T>();
        LocalTensor<T> y = outQueue_.AllocTensor<T>();
        LocalTensor<float> maxima = Column(0), sums = Column(1), inverse = Column(2), ones = Column(3);
        uint32_t count = n * colsPad_;
        LocalTensor<float> xf;
        if constexpr (IS_HALF) {
            xf = floatBuf_.Get<float>();
            Cast(xf, x, RoundMode::CAST_NONE, count);
        } else {
            xf = x.template ReinterpretCast<float>();  // T is float: work in the input buffer
        }
        SetPadding(xf, n, NEG_INF);
        RowReduce<Op::Max>(maxima, xf, n);
        ApplyRows(xf, xf, maxima, n, true);
        Exp(xf, xf, count);
        RowReduce<Op::Sum>(sums, xf, n);
        Div(inverse, ones, sums, static_cast<int32_t>(n));
        if constexpr (IS_HALF) {
            ApplyRows(xf, xf, inverse, n, false);
            Cast(y, xf, RoundMode::CAST_RINT, count);
        } else {
            ApplyRows(y.template ReinterpretCast<float>(), xf, inverse, n, false);
        }
        outQueue_.EnQue(y);
        inQueue_.FreeTensor(x);
    }

    // @part row_copy_out

    // ---- row tools -------------------------------------------------------------------------------

    // @part row_tools

    TPipe pipe_;
    TQue<QuePosition::VECIN, 1> inQueue_;
    TQue<QuePosition::VECOUT, 1> outQueue_;
    TBuf<QuePosition::VECCALC> floatBuf_, reduceBuf_, columnBuf_;
    GlobalTensor<T> xGm_, yGm_;
    uint32_t firstRow_ = 0, rowCount_ = 0, cols_ = 0, colsPad_ = 0, rowsPerTile_ = 0;
};

// ---- host side ---------------------------------------------------------------------------------

// @part row_costs

// Vector cycles of one tile of n rows of this kernel.
static double TileCycles(uint64_t cols, uint64_t colsPad, uint64_t n)
{
    uint64_t repeats = n * ((colsPad + 63) / 64);  // of one instruction over the tile
    double cycles = 2 * (ReduceCycles(cols, colsPad, n) + ApplyCycles(colsPad, n)) + (10.0 + 4.0 * repeats) + 14.0;
    if (cols > 64 && cols % 64) cycles += 10.0 + n;  // the padding
    return IS_HALF ? cycles + 2 * (10.0 + repeats) : cycles;  // the casts
}

// @part row_plan

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    if (tensorCount != 2 || ranks[0] < 1 || coreNum == 0) return 0;
    // @part row_fit
    Plan plan = BestPlan(coreNum, rows, fit, cols, colsPad, rowBytes, rowBytes, 0.0);
    tiling->rows = static_cast<uint32_t>(rows);
    tiling->cols = static_cast<uint32_t>(cols);
    tiling->colsPad = static_cast<uint32_t>(colsPad);
    tiling->rowsPerBlock = static_cast<uint32_t>(plan.rowsPerBlock);
    tiling->rowsPerTile = static_cast<uint32_t>(plan.rowsPerTile);
    *workspaceBytes = 0;
    return static_cast<uint32_t>((rows + plan.rowsPerBlock - 1) / plan.rowsPerBlock);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    SoftmaxKernel op;
    op.Init(x, y, t);
    op.Process();
}
