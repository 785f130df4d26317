// Built-in generator template: torch.histc(x, bins, min, max) of a float32 tensor, with torch's CPU binning.
//
// torch (HistogramKernel.cpp, LINEAR_INTERPOLATION) puts an element x with min <= x <= max (NaN and the rest
// are skipped) in bin trunc((x - min) * bins / (max - min)), each step rounded to float, the last bin also
// taking x == max; min and max are the float32 values of the given range and max - min is computed in float.
// Each block counts its contiguous range of the input: per tile the bin of every element as a float (Adds,
// Muls, Div, each rounded as torch rounds; Mins folds "x == max" into the last bin; elements outside the range
// get the bin BINS, which nothing counts), then either per bin a CompareScalar and a counting GatherMask
// (vector counting, for few bins) or one scalar increment per element (many bins). The blocks publish their
// counts to the workspace, meet at SyncAll, and block 0 adds them up in order and writes the histogram.
// Counts are exact in float up to 2^24, so the tiling declines more elements than that.
//
// The regions between "// <<name" and "// >>name" are written by torch_ascendgen's generator; as checked in
// they hold an example — torch.histc(x, 10, -1, 1) — so that this file is a complete kernel an editor and a
// compiler can check.
#include "kernel_operator.h"

using namespace AscendC;

struct TilingData {
    uint32_t total;     // elements of the input
    uint32_t perBlock;  // elements per block (a multiple of 64); the last block takes the rest
    uint32_t blocks;
    uint32_t reserved;
};

// <<config
constexpr uint32_t BINS = 10;
constexpr float LOW = -0x1p+0f;        // float32(min)
constexpr float HIGH = 0x1p+0f;        // float32(max)
constexpr float SPAN = 0x1p+1f;        // HIGH - LOW, rounded to float as torch computes it
constexpr uint32_t TILE = 4096;        // elements per tile (a multiple of 64)
constexpr int32_t BUFFER_NUM = 2;
constexpr bool SCALAR_COUNT = false;   // count with the scalar unit (many bins) instead of per-bin vector passes
constexpr int32_t SOURCE = 0;          // the input counted
// >>config

constexpr uint32_t MAX_BLOCKS = 64;
constexpr uint32_t BINS_PAD = (BINS + 1 + 63) / 64 * 64;  // the bins and the "outside" bin, 256-byte rounded
constexpr uint32_t SLOTS_AT_ONCE = 8192 / BINS_PAD > 0 ? 8192 / BINS_PAD : 1;  // blocks' counts Finish loads at once

class HistcKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR hist, GM_ADDR workspace, const TilingData& t)
    {
        uint32_t start = t.perBlock * GetBlockIdx();
        length_ = start >= t.total ? 0 : (t.total - start < t.perBlock ? t.total - start : t.perBlock);
        blocks_ = t.blocks;
        inGm_.SetGlobalBuffer((__gm__ float*)x + start);
        outGm_.SetGlobalBuffer((__gm__ float*)hist, BINS);
        workGm_.SetGlobalBuffer((__gm__ float*)workspace, MAX_BLOCKS * BINS_PAD);
        pipe_.InitBuffer(inQ_, BUFFER_NUM, TILE * sizeof(float));
        pipe_.InitBuffer(work_, 4 * TILE * sizeof(float) + 2 * TILE / 8);
        pipe_.InitBuffer(countBuf_, BINS_PAD * sizeof(float));  // its own buffer: the scalar unit's, between passes
        pipe_.InitBuffer(sumBuf_, BINS_PAD * sizeof(float));
        pipe_.InitBuffer(slotBuf_, SLOTS_AT_ONCE * BINS_PAD * sizeof(float));
        LocalTensor<float> all = work_.Get<float>();
        q_ = all[0];
        qi_ = all[TILE].ReinterpretCast<int32_t>();
        divisor_ = all[2 * TILE];
        positions_ = all[3 * TILE];
        counts_ = countBuf_.Get<float>();
        sums_ = sumBuf_.Get<float>();
        LocalTensor<uint8_t> masks = all[4 * TILE].ReinterpretCast<uint8_t>();
        mIn_ = masks[0];
        mHi_ = masks[TILE / 8];
        Duplicate(divisor_, SPAN, TILE);
        Duplicate(counts_, 0.0f, BINS_PAD);
        CreateVecIndex(qi_, int32_t(0), TILE);
        PipeBarrier<PIPE_V>();
        Cast(positions_, qi_, RoundMode::CAST_RINT, TILE);
        PipeBarrier<PIPE_V>();
    }

    __aicore__ inline void Process()
    {
        for (uint32_t offset = 0; offset < length_; offset += TILE) {
            uint32_t count = length_ - offset < TILE ? length_ - offset : TILE;
            CopyIn(offset, count);
            Count(count);
        }
        Publish();
        SyncAll();
        if (GetBlockIdx() == 0) Finish();
    }

