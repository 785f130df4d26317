// Built-in generator template: a fused elementwise chain over same-shaped tensors.
//
// The output (and every full-size input) is split into one contiguous range per block; each block
// walks its range in tiles: CopyIn (GM -> UB, cast to the compute type), Compute (the fused chain),
// CopyOut (cast to the output type, UB -> GM). A tail that is not a whole number of 32-byte blocks
// is moved with DataCopyPad. Single-element inputs are read once into a scalar.
//
// The regions between "// <<name" and "// >>name" are written by torch_ascendgen's generator; as
// checked in, they hold an example (out0 = relu(in0 * in1 + 1)) so that this file is a complete
// kernel an editor and a compiler can check. The host tiling function fills TilingData.
#include "kernel_operator.h"

using namespace AscendC;

struct TilingData {
    uint32_t total;     // elements of the output
    uint32_t perBlock;  // elements per block: a multiple of 32 elements, the last block takes the rest
    uint32_t tile;      // elements per tile: a multiple of 64, at most TILE
};

// <<config
constexpr uint32_t TILE = 4096;      // elements per tile buffer
constexpr int32_t BUFFER_NUM = 2;    // 2: CopyIn of tile i+1 overlaps Compute of tile i
constexpr uint32_t TEMPS = 1;        // compute-type scratch tiles
using ComputeT = float;
using In0 = float;
using In1 = float;
using Out0 = float;
// >>config

class ElementwiseKernel {
public:
    __aicore__ inline void Init(
        // <<init_params
        GM_ADDR in0, GM_ADDR in1, GM_ADDR out0,
        // >>init_params
        const TilingData& t)
    {
        uint32_t start = t.perBlock * GetBlockIdx();
        length_ = start >= t.total ? 0 : (t.total - start < t.perBlock ? t.total - start : t.perBlock);
        tile_ = t.tile;
        // <<init
        gmIn0_.SetGlobalBuffer((__gm__ In0*)in0 + start, length_);
        gmIn1_.SetGlobalBuffer((__gm__ In1*)in1 + start, length_);
        gmOut0_.SetGlobalBuffer((__gm__ Out0*)out0 + start, length_);
        pipe_.InitBuffer(qIn0_, BUFFER_NUM, TILE * sizeof(In0));
        pipe_.InitBuffer(qIn1_, BUFFER_NUM, TILE * sizeof(In1));
        pipe_.InitBuffer(qOut0_, BUFFER_NUM, TILE * sizeof(Out0));
        // >>init
        pipe_.InitBuffer(calc_, TEMPS * TILE * sizeof(ComputeT));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t offset = 0; offset < length_; offset += tile_) {
            uint32_t count = length_ - offset < tile_ ? length_ - offset : tile_;
            CopyIn(offset, count);
            Compute(count);
            CopyOut(offset, count);
        }
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

    template <typename T>
    __aicore__ inline void Store(TQue<QuePosition::VECOUT, 1>& queue, GlobalTensor<T>& gm, uint32_t offset, uint32_t count)
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

    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        // <<copy_in
        Load(qIn0_, gmIn0_, offset, count);
        Load(qIn1_, gmIn1_, offset, count);
        // >>copy_in
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<ComputeT> calc = calc_.Get<ComputeT>();
        // <<compute
        LocalTensor<In0> in0 = qIn0_.DeQue<In0>();
        LocalTensor<In1> in1 = qIn1_.DeQue<In1>();
        LocalTensor<Out0> out0 = qOut0_.AllocTensor<Out0>();
        LocalTensor<ComputeT> v0 = calc[0 * TILE];
        Mul(v0, in0, in1, count);
        Adds(v0, v0, 1.0f, count);
        Relu(out0, v0, count);
        qOut0_.EnQue(out0);
        qIn0_.FreeTensor(in0);
        qIn1_.FreeTensor(in1);
        // >>compute
    }

    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        // <<copy_out
        Store(qOut0_, gmOut0_, offset, count);
        // >>copy_out
    }

    TPipe pipe_;
    TBuf<QuePosition::VECCALC> calc_;
    uint32_t length_ = 0;
    uint32_t tile_ = 0;
    // <<members
    TQue<QuePosition::VECIN, 1> qIn0_, qIn1_;
    TQue<QuePosition::VECOUT, 1> qOut0_;
    GlobalTensor<In0> gmIn0_;
    GlobalTensor<In1> gmIn1_;
    GlobalTensor<Out0> gmOut0_;
    // >>members
};

// Host side: split the output over the cores in 32-element multiples, no block smaller than MIN_BLOCK.
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    constexpr uint64_t MIN_BLOCK = 2048;
    uint64_t total = 1;
    int32_t skip = 0;
    for (int32_t i = 0; i + 1 < tensorCount; ++i) skip += ranks[i];  // the output's dims come last
    for (int32_t d = 0; d < ranks[tensorCount - 1]; ++d) total *= static_cast<uint64_t>(dims[skip + d]);
    if (total == 0 || total > 0xFFFFFFFFull) return 0;
    uint64_t blocks = (total + MIN_BLOCK - 1) / MIN_BLOCK;
    if (blocks > coreNum) blocks = coreNum;
    uint64_t perBlock = (total + blocks - 1) / blocks;
    perBlock = (perBlock + 31) / 32 * 32;
    tiling->total = static_cast<uint32_t>(total);
    tiling->perBlock = static_cast<uint32_t>(perBlock);
    tiling->tile = TILE;
    *workspaceBytes = 0;
    return static_cast<uint32_t>((total + perBlock - 1) / perBlock);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(
    // <<entry_params
    GM_ADDR in0, GM_ADDR in1, GM_ADDR out0,
    // >>entry_params
    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    ElementwiseKernel op;
    op.Init(
        // <<entry_args
        in0, in1, out0,
        // >>entry_args
        t);
    op.Process();
}
