// Built-in generator template: reductions over all elements (losses, global norms, sums), with
// elementwise work before them and scalar work after them.
//
// Each block walks its contiguous range of the inputs in tiles, computes the elementwise part and
// folds each tile into per-block accumulators (one 32-byte slot per reduction). The blocks then
// publish their accumulators to the workspace, meet at SyncAll, and block 0 combines them, runs
// the scalar epilogue and writes the outputs.
//
// The regions between "// <<name" and "// >>name" are written by torch_ascendgen's generator; as
// checked in they hold an example — out0 = mean(in0 * in0) — so that this file is a complete
// kernel an editor and a compiler can check.
#include "kernel_operator.h"

using namespace AscendC;

struct TilingData {
    uint32_t total;     // elements of each full input
    uint32_t perBlock;  // elements per block (a multiple of 64); the last block takes the rest
    uint32_t tile;      // elements per tile (a multiple of 64, at most TILE)
    uint32_t blocks;
    float invCols;      // 1 / total, for means
    uint32_t dims[8];   // input 0's first 8 sizes, for computations that divide by one (a batch mean)
};

// <<config
constexpr uint32_t TILE = 4096;
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TEMPS = 2;
constexpr uint32_t COL_TEMPS = 1;
constexpr uint32_t ACCS = 1;            // reductions, one accumulator slot each
constexpr uint32_t MASKS = 1;
constexpr uint32_t MASK_BYTES = TILE / 8;
using ComputeT = float;
using In0 = float;
using Out0 = float;
// >>config

constexpr uint32_t COL_STRIDE = 8;      // floats per accumulator or scalar slot (32 bytes)
constexpr uint32_t COL_TILE = COL_STRIDE;
constexpr uint32_t MAX_BLOCKS = 64;

class ReduceAllKernel {
public:
    __aicore__ inline void Init(
        // <<init_params
        GM_ADDR in0, GM_ADDR out0,
        // >>init_params
        GM_ADDR workspace, const TilingData& t)
    {
        uint32_t start = t.perBlock * GetBlockIdx();
        length_ = start >= t.total ? 0 : (t.total - start < t.perBlock ? t.total - start : t.perBlock);
        tile_ = t.tile;
        blocks_ = t.blocks;
        invCols_ = t.invCols;
        cols_ = t.total;
        for (uint32_t d = 0; d < 8; ++d) dims_[d] = t.dims[d];
        workGm_.SetGlobalBuffer((__gm__ float*)workspace, MAX_BLOCKS * ACCS * COL_STRIDE);
        pipe_.InitBuffer(calc_, TEMPS * TILE * sizeof(ComputeT));
        pipe_.InitBuffer(colCalc_, (COL_TEMPS + 1) * COL_TILE * sizeof(ComputeT));
        pipe_.InitBuffer(acc_, ACCS * COL_STRIDE * sizeof(float));
        pipe_.InitBuffer(partials_, MAX_BLOCKS * ACCS * COL_STRIDE * sizeof(float));
        pipe_.InitBuffer(maskBuf_, MASKS * MASK_BYTES);
        // <<init
        gmIn0_.SetGlobalBuffer((__gm__ In0*)in0 + start, length_);
        gmOut0_.SetGlobalBuffer((__gm__ Out0*)out0, 1);
        pipe_.InitBuffer(qIn0_, BUFFER_NUM, TILE * sizeof(In0));
        pipe_.InitBuffer(qOut0_, 1, COL_STRIDE * sizeof(Out0));
        // >>init
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> acc = acc_.Get<float>();
        // <<acc_init
        Duplicate(acc[0 * COL_STRIDE], 0.0f, COL_STRIDE);
        // >>acc_init
        for (uint32_t offset = 0; offset < length_; offset += tile_) {
            uint32_t count = length_ - offset < tile_ ? length_ - offset : tile_;
            CopyIn(offset, count);
            Accumulate(acc, count);
        }
        Publish(acc);
        SyncAll();
        if (GetBlockIdx() == 0) Finish();
    }

private:
    template <typename T>
    __aicore__ inline void Load(TQue<QuePosition::VECIN, 1>& queue, GlobalTensor<T>& gm, uint32_t offset, uint32_t count)
    {
        LocalTensor<T> local = queue.AllocTensor<T>();
        if ((count * sizeof(T)) % 32 == 0) {
            DataCopy(local, gm[offset], count);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
            DataCopyPad(local, gm[offset], params, pad);
        }
        queue.EnQue(local);
    }

    // This block's accumulators to its slots of the workspace.
    __aicore__ inline void Publish(const LocalTensor<float>& acc)
    {
        event_t toMte3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(toMte3);
        WaitFlag<HardEvent::V_MTE3>(toMte3);
        DataCopy(workGm_[GetBlockIdx() * ACCS * COL_STRIDE], acc, ACCS * COL_STRIDE);
    }

