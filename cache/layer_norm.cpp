// Seed kernel: layer norm over the last dimension, F.layer_norm(x, (x.shape[-1],), weight, bias)
//
//     mean = x.mean(-1);  var = ((x - mean) ** 2).mean(-1)            (biased, two passes)
//     y    = (x - mean) / sqrt(var + EPS) * weight + bias
//
// x, y: [..., cols] of T (half or float), weight, bias: [cols] of T; computed in float. Written for
// torch_ascendgen's kernel contract (see torch_ascendgen/generate.py).
//
// Layout. The rows are split over the blocks in contiguous ranges; a block walks its range in
// tiles of up to rowsPerTile rows. In UB a row takes colsPad elements: cols rounded up to 64 (one
// 256-byte float repeat) when a row is longer than that, else to 16 (32 bytes of half), so that
// every row starts 32-byte aligned. DataCopyPad moves a whole tile of rows in one copy each way;
// the input queue has IN_BUFFERS buffers, so several tiles' reads are in flight while one is computed.
// Weight and bias are loaded once per block, widened to float and repeated over rowsPerTile rows,
// so that applying them is one instruction each per tile.
//
// Per tile (n rows):
//   xf   = float(x), padding = 0    one Cast (half only; float works in the input buffer), one Duplicate
//   mean = row sums of xf / cols    RowReduce: BlockReduceSum over the tile, then one WholeReduceSum
//   d    = xf - mean                per-row subtract, in place
//   sq   = d * d, padding = 0       one Mul over the tile, one Duplicate
//   r    = 1 / sqrt(row sums of sq / cols + EPS)
//   y    = T(d * r * weight + bias) per-row scale, one Mul, one Add (and one Cast for half)
// The variance is computed from d, not as E[x^2] - mean^2, which loses everything to cancellation
// when |mean| is large against the spread.
//
// Row reductions (RowReduce). The padding of every row holds 0, so whole 64-float chunks can be
// reduced without masks: BlockReduceSum turns each chunk of every row of the tile into 8 values
// with one instruction (per 255 repeats), again while a row still has a multiple of 64 values and
// that is cheaper; what is left is combined chunk by chunk over all rows (level-0, one repeat per
// row) and finished with one WholeReduceSum for the tile. Per-row values (ApplyRows) are broadcast
// with Brcb and applied by whichever is fewer cycles: one level-0 instruction per 64-float chunk (a
// repeat per row, src1 block stride 0), one per 8 rows (a repeat per 32-byte column, the 8 blocks
// from 8 rows, src1 repeat stride 0), or one Adds/Muls per row.
//
// The tiling function returns 0 (the caller runs the original function) when a row does not fit
// the UB: colsPad * (25 bytes for half and float) must stay under about 180 KB, i.e. rows of up to
// about 7000 elements.
#include "kernel_operator.h"

using namespace AscendC;

// <<config
using T = float;
constexpr float EPS = 1e-05f;
// >>config

struct TilingData {
    uint32_t rows;         // product of the leading dimensions
    uint32_t cols;         // the normalised (last) dimension
    uint32_t colsPad;      // a row in UB: cols rounded up to 64 (to 16 when cols <= 64)
    uint32_t rowsPerBlock;
    uint32_t rowsPerTile;
    float invCols;
};

constexpr uint32_t LANES = 64;            // floats in one 256-byte repeat
constexpr uint32_t MAX_TILE_ROWS = 248;   // rows per tile: at most 255 repeats, a multiple of 8
constexpr uint32_t MAX_REPEAT = 248;      // repeats per level-0 instruction (at most 255)
constexpr uint32_t UB_BUDGET = 184 * 1024;
constexpr int32_t IN_BUFFERS = 3;   // tiles of each input in flight: a GM read lands long after it is issued
constexpr int32_t OUT_BUFFERS = 2;
constexpr bool IS_HALF = sizeof(T) == 2;
// UB bytes per element of a tile row: in and out (their queues' buffers), the repeated weight and bias
// (float), the BlockReduce results (1/8 and 1/64 of a float) and, for half, the float copy of x and
// the squares (float works in the in and out buffers).
constexpr uint32_t BYTES_PER_ELEMENT = (IN_BUFFERS + OUT_BUFFERS) * sizeof(T) + 2 * 4 + 1 + (IS_HALF ? 8 : 0);
// UB bytes per tile row besides: its 64 partial results.
constexpr uint32_t BYTES_PER_ROW = LANES * 4;
// Column values (means, variances, factors, ones: a float per row each) and the Brcb broadcast of a
// column (8 floats per row).
constexpr uint32_t COLUMN_BYTES = (4 + 8) * MAX_TILE_ROWS * 4;

