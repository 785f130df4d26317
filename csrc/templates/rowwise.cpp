// Built-in generator template: row-wise computations — reductions over the last dimension(s) with
// elementwise work before and after them (softmax, norms, row sums and means, per-row losses).
//
// The tensors are seen as [rows, cols]: cols is the product of the reduced (trailing) dimensions.
// Each block takes a range of rows and walks it in tiles of rowsPerTile rows. In UB a row occupies
// colsPad elements (cols rounded up to 32 bytes), so that every row starts 32-byte aligned;
// DataCopyPad moves whole rows between that layout and the dense GM layout. Per-row values (a row
// sum, a mean) live in "column" arrays of one element per row, COL_STRIDE floats apart so that
// each starts 32-byte aligned. Inputs of shape [cols] (a weight
// or bias) are loaded once and replicated over a tile's rows.
//
// The regions between "// <<name" and "// >>name" are written by torch_ascendgen's generator; as
// checked in they hold an example — out0 = in0 - rowmax(in0), over float rows — so that this file
// is a complete kernel an editor and a compiler can check.
#include "kernel_operator.h"

using namespace AscendC;

struct TilingData {
    uint32_t rows;         // product of the leading dimensions
    uint32_t cols;         // product of the reduced (trailing) dimensions
    uint32_t colsPad;      // cols rounded up to a whole number of 32-byte blocks of every dtype used
    uint32_t rowsPerBlock;
    uint32_t rowsPerTile;
    float invCols;         // 1 / cols, for means
};

// <<config
constexpr uint32_t TILE = 8192;          // elements of one [rowsPerTile, colsPad] tile buffer
constexpr uint32_t MAX_ROWS = 256;       // rows per tile at most
constexpr uint32_t COL_STRIDE = 8;       // floats between two rows' values in a column array
constexpr uint32_t COL_TILE = MAX_ROWS * COL_STRIDE;
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TEMPS = 1;
constexpr uint32_t COL_TEMPS = 1;
constexpr int32_t SHAPE_TENSOR = 0;      // the tensor whose shape defines rows and cols
constexpr int32_t REDUCED_DIMS = 1;      // trailing dimensions that make up cols
constexpr uint32_t COL_ALIGN = 8;        // colsPad is a multiple of this
using ComputeT = float;
using In0 = float;
using Out0 = float;
// >>config

class RowwiseKernel {
public:
    __aicore__ inline void Init(
        // <<init_params
        GM_ADDR in0, GM_ADDR out0,
        // >>init_params
        const TilingData& t)
    {
        uint32_t first = t.rowsPerBlock * GetBlockIdx();
        rowCount_ = first >= t.rows ? 0 : (t.rows - first < t.rowsPerBlock ? t.rows - first : t.rowsPerBlock);
        firstRow_ = first;
        cols_ = t.cols;
        colsPad_ = t.colsPad;
        rowsPerTile_ = t.rowsPerTile;
        invCols_ = t.invCols;
        pipe_.InitBuffer(calc_, TEMPS * TILE * sizeof(ComputeT));
        pipe_.InitBuffer(colCalc_, COL_TEMPS * COL_TILE * sizeof(ComputeT));
        // <<init
        gmIn0_.SetGlobalBuffer((__gm__ In0*)in0);
        gmOut0_.SetGlobalBuffer((__gm__ Out0*)out0);
        pipe_.InitBuffer(qIn0_, BUFFER_NUM, TILE * sizeof(In0));
        pipe_.InitBuffer(qOut0_, BUFFER_NUM, TILE * sizeof(Out0));
        // >>init
    }

    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < rowCount_; done += rowsPerTile_) {
            uint32_t n = rowCount_ - done < rowsPerTile_ ? rowCount_ - done : rowsPerTile_;
            uint32_t row = firstRow_ + done;
            CopyIn(row, n);
            Compute(n);
            CopyOut(row, n);
        }
    }

