// Seed kernel: RMS norm over the last dimension, in the Llama form
//
//     y = (x.float() * rsqrt(mean(x.float() ** 2, -1, keepdim=True) + EPS)).to(T) * weight
//
// x: [..., cols] of T, weight: [cols] of T, y like x. T is half or float; the statistics are
// computed in float. Written for torch_ascendgen's kernel contract (see torch_ascendgen/generate.py).
//
// Layout. The rows are split over the blocks in contiguous ranges; a block walks its range in
// tiles of up to rowsPerTile rows. In UB a row takes colsPad elements: cols rounded up to 64 (one
// 256-byte float repeat) when a row is longer than that, else to 16 (32 bytes of half), so that
// every row starts 32-byte aligned. DataCopyPad moves a whole tile of rows in one copy each way;
// the input queue has IN_BUFFERS buffers, so several tiles' reads are in flight while one is computed.
// The weight is loaded once per block and repeated over rowsPerTile rows, so that applying it is
// one instruction per tile.
//
// Per tile (n rows):
//   xf  = float(x)                    one Cast over the tile (half only; float works in the input buffer)
//   sq  = xf * xf, padding = 0        one Mul over the tile, one Duplicate
//   r   = 1 / sqrt(row sums of sq / cols + EPS)
//                                     RowReduce: BlockReduceSum over the tile, one WholeReduceSum
//   y   = T(xf * r) * weight          per-row scale, one Cast (half only), one Mul in T
// The product with the weight is in T after rounding, as the PyTorch expression computes it.
//
// Row reductions (RowReduce). The padding of every row holds 0, so whole 64-float chunks can be
// reduced without masks: BlockReduceSum turns each chunk of every row of the tile into 8 values
// with one instruction (per 255 repeats), again while a row still has a multiple of 64 values and
// that is cheaper; what is left is combined chunk by chunk over all rows (level-0, one repeat per
// row) and finished with one WholeReduceSum for the tile. Per-row values (ApplyRows) are broadcast
// with Brcb and applied by whichever is fewer cycles: one level-0 instruction per 64-float chunk (a
// repeat per row, src1 block stride 0), one per 8 rows (a repeat per 32-byte column, the 8 blocks
// from 8 rows, src1 repeat stride 0), or one Muls per row.
//
// The tiling function returns 0 (the caller runs the original function) when a row does not fit
// the UB: colsPad * (19 bytes for half, 21 for float) must stay under about 180 KB, i.e. rows of
// up to about 9000 half or 8000 float elements.
#include "kernel_operator.h"

using namespace AscendC;

// <<config
using T = half;
constexpr float EPS = 1e-06f;
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
// UB bytes per element of a tile row: in and out (their queues' buffers), the repeated weight, the
// BlockReduce results (1/8 and 1/64 of a float) and, for half, the float copy of x and the squares
// (float works in the in and out buffers).
constexpr uint32_t BYTES_PER_ELEMENT = (IN_BUFFERS + OUT_BUFFERS) * sizeof(T) + sizeof(T) + 1 + (IS_HALF ? 8 : 0);
// UB bytes per tile row besides: its 64 partial results.
constexpr uint32_t BYTES_PER_ROW = LANES * 4;
// Column values (sums, factors, ones: a float per row each, and one spare) and the Brcb broadcast of
// a column (8 floats per row).
constexpr uint32_t COLUMN_BYTES = (4 + 8) * MAX_TILE_ROWS * 4;

enum class Op { Sum, Max };

class RmsNormKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR weight, GM_ADDR y, const TilingData& t)
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
        yGm_.SetGlobalBuffer((__gm__ T*)y);
        uint32_t tile = rowsPerTile_ * colsPad_;
        pipe_.InitBuffer(inQueue_, IN_BUFFERS, tile * sizeof(T));
        pipe_.InitBuffer(outQueue_, OUT_BUFFERS, tile * sizeof(T));
        pipe_.InitBuffer(weightBuf_, tile * sizeof(T));
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
            if (done == 0) LoadWeight();  // after the first tile's copy: the weight is needed last
            Compute(n);
            CopyOut(firstRow_ + done, n);
        }
    }

