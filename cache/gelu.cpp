// Seed kernel: GELU, exact (erf) form, as F.gelu(x) with approximate="none"
//
//     y = x / 2 * (1 + erf(x / sqrt(2)))
//
// x, y: any shape of float. Written for torch_ascendgen's kernel contract (torch_ascendgen/generate.py).
//
// erf is Abramowitz & Stegun 7.1.26: for t >= 0, erf(t) = 1 - p(s) exp(-t^2) with s = 1 / (1 + P t)
// and p a degree-5 polynomial without constant term (|error| <= 1.5e-7). With q = p(s) exp(-x^2/2)
// at t = |x| / sqrt(2), 1 + erf(x / sqrt(2)) is 2 - q for x >= 0 and q for x < 0, so
//
//     y = relu(x) - |x| * q / 2
//
// which needs no sign handling (the builtin lowering divides by |x| for the sign). The 1/2 is folded
// into the polynomial's coefficients. Infinities and NaN give NaN as in torch: |x| * q is inf * 0.
// 20 vector instructions per tile (Div and Exp among them), against about 30 for a literal lowering.
//
// Layout. The tensor is split over the blocks in contiguous ranges whose starts are 512-byte
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

constexpr int32_t IN_BUFFERS = 4;   // tiles of each input in flight: a GM read lands long after it is issued
constexpr int32_t OUT_BUFFERS = 2;
// Tiles in UB: x and y (their queues' buffers) and four float scratch tiles, in 176 KB.
constexpr uint32_t MAX_TILE = (176 * 1024) / ((IN_BUFFERS + OUT_BUFFERS) * sizeof(T) + 4 * 4) / 64 * 64;
constexpr uint32_t ALIGN = 512 / sizeof(T);

// A&S 7.1.26 with t = |x| / sqrt(2): s = 1 / (1 + P t), erfc(t) = s (A1 + s (A2 + ... + s A5)) exp(-t^2).
constexpr float P_OVER_SQRT2 = 0.3275911f * 0.70710678118654752f;
constexpr float C1 = 0.254829592f * 0.5f, C2 = -0.284496736f * 0.5f, C3 = 1.421413741f * 0.5f;
constexpr float C4 = -1.453152027f * 0.5f, C5 = 1.061405429f * 0.5f;

class GeluKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TilingData& t)
    {
        uint32_t start = t.perBlock * GetBlockIdx();
        length_ = start >= t.total ? 0 : (t.total - start < t.perBlock ? t.total - start : t.perBlock);
        tile_ = t.tile;
        xGm_.SetGlobalBuffer((__gm__ T*)x + start, length_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + start, length_);
        pipe_.InitBuffer(inQueue_, IN_BUFFERS, tile_ * sizeof(T));
        pipe_.InitBuffer(outQueue_, OUT_BUFFERS, tile_ * sizeof(T));
        pipe_.InitBuffer(scratch_, 4 * tile_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        if (length_ == 0) return;
        Duplicate(scratch_.Get<float>()[3 * tile_], 1.0f, static_cast<int32_t>(tile_));
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
        LocalTensor<T> x = inQueue_.AllocTensor<T>();
        if (count * sizeof(T) % 32 == 0) {
            DataCopy(x, xGm_[offset], count);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
            DataCopyPad(x, xGm_[offset], params, pad);
        }
        inQueue_.EnQue(x);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> x = inQueue_.DeQue<T>();
        LocalTensor<T> y = outQueue_.AllocTensor<T>();
        LocalTensor<float> scratch = scratch_.Get<float>();
        LocalTensor<float> ax = scratch, s = scratch[tile_], q = scratch[2 * tile_], ones = scratch[3 * tile_];
        int32_t n = static_cast<int32_t>(count);
        Abs(ax, x, n);
        Muls(s, ax, P_OVER_SQRT2, n);
        Adds(s, s, 1.0f, n);
        Div(s, ones, s, n);
        Muls(q, s, C5, n);  // Horner: q = s (C1 + s (C2 + s (C3 + s (C4 + s C5))))
        Adds(q, q, C4, n);
        Mul(q, q, s, n);
        Adds(q, q, C3, n);
        Mul(q, q, s, n);
        Adds(q, q, C2, n);
        Mul(q, q, s, n);
        Adds(q, q, C1, n);
        Mul(q, q, s, n);
        Muls(s, x, -0.5f, n);  // s = exp(-x^2 / 2)
        Mul(s, s, x, n);
        Exp(s, s, n);
        Mul(q, q, s, n);
        Mul(q, q, ax, n);  // |x| q / 2
        Relu(y, x, n);
        Sub(y, y, q, n);
        outQueue_.EnQue(y);
        inQueue_.FreeTensor(x);
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
    TQue<QuePosition::VECIN, 1> inQueue_;
    TQue<QuePosition::VECOUT, 1> outQueue_;
    TBuf<QuePosition::VECCALC> scratch_;
    GlobalTensor<T> xGm_, yGm_;
    uint32_t length_ = 0, tile_ = 0;
};

// ---- host side ---------------------------------------------------------------------------------

// Vector cycles of a tile of n elements: 20 instructions of about 10 cycles to issue, then a
// 256-byte repeat a cycle (Div and Exp: four).
static double TileCycles(uint64_t n)
{
    return 20 * 10.0 + (18 + 2 * 4.0) * ((n + 63) / 64);
}

// @part flat_plan

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    if (tensorCount != 2 || coreNum == 0) return 0;
    uint64_t total = 1;
    for (int32_t d = 0; d < ranks[0]; ++d) total *= static_cast<uint64_t>(dims[d]);
    if (total == 0 || total > 0xFFFFFFFFull) return 0;
    Plan plan = BestPlan(coreNum, total, sizeof(T), sizeof(T));
    tiling->total = static_cast<uint32_t>(total);
    tiling->perBlock = static_cast<uint32_t>(plan.perBlock);
    tiling->tile = static_cast<uint32_t>(plan.tile);
    *workspaceBytes = 0;
    return static_cast<uint32_t>((total + plan.perBlock - 1) / plan.perBlock);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    GeluKernel op;
    op.Init(x, y, t);
    op.Process();
}