private:
    template <HardEvent E>
    __aicore__ inline void Sync()
    {
        event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(E));
        SetFlag<E>(id);
        WaitFlag<E>(id);
    }

    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        LocalTensor<float> local = inQ_.AllocTensor<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
        DataCopyPad(local, inGm_[offset], params, pad);
        inQ_.EnQue(local);
    }

    // Each element's bin as a float in q_ (BINS where torch skips the element), then the counts.
    __aicore__ inline void Count(uint32_t count)
    {
        uint32_t padded = (count + 63) / 64 * 64;
        LocalTensor<float> x = inQ_.DeQue<float>();
        CompareScalar(mIn_, x, LOW, CMPMODE::GE, padded);
        CompareScalar(mHi_, x, HIGH, CMPMODE::LE, padded);
        Adds(q_, x, -LOW, padded);
        PipeBarrier<PIPE_V>();
        And(mIn_.ReinterpretCast<uint16_t>(), mIn_.ReinterpretCast<uint16_t>(), mHi_.ReinterpretCast<uint16_t>(),
            padded / 16);
        CompareScalar(mHi_, positions_, float(count), CMPMODE::LT, padded);  // the tile's real elements
        Muls(q_, q_, float(BINS), padded);
        PipeBarrier<PIPE_V>();
        And(mIn_.ReinterpretCast<uint16_t>(), mIn_.ReinterpretCast<uint16_t>(), mHi_.ReinterpretCast<uint16_t>(),
            padded / 16);
        Div(q_, q_, divisor_, padded);
        PipeBarrier<PIPE_V>();
        Mins(q_, q_, float(BINS - 1), padded);
        PipeBarrier<PIPE_V>();
        Select(q_, mIn_, q_, float(BINS), SELMODE::VSEL_TENSOR_SCALAR_MODE, padded);
        PipeBarrier<PIPE_V>();
        Cast(qi_, q_, RoundMode::CAST_TRUNC, padded);
        inQ_.FreeTensor(x);
        PipeBarrier<PIPE_V>();
        if constexpr (SCALAR_COUNT) {
            Sync<HardEvent::V_S>();
            for (uint32_t i = 0; i < count; ++i) {
                int32_t bin = qi_.GetValue(i);
                counts_.SetValue(bin, counts_.GetValue(bin) + 1.0f);
            }
            Sync<HardEvent::S_V>();
        } else {
            Cast(q_, qi_, RoundMode::CAST_RINT, padded);
            PipeBarrier<PIPE_V>();
            LocalTensor<float> kept = qi_.ReinterpretCast<float>();  // GatherMask's output: only its count is used
            GatherMaskParams params{1, 1, 0, 0};
            Sync<HardEvent::V_S>();  // counts_ (Duplicate, Add) to the scalar unit
            for (uint32_t b = 0; b < BINS; ++b) {
                CompareScalar(mHi_, q_, float(b), CMPMODE::EQ, padded);
                PipeBarrier<PIPE_V>();
                uint64_t found = 0;
                GatherMask(kept, q_, mHi_.ReinterpretCast<uint32_t>(), true, padded, params, found);
                PipeBarrier<PIPE_V>();
                if (found != 0) counts_.SetValue(b, counts_.GetValue(b) + float(found));
            }
            Sync<HardEvent::S_V>();
        }
    }

    // This block's counts to its slot of the workspace.
    __aicore__ inline void Publish()
    {
        Sync<HardEvent::V_MTE3>();
        Sync<HardEvent::S_MTE3>();
        DataCopy(workGm_[GetBlockIdx() * BINS_PAD], counts_, BINS_PAD);
    }

    // Block 0: the blocks' counts added in block order, written as the histogram.
    __aicore__ inline void Finish()
    {
        LocalTensor<float> slots = slotBuf_.Get<float>();
        Duplicate(sums_, 0.0f, BINS_PAD);
        for (uint32_t first = 0; first < blocks_; first += SLOTS_AT_ONCE) {
            uint32_t group = blocks_ - first < SLOTS_AT_ONCE ? blocks_ - first : SLOTS_AT_ONCE;
            Sync<HardEvent::V_MTE2>();
            DataCopy(slots, workGm_[first * BINS_PAD], group * BINS_PAD);
            Sync<HardEvent::MTE2_V>();
            for (uint32_t b = 0; b < group; ++b) {
                Add(sums_, sums_, slots[b * BINS_PAD], BINS_PAD);
                PipeBarrier<PIPE_V>();
            }
        }
        Sync<HardEvent::V_MTE3>();
        DataCopyExtParams params{1, static_cast<uint32_t>(BINS * sizeof(float)), 0, 0, 0};
        DataCopyPad(outGm_, sums_, params);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, 1> inQ_;
    TBuf<QuePosition::VECCALC> work_, countBuf_, sumBuf_, slotBuf_;
    GlobalTensor<float> inGm_, outGm_, workGm_;
    LocalTensor<float> q_, divisor_, positions_, counts_, sums_;
    LocalTensor<int32_t> qi_;
    LocalTensor<uint8_t> mIn_, mHi_;
    uint32_t length_ = 0;
    uint32_t blocks_ = 0;
};