enum class Op { Sum, Max };

class LayerNormKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR weight, GM_ADDR bias, GM_ADDR y, const TilingData& t)
    {
        cols_ = t.cols;
        colsPad_ = t.colsPad;
        rowsPerTile_ = t.rowsPerTile;
        invCols_ = t.invCols;
        uint32_t first = t.rowsPerBlock * GetBlockIdx();
        firstRow_ = first;
        rowCount_ = first >= t.rows ? 0 : (t.rows - first < t.rowsPerBlock ? t.rows - first : t.rowsPerBlock);
        xGm_.SetGlobalBuffer((__gm__ T*)x);
        wGm_.SetGlobalBuffer((__gm__ T*)weight);
        bGm_.SetGlobalBuffer((__gm__ T*)bias);
        yGm_.SetGlobalBuffer((__gm__ T*)y);
        uint32_t tile = rowsPerTile_ * colsPad_;
        pipe_.InitBuffer(inQueue_, IN_BUFFERS, tile * sizeof(T));
        pipe_.InitBuffer(outQueue_, OUT_BUFFERS, tile * sizeof(T));
        pipe_.InitBuffer(affineBuf_, 2 * tile * sizeof(float));
        if (IS_HALF) pipe_.InitBuffer(floatBuf_, 2 * tile * sizeof(float));
        pipe_.InitBuffer(reduceBuf_, (tile / 8 + Level2Size() + rowsPerTile_ * LANES) * sizeof(float));
        pipe_.InitBuffer(columnBuf_, COLUMN_BYTES);
    }

    __aicore__ inline void Process()
    {
        if (rowCount_ == 0) return;
        for (uint32_t done = 0; done < rowCount_; done += rowsPerTile_) {
            uint32_t n = rowCount_ - done < rowsPerTile_ ? rowCount_ - done : rowsPerTile_;
            CopyIn(firstRow_ + done, n);
            if (done == 0) LoadAffine();  // after the first tile's copy: weight and bias are needed last
            Compute(n);
            CopyOut(firstRow_ + done, n);
        }
    }

