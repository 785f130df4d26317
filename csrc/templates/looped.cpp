// Built-in generator template: computations over a tensor seen as [outer, reduce, inner], in loops.
//
// The generator groups the computation's dimensions into three: outer, reduce (the dimensions a
// reduction folds, or a broadcast group) and inner. Every tensor either spans a group or is
// broadcast over all of it, so its elements sit at (o * reduce + r) * inner + i over the groups it
// spans. A unit of work is one outer index and, in the "columns" form (inner > 1), one chunk of the
// inner dimension: each step loads one r's chunk, so a reduction over r is an elementwise fold. In
// the "rows" form (ROWS, no inner dimension) a unit is one row and each step loads a chunk of it;
// a reduction folds each chunk with ReduceSum/Max/Min. A computation whose reductions depend on
// earlier reductions (softmax: max, then sum of exp(x - max)) walks a unit once per reduction
// level and once more to write its full-size outputs: nothing needs to fit the UB but one chunk.
//
// The regions between "// <<name" and "// >>name" are written by torch_ascendgen's generator; as
// checked in they hold an example — out0 = in0 / sum(in0) over the middle dimension — so that this
// file is a complete kernel an editor and a compiler can check.
#include "kernel_operator.h"

using namespace AscendC;

struct TilingData {
    uint32_t outer;
    uint32_t reduce;
    uint32_t inner;
    uint32_t chunk;           // elements per step: along inner, or along reduce when ROWS
    uint32_t chunksPerOuter;  // units per outer index
    uint32_t unitsPerBlock;
    uint32_t units;
    float invReduce;          // 1 / reduce, for means
    float reduceCount;        // reduce, as a float
};

// <<config
constexpr bool ROWS = false;
constexpr uint32_t TILE = 4096;
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TEMPS = 1;
constexpr uint32_t COL_TEMPS = 1;
constexpr uint32_t MASKS = 1;
constexpr uint32_t MASK_BYTES = TILE / 8;
using ComputeT = float;
using In0 = float;
using Out0 = float;
constexpr int32_t FULL_RANK = 3;
constexpr int32_t GROUP_REDUCE = 1;  // dims [0, GROUP_REDUCE) are outer
constexpr int32_t GROUP_INNER = 2;   // dims [GROUP_REDUCE, GROUP_INNER) reduce, the rest inner
// The size of every dimension of the computation, from the tensors that span it.
inline bool FullDims(int32_t tensorCount, const int32_t* ranks, const int64_t* dims, int64_t* full)
{
    if (tensorCount != 2 || ranks[0] != 3) return false;
    for (int32_t d = 0; d < 3; ++d) full[d] = dims[d];
    return true;
}
// >>config

constexpr uint32_t COL_TILE = ROWS ? 8 : TILE;  // elements of a reduced-level scratch slot
constexpr uint32_t CHUNK_ALIGN = 64;

class LoopedKernel {
public:
    __aicore__ inline void Init(
        // <<init_params
        GM_ADDR in0, GM_ADDR out0,
        // >>init_params
        const TilingData& t)
    {
        uint32_t first = t.unitsPerBlock * GetBlockIdx();
        unitEnd_ = first + t.unitsPerBlock < t.units ? first + t.unitsPerBlock : t.units;
        unitBegin_ = first < unitEnd_ ? first : unitEnd_;
        reduce_ = t.reduce;
        inner_ = t.inner;
        chunk_ = t.chunk;
        chunksPerOuter_ = t.chunksPerOuter;
        invReduce_ = t.invReduce;
        reduceCount_ = t.reduceCount;
        pipe_.InitBuffer(calc_, TEMPS * TILE * sizeof(ComputeT));
        pipe_.InitBuffer(colCalc_, COL_TEMPS * COL_TILE * sizeof(ComputeT));
        pipe_.InitBuffer(maskBuf_, MASKS * MASK_BYTES);
        // <<init
        gmIn0_.SetGlobalBuffer((__gm__ In0*)in0);
        gmOut0_.SetGlobalBuffer((__gm__ Out0*)out0);
        pipe_.InitBuffer(qIn0_, BUFFER_NUM, TILE * sizeof(In0));
        pipe_.InitBuffer(qOut0_, BUFFER_NUM, TILE * sizeof(Out0));
        pipe_.InitBuffer(qRed0_, 1, COL_TILE * sizeof(Out0));
        // >>init
    }

