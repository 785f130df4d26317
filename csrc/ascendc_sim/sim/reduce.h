// Reductions: ReduceSum/Max/Min (count and level-0 forms, with a work buffer), WholeReduceSum/
// Max/Min and RepeatReduceSum (one result per repeat), BlockReduceSum/Max/Min (one result per
// 32-byte block) and PairReduceSum (one result per adjacent pair).
//
// Semantics, from the asc-devkit v8.5.0 pages ReduceSum.md, ReduceMax.md, ReduceMin.md,
// WholeReduce{Sum,Max,Min}.md, RepeatReduceSum.md, BlockReduce{Sum,Max,Min}.md, PairReduceSum.md:
// - A sum inside one repeat (inside one block for BlockReduceSum) is a binary tree of adjacent
//   pairs: (d0+d1), (d2+d3), ..., then pairs of those. Masked-off lanes add 0. Each addition is
//   rounded to the instruction's dtype; a finite half sum beyond +-65504 is stored as +-65504
//   (the pages' 60000+60000 example). float follows IEEE.
// - Count-form ReduceSum on Atlas A2/A3 adds the per-repeat tree results in order ("方式二");
//   the level-0 form reduces the per-repeat results again as trees, in rounds of one repeat's
//   worth of results ("方式一").
// - Max/Min give the first index of the extreme. The index is stored as integer bits in a dst
//   slot: uint16 in a half slot, uint32 in a float slot (uint32 for ORDER_ONLY_INDEX). NaN
//   counts as the extreme and the first NaN wins, as in torch.max (an assumption: the pages do
//   not say).
// - Lanes of a repeat are numbered 0..N-1 in block order whatever srcBlkStride is, so an index
//   is the lane number; ReduceMax/Min level-0 form returns repeat * N + lane.
// - BlockReduce writes no result for a block whose lanes are all masked off, PairReduceSum none
//   for a pair whose two lanes are (an assumption).
// - GetReduceMaxMinCount(ISASI).md reads the last WholeReduceMax/Min or ReduceMax/Min result: defined
//   after a one-repeat WholeReduce; after ReduceMax/Min only the value (the page: the index is not
//   accurate), after several repeats neither; undefined parts read as poison (0xFF bytes).
// - GetAccVal(ISASI).md reads the result of the last count-form ReduceSum of this core.
#pragma once
#include <cmath>
#include <vector>

#include "vector_ops.h"

namespace AscendC {

enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

namespace reduce_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using ascendc_sim::dtype_bit;
using ascendc_sim::fail;

constexpr uint32_t kTypes = dtype_bit(DType::F16) | dtype_bit(DType::F32);

template <typename T>
struct Geometry {
    static constexpr uint32_t lanes = ascendc_sim::kRepeatBytes / sizeof(T);  // per repeat
    static constexpr uint32_t block = ascendc_sim::kBlockBytes / sizeof(T);  // per 32-byte block
};

// The lanes of one repeat that take part, from a continuous or a bitwise mask.
struct LaneMask {
    uint64_t bits[2] = {0, 0};
    bool on(uint32_t lane) const { return (bits[lane >> 6] >> (lane & 63)) & 1u; }
    bool full(uint32_t lanes) const {
        return lanes == 128 ? (bits[0] == ~0ull && bits[1] == ~0ull) : (bits[0] == ~0ull);
    }
};

struct MaskArg {
    const uint64_t* bitwise;  // null for a continuous mask
    int64_t count;
};

template <typename T>
LaneMask decode_mask(const MaskArg& arg, const char* api, Loc loc) {
    constexpr uint32_t lanes = Geometry<T>::lanes;
    const char* dtype = ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>);
    LaneMask m;
    if (arg.bitwise == nullptr) {
        if (arg.count < 1 || arg.count > int64_t(lanes))
            fail(Diag::BadMask, loc,
                 "%s: mask is %lld, but a continuous mask for %s must be in [1, %u] (the elements of one 256-byte "
                 "repeat). Pass the number of elements of a repeat that take part; use more repeats for more.%s",
                 api, (long long)arg.count, dtype, lanes,
                 arg.count == 0 ? " A mask of 0 (MASK_PLACEHOLDER) is only valid with isSetMask = false, after "
                                  "SetVectorMask."
                                : "");
        uint32_t n = static_cast<uint32_t>(arg.count);
        m.bits[0] = n >= 64 ? ~0ull : (1ull << n) - 1;
        m.bits[1] = n >= 128 ? ~0ull : n > 64 ? (1ull << (n - 64)) - 1 : 0;
        return m;
    }
    m.bits[0] = arg.bitwise[0];
    m.bits[1] = lanes == 128 ? arg.bitwise[1] : 0;
    if (m.bits[0] == 0 && m.bits[1] == 0)
        fail(Diag::BadMask, loc,
             lanes == 128 ? "%s: the bitwise mask is all zero (mask[0] and mask[1]); for %s at least one bit must be set. "
                            "Skip the call when no element takes part."
                          : "%s: the bitwise mask mask[0] is zero; for %s (one 64-bit word, mask[1] is not read) at "
                            "least one bit must be set. Skip the call when no element takes part.",
             api, dtype);
    return m;
}

// The level-0 ReduceSum/Max/Min take any int32 repeatTime; past this many repeats (far more than
// UB holds unless srcRepStride is 0) the simulator refuses rather than allocate per repeat.
constexpr int64_t kMaxReduceRepeats = int64_t(1) << 20;

