// Seed kernel: the gate of SwiGLU, F.silu(gate) * up (LlamaMLP's act_fn(gate_proj(x)) * up_proj(x))
//
//     y = T(gate / (1 + exp(-gate))) * up              (silu in float, rounded to T, then times up in T)
//
// gate, up, y: the same shape, of T (half or float). Written for torch_ascendgen's kernel contract
// (torch_ascendgen/generate.py).
//
// silu is one division, gate / (1 + exp(-gate)), rather than sigmoid then a product: 5 vector
// instructions for float (7 for half, with the casts), against 8 (12) for a literal lowering.
// Infinities and NaN come out as in torch: silu(-inf) = -inf / inf is NaN, silu(inf) = inf.
//
// Layout. The tensors are split over the blocks in contiguous ranges whose starts are 512-byte
// aligned (full-rate GM copies); a block walks its range in tiles, with IN_BUFFERS buffers in each
// input queue so that several tiles' reads are in flight while one is computed. A tail that is not a whole
// number of 32-byte blocks is copied with DataCopyPad.
#include "kernel_operator.h"

using namespace AscendC;

// <<config
using T = float;
// >>config

struct TilingData {
    uint32_t total;     // elements
    uint32_t perBlock;  // elements per block, a multiple of ALIGN (the last block takes the rest)
    uint32_t tile;      // elements per tile, a multiple of 64, at most MAX_TILE
};

constexpr bool IS_HALF = sizeof(T) == 2;
constexpr int32_t IN_BUFFERS = 4;   // tiles of each input in flight: a GM read lands long after it is issued
constexpr int32_t OUT_BUFFERS = 2;
// Tiles in UB: gate, up and y (their queues' buffers), and the float scratch (one tile, two for half).
constexpr uint32_t MAX_TILE = (176 * 1024) / ((2 * IN_BUFFERS + OUT_BUFFERS) * sizeof(T) + (IS_HALF ? 8 : 4)) / 64 * 64;
constexpr uint32_t ALIGN = 512 / sizeof(T);

class SiluMulKernel {
public:
    __aicore__ inline void Init(GM_ADDR gate, GM_ADDR up, GM_ADDR y, const TilingData& t)
    {
        uint32_t start = t.perBlock * GetBlockIdx();
        length_ = start >= t.total ? 0 : (t.total - start < t.perBlock ? t.total - start : t.perBlock);
        tile_ = t.tile;
        gateGm_.SetGlobalBuffer((__gm__ T*)gate + start, length_);
        upGm_.SetGlobalBuffer((__gm__ T*)up + start, length_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + start, length_);
        pipe_.InitBuffer(gateQueue_, IN_BUFFERS, tile_ * sizeof(T));
        pipe_.InitBuffer(upQueue_, IN_BUFFERS, tile_ * sizeof(T));
        pipe_.InitBuffer(outQueue_, OUT_BUFFERS, tile_ * sizeof(T));
        pipe_.InitBuffer(scratch_, (IS_HALF ? 2 : 1) * tile_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        if (length_ == 0) return;
        for (uint32_t offset = 0; offset < length_; offset += tile_) {
            uint32_t count = length_ - offset < tile_ ? length_ - offset : tile_;
            CopyIn(offset, count);
            Compute(count);
            CopyOut(offset, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        Load(gateQueue_, gateGm_, offset, count);
        Load(upQueue_, upGm_, offset, count);
    }

    __aicore__ inline void Load(TQue<QuePosition::VECIN, 1>& queue, const GlobalTensor<T>& gm, uint32_t offset,
                                uint32_t count)
    {
        LocalTensor<T> local = queue.AllocTensor<T>();
        if (count * sizeof(T) % 32 == 0) {
            DataCopy(local, gm[offset], count);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
            DataCopyPad(local, gm[offset], params, pad);
        }
        queue.EnQue(local);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> gate = gateQueue_.DeQue<T>();
        LocalTensor<T> up = upQueue_.DeQue<T>();
        LocalTensor<T> y = outQueue_.AllocTensor<T>();
        int32_t n = static_cast<int32_t>(count);
        LocalTensor<float> g, d = scratch_.Get<float>();
        if constexpr (IS_HALF) {
            g = d[tile_];
            Cast(g, gate, RoundMode::CAST_NONE, n);
        } else {
            g = gate.template ReinterpretCast<float>();
        }
        Muls(d, g, -1.0f, n);
        Exp(d, d, n);
        Adds(d, d, 1.0f, n);
        if constexpr (IS_HALF) {
            Div(d, g, d, n);
            Cast(y, d, RoundMode::CAST_RINT, n);
        } else {
            Div(y.template ReinterpretCast<float>(), g, d, n);
        }
        Mul(y, y, up, n);
        outQueue_.EnQue(y);
        gateQueue_.FreeTensor(gate);
        upQueue_.FreeTensor(up);
    }

    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        LocalTensor<T> y = outQueue_.DeQue<T>();
        if (count * sizeof(T) % 32 == 0) {
            DataCopy(yGm_[offset], y, count);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPad(yGm_[offset], y, params);
        }
        outQueue_.FreeTensor(y);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, 1> gateQueue_, upQueue_;
    TQue<QuePosition::VECOUT, 1> outQueue_;
    TBuf<QuePosition::VECCALC> scratch_;
    GlobalTensor<T> gateGm_, upGm_, yGm_;
    uint32_t length_ = 0, tile_ = 0;
};

// ---- host side ---------------------------------------------------------------------------------

// Vector cycles of a tile of n elements: 5 instructions (7 for half) of about 10 cycles to issue,
// then a 256-byte float repeat a cycle (Div and Exp: four).
static double TileCycles(uint64_t n)
{
    return (IS_HALF ? 7 : 5) * 10.0 + (IS_HALF ? 11.5 : 11.0) * ((n + 63) / 64);
}

// @part flat_plan

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    if (tensorCount != 3 || coreNum == 0) return 0;
    uint64_t total = 1;
    for (int32_t d = 0; d < ranks[0]; ++d) total *= static_cast<uint64_t>(dims[d]);
    if (total == 0 || total > 0xFFFFFFFFull) return 0;
    Plan plan = BestPlan(coreNum, total, 2 * sizeof(T), sizeof(T));
    tiling->total = static_cast<uint32_t>(total);
    tiling->perBlock = static_cast<uint32_t>(plan.perBlock);
    tiling->tile = static_cast<uint32_t>(plan.tile);
    *workspaceBytes = 0;
    return static_cast<uint32_t>((total + plan.perBlock - 1) / plan.perBlock);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR gate, GM_ADDR up, GM_ADDR y, GM_ADDR workspace,
                                                       GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    SiluMulKernel op;
    op.Init(gate, up, y, t);
    op.Process();
}