private:
    // ==row_io: the row and column moves the matmul template shares (templates.py fill_template)
    // n rows of cols elements from GM (dense) into UB rows of colsPad elements.
    template <typename T>
    __aicore__ inline void LoadRows(TQue<QuePosition::VECIN, 1>& queue, GlobalTensor<T>& gm, uint32_t row, uint32_t n)
    {
        LocalTensor<T> local = queue.AllocTensor<T>();
        DataCopyExtParams params{static_cast<uint16_t>(n), static_cast<uint32_t>(cols_ * sizeof(T)), 0,
                                 RowGap<T>(), 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
        DataCopyPad(local, gm[uint64_t(row) * cols_], params, pad);
        queue.EnQue(local);
    }

    template <typename T>
    __aicore__ inline void StoreRows(TQue<QuePosition::VECOUT, 1>& queue, GlobalTensor<T>& gm, uint32_t row, uint32_t n)
    {
        LocalTensor<T> local = queue.DeQue<T>();
        DataCopyExtParams params{static_cast<uint16_t>(n), static_cast<uint32_t>(cols_ * sizeof(T)), RowGap<T>(), 0, 0};
        DataCopyPad(gm[uint64_t(row) * cols_], local, params);
        queue.FreeTensor(local);
    }

    // n consecutive elements (one per row) from GM into a float column array.
    template <typename T>
    __aicore__ inline void LoadColumn(TQue<QuePosition::VECIN, 1>& queue, GlobalTensor<T>& gm, uint32_t row, uint32_t n)
    {
        LocalTensor<T> local = queue.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
        DataCopyPad(local, gm[row], params, pad);
        queue.EnQue(local);
    }

    // Spreads a dense column (one element per row) to COL_STRIDE-apart floats, or back.
    template <typename T>
    __aicore__ inline void SpreadColumn(const LocalTensor<float>& dst, const LocalTensor<T>& dense, uint32_t n)
    {
        PipeBarrier<PIPE_ALL>();
        for (uint32_t r = 0; r < n; ++r) dst.SetValue(r * COL_STRIDE, static_cast<float>(dense.GetValue(r)));
        PipeBarrier<PIPE_ALL>();
    }

    template <typename T>
    __aicore__ inline void PackColumn(const LocalTensor<T>& dense, const LocalTensor<float>& src, uint32_t n)
    {
        PipeBarrier<PIPE_ALL>();
        for (uint32_t r = 0; r < n; ++r) dense.SetValue(r, static_cast<T>(src.GetValue(r * COL_STRIDE)));
        PipeBarrier<PIPE_ALL>();
    }

    template <typename T>
    __aicore__ inline void StoreColumn(TQue<QuePosition::VECOUT, 1>& queue, GlobalTensor<T>& gm, uint32_t row, uint32_t n)
    {
        LocalTensor<T> local = queue.DeQue<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
        DataCopyPad(gm[row], local, params);
        queue.FreeTensor(local);
    }

    // 32-byte blocks between one row's data (rounded up to 32 bytes) and the next row in UB.
    template <typename T>
    __aicore__ inline uint32_t RowGap() const
    {
        uint32_t used = (cols_ * sizeof(T) + 31) / 32;
        return colsPad_ * sizeof(T) / 32 - used;
    }

    // Makes data moved in by MTE2 visible to vector instructions (outside the queues).
    __aicore__ inline void MoveToVector()
    {
        event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(id);
        WaitFlag<HardEvent::MTE2_V>(id);
    }

    __aicore__ inline void ToFloat(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t count)
    {
        DataCopy(dst, src, count);
    }

    template <typename T>
    __aicore__ inline void ToFloat(const LocalTensor<float>& dst, const LocalTensor<T>& src, uint32_t count)
    {
        Cast(dst, src, RoundMode::CAST_NONE, count);
    }

    // Orders scalar reads (GetValue) before later vector writes to the same buffers.
    __aicore__ inline void ScalarToVector()
    {
        event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(id);
        WaitFlag<HardEvent::S_V>(id);
    }

    // Makes vector results visible to the scalar unit before it reads them with GetValue.
    __aicore__ inline void VectorToScalar()
    {
        event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(id);
        WaitFlag<HardEvent::V_S>(id);
    }
    // ==/row_io

    // ---- row operations of the scalar unit, in the orders and precision torch's CPU kernels use ----

    // Each row's product, multiplied in the order of ATen's vectorized inner reduction over 8-float
    // vectors: four accumulators over 32-element chunks, combined as (a0 * a1) * (a2 * a3), then its
    // 8 lanes in order, then the remaining elements one by one. The order decides where a product
    // overflows or underflows part-way, hence where the result is inf or 0. `work`: 32 floats a row.
    __aicore__ inline void ProdRows(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                    const LocalTensor<float>& work, uint32_t n)
    {
        uint32_t chunks = cols_ / 32;
        for (uint32_t r = 0; chunks > 0 && r < n; ++r) {
            LocalTensor<float> acc = work[r * 32];
            Muls(acc, src[r * colsPad_], 1.0f, 32);
            for (uint32_t i = 1; i < chunks; ++i) Mul(acc, acc, src[r * colsPad_ + i * 32], 32);
            Mul(acc, acc, acc[8], 8);
            Mul(acc[16], acc[16], acc[24], 8);
            Mul(acc, acc, acc[16], 8);
        }
        VectorToScalar();
        for (uint32_t r = 0; r < n; ++r) {
            float p = 1.0f;
            if (chunks > 0) {
                p = work.GetValue(r * 32);
                for (uint32_t lane = 1; lane < 8; ++lane) p *= work.GetValue(r * 32 + lane);
            }
            for (uint32_t c = chunks * 32; c < cols_; ++c) p *= src.GetValue(r * colsPad_ + c);
            dst.SetValue(r * COL_STRIDE, p);
        }
        ScalarToVector();
    }

    // Running sums along each row. torch sums float32 in double; here each addition's rounding error
    // is computed exactly (TwoSum) and carried, so every output is the float nearest the exact
    // running sum, as torch's is. Once the sum is infinite or NaN there is no error left to carry
    // (a sum past float's range stays inf here, where torch's double could come back into range).
    __aicore__ inline void CumSumRows(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t n)
    {
        VectorToScalar();
        for (uint32_t r = 0; r < n; ++r) {
            float sum = 0.0f;
            float carry = 0.0f;
            for (uint32_t c = 0; c < cols_; ++c) {
                float x = src.GetValue(r * colsPad_ + c);
                float next = sum + x;
                float xPart = next - sum;
                float error = (sum - (next - xPart)) + (x - xPart);
                carry += error == error ? error : 0.0f;
                sum = next;
                dst.SetValue(r * colsPad_ + c, sum + carry);
            }
        }
        ScalarToVector();
    }

    // Running products along each row. torch multiplies float32 in double, so its running product
    // becomes inf or 0 only beyond double's range, not float's. Here a product is m * 2^e, |m| kept
    // within [2^-32, 2^32] and e a multiple of 32, and it becomes inf or 0 where double's would:
    // from 2^1024 up, and below 2^-1075.
    __aicore__ inline void CumProdRows(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t n)
    {
        VectorToScalar();
        for (uint32_t r = 0; r < n; ++r) {
            float m = 1.0f;
            int32_t e = 0;
            for (uint32_t c = 0; c < cols_; ++c) {
                float x = src.GetValue(r * colsPad_ + c);
                e += Normalize(x);
                m *= x;
                e += Normalize(m);
                float size = m < 0.0f ? -m : m;
                if (e >= 1056 || (e == 1024 && size >= 1.0f) || (e == 992 && size >= UP_32)) {
                    m = m * UP_32 * UP_32 * UP_32 * UP_32 * UP_32;  // |m| >= 2^-32: inf, with m's sign
                    e = 0;
                } else if (e <= -1120 || (e == -1088 && size < 8192.0f) || (e == -1056 && size < 1.0f / 524288.0f)) {
                    m *= 0.0f;  // 2^-1075 = 2^13 * 2^-1088 = 2^-19 * 2^-1056
                    e = 0;
                }
                dst.SetValue(r * colsPad_ + c, Scaled(m, e));
            }
        }
        ScalarToVector();
    }

    // Each row reversed (dst and src are different tiles).
    __aicore__ inline void FlipRows(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t n)
    {
        VectorToScalar();
        for (uint32_t r = 0; r < n; ++r) {
            for (uint32_t c = 0; c < cols_; ++c) {
                dst.SetValue(r * colsPad_ + c, src.GetValue(r * colsPad_ + cols_ - 1 - c));
            }
        }
        ScalarToVector();
    }

    static constexpr float UP_32 = 4294967296.0f;           // 2^32
    static constexpr float DOWN_32 = 1.0f / 4294967296.0f;  // 2^-32

    // Scales a finite nonzero v by powers of 2^32 (exactly) into [2^-32, 2^32]; returns the exponent taken out.
    __aicore__ inline int32_t Normalize(float& v) const
    {
        int32_t e = 0;
        if (v - v != 0.0f || v == 0.0f) return 0;  // inf, NaN and zeros stay as they are
        while (v > UP_32 || v < -UP_32) { v *= DOWN_32; e += 32; }
        while (v < DOWN_32 && v > -DOWN_32) { v *= UP_32; e -= 32; }
        return e;
    }

    // m * 2^e rounded to float (e a multiple of 32, |m| within [2^-32, 2^32]).
    __aicore__ inline float Scaled(float m, int32_t e) const
    {
        if (e > 192) e = 192;    // |m| * 2^192 >= 2^160: inf either way
        if (e < -256) e = -256;  // |m| * 2^-256 <= 2^-224: 0 either way
        for (; e > 0; e -= 32) m *= UP_32;
        for (; e < 0; e += 32) m *= DOWN_32;
        return m;
    }

    __aicore__ inline void CopyIn(uint32_t row, uint32_t n)
    {
        // <<copy_in
        LoadRows(qIn0_, gmIn0_, row, n);
        // >>copy_in
    }

    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<ComputeT> calc = calc_.Get<ComputeT>();
        LocalTensor<ComputeT> colCalc = colCalc_.Get<ComputeT>();
        uint32_t count = n * colsPad_;
        uint32_t colCount = n * COL_STRIDE;
        // <<compute
        LocalTensor<In0> in0 = qIn0_.DeQue<In0>();
        LocalTensor<Out0> out0 = qOut0_.AllocTensor<Out0>();
        LocalTensor<ComputeT> rowMax = colCalc[0 * COL_TILE];
        for (uint32_t r = 0; r < n; ++r) {
            ReduceMax(rowMax[r * COL_STRIDE], in0[r * colsPad_], calc[0 * TILE], cols_);
        }
        VectorToScalar();
        for (uint32_t r = 0; r < n; ++r) {
            Adds(out0[r * colsPad_], in0[r * colsPad_], -rowMax.GetValue(r * COL_STRIDE), colsPad_);
        }
        ScalarToVector();
        (void)count;
        (void)colCount;
        qOut0_.EnQue(out0);
        qIn0_.FreeTensor(in0);
        // >>compute
    }

    __aicore__ inline void CopyOut(uint32_t row, uint32_t n)
    {
        // <<copy_out
        StoreRows(qOut0_, gmOut0_, row, n);
        // >>copy_out
    }

    TPipe pipe_;
    TBuf<QuePosition::VECCALC> calc_;
    TBuf<QuePosition::VECCALC> colCalc_;
    uint32_t firstRow_ = 0;
    uint32_t rowCount_ = 0;
    uint32_t cols_ = 0;
    uint32_t colsPad_ = 0;
    uint32_t rowsPerTile_ = 0;
    float invCols_ = 0.0f;
    // <<members
    TQue<QuePosition::VECIN, 1> qIn0_;
    TQue<QuePosition::VECOUT, 1> qOut0_;
    GlobalTensor<In0> gmIn0_;
    GlobalTensor<Out0> gmOut0_;
    // >>members
};