inline void check_repeat_and_strides(int64_t repeat, std::initializer_list<int64_t> strides, bool limit_255,
                                     const char* api, Loc loc) {
    if (repeat < 0)
        fail(Diag::BadArgument, loc, "%s: repeatTime is %lld; it must not be negative.", api, (long long)repeat);
    if (limit_255) ascendc_sim::check_repeat(static_cast<uint64_t>(repeat), api, loc);
    if (repeat > kMaxReduceRepeats)
        fail(Diag::UnsupportedApi, loc,
             "%s: repeatTime is %lld; the simulator supports at most %lld repeats in one call. Use the count form, "
             "or split the call.",
             api, (long long)repeat, (long long)kMaxReduceRepeats);
    for (int64_t s : strides)
        if (s < 0)
            fail(Diag::BadArgument, loc,
                 "%s: a stride is %lld; block and repeat strides are counts of 32-byte blocks (or of results) and "
                 "must not be negative.",
                 api, (long long)s);
}

// Which lanes each repeat of a level-0 call runs: `mask` for every repeat, except that in counter
// mode (SetMaskCount, isSetMask = false) the last repeat runs only its first `tail` lanes.
struct Plan {
    LaneMask mask;
    int64_t repeats = 0;
    uint32_t tail = 0;
    LaneMask for_repeat(int64_t r) const {
        if (tail == 0 || r + 1 != repeats) return mask;
        LaneMask m;
        m.bits[0] = tail >= 64 ? ~0ull : (1ull << tail) - 1;
        m.bits[1] = tail > 64 ? (1ull << (tail - 64)) - 1 : 0;
        return m;
    }
};

// isSetMask = true: the mask argument and repeatTime. isSetMask = false: the mask register that
// SetVectorMask / SetMaskCount set (kept by vector_ops.h); in counter mode it holds the element
// count and repeatTime is ignored.
template <typename T, bool isSetMask>
Plan make_plan(ascendc_sim::CoreState& c, const MaskArg& mask_arg, int64_t repeat, std::initializer_list<int64_t> strides,
               bool limit_255, const char* api, Loc loc) {
    constexpr uint32_t lanes = Geometry<T>::lanes;
    Plan p;
    if constexpr (!isSetMask) {
        const sim_detail::MaskRegister& reg = sim_detail::mask_register(c);
        if (reg.counter) {
            if (reg.lo == 0)
                fail(Diag::BadMask, loc,
                     "%s runs in counter mode (SetMaskCount) with an element count of 0. Call SetVectorMask<T, "
                     "MaskMode::COUNTER>(count) with the number of elements first.",
                     api);
            check_repeat_and_strides(0, strides, false, api, loc);
            p.mask.bits[0] = p.mask.bits[1] = ~0ull;
            p.repeats = static_cast<int64_t>((reg.lo + lanes - 1) / lanes);
            p.tail = static_cast<uint32_t>(reg.lo - uint64_t(p.repeats - 1) * lanes);
            if (p.tail == lanes) p.tail = 0;
            return p;
        }
        p.mask.bits[0] = reg.lo;
        p.mask.bits[1] = lanes == 128 ? reg.hi : 0;
        if (p.mask.bits[0] == 0 && p.mask.bits[1] == 0)
            fail(Diag::BadMask, loc,
                 "%s (isSetMask = false) uses the mask set by SetVectorMask, which enables no lane. Set a non-zero "
                 "mask with SetVectorMask, or pass the mask to the call with isSetMask = true.",
                 api);
    } else {
        p.mask = decode_mask<T>(mask_arg, api, loc);
    }
    (void)c;
    check_repeat_and_strides(repeat, strides, limit_255, api, loc);
    p.repeats = repeat;
    return p;
}

inline int last_lane(const LaneMask& m) {
    if (m.bits[1]) return 127 - __builtin_clzll(m.bits[1]);
    if (m.bits[0]) return 63 - __builtin_clzll(m.bits[0]);
    return -1;
}

// A destination whose start need only be aligned to `align` bytes (the reduce pages relax the
// 32-byte rule for dst), with room for `elements`.
template <typename T>
void check_dst(const LocalTensor<T>& t, uint64_t elements, uint32_t align, const char* api, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (t.GetPhyAddrPtr() == nullptr)
        fail(Diag::BadArgument, loc,
             "%s: dst is an empty LocalTensor (never allocated). Get it from a queue's AllocTensor/DeQue or a TBuf's "
             "Get first.",
             api);
    uint64_t offset = ascendc_sim::ub_offset(c, t.GetPhyAddrPtr());
    if (offset % align != 0)
        fail(Diag::UbMisaligned, loc,
             "%s: dst starts at UB byte offset %llu, which is not %u-byte aligned as this instruction requires. "
             "Offset dst by a multiple of %u elements.",
             api, (unsigned long long)offset, align, unsigned(align / sizeof(T)));
    if (elements > t.GetSize())
        fail(Diag::LocalOverrun, loc,
             "%s: dst needs %llu elements of %s for these repeats and strides but the LocalTensor has only %u (UB byte "
             "offset %llu). Give dst more room or fewer repeats / a smaller dstRepStride.",
             api, (unsigned long long)elements, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), (unsigned)t.GetSize(),
             (unsigned long long)offset);
}