    // Block 0: every block's accumulators, combined into slot r of `acc` for reduction r.
    __aicore__ inline LocalTensor<float> Gather()
    {
        LocalTensor<float> partials = partials_.Get<float>();
        DataCopy(partials, workGm_, blocks_ * ACCS * COL_STRIDE);
        event_t toScalar = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_S));
        SetFlag<HardEvent::MTE2_S>(toScalar);
        WaitFlag<HardEvent::MTE2_S>(toScalar);
        return partials;
    }

    __aicore__ inline void ScalarToVector()
    {
        event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(id);
        WaitFlag<HardEvent::S_V>(id);
    }

    __aicore__ inline void VectorToScalar()
    {
        event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(id);
        WaitFlag<HardEvent::V_S>(id);
    }

    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        // <<copy_in
        Load(qIn0_, gmIn0_, offset, count);
        // >>copy_in
    }

    __aicore__ inline void Accumulate(const LocalTensor<float>& acc, uint32_t count)
    {
        LocalTensor<ComputeT> calc = calc_.Get<ComputeT>();
        LocalTensor<ComputeT> colCalc = colCalc_.Get<ComputeT>();
        LocalTensor<uint8_t> masks = maskBuf_.Get<uint8_t>();
        LocalTensor<float> part = colCalc[COL_TEMPS * COL_TILE];
        // <<accumulate
        LocalTensor<In0> in0 = qIn0_.DeQue<In0>();
        Mul(calc[0 * TILE], in0, in0, count);
        ReduceSum(part, calc[0 * TILE], calc[1 * TILE], count);
        Add(acc[0 * COL_STRIDE], acc[0 * COL_STRIDE], part, 1);
        qIn0_.FreeTensor(in0);
        // >>accumulate
        (void)masks;
    }

    __aicore__ inline void Finish()
    {
        LocalTensor<ComputeT> colCalc = colCalc_.Get<ComputeT>();
        LocalTensor<float> partials = Gather();
        LocalTensor<float> acc = acc_.Get<float>();
        uint32_t colCount = COL_STRIDE;
        // <<finish
        float total = 0.0f;
        for (uint32_t b = 0; b < blocks_; ++b) total += partials.GetValue(b * ACCS * COL_STRIDE);
        acc.SetValue(0, total);
        ScalarToVector();
        LocalTensor<Out0> out0 = qOut0_.AllocTensor<Out0>();
        Muls(out0, acc[0 * COL_STRIDE], invCols_, 1);
        qOut0_.EnQue(out0);
        out0 = qOut0_.DeQue<Out0>();
        DataCopyExtParams params{1, static_cast<uint32_t>(sizeof(Out0)), 0, 0, 0};
        DataCopyPad(gmOut0_, out0, params);
        qOut0_.FreeTensor(out0);
        // >>finish
        (void)colCalc;
        (void)colCount;
    }

    TPipe pipe_;
    TBuf<QuePosition::VECCALC> calc_, colCalc_, acc_, partials_, maskBuf_;
    GlobalTensor<float> workGm_;
    uint32_t length_ = 0;
    uint32_t tile_ = 0;
    uint32_t blocks_ = 0;
    uint32_t cols_ = 0;
    float invCols_ = 0.0f;
    uint32_t dims_[8] = {};
    // <<members
    TQue<QuePosition::VECIN, 1> qIn0_;
    TQue<QuePosition::VECOUT, 1> qOut0_;
    GlobalTensor<In0> gmIn0_;
    GlobalTensor<Out0> gmOut0_;
    // >>members
};

// Host side: blocks of at least MIN_BLOCK elements, at most one per core and MAX_BLOCKS in all
// (SyncAll needs every block resident); a workspace slot per block and reduction.
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    constexpr uint64_t MIN_BLOCK = 8192;
    uint64_t total = 1;
    for (int32_t d = 0; d < ranks[0]; ++d) total *= static_cast<uint64_t>(dims[d]);  // input 0 is full-size
    if (total == 0 || total > 0xFFFFFFFFull || tensorCount < 2) return 0;
    uint64_t limit = coreNum < MAX_BLOCKS ? coreNum : MAX_BLOCKS;
    uint64_t blocks = (total + MIN_BLOCK - 1) / MIN_BLOCK;
    if (blocks > limit) blocks = limit;
    uint64_t perBlock = ((total + blocks - 1) / blocks + 63) / 64 * 64;
    blocks = (total + perBlock - 1) / perBlock;
    tiling->total = static_cast<uint32_t>(total);
    tiling->perBlock = static_cast<uint32_t>(perBlock);
    tiling->tile = TILE;
    tiling->blocks = static_cast<uint32_t>(blocks);
    tiling->invCols = 1.0f / static_cast<float>(total);
    for (int32_t d = 0; d < 8; ++d) tiling->dims[d] = d < ranks[0] ? static_cast<uint32_t>(dims[d]) : 1;
    *workspaceBytes = MAX_BLOCKS * ACCS * COL_STRIDE * sizeof(float);
    return static_cast<uint32_t>(blocks);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(
    // <<entry_params
    GM_ADDR in0, GM_ADDR out0,
    // >>entry_params
    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    ReduceAllKernel op;
    op.Init(
        // <<entry_args
        in0, out0,
        // >>entry_args
        workspace, t);
    op.Process();
}