// Host side: rows and cols from the shape tensor, a tile of as many whole rows as fit, rows split
// evenly over the cores. Returns 0 when one row does not fit a tile (the caller falls back).
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    int32_t offset = 0;
    for (int32_t i = 0; i < SHAPE_TENSOR; ++i) offset += ranks[i];
    int32_t rank = ranks[SHAPE_TENSOR];
    if (rank < REDUCED_DIMS || tensorCount <= SHAPE_TENSOR) return 0;
    uint64_t rows = 1, cols = 1;
    for (int32_t d = 0; d < rank; ++d) {
        uint64_t size = static_cast<uint64_t>(dims[offset + d]);
        if (d < rank - REDUCED_DIMS) rows *= size; else cols *= size;
    }
    uint64_t colsPad = (cols + COL_ALIGN - 1) / COL_ALIGN * COL_ALIGN;
    if (rows == 0 || cols == 0 || colsPad > TILE || rows > 0xFFFFFFFFull) return 0;
    uint64_t rowsPerTile = TILE / colsPad;
    if (rowsPerTile > MAX_ROWS) rowsPerTile = MAX_ROWS;
    if (rowsPerTile > 4095) rowsPerTile = 4095;  // DataCopyPad's blockCount limit
    uint64_t blocks = rows < coreNum ? rows : coreNum;
    uint64_t rowsPerBlock = (rows + blocks - 1) / blocks;
    tiling->rows = static_cast<uint32_t>(rows);
    tiling->cols = static_cast<uint32_t>(cols);
    tiling->colsPad = static_cast<uint32_t>(colsPad);
    tiling->rowsPerBlock = static_cast<uint32_t>(rowsPerBlock);
    tiling->rowsPerTile = static_cast<uint32_t>(rowsPerTile);
    tiling->invCols = 1.0f / static_cast<float>(cols);
    *workspaceBytes = 0;
    return static_cast<uint32_t>((rows + rowsPerBlock - 1) / rowsPerBlock);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(
    // <<entry_params
    GM_ADDR in0, GM_ADDR out0,
    // >>entry_params
    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    RowwiseKernel op;
    op.Init(
        // <<entry_args
        in0, out0,
        // >>entry_args
        t);
    op.Process();
}