// Elements of src a level-0 instruction reads (up to and including its last active lane).
template <typename T>
uint64_t src_footprint(const Plan& p, int64_t blk_stride, int64_t rep_stride) {
    constexpr uint32_t lanes = Geometry<T>::lanes, block = Geometry<T>::block;
    auto end_of = [&](int64_t r) {
        LaneMask m = p.for_repeat(r);
        uint64_t last = 0;
        for (uint32_t lane = 0; lane < lanes; ++lane)
            if (m.on(lane)) last = std::max<uint64_t>(last, uint64_t(lane / block) * blk_stride * block + lane % block);
        return uint64_t(r) * rep_stride * block + last + 1;
    };
    uint64_t end = end_of(p.repeats - 1);
    return p.repeats >= 2 ? std::max(end, end_of(p.repeats - 2)) : end;
}

// Elements of dst written when repeat r's results start at r * stride and result k belongs to lane
// k * lanes_per_result .. (k + 1) * lanes_per_result - 1.
inline uint64_t dst_footprint(const Plan& p, uint64_t stride, uint32_t lanes_per_result) {
    auto end_of = [&](int64_t r) { return uint64_t(r) * stride + uint64_t(last_lane(p.for_repeat(r))) / lanes_per_result + 1; };
    uint64_t end = end_of(p.repeats - 1);
    return p.repeats >= 2 ? std::max(end, end_of(p.repeats - 2)) : end;
}

template <typename T>
inline T add(T a, T b) {
    if constexpr (std::is_same_v<T, half>) {
        half s = half(a + b);
        if (std::isinf(float(s)) && !std::isinf(float(a)) && !std::isinf(float(b)))
            s = float(s) > 0 ? half(65504.0f) : half(-65504.0f);
        return s;
    } else {
        return T(a + b);
    }
}

// Adjacent-pair tree over v[0..n), n a power of two; v is overwritten.
template <typename T>
inline T tree_sum(T* v, uint32_t n) {
    for (uint32_t w = n; w > 1; w >>= 1)
        for (uint32_t i = 0; i < w / 2; ++i) v[i] = add(v[2 * i], v[2 * i + 1]);
    return v[0];
}

// One repeat's lanes into out[0..lanes), 0 where the mask is off.
template <typename T>
inline void gather(const T* base, const LaneMask& m, int64_t blk_stride, T* out) {
    constexpr uint32_t lanes = Geometry<T>::lanes, block = Geometry<T>::block;
    if (blk_stride == 1 && m.full(lanes)) {
        for (uint32_t l = 0; l < lanes; ++l) out[l] = base[l];
        return;
    }
    for (uint32_t l = 0; l < lanes; ++l)
        out[l] = m.on(l) ? base[(l / block) * blk_stride * block + l % block] : T(0);
}

template <bool IsMax, typename T>
inline bool beats(T v, T best) {
    if (best != best) return false;
    if (v != v) return true;
    return IsMax ? v > best : v < best;
}

template <typename T>
struct Extreme {
    T value;
    uint32_t index;
};

template <bool IsMax, typename T>
inline Extreme<T> repeat_extreme(const T* base, const LaneMask& m, int64_t blk_stride, uint32_t valid_lanes) {
    constexpr uint32_t lanes = Geometry<T>::lanes, block = Geometry<T>::block;
    Extreme<T> best{T(0), lanes};
    bool dense = blk_stride == 1 && m.full(lanes);
    for (uint32_t l = 0; l < valid_lanes; ++l) {
        if (!dense && !m.on(l)) continue;
        T v = dense ? base[l] : base[(l / block) * blk_stride * block + l % block];
        if (best.index == lanes || beats<IsMax>(v, best.value)) best = {v, l};
    }
    return best;
}

template <typename T>
inline T index_bits(uint32_t index) {
    T t;
    if constexpr (sizeof(T) == 2) {
        uint16_t b = static_cast<uint16_t>(index);
        std::memcpy(&t, &b, sizeof b);
    } else {
        uint32_t b = index;
        std::memcpy(&t, &b, sizeof b);
    }
    return t;
}

// The value / index register GetReduceMaxMinCount reads (GetReduceMaxMinCount(ISASI).md): set by
// WholeReduceMax/Min and ReduceMax/Min. What it holds after several repeats is not documented, and
// after ReduceMax/Min the page says the index is not accurate: those are kept as poisoned.
struct MaxMinRegister {
    const ascendc_sim::CoreState* core = nullptr;
    uint64_t launch = 0;
    DType dtype = DType::F32;
    uint32_t value = 0, index = 0;  // bits of a T
    bool value_ok = false, index_ok = false;
};

inline MaxMinRegister& max_min_register() {
    static thread_local MaxMinRegister r;
    return r;
}

template <typename T>
void set_max_min(const ascendc_sim::CoreState& c, T value, uint32_t index, bool value_ok, bool index_ok) {
    MaxMinRegister& r = max_min_register();
    r.core = &c;
    r.launch = c.launch->serial;
    r.dtype = ascendc_sim::dtype_of<T>;
    r.value = r.index = 0;
    std::memcpy(&r.value, &value, sizeof(T));
    T bits = index_bits<T>(index);
    std::memcpy(&r.index, &bits, sizeof(T));
    r.value_ok = value_ok;
    r.index_ok = index_ok;
}