    __aicore__ inline void Process()
    {
        LocalTensor<ComputeT> calc = calc_.Get<ComputeT>();
        LocalTensor<ComputeT> colCalc = colCalc_.Get<ComputeT>();
        LocalTensor<uint8_t> masks = maskBuf_.Get<uint8_t>();
        for (uint32_t unit = unitBegin_; unit < unitEnd_; ++unit) {
            o_ = unit / chunksPerOuter_;
            i0_ = ROWS ? 0 : (unit % chunksPerOuter_) * chunk_;
            len_ = ROWS ? 1 : (inner_ - i0_ < chunk_ ? inner_ - i0_ : chunk_);
            uint32_t colCount = len_;
            ScalarToVector();
            // <<unit
            LocalTensor<ComputeT> total = colCalc[0 * COL_TILE];
            Duplicate(total, 0.0f, colCount);
            for (uint32_t r = 0; r < reduce_; r += Step()) {
                uint32_t count = Count(r);
                Load(qIn0_, gmIn0_, At(true, true, true, r), count);
                LocalTensor<In0> in0 = qIn0_.DeQue<In0>();
                Add(total, total, in0, count);
                qIn0_.FreeTensor(in0);
            }
            for (uint32_t r = 0; r < reduce_; r += Step()) {
                uint32_t count = Count(r);
                Load(qIn0_, gmIn0_, At(true, true, true, r), count);
                LocalTensor<In0> in0 = qIn0_.DeQue<In0>();
                LocalTensor<Out0> out0 = qOut0_.AllocTensor<Out0>();
                Div(out0, in0, total, count);
                qOut0_.EnQue(out0);
                qIn0_.FreeTensor(in0);
                Store(qOut0_, gmOut0_, At(true, true, true, r), count);
            }
            // >>unit
        }
    }

private:
    // Element offset of this unit's step at r in a tensor spanning the given groups.
    __aicore__ inline uint64_t At(bool hasOuter, bool hasReduce, bool hasInner, uint32_t r) const
    {
        uint64_t at = hasOuter ? o_ : 0;
        if (hasReduce) at = at * reduce_ + r;
        if (hasInner) at = at * inner_ + i0_;
        return at;
    }

    __aicore__ inline uint32_t Step() const { return ROWS ? chunk_ : 1; }

    // Elements of the step at r: a chunk of the row (ROWS), or this unit's part of the inner dimension.
    __aicore__ inline uint32_t Count(uint32_t r) const
    {
        if (!ROWS) return len_;
        return reduce_ - r < chunk_ ? reduce_ - r : chunk_;
    }

    template <typename T>
    __aicore__ inline void Load(TQue<QuePosition::VECIN, 1>& queue, GlobalTensor<T>& gm, uint64_t offset, uint32_t count)
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

    template <typename T>
    __aicore__ inline void Store(TQue<QuePosition::VECOUT, 1>& queue, GlobalTensor<T>& gm, uint64_t offset, uint32_t count)
    {
        LocalTensor<T> local = queue.DeQue<T>();
        if ((count * sizeof(T)) % 32 == 0) {
            DataCopy(gm[offset], local, count);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPad(gm[offset], local, params);
        }
        queue.FreeTensor(local);
    }

    // A tensor broadcast over the reduce group, loaded once per unit and widened to float.
    template <typename T>
    __aicore__ inline void LoadUnit(TQue<QuePosition::VECIN, 1>& queue, GlobalTensor<T>& gm, const LocalTensor<float>& dst,
                                    uint64_t offset, uint32_t count)
    {
        Load(queue, gm, offset, count);
        LocalTensor<T> raw = queue.DeQue<T>();
        ToFloat(dst, raw, count);
        queue.FreeTensor(raw);
    }