private:
    __aicore__ inline LocalTensor<float> Column(uint32_t i) { return columnBuf_.Get<float>()[i * MAX_TILE_ROWS]; }

    // The weight into row 0 of weightBuf_, then doubled until it fills rowsPerTile rows.
    __aicore__ inline void LoadWeight()
    {
        LocalTensor<T> w = weightBuf_.Get<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(cols_ * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
        DataCopyPad(w, wGm_, params, pad);
        MoveToVector();
        for (uint32_t have = 1; have < rowsPerTile_; have *= 2) {
            uint32_t copy = have < rowsPerTile_ - have ? have : rowsPerTile_ - have;
            DataCopy(w[have * colsPad_], w, copy * colsPad_);
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
        LocalTensor<float> sums = Column(0), factor = Column(1), ones = Column(3);
        uint32_t count = n * colsPad_;
        uint32_t tile = rowsPerTile_ * colsPad_;
        LocalTensor<float> xf, sq;
        if constexpr (IS_HALF) {
            xf = floatBuf_.Get<float>();
            sq = xf[tile];
            Cast(xf, x, RoundMode::CAST_NONE, count);
        } else {  // T is float: work in the in and out buffers
            xf = x.template ReinterpretCast<float>();
            sq = y.template ReinterpretCast<float>();
        }
        Mul(sq, xf, xf, count);
        SetPadding(sq, n, 0.0f);
        RowReduce<Op::Sum>(sums, sq, n);
        Muls(factor, sums, invCols_, static_cast<int32_t>(n));
        Adds(factor, factor, EPS, static_cast<int32_t>(n));
        Sqrt(factor, factor, static_cast<int32_t>(n));
        Div(factor, ones, factor, static_cast<int32_t>(n));
        if constexpr (IS_HALF) {
            ApplyRows(xf, xf, factor, n, false);
            Cast(y, xf, RoundMode::CAST_RINT, count);
        } else {
            ApplyRows(y.template ReinterpretCast<float>(), xf, factor, n, false);
        }
        Mul(y, y, weightBuf_.Get<T>(), count);
        outQueue_.EnQue(y);
        inQueue_.FreeTensor(x);
    }

    __aicore__ inline void CopyOut(uint32_t row, uint32_t n)
    {
        LocalTensor<T> y = outQueue_.DeQue<T>();
        DataCopyExtParams params{static_cast<uint16_t>(n), static_cast<uint32_t>(cols_ * sizeof(T)), RowGap(), 0, 0};
        DataCopyPad(yGm_[uint64_t(row) * cols_], y, params);
        outQueue_.FreeTensor(y);
    }

    // ---- row tools -------------------------------------------------------------------------------
    // (The same as in softmax.cpp, which also reduces maxima; this kernel only sums.)

    // The padding of each of n rows (lanes cols_..colsPad_ of the last chunk) := value.
    __aicore__ inline void SetPadding(const LocalTensor<float>& tile, uint32_t n, float value)
    {
        uint32_t used = cols_ % LANES;
        if (cols_ <= LANES || used == 0) return;  // short rows are reduced with a mask; no padding
        uint64_t mask[2] = {~0ull << used, 0};  // lanes used..63 (a 32-bit type reads mask[0] only)
        LocalTensor<float> last = tile[colsPad_ - LANES];
        if (colsPad_ / 8 <= 255) {
            Duplicate(last, value, mask, static_cast<int64_t>(n), 1, static_cast<uint8_t>(colsPad_ / 8));
        } else {
            for (uint32_t r = 0; r < n; ++r) Duplicate(last[r * colsPad_], value, mask, 1, 1, 0);
        }
    }

    template <Op OP>
    __aicore__ inline void BlockReduce(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t repeats)
    {
        for (uint32_t done = 0; done < repeats; done += MAX_REPEAT) {
            int32_t r = static_cast<int32_t>(repeats - done < MAX_REPEAT ? repeats - done : MAX_REPEAT);
            if constexpr (OP == Op::Sum) BlockReduceSum(dst[done * 8], src[done * LANES], r, LANES, 1, 1, 8);
            else BlockReduceMax(dst[done * 8], src[done * LANES], r, LANES, 1, 1, 8);
        }
    }

    template <Op OP>
    __aicore__ inline void WholeReduce(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t mask,
                                       uint32_t repeat, uint32_t srcRepStride)
    {
        if constexpr (OP == Op::Sum)
            WholeReduceSum(dst, src, static_cast<int32_t>(mask), static_cast<int32_t>(repeat), 1, 1,
                           static_cast<int32_t>(srcRepStride));
        else
            WholeReduceMax(dst, src, static_cast<int32_t>(mask), static_cast<int32_t>(repeat), 1, 1,
                           static_cast<int32_t>(srcRepStride), ReduceOrder::ORDER_ONLY_VALUE);
    }

    template <Op OP>
    __aicore__ inline void Combine(const LocalTensor<float>& dst, const LocalTensor<float>& a,
                                   const LocalTensor<float>& b, uint64_t mask, uint32_t repeat,
                                   const BinaryRepeatParams& params)
    {
        if constexpr (OP == Op::Sum) Add(dst, a, b, mask, static_cast<int32_t>(repeat), params);
        else Max(dst, a, b, mask, static_cast<int32_t>(repeat), params);
    }

    // dst[r] = the sum or maximum of row r of src (cols_ values; the padding must be neutral).
    template <Op OP>
    __aicore__ inline void RowReduce(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t n)
    {
        if (cols_ <= LANES) {  // a row is one repeat: reduce it with a mask
            WholeReduce<OP>(dst, src, cols_, n, colsPad_ / 8);
            return;
        }
        LocalTensor<float> scratch = reduceBuf_.Get<float>();
        LocalTensor<float> level[2] = {scratch, scratch[rowsPerTile_ * colsPad_ / 8]};
        LocalTensor<float> acc = scratch[rowsPerTile_ * colsPad_ / 8 + Level2Size()];
        LocalTensor<float> rest = src;
        uint32_t len = colsPad_;  // values per row of rest
        for (uint32_t at = 0; len > LANES && len % LANES == 0 && FoldCycles(len, n) > BlockCycles(len, n); at ^= 1) {
            BlockReduce<OP>(level[at], rest, n * len / LANES);
            rest = level[at];
            len /= 8;
        }
        if (len > LANES) {  // combine the 64-value chunks of every row into acc, a repeat per row
            FoldChunks<OP>(acc, rest, len, n);
            rest = acc;
            len = LANES;
        }
        WholeReduce<OP>(dst, rest, len, n, len / 8);
    }

    // Vector cycles (an instruction issues in about 10 cycles, then runs a repeat a cycle) of
    // combining the chunks of n rows of len values, and of one BlockReduce level of them.
    __aicore__ inline uint32_t FoldCycles(uint32_t len, uint32_t n) const { return ((len + LANES - 1) / LANES - 1) * (10 + n); }
    __aicore__ inline uint32_t BlockCycles(uint32_t len, uint32_t n) const
    {
        uint32_t repeats = n * len / LANES;
        return (repeats + MAX_REPEAT - 1) / MAX_REPEAT * 10 + repeats + (len / 8 > LANES ? FoldCycles(len / 8, n) : 0);
    }

    // acc row r (64 floats) = the 64-value chunks of row r of src (len values a row, 8 to 2040)
    // combined, for n rows: one level-0 instruction per chunk, a repeat per row.
    template <Op OP>
    __aicore__ inline void FoldChunks(const LocalTensor<float>& acc, const LocalTensor<float>& src, uint32_t len,
                                      uint32_t n)
    {
        uint32_t chunks = (len + LANES - 1) / LANES;
        uint8_t stride = static_cast<uint8_t>(len / 8);
        uint32_t j = 2;
        if (chunks == 2 && len < 2 * LANES) {  // a short second chunk: copy the first, then combine
            Adds(acc, src, 0.0f, LANES, static_cast<int32_t>(n), UnaryRepeatParams(1, 1, 8, stride));
            j = 1;
        } else {
            Combine<OP>(acc, src, src[LANES], LANES, n, BinaryRepeatParams(1, 1, 1, 8, stride, stride));
        }
        for (; j < chunks; ++j)
            Combine<OP>(acc, acc, src[j * LANES], j + 1 == chunks ? len - j * LANES : LANES, n,
                        BinaryRepeatParams(1, 1, 1, 8, 8, stride));
    }

    // dst row r = src row r - value[r] (subtract) or src row r * value[r], over colsPad_ elements.
    __aicore__ inline void ApplyRows(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                     const LocalTensor<float>& value, uint32_t n, bool subtract)
    {
        // Vector cycles of the three ways (an instruction issues in about 10 cycles, then runs a
        // repeat a cycle); the host tiling estimates them the same way.
        uint32_t stride = colsPad_ / 8;  // a row, in 32-byte blocks
        uint32_t chunk = (colsPad_ + LANES - 1) / LANES * (10 + n), group = (n + 7) / 8 * (10 + stride);
        uint32_t scalar = 20 + n * (14 + (colsPad_ + LANES - 1) / LANES);
        if (stride > 255 || scalar < (chunk < group ? chunk : group)) {
            event_t ready = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
            SetFlag<HardEvent::V_S>(ready);
            WaitFlag<HardEvent::V_S>(ready);
            for (uint32_t r = 0; r < n; ++r) {
                float v = value.GetValue(r);
                if (subtract) Adds(dst[r * colsPad_], src[r * colsPad_], -v, static_cast<int32_t>(colsPad_));
                else Muls(dst[r * colsPad_], src[r * colsPad_], v, static_cast<int32_t>(colsPad_));
            }
            return;
        }
        LocalTensor<float> spread = Column(4);
        Brcb(spread, value, static_cast<uint8_t>((n + 7) / 8), BrcbRepeatParams(1, 8));
        uint8_t s = static_cast<uint8_t>(stride);
        if (chunk <= group) {  // a repeat per row, one instruction per 64-float chunk
            for (uint32_t j = 0; j * LANES < colsPad_; ++j) {
                uint64_t mask = colsPad_ - j * LANES < LANES ? colsPad_ - j * LANES : LANES;
                BinaryRepeatParams params(1, 1, 0, s, s, 1);
                if (subtract) Sub(dst[j * LANES], src[j * LANES], spread, mask, static_cast<int32_t>(n), params);
                else Mul(dst[j * LANES], src[j * LANES], spread, mask, static_cast<int32_t>(n), params);
            }
        } else {  // a repeat per 32-byte column of 8 rows, one instruction per 8 rows
            for (uint32_t g = 0; g * 8 < n; ++g) {
                uint64_t mask = (n - g * 8 < 8 ? n - g * 8 : 8) * 8;
                uint32_t at = g * 8 * colsPad_;
                BinaryRepeatParams params(s, s, 1, 1, 1, 0);
                if (subtract) Sub(dst[at], src[at], spread[g * LANES], mask, static_cast<int32_t>(stride), params);
                else Mul(dst[at], src[at], spread[g * LANES], mask, static_cast<int32_t>(stride), params);
            }
        }
    }

    // 32-byte blocks between the end of a row's data and the start of the next row in UB.
    __aicore__ inline uint32_t RowGap() const
    {
        return (colsPad_ * sizeof(T) - (cols_ * sizeof(T) + 31) / 32 * 32) / 32;
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, 1> inQueue_;
    TQue<QuePosition::VECOUT, 1> outQueue_;
    TBuf<QuePosition::VECCALC> weightBuf_, floatBuf_, reduceBuf_, columnBuf_;
    GlobalTensor<T> xGm_, wGm_, yGm_;
    uint32_t firstRow_ = 0, rowCount_ = 0, cols_ = 0, colsPad_ = 0, rowsPerTile_ = 0;
    float invCols_ = 0.0f;
};

// ---- host side ---------------------------------------------------------------------------------

// Vector cycles of one row reduction over n rows, as RowReduce does it: an instruction issues in
// about 10 cycles, then runs a repeat a cycle (WholeReduce: two, and a few per level of its tree).
static double ReduceCycles(uint64_t cols, uint64_t colsPad, uint64_t n)
{
    double levels = 0.0;
    for (uint64_t v = 1; v < n; v *= 2) levels += 1.0;
    double cycles = 10.0 + 2.0 * n + 8.0 * levels;
    if (cols <= 64) return cycles;
    uint64_t len = colsPad;
    for (;;) {
        double fold = (len / 64.0 - 1.0) * (10.0 + n);
        if (len <= 64 || len % 64) break;
        uint64_t repeats = n * len / 64;
        double block = (repeats + 247) / 248 * 10.0 + repeats + (len / 8 > 64 ? (len / 512.0 - 1.0) * (10.0 + n) : 0.0);
        if (fold <= block) break;
        cycles += (repeats + 247) / 248 * 10.0 + repeats;
        len /= 8;
    }
    if (len > 64) cycles += ((len + 63) / 64 - 1) * (10.0 + n);
    return cycles;
}

// Vector cycles of applying per-row values to n rows, the cheapest of ApplyRows' three ways.
static double ApplyCycles(uint64_t colsPad, uint64_t n)
{
    uint64_t repeats = (colsPad + 63) / 64;
    double scalar = 20.0 + n * (14.0 + repeats);
    if (colsPad / 8 > 255) return scalar;
    double chunk = repeats * (10.0 + n), group = (n + 7) / 8 * (10.0 + colsPad / 8);
    double vector = 10.0 + (n + 7) / 8 + (chunk < group ? chunk : group);  // and the Brcb
    return vector < scalar ? vector : scalar;
}

// Vector cycles of one tile of n rows of this kernel.
static double TileCycles(uint64_t cols, uint64_t colsPad, uint64_t n)
{
    uint64_t repeats = n * ((colsPad + 63) / 64);  // of one instruction over the tile
    double cycles = ReduceCycles(cols, colsPad, n) + ApplyCycles(colsPad, n) + 2 * (10.0 + repeats) + 80.0;
    if (cols > 64 && cols % 64) cycles += 10.0 + n;  // the padding
    return IS_HALF ? cycles + 2 * (10.0 + repeats) - repeats / 2.0 : cycles;  // the casts; the product in half
}

struct Plan {
    uint64_t blocks = 0, rowsPerBlock = 0, rowsPerTile = 0;
    double ns = 0.0;
};

// The blocks and tile rows with the least estimated time, by a small model of an Atlas A2 chip (the
// figures of torch_ascendgen/soc.py): the scheduler starts a block every DISPATCH_NS; a block copies
// at up to CORE_BYTES_PER_NS and all blocks together at HBM_BYTES_PER_NS, each copy taking
// COPY_SETUP_NS more; a read lands READ_LATENCY_NS after it is issued (the simulator's figure, an
// assumption: cost_model.h). A block takes its first load, then per tile the slowest of load,
// compute, store, and the latency shared by the IN_BUFFERS reads in flight, then its last store.
static Plan BestPlan(uint32_t coreNum, uint64_t rows, uint64_t fit, uint64_t cols, uint64_t colsPad,
                     double inBytesPerRow, double outBytesPerRow, double blockBytes)
{
    const double DISPATCH_NS = 40.0, COPY_SETUP_NS = 32.0, CORE_BYTES_PER_NS = 57.6, HBM_BYTES_PER_NS = 1600.0;
    const double READ_LATENCY_NS = 500.0;
    const double CLOCK_GHZ = 1.8;
    Plan best;
    uint64_t limit = rows < coreNum ? rows : coreNum;
    for (uint64_t b = 1; b <= limit; ++b) {
        uint64_t m = (rows + b - 1) / b;
        if (b > 1 && (rows + b - 2) / (b - 1) == m) continue;  // fewer blocks give as few rows each
        double rate = HBM_BYTES_PER_NS / b < CORE_BYTES_PER_NS ? HBM_BYTES_PER_NS / b : CORE_BYTES_PER_NS;
        uint64_t largest = m < fit ? m : fit;
        for (uint64_t n = 1; n <= largest; ++n) {
            uint64_t tiles = (m + n - 1) / n;
            double in = COPY_SETUP_NS + n * inBytesPerRow / rate;
            double out = COPY_SETUP_NS + n * outBytesPerRow / rate;
            double vec = TileCycles(cols, colsPad, n) / CLOCK_GHZ;
            double step = vec > in ? vec : in;
            step = step > out ? step : out;
            double hidden = (in + READ_LATENCY_NS + vec) / IN_BUFFERS;  // reads in flight share the latency
            step = step > hidden ? step : hidden;
            double ns = DISPATCH_NS * b + blockBytes / rate + in + READ_LATENCY_NS + tiles * step + out;
            if (best.blocks == 0 || ns < best.ns) best = Plan{b, m, n, ns};
        }
    }
    return best;
}

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    if (tensorCount != 3 || ranks[0] < 1 || coreNum == 0) return 0;
    uint64_t rows = 1;
    for (int32_t d = 0; d + 1 < ranks[0]; ++d) rows *= static_cast<uint64_t>(dims[d]);
    uint64_t cols = static_cast<uint64_t>(dims[ranks[0] - 1]);
    if (rows == 0 || cols == 0 || rows > 0xFFFFFFFFull) return 0;
    uint64_t colsPad = cols <= LANES ? (cols + 15) / 16 * 16 : (cols + LANES - 1) / LANES * LANES;
    uint64_t perRow = colsPad * BYTES_PER_ELEMENT + BYTES_PER_ROW;
    if (perRow + COLUMN_BYTES + 32 > UB_BUDGET) return 0;  // one row does not fit the UB
    uint64_t fit = (UB_BUDGET - COLUMN_BYTES - 32) / perRow;
    if (fit > MAX_TILE_ROWS) fit = MAX_TILE_ROWS;
    double rowBytes = static_cast<double>(cols * sizeof(T));
    Plan plan = BestPlan(coreNum, rows, fit, cols, colsPad, rowBytes, rowBytes, rowBytes);
    tiling->rows = static_cast<uint32_t>(rows);
    tiling->cols = static_cast<uint32_t>(cols);
    tiling->colsPad = static_cast<uint32_t>(colsPad);
    tiling->rowsPerBlock = static_cast<uint32_t>(plan.rowsPerBlock);
    tiling->rowsPerTile = static_cast<uint32_t>(plan.rowsPerTile);
    tiling->invCols = 1.0f / static_cast<float>(cols);
    *workspaceBytes = 0;
    return static_cast<uint32_t>((rows + plan.rowsPerBlock - 1) / plan.rowsPerBlock);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR x, GM_ADDR weight, GM_ADDR y, GM_ADDR workspace,
                                                       GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    RmsNormKernel op;
    op.Init(x, weight, y, t);
    op.Process();
}