// The accumulator GetAccVal(ISASI).md reads: the result of the last count-form ReduceSum.
struct AccRegister {
    const ascendc_sim::CoreState* core = nullptr;
    uint64_t launch = 0;
    DType dtype = DType::F32;
    uint32_t bits = 0;
};

inline AccRegister& acc_register() {
    static thread_local AccRegister r;
    return r;
}

template <typename T>
void set_acc_val(const ascendc_sim::CoreState& c, T value) {
    AccRegister& r = acc_register();
    r = AccRegister{&c, c.launch->serial, ascendc_sim::dtype_of<T>, 0};
    std::memcpy(&r.bits, &value, sizeof(T));
}

// Repeats the whole reduction issues: the first round, then rounds over the partial results.
inline uint64_t total_repeats(uint64_t first, uint32_t per_repeat_results, uint32_t lanes) {
    uint64_t total = first, n = first * per_repeat_results;
    while (n > per_repeat_results) {
        uint64_t r = (n + lanes - 1) / lanes;
        total += r;
        n = r * per_repeat_results;
    }
    return total;
}

inline int64_t round_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

// Minimum work buffer of ReduceMax/ReduceMin in elements, per the ReduceMax page: every round
// writes (value, index) pairs; without calIndex the rounds reuse the first round's space, with
// calIndex each round keeps its own 32-byte aligned space. The page's worked example four
// (the pairs fit one repeat after round two) shows the rounds stop once two elements remain.
template <typename T>
int64_t max_min_work_elements(int64_t first_max_repeat, bool cal_index) {
    constexpr int64_t lanes = Geometry<T>::lanes, block = Geometry<T>::block;
    int64_t out = first_max_repeat * 2;
    int64_t need = round_up(out, block);
    if (!cal_index) return need;
    while (out > 2) {
        out = (out + lanes - 1) / lanes * 2;
        need += round_up(out, block);
    }
    return need;
}

template <typename T>
void check_work(const LocalTensor<T>& work, int64_t need, const char* api, const char* how, Loc loc) {
    ascendc_sim::check_operand(work, 0, api, "sharedTmpBuffer (work)", loc);
    if (int64_t(work.GetSize()) < need)
        fail(Diag::LocalOverrun, loc,
             "%s: sharedTmpBuffer (work) needs at least %lld elements (%lld bytes) but has %u. The %s page sizes it: "
             "%s. Give the work buffer at least that many elements.",
             api, (long long)need, (long long)(need * sizeof(T)), (unsigned)work.GetSize(), api, how);
}

// ---- ReduceSum ---------------------------------------------------------------------------------

template <typename T>
void reduce_sum_count(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work, int32_t count,
                      Loc loc) {
    constexpr uint32_t lanes = Geometry<T>::lanes;
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, "ReduceSum", loc);
    if (count <= 0) return;
    ascendc_sim::check_operand(src, count, "ReduceSum", "src", loc);
    check_dst(dst, 1, sizeof(T), "ReduceSum", loc);
    // The page accepts a work buffer of any size (its values are left unchanged), so only its start is checked.
    ascendc_sim::check_operand(work, 0, "ReduceSum", "sharedTmpBuffer (work)", loc);
    const T* s = src.GetPhyAddrPtr();
    uint64_t repeats = (uint64_t(count) + lanes - 1) / lanes;
    T v[lanes];
    T acc = T(0);
    for (uint64_t r = 0; r < repeats; ++r) {
        uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(lanes, count - r * lanes));
        for (uint32_t l = 0; l < n; ++l) v[l] = s[r * lanes + l];
        for (uint32_t l = n; l < lanes; ++l) v[l] = T(0);
        T partial = tree_sum(v, lanes);
        acc = r == 0 ? partial : add(acc, partial);
    }
    dst.GetPhyAddrPtr()[0] = acc;
    set_acc_val(c, acc);
    ascendc_sim::count_vector(c, OpId::ReduceSum, total_repeats(repeats, 1, lanes), {src.timing(), work.timing()},
                              dst.timing());
}

template <typename T>
void reduce_sum_level0(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                       const MaskArg& mask_arg, int32_t repeat, int32_t src_rep_stride, Loc loc) {
    constexpr uint32_t lanes = Geometry<T>::lanes, block = Geometry<T>::block;
    const char* api = "ReduceSum";
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, api, loc);
    Plan plan = make_plan<T, true>(c, mask_arg, repeat, {src_rep_stride}, false, api, loc);
    if (repeat == 0) return;
    ascendc_sim::check_operand(src, src_footprint<T>(plan, 1, src_rep_stride), api, "src", loc);
    check_dst(dst, 1, sizeof(T), api, loc);
    ascendc_sim::check_operand(work, 0, api, "sharedTmpBuffer (work)", loc);
    const T* s = src.GetPhyAddrPtr();
    std::vector<T> partial(repeat);
    T v[lanes];
    for (int32_t r = 0; r < repeat; ++r) {
        gather(s + int64_t(r) * src_rep_stride * block, plan.mask, 1, v);
        partial[r] = tree_sum(v, lanes);
    }
    size_t n = partial.size();
    while (n > 1) {
        size_t rounds = (n + lanes - 1) / lanes;
        for (size_t g = 0; g < rounds; ++g) {
            for (uint32_t l = 0; l < lanes; ++l) v[l] = g * lanes + l < n ? partial[g * lanes + l] : T(0);
            partial[g] = tree_sum(v, lanes);
        }
        n = rounds;
    }
    dst.GetPhyAddrPtr()[0] = partial[0];
    ascendc_sim::count_vector(c, OpId::ReduceSum, total_repeats(repeat, 1, lanes), {src.timing(), work.timing()},
                              dst.timing());
}