    __aicore__ inline void ToFloat(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t count)
    {
        Muls(dst, src, 1.0f, count);
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

    TPipe pipe_;
    TBuf<QuePosition::VECCALC> calc_;
    TBuf<QuePosition::VECCALC> colCalc_;
    TBuf<QuePosition::VECCALC> maskBuf_;
    uint32_t unitBegin_ = 0;
    uint32_t unitEnd_ = 0;
    uint32_t reduce_ = 0;
    uint32_t inner_ = 0;
    uint32_t chunk_ = 0;
    uint32_t chunksPerOuter_ = 1;
    uint32_t o_ = 0;
    uint32_t i0_ = 0;
    uint32_t len_ = 0;
    float invReduce_ = 0.0f;
    float reduceCount_ = 0.0f;
    // <<members
    TQue<QuePosition::VECIN, 1> qIn0_;
    TQue<QuePosition::VECOUT, 1> qOut0_;
    TQue<QuePosition::VECOUT, 1> qRed0_;
    GlobalTensor<In0> gmIn0_;
    GlobalTensor<Out0> gmOut0_;
    // >>members
};

// Host side: outer, reduce and inner from the dimensions' sizes; units spread evenly over the
// cores, with inner chunks made smaller when there are fewer outer indices than cores.
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    int64_t full[FULL_RANK > 0 ? FULL_RANK : 1];
    if (!FullDims(tensorCount, ranks, dims, full)) return 0;
    uint64_t outer = 1, reduce = 1, inner = 1;
    for (int32_t d = 0; d < FULL_RANK; ++d) {
        uint64_t size = static_cast<uint64_t>(full[d]);
        if (d < GROUP_REDUCE) outer *= size; else if (d < GROUP_INNER) reduce *= size; else inner *= size;
    }
    if (outer == 0 || reduce == 0 || inner == 0 || outer * reduce * inner > 0xFFFFFFFFull) return 0;
    if (coreNum == 0) coreNum = 1;
    uint64_t chunk, chunksPerOuter;
    if (ROWS) {
        chunk = (reduce + CHUNK_ALIGN - 1) / CHUNK_ALIGN * CHUNK_ALIGN;
        chunk = chunk < TILE ? chunk : TILE;
        chunksPerOuter = 1;
    } else {
        uint64_t wanted = outer >= coreNum ? 1 : (coreNum + outer - 1) / outer;  // chunks per outer index
        chunk = (inner + wanted - 1) / wanted;
        chunk = (chunk + CHUNK_ALIGN - 1) / CHUNK_ALIGN * CHUNK_ALIGN;
        chunk = chunk < TILE ? chunk : TILE;
        chunksPerOuter = (inner + chunk - 1) / chunk;
    }
    uint64_t units = outer * chunksPerOuter;
    uint64_t blocks = units < coreNum ? units : coreNum;
    uint64_t unitsPerBlock = (units + blocks - 1) / blocks;
    tiling->outer = static_cast<uint32_t>(outer);
    tiling->reduce = static_cast<uint32_t>(reduce);
    tiling->inner = static_cast<uint32_t>(inner);
    tiling->chunk = static_cast<uint32_t>(chunk);
    tiling->chunksPerOuter = static_cast<uint32_t>(chunksPerOuter);
    tiling->unitsPerBlock = static_cast<uint32_t>(unitsPerBlock);
    tiling->units = static_cast<uint32_t>(units);
    tiling->invReduce = 1.0f / static_cast<float>(reduce);
    tiling->reduceCount = static_cast<float>(reduce);
    *workspaceBytes = 0;
    return static_cast<uint32_t>((units + unitsPerBlock - 1) / unitsPerBlock);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(
    // <<entry_params
    GM_ADDR in0, GM_ADDR out0,
    // >>entry_params
    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    LoopedKernel op;
    op.Init(
        // <<entry_args
        in0, out0,
        // >>entry_args
        t);
    op.Process();
}