// Host side: blocks of at least MIN_BLOCK elements, at most one per core and MAX_BLOCKS in all (SyncAll needs
// every block resident); a workspace slot per block. Declines more than 2^24 elements (float counts stay exact
// up to there, as torch's do).
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    constexpr uint64_t MIN_BLOCK = 8192;
    if (tensorCount <= SOURCE) return 0;
    int32_t offset = 0;
    for (int32_t i = 0; i < SOURCE; ++i) offset += ranks[i];
    uint64_t total = 1;
    for (int32_t d = 0; d < ranks[SOURCE]; ++d) total *= static_cast<uint64_t>(dims[offset + d]);
    if (total == 0 || total > (1ull << 24)) return 0;
    uint64_t limit = coreNum < MAX_BLOCKS ? coreNum : MAX_BLOCKS;
    uint64_t blocks = (total + MIN_BLOCK - 1) / MIN_BLOCK;
    if (blocks > limit) blocks = limit;
    uint64_t perBlock = ((total + blocks - 1) / blocks + 63) / 64 * 64;
    blocks = (total + perBlock - 1) / perBlock;
    tiling->total = static_cast<uint32_t>(total);
    tiling->perBlock = static_cast<uint32_t>(perBlock);
    tiling->blocks = static_cast<uint32_t>(blocks);
    tiling->reserved = 0;
    *workspaceBytes = MAX_BLOCKS * BINS_PAD * sizeof(float);
    return static_cast<uint32_t>(blocks);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(
    // <<entry_params
    GM_ADDR in0, GM_ADDR out0,
    // >>entry_params
    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    HistcKernel op;
    op.Init(
        // <<entry_args
        in0, out0,
        // >>entry_args
        workspace, t);
    op.Process();
}