// ---- ReduceMax / ReduceMin -----------------------------------------------------------------------

template <bool IsMax, typename T>
void reduce_extreme(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                    const MaskArg* mask_arg, int64_t count, int32_t repeat, int32_t src_rep_stride, bool cal_index,
                    Loc loc) {
    constexpr uint32_t lanes = Geometry<T>::lanes, block = Geometry<T>::block;
    const char* api = IsMax ? "ReduceMax" : "ReduceMin";
    const OpId op = IsMax ? OpId::ReduceMax : OpId::ReduceMin;
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, api, loc);
    LaneMask m;
    int64_t repeats, first_max_repeat, rep_stride;
    char how[256];
    if (mask_arg == nullptr) {  // count form
        if (count <= 0) return;
        m.bits[0] = m.bits[1] = ~0ull;
        repeats = (count + lanes - 1) / lanes;
        rep_stride = 8;
        first_max_repeat = std::max<int64_t>(1, count / lanes);
        ascendc_sim::check_operand(src, count, api, "src", loc);
        std::snprintf(how, sizeof how, "firstMaxRepeat = count / %u = %lld (at least 1), %s", lanes,
                      (long long)first_max_repeat,
                      cal_index ? "then the (value, index) pairs of every round, each rounded up to 32 bytes"
                                : "then RoundUp(2 * firstMaxRepeat, 32 bytes)");
    } else {
        Plan plan = make_plan<T, true>(c, *mask_arg, repeat, {src_rep_stride}, false, api, loc);
        if (repeat == 0) return;
        m = plan.mask;
        repeats = first_max_repeat = repeat;
        rep_stride = src_rep_stride;
        ascendc_sim::check_operand(src, src_footprint<T>(plan, 1, src_rep_stride), api, "src", loc);
        std::snprintf(how, sizeof how, "firstMaxRepeat = repeatTime = %d, %s", repeat,
                      cal_index ? "then the (value, index) pairs of every round, each rounded up to 32 bytes"
                                : "then RoundUp(2 * firstMaxRepeat, 32 bytes)");
    }
    int64_t covered = mask_arg ? repeats * lanes : count;
    if (sizeof(T) == 2 && cal_index && covered > 65536)
        fail(Diag::BadArgument, loc,
             "%s: with calIndex a half result stores the index as uint16 bits, so only indexes up to 65535 are "
             "supported, but this call covers %lld elements. Reduce at most 65536 half elements per call and combine "
             "the partial results, or Cast to float first.",
             api, (long long)covered);
    check_dst(dst, cal_index ? 2 : 1, 2 * sizeof(T), api, loc);
    check_work(work, max_min_work_elements<T>(first_max_repeat, cal_index), api, how, loc);

    // Round one's (value, lane) pairs go to the work buffer, as on the NPU; they are gathered
    // first because the page allows the work buffer to reuse src.
    static thread_local std::vector<Extreme<T>> round1;
    round1.resize(repeats);
    const T* s = src.GetPhyAddrPtr();
    for (int64_t r = 0; r < repeats; ++r) {
        uint32_t valid = mask_arg ? lanes : static_cast<uint32_t>(std::min<int64_t>(lanes, count - r * lanes));
        round1[r] = repeat_extreme<IsMax>(s + r * rep_stride * block, m, 1, valid);
    }
    Extreme<T> best{T(0), lanes};
    int64_t best_repeat = -1;
    for (int64_t r = 0; r < repeats; ++r) {
        if (round1[r].index == lanes) continue;  // nothing active
        if (best_repeat < 0 || beats<IsMax>(round1[r].value, best.value)) {
            best = round1[r];
            best_repeat = r;
        }
    }
    T* w = work.GetPhyAddrPtr();
    int64_t pairs = std::min<int64_t>(repeats, work.GetSize() / 2);
    for (int64_t r = 0; r < pairs; ++r) {
        w[2 * r] = round1[r].value;
        w[2 * r + 1] = index_bits<T>(round1[r].index == lanes ? 0 : round1[r].index);
    }
    T* d = dst.GetPhyAddrPtr();
    d[0] = best.value;
    if (cal_index) d[1] = index_bits<T>(static_cast<uint32_t>(best_repeat * lanes + best.index));
    set_max_min(c, best.value, 0, true, false);
    ascendc_sim::count_vector(c, op, total_repeats(repeats, 2, lanes), {src.timing(), work.timing()}, dst.timing());
}

// ---- WholeReduce / RepeatReduceSum ----------------------------------------------------------------