private:
    __aicore__ inline LocalTensor<float> Column(uint32_t i) { return columnBuf_.Get<float>()[i * MAX_TILE_ROWS]; }

    // Weight and bias as float into row 0 of their halves of affineBuf_, then doubled until they
    // fill rowsPerTile rows each. Half values are staged in the (still unused) float scratch.
    __aicore__ inline void LoadAffine()
    {
        uint32_t tile = rowsPerTile_ * colsPad_;
        LocalTensor<float> w = affineBuf_.Get<float>();
        LocalTensor<float> b = w[tile];
        DataCopyExtParams params{1, static_cast<uint32_t>(cols_ * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
        if constexpr (IS_HALF) {
            LocalTensor<T> staged = floatBuf_.Get<T>();
            DataCopyPad(staged, wGm_, params, pad);
            DataCopyPad(staged[colsPad_], bGm_, params, pad);
            MoveToVector();
            Cast(w, staged, RoundMode::CAST_NONE, colsPad_);
            Cast(b, staged[colsPad_], RoundMode::CAST_NONE, colsPad_);
        } else {
            DataCopyPad(w.template ReinterpretCast<T>(), wGm_, params, pad);
            DataCopyPad(b.template ReinterpretCast<T>(), bGm_, params, pad);
            MoveToVector();
        }
        for (uint32_t have = 1; have < rowsPerTile_; have *= 2) {
            uint32_t copy = have < rowsPerTile_ - have ? have : rowsPerTile_ - have;
            DataCopy(w[have * colsPad_], w, copy * colsPad_);
            DataCopy(b[have * colsPad_], b, copy * colsPad_);
        }
        Duplicate(Column(3), 1.0f, static_cast<int32_t>(MAX_TILE_ROWS));
    }

    // Makes data copied in by MTE2 outside the queues visible to vector instructions.
    __aicore__ inline void MoveToVector()
    {
        event_t loaded = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(loaded);
        WaitFlag<HardEvent::MTE2_V>(loaded);
    }

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
        LocalTensor<float> mean = Column(0), var = Column(1), factor = Column(2), ones = Column(3);
        uint32_t count = n * colsPad_;
        uint32_t tile = rowsPerTile_ * colsPad_;
        LocalTensor<float> xf, sq, yf;
        if constexpr (IS_HALF) {
            xf = floatBuf_.Get<float>();
            sq = xf[tile];
            yf = xf;
            Cast(xf, x, RoundMode::CAST_NONE, count);
        } else {  // T is float: work in the in and out buffers
            xf = x.template ReinterpretCast<float>();
            sq = y.template ReinterpretCast<float>();
            yf = sq;
        }
        SetPadding(xf, n, 0.0f);
        RowReduce<Op::Sum>(mean, xf, n);
        Muls(mean, mean, invCols_, static_cast<int32_t>(n));
        ApplyRows(xf, xf, mean, n, true);
        Mul(sq, xf, xf, count);
        SetPadding(sq, n, 0.0f);
        RowReduce<Op::Sum>(var, sq, n);
        Muls(factor, var, invCols_, static_cast<int32_t>(n));
        Adds(factor, factor, EPS, static_cast<int32_t>(n));
        Sqrt(factor, factor, static_cast<int32_t>(n));
        Div(factor, ones, factor, static_cast<int32_t>(n));
        ApplyRows(yf, xf, factor, n, false);
        LocalTensor<float> w = affineBuf_.Get<float>();
        Mul(yf, yf, w, count);
        Add(yf, yf, w[tile], count);
        if constexpr (IS_HALF) Cast(y, yf, RoundMode::CAST_RINT, count);
        outQueue_.EnQue(y);
        inQueue_.FreeTensor(x);
    }

    // @part row_copy_out

    // ---- row tools -------------------------------------------------------------------------------
    // (The same as in softmax.cpp, which also reduces maxima; this kernel only sums.)

    // @part row_tools

    TPipe pipe_;
    TQue<QuePosition::VECIN, 1> inQueue_;
    TQue<QuePosition::VECOUT, 1> outQueue_;
    TBuf<QuePosition::VECCALC> affineBuf_, floatBuf_, reduceBuf_, columnBuf_;
    GlobalTensor<T> xGm_, wGm_, bGm_, yGm_;
    uint32_t firstRow_ = 0, rowCount_ = 0, cols_ = 0, colsPad_ = 0, rowsPerTile_ = 0;
    float invCols_ = 0.0f;
};

// ---- host side ---------------------------------------------------------------------------------

// @part row_costs

// Vector cycles of one tile of n rows of this kernel.
static double TileCycles(uint64_t cols, uint64_t colsPad, uint64_t n)
{
    uint64_t repeats = n * ((colsPad + 63) / 64);  // of one instruction over the tile
    double cycles = 2 * (ReduceCycles(cols, colsPad, n) + ApplyCycles(colsPad, n)) + 3 * (10.0 + repeats) + 80.0;
    if (cols > 64 && cols % 64) cycles += 2 * (10.0 + n);  // the padding
    return IS_HALF ? cycles + 2 * (10.0 + repeats) : cycles;  // the casts
}

// @part row_plan

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    if (tensorCount != 4 || ranks[0] < 1 || coreNum == 0) return 0;
    // @part row_fit
    Plan plan = BestPlan(coreNum, rows, fit, cols, colsPad, rowBytes, rowBytes, 2 * rowBytes);
    tiling->rows = static_cast<uint32_t>(rows);
    tiling->cols = static_cast<uint32_t>(cols);
    tiling->colsPad = static_cast<uint32_t>(colsPad);
    tiling->rowsPerBlock = static_cast<uint32_t>(plan.rowsPerBlock);
    tiling->rowsPerTile = static_cast<uint32_t>(plan.rowsPerTile);
    tiling->invCols = 1.0f / static_cast<float>(cols);
    *workspaceBytes = 0;
    return static_cast<uint32_t>((rows + plan.rowsPerBlock - 1) / plan.rowsPerBlock);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR x, GM_ADDR weight, GM_ADDR bias, GM_ADDR y,
                                                       GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    LayerNormKernel op;
    op.Init(x, weight, bias, y, t);
    op.Process();
}