template <typename T, bool isSetMask>
void whole_reduce_sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const MaskArg& mask_arg, int32_t repeat,
                      int32_t dst_rep_stride, int32_t src_blk_stride, int32_t src_rep_stride, const char* api, Loc loc) {
    constexpr uint32_t lanes = Geometry<T>::lanes, block = Geometry<T>::block;
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, api, loc);
    Plan plan = make_plan<T, isSetMask>(c, mask_arg, repeat, {dst_rep_stride, src_blk_stride, src_rep_stride}, true,
                                        api, loc);
    if (plan.repeats == 0) return;
    ascendc_sim::check_operand(src, src_footprint<T>(plan, src_blk_stride, src_rep_stride), api, "src", loc);
    check_dst(dst, uint64_t(plan.repeats - 1) * dst_rep_stride + 1, sizeof(T), api, loc);
    const T* s = src.GetPhyAddrPtr();
    T* d = dst.GetPhyAddrPtr();
    T v[lanes];
    for (int64_t r = 0; r < plan.repeats; ++r) {
        gather(s + r * src_rep_stride * block, plan.for_repeat(r), src_blk_stride, v);
        d[r * dst_rep_stride] = tree_sum(v, lanes);
    }
    ascendc_sim::count_vector(c, OpId::WholeReduceSum, plan.repeats, {src.timing()}, dst.timing());
}

template <bool IsMax, bool isSetMask, typename T>
void whole_reduce_extreme(const LocalTensor<T>& dst, const LocalTensor<T>& src, const MaskArg& mask_arg,
                          int32_t repeat, int32_t dst_rep_stride, int32_t src_blk_stride, int32_t src_rep_stride,
                          ReduceOrder order, Loc loc) {
    constexpr uint32_t lanes = Geometry<T>::lanes, block = Geometry<T>::block;
    const char* api = IsMax ? "WholeReduceMax" : "WholeReduceMin";
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, api, loc);
    Plan plan = make_plan<T, isSetMask>(c, mask_arg, repeat, {dst_rep_stride, src_blk_stride, src_rep_stride}, true,
                                        api, loc);
    if (static_cast<uint32_t>(order) > static_cast<uint32_t>(ReduceOrder::ORDER_ONLY_INDEX))
        fail(Diag::BadArgument, loc, "%s: order is %u, which is not a ReduceOrder value.", api, unsigned(order));
    if (plan.repeats == 0) return;
    // dstRepStride counts results: (value, index) pairs, single values, or uint32 indexes.
    uint32_t unit = order == ReduceOrder::ORDER_ONLY_VALUE ? 1
                    : order == ReduceOrder::ORDER_ONLY_INDEX ? uint32_t(sizeof(uint32_t) / sizeof(T))
                                                             : 2;
    ascendc_sim::check_operand(src, src_footprint<T>(plan, src_blk_stride, src_rep_stride), api, "src", loc);
    check_dst(dst, uint64_t(plan.repeats - 1) * dst_rep_stride * unit + unit, 2 * sizeof(T), api, loc);
    const T* s = src.GetPhyAddrPtr();
    T* d = dst.GetPhyAddrPtr();
    Extreme<T> e{T(0), 0};
    for (int64_t r = 0; r < plan.repeats; ++r) {
        e = repeat_extreme<IsMax>(s + r * src_rep_stride * block, plan.for_repeat(r), src_blk_stride, lanes);
        T* out = d + r * dst_rep_stride * unit;
        switch (order) {
            case ReduceOrder::ORDER_VALUE_INDEX: out[0] = e.value; out[1] = index_bits<T>(e.index); break;
            case ReduceOrder::ORDER_INDEX_VALUE: out[0] = index_bits<T>(e.index); out[1] = e.value; break;
            case ReduceOrder::ORDER_ONLY_VALUE: out[0] = e.value; break;
            case ReduceOrder::ORDER_ONLY_INDEX: {
                uint32_t bits = e.index;
                std::memcpy(out, &bits, sizeof bits);
                break;
            }
        }
    }
    set_max_min(c, e.value, e.index, plan.repeats == 1, plan.repeats == 1);
    ascendc_sim::count_vector(c, IsMax ? OpId::WholeReduceMax : OpId::WholeReduceMin, plan.repeats, {src.timing()},
                              dst.timing());
}

// ---- BlockReduce / PairReduceSum ------------------------------------------------------------------

enum class BlockOp { Sum, Max, Min };

template <BlockOp Kind, bool isSetMask, typename T>
void block_reduce(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat, const MaskArg& mask_arg,
                  int32_t dst_rep_stride, int32_t src_blk_stride, int32_t src_rep_stride, Loc loc) {
    constexpr uint32_t block = Geometry<T>::block;
    constexpr const char* api = Kind == BlockOp::Sum ? "BlockReduceSum" : Kind == BlockOp::Max ? "BlockReduceMax" : "BlockReduceMin";
    constexpr OpId op = Kind == BlockOp::Sum ? OpId::BlockReduceSum : Kind == BlockOp::Max ? OpId::BlockReduceMax : OpId::BlockReduceMin;
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, api, loc);
    Plan plan = make_plan<T, isSetMask>(c, mask_arg, repeat, {dst_rep_stride, src_blk_stride, src_rep_stride}, true,
                                        api, loc);
    if (plan.repeats == 0) return;
    ascendc_sim::check_operand(src, src_footprint<T>(plan, src_blk_stride, src_rep_stride), api, "src", loc);
    // dstRepStride is in units of one repeat's 8 results (16 bytes for half, 32 for float).
    check_dst(dst, dst_footprint(plan, uint64_t(dst_rep_stride) * 8, block), 8 * sizeof(T), api, loc);
    const T* s = src.GetPhyAddrPtr();
    T* d = dst.GetPhyAddrPtr();
    T v[block];
    for (int64_t r = 0; r < plan.repeats; ++r) {
        const T* base = s + r * src_rep_stride * block;
        T* out = d + r * dst_rep_stride * 8;
        LaneMask m = plan.for_repeat(r);
        for (uint32_t b = 0; b < 8; ++b) {
            const T* blk = base + int64_t(b) * src_blk_stride * block;
            bool any = false;
            if constexpr (Kind == BlockOp::Sum) {
                for (uint32_t j = 0; j < block; ++j) {
                    bool on = m.on(b * block + j);
                    any |= on;
                    v[j] = on ? blk[j] : T(0);
                }
                if (any) out[b] = tree_sum(v, block);
            } else {
                T best = T(0);
                for (uint32_t j = 0; j < block; ++j) {
                    if (!m.on(b * block + j)) continue;
                    if (!any || beats<Kind == BlockOp::Max>(blk[j], best)) best = blk[j];
                    any = true;
                }
                if (any) out[b] = best;
            }
        }
    }
    ascendc_sim::count_vector(c, op, plan.repeats, {src.timing()}, dst.timing());
}

template <typename T, bool isSetMask>
void pair_reduce_sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat, const MaskArg& mask_arg,
                     int32_t dst_rep_stride, int32_t src_blk_stride, int32_t src_rep_stride, Loc loc) {
    constexpr uint32_t lanes = Geometry<T>::lanes, block = Geometry<T>::block, half_lanes = lanes / 2;
    const char* api = "PairReduceSum";
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, api, loc);
    Plan plan = make_plan<T, isSetMask>(c, mask_arg, repeat, {dst_rep_stride, src_blk_stride, src_rep_stride}, true,
                                        api, loc);
    if (plan.repeats == 0) return;
    ascendc_sim::check_operand(src, src_footprint<T>(plan, src_blk_stride, src_rep_stride), api, "src", loc);
    // dstRepStride is in units of one repeat's results: 128 bytes.
    check_dst(dst, dst_footprint(plan, uint64_t(dst_rep_stride) * half_lanes, 2), ascendc_sim::kBlockBytes, api, loc);
    const T* s = src.GetPhyAddrPtr();
    T* d = dst.GetPhyAddrPtr();
    T v[lanes];
    for (int64_t r = 0; r < plan.repeats; ++r) {
        LaneMask m = plan.for_repeat(r);
        gather(s + r * src_rep_stride * block, m, src_blk_stride, v);
        T* out = d + r * dst_rep_stride * half_lanes;
        for (uint32_t p = 0; p < half_lanes; ++p)
            if (m.on(2 * p) || m.on(2 * p + 1)) out[p] = add(v[2 * p], v[2 * p + 1]);
    }
    ascendc_sim::count_vector(c, OpId::PairReduceSum, plan.repeats, {src.timing()}, dst.timing());
}

}  // namespace reduce_detail

// ---- public API --------------------------------------------------------------------------------

template <typename T, bool isSetMask = true>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
               const int32_t count, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    reduce_detail::reduce_sum_count(dst, src, sharedTmpBuffer, count, loc);
}

template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
               const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    reduce_detail::reduce_sum_level0(dst, src, sharedTmpBuffer, {mask, 0}, repeatTime, srcRepStride, loc);
}

template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
               const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    reduce_detail::reduce_sum_level0(dst, src, sharedTmpBuffer, {nullptr, mask}, repeatTime, srcRepStride, loc);
}

#define ASCENDC_SIM_REDUCE_EXTREME(NAME, IS_MAX)                                                                      \
    template <typename T>                                                                                             \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,            \
              const int32_t count, bool calIndex = 0, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {              \
        reduce_detail::reduce_extreme<IS_MAX>(dst, src, sharedTmpBuffer, nullptr, count, 0, 0, calIndex, loc);        \
    }                                                                                                                 \
    template <typename T>                                                                                             \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,            \
              const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0,         \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        reduce_detail::MaskArg m{mask, 0};                                                                            \
        reduce_detail::reduce_extreme<IS_MAX>(dst, src, sharedTmpBuffer, &m, 0, repeatTime, srcRepStride, calIndex,   \
                                              loc);                                                                   \
    }                                                                                                                 \
    template <typename T>                                                                                             \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,            \
              const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0,            \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        reduce_detail::MaskArg m{nullptr, mask};                                                                      \
        reduce_detail::reduce_extreme<IS_MAX>(dst, src, sharedTmpBuffer, &m, 0, repeatTime, srcRepStride, calIndex,   \
                                              loc);                                                                   \
    }

ASCENDC_SIM_REDUCE_EXTREME(ReduceMax, true)
ASCENDC_SIM_REDUCE_EXTREME(ReduceMin, false)
#undef ASCENDC_SIM_REDUCE_EXTREME

template <typename T, bool isSetMask = true>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const int32_t repeatTime,
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    reduce_detail::whole_reduce_sum<T, isSetMask>(dst, src, {mask, 0}, repeatTime, dstRepStride, srcBlkStride,
                                                  srcRepStride, "WholeReduceSum", loc);
}

template <typename T, bool isSetMask = true>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime,
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    reduce_detail::whole_reduce_sum<T, isSetMask>(dst, src, {nullptr, mask}, repeatTime, dstRepStride, srcBlkStride,
                                                  srcRepStride, "WholeReduceSum", loc);
}

// RepeatReduceSum.md: WholeReduceSum with a continuous mask only; dstBlkStride is ignored.
template <typename T, bool isSetMask = true>
void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const int32_t mask,
                     const int32_t dstBlkStride, const int32_t srcBlkStride, const int32_t dstRepStride,
                     const int32_t srcRepStride, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    (void)dstBlkStride;
    reduce_detail::whole_reduce_sum<T, isSetMask>(dst, src, {nullptr, mask}, repeatTime, dstRepStride, srcBlkStride,
                                                  srcRepStride, "RepeatReduceSum", loc);
}

#define ASCENDC_SIM_WHOLE_REDUCE_EXTREME(NAME, IS_MAX)                                                                \
    template <typename T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const int32_t repeatTime,   \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                     \
              ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {  \
        reduce_detail::whole_reduce_extreme<IS_MAX, isSetMask>(dst, src, {mask, 0}, repeatTime, dstRepStride,         \
                                                               srcBlkStride, srcRepStride, order, loc);               \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime,      \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                     \
              ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {  \
        reduce_detail::whole_reduce_extreme<IS_MAX, isSetMask>(dst, src, {nullptr, mask}, repeatTime, dstRepStride,   \
                                                               srcBlkStride, srcRepStride, order, loc);               \
    }

template <typename T>
T GetAccVal(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, reduce_detail::kTypes, reduce_detail::kTypes, "GetAccVal", loc);
    const reduce_detail::AccRegister& r = reduce_detail::acc_register();
    if (r.core != &c || r.launch != c.launch->serial || r.dtype != ascendc_sim::dtype_of<T>)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "GetAccVal<%s>: no count-form ReduceSum of %s (ReduceSum(dst, src, work, count)) ran on this "
                          "core before, so there is no result to read. Call it first, with the same T.",
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>),
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    T value;
    std::memcpy(&value, &r.bits, sizeof(T));
    return value;
}

template <typename T>
void GetReduceMaxMinCount(T& maxMinValue, T& maxMinIndex, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, reduce_detail::kTypes, reduce_detail::kTypes,
                             "GetReduceMaxMinCount", loc);
    const reduce_detail::MaxMinRegister& r = reduce_detail::max_min_register();
    if (r.core != &c || r.launch != c.launch->serial || r.dtype != ascendc_sim::dtype_of<T>)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "GetReduceMaxMinCount<%s>: no WholeReduceMax/Min or ReduceMax/Min of %s ran on this core "
                          "before, so there is no value to read. Run the reduction first, with the same T.",
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>),
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    std::memset(&maxMinValue, 0xFF, sizeof(T));
    std::memset(&maxMinIndex, 0xFF, sizeof(T));
    if (r.value_ok) std::memcpy(&maxMinValue, &r.value, sizeof(T));
    if (r.index_ok) std::memcpy(&maxMinIndex, &r.index, sizeof(T));
}

template <typename T>
void GetReduceMaxMinCount(T& maxMinValue, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const auto& soc = ascendc_sim::core(loc).soc();
    if (soc.arch != 1)
        ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                          "GetReduceMaxMinCount(value) without the index is not supported on Atlas A2/A3 "
                          "(GetReduceMaxMinCount(ISASI).md); call GetReduceMaxMinCount(value, index).");
    T index;
    GetReduceMaxMinCount(maxMinValue, index, loc);
}

ASCENDC_SIM_WHOLE_REDUCE_EXTREME(WholeReduceMax, true)
ASCENDC_SIM_WHOLE_REDUCE_EXTREME(WholeReduceMin, false)
#undef ASCENDC_SIM_WHOLE_REDUCE_EXTREME

#define ASCENDC_SIM_BLOCK_REDUCE(NAME, KIND)                                                                          \
    template <typename T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const uint64_t mask[],   \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                     \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        reduce_detail::block_reduce<reduce_detail::BlockOp::KIND, isSetMask>(dst, src, repeatTime, {mask, 0},         \
                                                                             dstRepStride, srcBlkStride,              \
                                                                             srcRepStride, loc);                      \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const int32_t mask,      \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                     \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        reduce_detail::block_reduce<reduce_detail::BlockOp::KIND, isSetMask>(dst, src, repeatTime, {nullptr, mask},   \
                                                                             dstRepStride, srcBlkStride,              \
                                                                             srcRepStride, loc);                      \
    }

ASCENDC_SIM_BLOCK_REDUCE(BlockReduceSum, Sum)
ASCENDC_SIM_BLOCK_REDUCE(BlockReduceMax, Max)
ASCENDC_SIM_BLOCK_REDUCE(BlockReduceMin, Min)
#undef ASCENDC_SIM_BLOCK_REDUCE

template <typename T, bool isSetMask = true>
void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const uint64_t mask[],
                   const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    reduce_detail::pair_reduce_sum<T, isSetMask>(dst, src, repeatTime, {mask, 0}, dstRepStride, srcBlkStride,
                                                 srcRepStride, loc);
}

template <typename T, bool isSetMask = true>
void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const int32_t mask,
                   const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    reduce_detail::pair_reduce_sum<T, isSetMask>(dst, src, repeatTime, {nullptr, mask}, dstRepStride, srcBlkStride,
                                                 srcRepStride, loc);
}

}  // namespace AscendC
