// Elementwise vector instructions: the count form ("first n elements", counter mask mode) and the
// level-0 form (mask, repeatTime, repeat params). Each call checks its operands and dtype for the
// SoC, computes with the rounding of the instruction's dtype, and books its repeats on the V pipe.
//
// Semantics from the asc-devkit v8.5.0 API pages: Add.md (and Sub Mul Div Max Min), Adds.md (Muls
// Maxs Mins LeakyRelu), Exp.md (Ln Abs Sqrt Rsqrt Reciprocal Relu Not), And.md/Or.md, Duplicate.md,
// Axpy.md, Brcb.md, BinaryRepeatParams.md, UnaryRepeatParams.md, SetVectorMask.md, SetMaskCount.md,
// SetMaskNorm.md, ResetMask.md, 更多样例-8.md (stride examples).
#pragma once
#include <cmath>
#include <limits>

#include "tensor.h"

namespace AscendC {

const int32_t DEFAULT_BLK_NUM = 8;
const int32_t DEFAULT_BLK_STRIDE = 1;
const uint8_t DEFAULT_REPEAT_STRIDE = 8;

// Strides in 32-byte blocks: *BlkStride between the 8 blocks of one repeat, *RepStride between
// the starts of consecutive repeats. Field names, order and constructors as BinaryRepeatParams.md.
struct BinaryRepeatParams {
    BinaryRepeatParams() {}
    BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                       const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

// UnaryRepeatParams.md; halfBlock only matters to CastDeq.
struct UnaryRepeatParams {
    UnaryRepeatParams() {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn) {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn, const bool halfBlockIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    bool halfBlock = false;
};

// Brcb.md: only dstBlkStride and dstRepStride are user settings.
struct BrcbRepeatParams {
    BrcbRepeatParams() {}
    BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint16_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint16_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint16_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

// The mask argument of a level-0 call made with isSetMask = false (the mask comes from SetVectorMask).
constexpr uint64_t MASK_PLACEHOLDER = 0;

namespace sim_detail {

using ascendc_sim::DType;
using ascendc_sim::dtype_bit;
using ascendc_sim::Loc;

constexpr uint32_t kArithTypes =
    dtype_bit(DType::F16) | dtype_bit(DType::F32) | dtype_bit(DType::I16) | dtype_bit(DType::I32);
constexpr uint32_t kFloatTypes = dtype_bit(DType::F16) | dtype_bit(DType::F32);
constexpr uint32_t kReluTypes = kFloatTypes | dtype_bit(DType::I32);
constexpr uint32_t kBitTypes = dtype_bit(DType::I16) | dtype_bit(DType::U16);
constexpr uint32_t kFillTypes = dtype_bit(DType::I16) | dtype_bit(DType::U16) | dtype_bit(DType::F16) |
                                dtype_bit(DType::I32) | dtype_bit(DType::U32) | dtype_bit(DType::F32);
constexpr uint32_t kFillTypesA2 = kFillTypes | dtype_bit(DType::BF16);

// The dtype tables of the v8.5.0 pages list Atlas A2/A3 only; 310P is assumed to support the same
// set minus bfloat16_t (310P has no bf16).
struct OpSpec {
    ascendc_sim::OpId op;
    const char* name;
    uint32_t a2_dtypes;
    uint32_t p310_dtypes;
};

// ---- arithmetic in the instruction's precision --------------------------------------------------

// half computes in float and rounds once per instruction: float carries 24 bits >= 2*11+2, so
// rounding its result to half is the correctly rounded half result for + - * / sqrt.
// Integers wrap (two's complement), computed unsigned so int32 overflow is defined.
template <typename T> struct Wide { using type = T; };
template <> struct Wide<half> { using type = float; };
template <> struct Wide<int16_t> { using type = int32_t; };
template <> struct Wide<uint16_t> { using type = uint32_t; };
template <> struct Wide<int32_t> { using type = uint32_t; };
template <> struct Wide<uint32_t> { using type = uint32_t; };
template <typename T> using wide_t = typename Wide<T>::type;

template <typename T> inline T add(T x, T y) { return T(wide_t<T>(x) + wide_t<T>(y)); }
template <typename T> inline T sub(T x, T y) { return T(wide_t<T>(x) - wide_t<T>(y)); }
template <typename T> inline T mul(T x, T y) { return T(wide_t<T>(x) * wide_t<T>(y)); }
template <typename T> inline T div(T x, T y) { return T(wide_t<T>(x) / wide_t<T>(y)); }
// NaN in either operand propagates (assumption: the pages do not say; torch.maximum does the same).
template <typename T> inline T vmax(T x, T y) { return (x > y || x != x) ? x : y; }
template <typename T> inline T vmin(T x, T y) { return (x < y || x != x) ? x : y; }

// expf without a libm call, so that the loop vectorizes: 2^n * e^r with |r| <= ln2/2 (Cody-Waite
// split of ln2, the high part exact for |n| < 2^8) and a degree-7 Taylor polynomial; max error
// 1.3 ulp. GCC if-converts its selects only without trapping math, so it is used when the build
// has -fno-trapping-math (and -ftree-vectorize); otherwise libm's scalar expf is the faster one.
inline float fast_expf(float x) {
    float c = x > -104.0f ? x : -104.0f;  // NaN lands on -104 (no UB in the int conversion), restored below
    c = c > 89.0f ? 89.0f : c;
    const float n = (c * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest integer
    const float r = (c - n * 0.693145751953125f) - n * 1.428606765330187e-06f;
    float p = 1.98412698e-4f;
    p = p * r + 1.38888889e-3f;
    p = p * r + 8.33333333e-3f;
    p = p * r + 4.16666667e-2f;
    p = p * r + 1.66666667e-1f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    // 2^n as two factors so that n from -150 to 128 scales without overflowing an exponent.
    const int32_t ni = static_cast<int32_t>(n);
    const int32_t n1 = ni >> 1;
    const int32_t n2 = ni - n1;
    const uint32_t b1 = static_cast<uint32_t>(n1 + 127) << 23;
    const uint32_t b2 = static_cast<uint32_t>(n2 + 127) << 23;
    float s1, s2;
    std::memcpy(&s1, &b1, 4);
    std::memcpy(&s2, &b2, 4);
    float result = p * s1 * s2;
    result = x > 88.72283905206835f ? std::numeric_limits<float>::infinity() : result;
    result = x < -103.97208f ? 0.0f : result;
    return x != x ? x : result;
}

template <typename T> inline T vexp(T x) {
#ifdef __NO_TRAPPING_MATH__
    return T(fast_expf(float(x)));
#else
    return T(std::exp(float(x)));
#endif
}
template <typename T> inline T vln(T x) { return T(std::log(float(x))); }
template <typename T> inline T vabs(T x) { return T(std::fabs(float(x))); }
template <typename T> inline T vsqrt(T x) { return T(std::sqrt(float(x))); }
// Rsqrt.md / Reciprocal.md call the hardware results approximate (worse than 1e-3 for half, 1e-4
// for float); the simulator returns the correctly rounded value.
template <typename T> inline T vrsqrt(T x) { return T(1.0f / std::sqrt(float(x))); }
template <typename T> inline T vrec(T x) { return T(1.0f / float(x)); }
template <typename T> inline T vrelu(T x) { return x < T(0) ? T(0) : x; }  // NaN stays NaN (assumption)
// Bitwise ops exist for 16-bit integers only; other types compile and are rejected by the dtype check.
template <typename T> inline T vnot(T x) {
    if constexpr (std::is_integral_v<T>) return T(~x);
    else return x;
}
template <typename T> inline T vand(T x, T y) {
    if constexpr (std::is_integral_v<T>) return T(x & y);
    else return x;
}
template <typename T> inline T vor(T x, T y) {
    if constexpr (std::is_integral_v<T>) return T(x | y);
    else return x;
}
template <typename T> inline T vleaky(T x, T a) { return x < T(0) ? T(wide_t<T>(x) * wide_t<T>(a)) : x; }

// Atlas inference products (310P) run in saturation mode only: a half result that overflows is
// clamped to +-65504 and NaN becomes 0 (PyTorch INF_NAN_MODE_ENABLE / set_device_sat_mode docs).
// A2/A3 default to INF_NAN mode (IEEE 754), which is what the arithmetic above does.
inline half saturate_half(half v) {
    float f = float(v);
    if (f != f) return half(0.0f);
    if (f > 65504.0f) return half(65504.0f);
    if (f < -65504.0f) return half(-65504.0f);
    return v;
}

template <typename T>
inline bool saturates(const ascendc_sim::CoreState& c) {
    return std::is_same_v<T, half> && c.soc().arch == 1;
}

// ---- the mask register (SetMaskCount / SetMaskNorm / SetVectorMask / ResetMask) -------------------

// One register per simulated core. It lives in a thread_local keyed by the core and by a stamp kept
// in the core's report (the SetMask op counter), so a block that reuses a finished block's thread
// and stack address starts from the hardware default (normal mode, all lanes on).
struct MaskRegister {
    const void* core = nullptr;
    const void* report = nullptr;
    uint64_t stamp = 0;
    bool counter = false;
    uint64_t hi = ~0ull;
    uint64_t lo = ~0ull;
};
inline thread_local MaskRegister t_mask_register;

inline MaskRegister& mask_register(ascendc_sim::CoreState& c) {
    MaskRegister& m = t_mask_register;
    uint64_t stamp = c.report->op_instrs[static_cast<int>(ascendc_sim::OpId::SetMask)];
    if (m.core != &c || m.report != c.report || m.stamp != stamp) m = MaskRegister{&c, c.report, stamp};
    return m;
}

inline MaskRegister& write_mask_register(ascendc_sim::CoreState& c) {
    MaskRegister& m = mask_register(c);
    c.report->op_instrs[static_cast<int>(ascendc_sim::OpId::SetMask)] += 1;
    m.stamp += 1;
    return m;
}

// Another special register of the core (DEQSCALE, CMPMASK), kept like the mask register: `stamp` is
// the number of writes to it this block has made (the sum of its writers' op counters), so a block
// that reuses a finished block's thread starts from the power-on state R{} (not set).
template <typename R>
inline R& core_register(ascendc_sim::CoreState& c, uint64_t stamp) {
    struct Keyed {
        const void* core = nullptr;
        const void* report = nullptr;
        uint64_t stamp = 0;
        R value{};
    };
    static thread_local Keyed k;
    if (k.core != &c || k.report != c.report || k.stamp != stamp) k = Keyed{&c, c.report, stamp, R{}};
    return k.value;
}

// ---- level-0 plans ------------------------------------------------------------------------------

// Which lanes of each repeat run: `bits` for every repeat, except that in counter mode the last
// repeat runs only its first `tail` lanes.
struct Plan {
    uint64_t bits[2] = {0, 0};
    uint64_t repeats = 0;
    uint32_t tail = 0;
};

struct MaskArg {
    const uint64_t* words;  // bitwise mode, or nullptr for the continuous mode
    uint64_t count;
};

inline void prefix_bits(uint64_t (&w)[2], uint64_t n) {
    w[0] = n >= 64 ? ~0ull : ((1ull << n) - 1);
    w[1] = n >= 128 ? ~0ull : (n > 64 ? ((1ull << (n - 64)) - 1) : 0);
}

inline int highest_lane(const uint64_t (&w)[2]) {
    if (w[1]) return 127 - __builtin_clzll(w[1]);
    if (w[0]) return 63 - __builtin_clzll(w[0]);
    return -1;
}

inline void check_repeat_arg(int64_t repeat, const char* api, Loc loc) {
    if (repeat < 0)
        ascendc_sim::fail(ascendc_sim::Diag::RepeatOverflow, loc,
                          "%s: repeatTime is %lld; it must be in 0..255. Split the work into calls of at most 255 "
                          "repeats, or use the count form.",
                          api, (long long)repeat);
    ascendc_sim::check_repeat(static_cast<uint64_t>(repeat), api, loc);
}

// `lanes` = elements per 256-byte repeat of the widest operand; `esize` its bytes.
template <bool isSetMask>
inline Plan make_plan(ascendc_sim::CoreState& c, const MaskArg& mask, uint32_t lanes, uint32_t esize, int64_t repeat,
                      const char* api, Loc loc) {
    Plan p;
    if (!isSetMask) {
        MaskRegister& m = mask_register(c);
        if (m.counter) {
            // Counter mode: the register holds the element count; repeatTime is ignored.
            if (m.lo == 0)
                ascendc_sim::fail(ascendc_sim::Diag::BadMask, loc,
                                  "%s runs in counter mode (SetMaskCount) with an element count of 0. Call "
                                  "SetVectorMask<T, MaskMode::COUNTER>(count) with the number of elements first.",
                                  api);
            p.repeats = m.lo / lanes + (m.lo % lanes != 0);  // no wrap-around for a count near 2**64
            p.tail = static_cast<uint32_t>(m.lo - (p.repeats - 1) * lanes);
            prefix_bits(p.bits, lanes);
            return p;
        }
        check_repeat_arg(repeat, api, loc);
        p.repeats = static_cast<uint64_t>(repeat);
        p.bits[0] = m.lo;
        p.bits[1] = lanes > 64 ? m.hi : 0;
        if (lanes < 64) p.bits[0] &= (1ull << lanes) - 1;
        if (p.bits[0] == 0 && p.bits[1] == 0)
            ascendc_sim::fail(ascendc_sim::Diag::BadMask, loc,
                              "%s (isSetMask = false) uses the mask set by SetVectorMask, which enables none of the "
                              "%u lanes of a %u-byte element repeat. Set a non-zero mask with SetVectorMask, or "
                              "pass the mask to the call with isSetMask = true.",
                              api, lanes, esize);
        return p;
    }
    check_repeat_arg(repeat, api, loc);
    p.repeats = static_cast<uint64_t>(repeat);
    if (mask.words == nullptr) {
        if (mask.count == 0 || mask.count > lanes)
            ascendc_sim::fail(ascendc_sim::Diag::BadMask, loc,
                              "%s: continuous mask %llu is out of range: with %u-byte elements a repeat has %u lanes, "
                              "so the mask must be in 1..%u.%s",
                              api, (unsigned long long)mask.count, esize, lanes, lanes,
                              mask.count == 0 ? " A mask of 0 (MASK_PLACEHOLDER) is only valid with isSetMask = false "
                                                "after SetVectorMask."
                                              : " Process the rest with more repeats (repeatTime), not a bigger mask.");
        prefix_bits(p.bits, mask.count);
        return p;
    }
    // Bitwise: two words for 16-bit elements (lanes 0..63 in mask[0], 64..127 in mask[1]), one word
    // for 32-bit, the low 32 bits of one word for 64-bit elements (Add.md, mask[] parameter).
    p.bits[0] = mask.words[0];
    p.bits[1] = lanes > 64 ? mask.words[1] : 0;
    if (lanes < 64 && (p.bits[0] >> lanes) != 0)
        ascendc_sim::fail(ascendc_sim::Diag::BadMask, loc,
                          "%s: bitwise mask 0x%llx sets bits above lane %u, but a repeat of %u-byte elements has only "
                          "%u lanes. Clear the bits from %u up.",
                          api, (unsigned long long)p.bits[0], lanes - 1, esize, lanes, lanes);
    if (p.bits[0] == 0 && p.bits[1] == 0)
        ascendc_sim::fail(ascendc_sim::Diag::BadMask, loc,
                          "%s: the bitwise mask is all zero, so no lane would run. %s",
                          api, lanes > 64 ? "For 16-bit types mask[0] covers lanes 0..63 and mask[1] lanes 64..127; "
                                            "at least one bit must be set."
                                          : "For 32-bit types only mask[0] is used (one bit per lane, 64 lanes); "
                                            "at least one bit must be set.");
    return p;
}

// One operand of a level-0 instruction, as the hardware addresses it: lane l of repeat r is at
// base + r*rep*32 + (l / per_block)*blk*32 + (l % per_block)*esize bytes.
struct Stream {
    uint8_t* base;
    uint32_t esize;
    uint32_t blk;
    uint32_t rep;
};

inline uint64_t lane_end(const Stream& s, uint64_t lane) {
    uint64_t per_block = 32 / s.esize;
    return (lane / per_block) * s.blk * 32ull + (lane % per_block + 1) * s.esize;
}

// Bytes from the operand's start to the end of the last element the plan touches.
inline uint64_t footprint_bytes(const Stream& s, const Plan& p, uint32_t lanes) {
    if (p.repeats == 0) return 0;
    uint64_t rep_bytes = s.rep * 32ull;
    if (p.tail != 0) {
        uint64_t last = (p.repeats - 1) * rep_bytes + lane_end(s, p.tail - 1);
        if (p.repeats >= 2) last = std::max(last, (p.repeats - 2) * rep_bytes + lane_end(s, lanes - 1));
        return last;
    }
    return (p.repeats - 1) * rep_bytes + lane_end(s, static_cast<uint64_t>(highest_lane(p.bits)));
}

template <typename T>
inline void check_level0_operand(const LocalTensor<T>& t, const Stream& s, const Plan& p, uint32_t lanes,
                                 const char* api, const char* role, Loc loc) {
    ascendc_sim::check_operand(t, 0, api, role, loc);
    uint64_t elements = footprint_bytes(s, p, lanes) / sizeof(T);
    if (elements > t.GetSize())
        ascendc_sim::fail(ascendc_sim::Diag::LocalOverrun, loc,
                          "%s: %s is read or written up to element %llu (%llu repeats, blkStride %u, repStride %u "
                          "blocks of 32 bytes, highest lane %d of the mask) but the LocalTensor has only %u elements. "
                          "Lower repeatTime or the strides, or give the buffer more room.",
                          api, role, (unsigned long long)elements, (unsigned long long)p.repeats, s.blk, s.rep,
                          p.tail ? static_cast<int>(lanes - 1) : highest_lane(p.bits), (unsigned)t.GetSize());
}

// Calls chunk(ptr[N], bits, full, n, lane) for every run of n = lanes/8 lanes that share one 32-byte
// block of the widest operand (so every operand is contiguous inside the run); `lane` counts the
// run's first lane from the first repeat (r * lanes + lane in repeat).
template <int N, typename Chunk>
inline void walk(const Plan& p, uint32_t lanes, const Stream (&s)[N], Chunk&& chunk) {
    const uint32_t n = lanes / 8;
    const uint64_t full = n >= 64 ? ~0ull : ((1ull << n) - 1);
    uint64_t offset[N][8];  // byte offset of run `blk` inside a repeat, per operand
    for (int k = 0; k < N; ++k) {
        const uint32_t per_block = 32 / s[k].esize;
        for (uint32_t blk = 0; blk < 8; ++blk)
            offset[k][blk] = (blk * n / per_block) * s[k].blk * 32ull + (blk * n % per_block) * s[k].esize;
    }
    for (uint64_t r = 0; r < p.repeats; ++r) {
        uint64_t w[2] = {p.bits[0], p.bits[1]};
        if (p.tail != 0 && r + 1 == p.repeats) prefix_bits(w, p.tail);
        uint8_t* start[N];
        for (int k = 0; k < N; ++k) start[k] = s[k].base + r * s[k].rep * 32ull;
        for (uint32_t blk = 0; blk < 8; ++blk) {
            const uint32_t lane0 = blk * n;
            const uint64_t bits = (w[lane0 >> 6] >> (lane0 & 63)) & full;
            if (bits == 0) continue;
            uint8_t* ptr[N];
            for (int k = 0; k < N; ++k) ptr[k] = start[k] + offset[k][blk];
            chunk(ptr, bits, bits == full, n, r * lanes + lane0);
        }
    }
}

template <typename T>
inline uint8_t* bytes_of(const LocalTensor<T>& t) {
    return reinterpret_cast<uint8_t*>(t.GetPhyAddrPtr());
}

// ---- engines --------------------------------------------------------------------------------------

// half count-form loops: GCC does not vectorise _Float16 arithmetic without AVX512-FP16, so blocks
// of 8 are widened with F16C, computed in float (the op called with float arguments computes
// exactly what it computes for half before its final rounding) and rounded back to nearest even.
// The builtins need no header (immintrin.h would add most of a second to every kernel build).
#if defined(__F16C__) && defined(__AVX__)
typedef float v8sf_t __attribute__((vector_size(32)));
typedef short v8hi_t __attribute__((vector_size(16)));
inline void half8_to_float(const half* h, float* f) {
    v8hi_t v;
    std::memcpy(&v, h, 16);
    const v8sf_t r = __builtin_ia32_vcvtph2ps256(v);
    std::memcpy(f, &r, 32);
}
inline void float8_to_half(const float* f, half* h) {
    v8sf_t v;
    std::memcpy(&v, f, 32);
    const v8hi_t r = __builtin_ia32_vcvtps2ph256(v, 0);
    std::memcpy(h, &r, 16);
}
#endif

template <typename F>
inline void half_loop(half* d, const half* a, const half* b, int64_t n, F f) {
    int64_t i = 0;
#if defined(__F16C__) && defined(__AVX__)
    float fa[8], fb[8], fr[8];
    for (; i + 8 <= n; i += 8) {
        half8_to_float(a + i, fa);
        if (b != nullptr) half8_to_float(b + i, fb);
        if (b != nullptr)
            for (int k = 0; k < 8; ++k) fr[k] = f(fa[k], fb[k]);
        else
            for (int k = 0; k < 8; ++k) fr[k] = f(fa[k], fa[k]);
        float8_to_half(fr, d + i);
    }
#endif
    for (; i < n; ++i) d[i] = half(f(float(a[i]), b != nullptr ? float(b[i]) : float(a[i])));
}

inline void check_count(int64_t count, const char* api, Loc loc) {
    if (count < 0)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "%s: count is %lld, negative. The count is the number of elements to process; check the "
                          "tail-length arithmetic that produced it.",
                          api, (long long)count);
}

// 通用说明和约束.md (通用地址重叠约束): a source and the destination may share memory only when they
// coincide; a partial overlap lets one iteration overwrite what a later one still has to read.
inline void check_overlap(const void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, const char* api,
                          const char* role, Loc loc) {
    const uint8_t* d = static_cast<const uint8_t*>(dst);
    const uint8_t* s = static_cast<const uint8_t*>(src);
    if (d == s || d >= s + src_bytes || s >= d + dst_bytes) return;
    const long long shift = static_cast<long long>(d - s);
    ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                      "%s: dst and %s overlap partially (dst starts %lld bytes %s %s). Operands may share memory only "
                      "when they start at the same address (in place); otherwise the instruction overwrites elements "
                      "it has not read yet. Use a separate buffer for dst.",
                      api, role, shift < 0 ? -shift : shift, shift < 0 ? "before" : "after", role);
}

template <typename T, typename F>
void binary_count(const OpSpec& spec, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                  int32_t count, F f, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, spec.a2_dtypes, spec.p310_dtypes, spec.name, loc);
    check_count(count, spec.name, loc);
    if (count == 0) return;
    ascendc_sim::check_operand(dst, count, spec.name, "dst", loc);
    ascendc_sim::check_operand(a, count, spec.name, "src0", loc);
    ascendc_sim::check_operand(b, count, spec.name, "src1", loc);
    check_overlap(dst.GetPhyAddrPtr(), count * sizeof(T), a.GetPhyAddrPtr(), count * sizeof(T), spec.name, "src0", loc);
    check_overlap(dst.GetPhyAddrPtr(), count * sizeof(T), b.GetPhyAddrPtr(), count * sizeof(T), spec.name, "src1", loc);
    T* d = dst.GetPhyAddrPtr();
    const T* x = a.GetPhyAddrPtr();
    const T* y = b.GetPhyAddrPtr();
    if constexpr (std::is_same_v<T, half>) half_loop(d, x, y, count, f);
    else
        for (int32_t i = 0; i < count; ++i) d[i] = f(x[i], y[i]);
    if (saturates<T>(c))
        for (int32_t i = 0; i < count; ++i) d[i] = saturate_half(d[i]);
    ascendc_sim::count_vector(c, spec.op, ascendc_sim::repeats_for<T>(count), {a.timing(), b.timing()}, dst.timing());
}

template <typename T, bool isSetMask, typename F>
void binary_level0(const OpSpec& spec, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                   const MaskArg& mask, int64_t repeat, const BinaryRepeatParams& rp, F f, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, spec.a2_dtypes, spec.p310_dtypes, spec.name, loc);
    constexpr uint32_t lanes = 256 / sizeof(T);
    Plan p = make_plan<isSetMask>(c, mask, lanes, sizeof(T), repeat, spec.name, loc);
    if (p.repeats == 0) return;
    const Stream s[3] = {{bytes_of(dst), sizeof(T), rp.dstBlkStride, rp.dstRepStride},
                         {bytes_of(a), sizeof(T), rp.src0BlkStride, rp.src0RepStride},
                         {bytes_of(b), sizeof(T), rp.src1BlkStride, rp.src1RepStride}};
    check_level0_operand(dst, s[0], p, lanes, spec.name, "dst", loc);
    check_level0_operand(a, s[1], p, lanes, spec.name, "src0", loc);
    check_level0_operand(b, s[2], p, lanes, spec.name, "src1", loc);
    const bool sat = saturates<T>(c);
    walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool full, uint32_t n, uint64_t) {
        T* d = reinterpret_cast<T*>(ptr[0]);
        const T* x = reinterpret_cast<const T*>(ptr[1]);
        const T* y = reinterpret_cast<const T*>(ptr[2]);
        if (full) {
            for (uint32_t k = 0; k < n; ++k) d[k] = f(x[k], y[k]);
        } else {
            for (uint32_t k = 0; k < n; ++k)
                if ((bits >> k) & 1) d[k] = f(x[k], y[k]);
        }
        if (sat)
            for (uint32_t k = 0; k < n; ++k)
                if ((bits >> k) & 1) d[k] = saturate_half(d[k]);
    });
    ascendc_sim::count_vector(c, spec.op, p.repeats, {a.timing(), b.timing()}, dst.timing());
}

// Count form of a one-source instruction (unary and tensor-scalar ops). With isSetMask = false the
// count argument is ignored and the element count comes from SetVectorMask in counter mode (Adds.md).
template <typename T, bool isSetMask, typename F>
void unary_count(const OpSpec& spec, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count_arg, F f,
                 Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, spec.a2_dtypes, spec.p310_dtypes, spec.name, loc);
    int64_t count = count_arg;
    if (!isSetMask) {
        MaskRegister& m = mask_register(c);
        if (!m.counter)
            ascendc_sim::fail(ascendc_sim::Diag::BadMask, loc,
                              "%s: the count form with isSetMask = false takes its element count from the mask "
                              "register in counter mode, but the core is in normal mode. Call SetMaskCount() and "
                              "SetVectorMask<T, MaskMode::COUNTER>(count) first (and SetMaskNorm() after).",
                              spec.name);
        count = static_cast<int64_t>(std::min<uint64_t>(m.lo, 0x7fffffff));
    }
    check_count(count, spec.name, loc);
    if (count == 0) return;
    ascendc_sim::check_operand(dst, count, spec.name, "dst", loc);
    ascendc_sim::check_operand(src, count, spec.name, "src", loc);
    check_overlap(dst.GetPhyAddrPtr(), count * sizeof(T), src.GetPhyAddrPtr(), count * sizeof(T), spec.name, "src", loc);
    T* d = dst.GetPhyAddrPtr();
    const T* x = src.GetPhyAddrPtr();
    if constexpr (std::is_same_v<T, half>) half_loop(d, x, nullptr, count, [&f](float v, float) { return f(v); });
    else
        for (int64_t i = 0; i < count; ++i) d[i] = f(x[i]);
    if (saturates<T>(c))
        for (int64_t i = 0; i < count; ++i) d[i] = saturate_half(d[i]);
    ascendc_sim::count_vector(c, spec.op, ascendc_sim::repeats_for<T>(count), {src.timing()}, dst.timing());
}

template <typename T, bool isSetMask, typename F>
void unary_level0(const OpSpec& spec, const LocalTensor<T>& dst, const LocalTensor<T>& src, const MaskArg& mask,
                  int64_t repeat, const UnaryRepeatParams& rp, F f, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, spec.a2_dtypes, spec.p310_dtypes, spec.name, loc);
    constexpr uint32_t lanes = 256 / sizeof(T);
    Plan p = make_plan<isSetMask>(c, mask, lanes, sizeof(T), repeat, spec.name, loc);
    if (p.repeats == 0) return;
    const Stream s[2] = {{bytes_of(dst), sizeof(T), rp.dstBlkStride, rp.dstRepStride},
                         {bytes_of(src), sizeof(T), rp.srcBlkStride, rp.srcRepStride}};
    check_level0_operand(dst, s[0], p, lanes, spec.name, "dst", loc);
    check_level0_operand(src, s[1], p, lanes, spec.name, "src", loc);
    const bool sat = saturates<T>(c);
    walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool full, uint32_t n, uint64_t) {
        T* d = reinterpret_cast<T*>(ptr[0]);
        const T* x = reinterpret_cast<const T*>(ptr[1]);
        if (full) {
            for (uint32_t k = 0; k < n; ++k) d[k] = f(x[k]);
        } else {
            for (uint32_t k = 0; k < n; ++k)
                if ((bits >> k) & 1) d[k] = f(x[k]);
        }
        if (sat)
            for (uint32_t k = 0; k < n; ++k)
                if ((bits >> k) & 1) d[k] = saturate_half(d[k]);
    });
    ascendc_sim::count_vector(c, spec.op, p.repeats, {src.timing()}, dst.timing());
}

}  // namespace sim_detail

// ---- mask register APIs ---------------------------------------------------------------------------

inline void SetMaskCount(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::write_mask_register(ascendc_sim::core(loc)).counter = true;
}

inline void SetMaskNorm(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::write_mask_register(ascendc_sim::core(loc)).counter = false;
}

inline void ResetMask(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::MaskRegister& m = sim_detail::write_mask_register(ascendc_sim::core(loc));
    m.hi = ~0ull;
    m.lo = ~0ull;
}

// Normal mode: maskLow holds lanes 0..63, maskHigh lanes 64..127. Counter mode: maskLow is the
// element count and maskHigh must be 0 (SetVectorMask.md).
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow,
                          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (mode == MaskMode::COUNTER && maskHigh != 0)
        ascendc_sim::fail(ascendc_sim::Diag::BadMask, loc,
                          "SetVectorMask<T, MaskMode::COUNTER>(maskHigh, maskLow): maskHigh is 0x%llx but must be 0 "
                          "in counter mode; maskLow carries the element count.",
                          (unsigned long long)maskHigh);
    sim_detail::MaskRegister& m = sim_detail::write_mask_register(c);
    m.hi = maskHigh;
    m.lo = maskLow;
}

// Normal mode: the first `len` lanes (1..256/sizeof(T)); counter mode: `len` elements.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    constexpr uint32_t lanes = 256 / sizeof(T);
    if (mode == MaskMode::NORMAL && (len < 1 || static_cast<uint32_t>(len) > lanes))
        ascendc_sim::fail(ascendc_sim::Diag::BadMask, loc,
                          "SetVectorMask<T>(len) in normal mode: len %d must be in 1..%u for %u-byte elements. For "
                          "an element count use SetMaskCount() and SetVectorMask<T, MaskMode::COUNTER>(len).",
                          (int)len, lanes, (unsigned)sizeof(T));
    if (mode == MaskMode::COUNTER && len < 0)
        ascendc_sim::fail(ascendc_sim::Diag::BadMask, loc,
                          "SetVectorMask<T, MaskMode::COUNTER>(len): len %d is negative.", (int)len);
    sim_detail::MaskRegister& m = sim_detail::write_mask_register(c);
    if (mode == MaskMode::COUNTER) {
        m.hi = 0;
        m.lo = static_cast<uint64_t>(len);
    } else {
        uint64_t w[2];
        sim_detail::prefix_bits(w, static_cast<uint64_t>(len));
        m.lo = w[0];
        m.hi = w[1];
    }
}

// ---- binary ops: Add Sub Mul Div Max Min And Or ----------------------------------------------------

// The op is a generic lambda: it runs on T, and on float for the blocked half loops (half_loop).
#define ASCENDC_SIM_BINARY(NAME, A2, P310, EXPR)                                                                     \
    template <typename T>                                                                                            \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,                     \
              const int32_t& count, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                               \
        static constexpr sim_detail::OpSpec spec{ascendc_sim::OpId::NAME, #NAME, A2, P310};                          \
        sim_detail::binary_count(spec, dst, src0, src1, count, [](auto x, auto y) { return EXPR; }, loc);            \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,                     \
              const uint64_t mask[], const int64_t repeatTime, const BinaryRepeatParams& repeatParams,               \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                     \
        static constexpr sim_detail::OpSpec spec{ascendc_sim::OpId::NAME, #NAME, A2, P310};                          \
        sim_detail::binary_level0<T, isSetMask>(spec, dst, src0, src1, sim_detail::MaskArg{mask, 0}, repeatTime,     \
                                                repeatParams, [](auto x, auto y) { return EXPR; }, loc);             \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint64_t mask,      \
              const int64_t repeatTime, const BinaryRepeatParams& repeatParams,                                      \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                     \
        static constexpr sim_detail::OpSpec spec{ascendc_sim::OpId::NAME, #NAME, A2, P310};                          \
        sim_detail::binary_level0<T, isSetMask>(spec, dst, src0, src1, sim_detail::MaskArg{nullptr, mask},           \
                                                repeatTime, repeatParams, [](auto x, auto y) { return EXPR; }, loc); \
    }

ASCENDC_SIM_BINARY(Add, sim_detail::kArithTypes, sim_detail::kArithTypes, sim_detail::add(x, y))
ASCENDC_SIM_BINARY(Sub, sim_detail::kArithTypes, sim_detail::kArithTypes, sim_detail::sub(x, y))
ASCENDC_SIM_BINARY(Mul, sim_detail::kArithTypes, sim_detail::kArithTypes, sim_detail::mul(x, y))
ASCENDC_SIM_BINARY(Div, sim_detail::kFloatTypes, sim_detail::kFloatTypes, sim_detail::div(x, y))
ASCENDC_SIM_BINARY(Max, sim_detail::kArithTypes, sim_detail::kArithTypes, sim_detail::vmax(x, y))
ASCENDC_SIM_BINARY(Min, sim_detail::kArithTypes, sim_detail::kArithTypes, sim_detail::vmin(x, y))
ASCENDC_SIM_BINARY(And, sim_detail::kBitTypes, sim_detail::kBitTypes, sim_detail::vand(x, y))
ASCENDC_SIM_BINARY(Or, sim_detail::kBitTypes, sim_detail::kBitTypes, sim_detail::vor(x, y))

#undef ASCENDC_SIM_BINARY

// ---- unary ops: Exp Ln Abs Sqrt Rsqrt Reciprocal Relu Not ------------------------------------------

#define ASCENDC_SIM_UNARY(NAME, A2, P310, EXPR)                                                                      \
    template <typename T>                                                                                            \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count,                            \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                     \
        static constexpr sim_detail::OpSpec spec{ascendc_sim::OpId::NAME, #NAME, A2, P310};                          \
        sim_detail::unary_count<T, true>(spec, dst, src, count, [](auto x) { return EXPR; }, loc);                   \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const int64_t repeatTime,  \
              const UnaryRepeatParams& repeatParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {              \
        static constexpr sim_detail::OpSpec spec{ascendc_sim::OpId::NAME, #NAME, A2, P310};                          \
        sim_detail::unary_level0<T, isSetMask>(spec, dst, src, sim_detail::MaskArg{mask, 0}, repeatTime,             \
                                               repeatParams, [](auto x) { return EXPR; }, loc);                      \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const int64_t repeatTime,         \
              const UnaryRepeatParams& repeatParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {              \
        static constexpr sim_detail::OpSpec spec{ascendc_sim::OpId::NAME, #NAME, A2, P310};                          \
        sim_detail::unary_level0<T, isSetMask>(spec, dst, src, sim_detail::MaskArg{nullptr, mask}, repeatTime,       \
                                               repeatParams, [](auto x) { return EXPR; }, loc);                      \
    }

ASCENDC_SIM_UNARY(Exp, sim_detail::kFloatTypes, sim_detail::kFloatTypes, sim_detail::vexp(x))
ASCENDC_SIM_UNARY(Ln, sim_detail::kFloatTypes, sim_detail::kFloatTypes, sim_detail::vln(x))
ASCENDC_SIM_UNARY(Abs, sim_detail::kFloatTypes, sim_detail::kFloatTypes, sim_detail::vabs(x))
ASCENDC_SIM_UNARY(Sqrt, sim_detail::kFloatTypes, sim_detail::kFloatTypes, sim_detail::vsqrt(x))
ASCENDC_SIM_UNARY(Rsqrt, sim_detail::kFloatTypes, sim_detail::kFloatTypes, sim_detail::vrsqrt(x))
ASCENDC_SIM_UNARY(Reciprocal, sim_detail::kFloatTypes, sim_detail::kFloatTypes, sim_detail::vrec(x))
ASCENDC_SIM_UNARY(Relu, sim_detail::kReluTypes, sim_detail::kReluTypes, sim_detail::vrelu(x))
ASCENDC_SIM_UNARY(Not, sim_detail::kBitTypes, sim_detail::kBitTypes, sim_detail::vnot(x))

#undef ASCENDC_SIM_UNARY

// ---- tensor-scalar ops: Adds Muls Maxs Mins LeakyRelu ------------------------------------------------

// `sv` is the scalar in the type the op runs on (T, or float in the blocked half loops).
#define ASCENDC_SIM_SCALAR_OP(EXPR) [s](auto x) { const auto sv = static_cast<decltype(x)>(s); return EXPR; }
#define ASCENDC_SIM_SCALAR(NAME, A2, P310, EXPR)                                                                     \
    template <typename T, bool isSetMask = true>                                                                     \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count,      \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                     \
        static constexpr sim_detail::OpSpec spec{ascendc_sim::OpId::NAME, #NAME, A2, P310};                          \
        const T s = scalarValue;                                                                                     \
        sim_detail::unary_count<T, isSetMask>(spec, dst, src, count, ASCENDC_SIM_SCALAR_OP(EXPR), loc);              \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const uint64_t mask[],     \
              const int64_t repeatTime, const UnaryRepeatParams& repeatParams,                                       \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                     \
        static constexpr sim_detail::OpSpec spec{ascendc_sim::OpId::NAME, #NAME, A2, P310};                          \
        const T s = scalarValue;                                                                                     \
        sim_detail::unary_level0<T, isSetMask>(spec, dst, src, sim_detail::MaskArg{mask, 0}, repeatTime,             \
                                               repeatParams, ASCENDC_SIM_SCALAR_OP(EXPR), loc);                      \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask,             \
              const int64_t repeatTime, const UnaryRepeatParams& repeatParams,                                       \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                     \
        static constexpr sim_detail::OpSpec spec{ascendc_sim::OpId::NAME, #NAME, A2, P310};                          \
        const T s = scalarValue;                                                                                     \
        sim_detail::unary_level0<T, isSetMask>(spec, dst, src, sim_detail::MaskArg{nullptr, mask}, repeatTime,       \
                                               repeatParams, ASCENDC_SIM_SCALAR_OP(EXPR), loc);                      \
    }

ASCENDC_SIM_SCALAR(Adds, sim_detail::kArithTypes, sim_detail::kArithTypes, sim_detail::add(x, sv))
ASCENDC_SIM_SCALAR(Muls, sim_detail::kArithTypes, sim_detail::kArithTypes, sim_detail::mul(x, sv))
ASCENDC_SIM_SCALAR(Maxs, sim_detail::kArithTypes, sim_detail::kArithTypes, sim_detail::vmax(x, sv))
ASCENDC_SIM_SCALAR(Mins, sim_detail::kArithTypes, sim_detail::kArithTypes, sim_detail::vmin(x, sv))
ASCENDC_SIM_SCALAR(LeakyRelu, sim_detail::kFloatTypes, sim_detail::kFloatTypes, sim_detail::vleaky(x, sv))

#undef ASCENDC_SIM_SCALAR
#undef ASCENDC_SIM_SCALAR_OP

// ---- Duplicate ------------------------------------------------------------------------------------

template <typename T>
void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sim_detail::kFillTypesA2, sim_detail::kFillTypes, "Duplicate",
                             loc);
    sim_detail::check_count(count, "Duplicate", loc);
    if (count == 0) return;
    ascendc_sim::check_operand(dst, count, "Duplicate", "dst", loc);
    T* d = dst.GetPhyAddrPtr();
    const T v = scalarValue;
    for (int32_t i = 0; i < count; ++i) d[i] = v;
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Duplicate, ascendc_sim::repeats_for<T>(count), {}, dst.timing());
}

namespace sim_detail {
template <typename T, bool isSetMask>
void duplicate_level0(const LocalTensor<T>& dst, const T& value, const MaskArg& mask, int64_t repeat,
                      uint32_t blk_stride, uint32_t rep_stride, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kFillTypesA2, kFillTypes, "Duplicate", loc);
    constexpr uint32_t lanes = 256 / sizeof(T);
    Plan p = make_plan<isSetMask>(c, mask, lanes, sizeof(T), repeat, "Duplicate", loc);
    if (p.repeats == 0) return;
    const Stream s[1] = {{bytes_of(dst), sizeof(T), blk_stride, rep_stride}};
    check_level0_operand(dst, s[0], p, lanes, "Duplicate", "dst", loc);
    const T v = value;
    walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool, uint32_t n, uint64_t) {
        T* d = reinterpret_cast<T*>(ptr[0]);
        for (uint32_t k = 0; k < n; ++k)
            if ((bits >> k) & 1) d[k] = v;
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Duplicate, p.repeats, {}, dst.timing());
}
}  // namespace sim_detail

template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const uint64_t mask[], const int64_t repeatTime,
               const uint16_t dstBlockStride, const uint8_t dstRepeatStride,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::duplicate_level0<T, isSetMask>(dst, scalarValue, sim_detail::MaskArg{mask, 0}, repeatTime,
                                               dstBlockStride, dstRepeatStride, loc);
}

template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, const int64_t repeatTime,
               const uint16_t dstBlockStride, const uint8_t dstRepeatStride,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::duplicate_level0<T, isSetMask>(dst, scalarValue, sim_detail::MaskArg{nullptr, mask}, repeatTime,
                                               dstBlockStride, dstRepeatStride, loc);
}

// ---- CreateVecIndex: dst[i] = firstValue + i (CreateVecIndex.md) ---------------------------------------

// int16_t/half/int32_t/float. Level-0: lane l of repeat r gets firstValue + r * (256 / sizeof(T)) + l,
// whatever the strides (assumption: the page shows only the count form's 0, 1, 2, ...). Integers wrap;
// half rounds firstValue + i once.
namespace sim_detail {
constexpr uint32_t kIndexTypes =
    dtype_bit(DType::I16) | dtype_bit(DType::F16) | dtype_bit(DType::I32) | dtype_bit(DType::F32);

template <typename T>
inline T index_value(T first, uint64_t i) {
    if constexpr (std::is_integral_v<T>) return T(wide_t<T>(first) + static_cast<wide_t<T>>(i));
    else return T(float(first) + float(i));
}

template <typename T>
void create_vec_index_level0(const LocalTensor<T>& dst, T first, const MaskArg& mask, int64_t repeat,
                             uint32_t blk_stride, uint32_t rep_stride, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kIndexTypes, kIndexTypes, "CreateVecIndex", loc);
    constexpr uint32_t lanes = 256 / sizeof(T);
    Plan p = make_plan<true>(c, mask, lanes, sizeof(T), repeat, "CreateVecIndex", loc);
    if (p.repeats == 0) return;
    const Stream s[1] = {{bytes_of(dst), sizeof(T), blk_stride, rep_stride}};
    check_level0_operand(dst, s[0], p, lanes, "CreateVecIndex", "dst", loc);
    walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool, uint32_t n, uint64_t lane) {
        T* d = reinterpret_cast<T*>(ptr[0]);
        for (uint32_t k = 0; k < n; ++k)
            if ((bits >> k) & 1) d[k] = index_value(first, lane + k);
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::CreateVecIndex, p.repeats, {}, dst.timing());
}
}  // namespace sim_detail

template <typename T>
void CreateVecIndex(const LocalTensor<T>& dst, const T& firstValue, uint32_t count,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sim_detail::kIndexTypes, sim_detail::kIndexTypes,
                             "CreateVecIndex", loc);
    if (count == 0) return;
    ascendc_sim::check_operand(dst, count, "CreateVecIndex", "dst", loc);
    T* d = dst.GetPhyAddrPtr();
    const T first = firstValue;
    for (uint32_t i = 0; i < count; ++i) d[i] = sim_detail::index_value(first, i);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::CreateVecIndex, ascendc_sim::repeats_for<T>(count), {},
                              dst.timing());
}

template <typename T>
void CreateVecIndex(const LocalTensor<T>& dst, const T& firstValue, const uint64_t mask[], const int64_t repeatTime,
                    const uint16_t dstBlkStride, const uint8_t dstRepStride,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::create_vec_index_level0(dst, firstValue, sim_detail::MaskArg{mask, 0}, repeatTime, dstBlkStride,
                                        dstRepStride, loc);
}

template <typename T>
void CreateVecIndex(const LocalTensor<T>& dst, const T& firstValue, uint64_t mask, const int64_t repeatTime,
                    const uint16_t dstBlkStride, const uint8_t dstRepStride,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::create_vec_index_level0(dst, firstValue, sim_detail::MaskArg{nullptr, mask}, repeatTime,
                                        dstBlkStride, dstRepStride, loc);
}

// ---- Axpy: dst = dst + src * scalar -----------------------------------------------------------------

// Axpy.md table 3: (src, scalar, dst) = (half, half, half), (float, float, float), (half, half, float).
// A repeat of the mixed form covers 64 elements: 4 blocks of src and 8 of dst.
namespace sim_detail {
template <typename T, typename U>
inline T axpy(T d, U x, U a) {
    if constexpr (std::is_same_v<T, half> || std::is_same_v<U, half>) return T(float(d) + float(x) * float(a));
    else return T(d + x * a);
}

template <typename T, typename U>
void check_axpy_types(Loc loc) {
    constexpr bool ok = (std::is_same_v<T, U> && (std::is_same_v<T, half> || std::is_same_v<T, float>)) ||
                        (std::is_same_v<T, float> && std::is_same_v<U, half>);
    if (!ok)
        ascendc_sim::fail(ascendc_sim::Diag::UnsupportedDtype, loc,
                          "Axpy does not support dst %s with src %s. Supported (src, scalar, dst): (half, half, half), "
                          "(float, float, float), (half, half, float).",
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>),
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<U>));
}
}  // namespace sim_detail

template <typename T, typename U>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const int32_t& count,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    sim_detail::check_axpy_types<T, U>(loc);
    sim_detail::check_count(count, "Axpy", loc);
    if (count == 0) return;
    ascendc_sim::check_operand(dst, count, "Axpy", "dst", loc);
    ascendc_sim::check_operand(src, count, "Axpy", "src", loc);
    sim_detail::check_overlap(dst.GetPhyAddrPtr(), count * sizeof(T), src.GetPhyAddrPtr(), count * sizeof(U), "Axpy",
                              "src", loc);
    T* d = dst.GetPhyAddrPtr();
    const U* x = src.GetPhyAddrPtr();
    const U a = scalarValue;
    for (int32_t i = 0; i < count; ++i) d[i] = sim_detail::axpy(d[i], x[i], a);
    if (sim_detail::saturates<T>(c))
        for (int32_t i = 0; i < count; ++i) d[i] = sim_detail::saturate_half(d[i]);
    uint64_t repeats = sizeof(T) >= sizeof(U) ? ascendc_sim::repeats_for<T>(count) : ascendc_sim::repeats_for<U>(count);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Axpy, repeats, {src.timing(), dst.timing()}, dst.timing());
}

namespace sim_detail {
template <typename T, typename U, bool isSetMask>
void axpy_level0(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalar, const MaskArg& mask,
                 int64_t repeat, const UnaryRepeatParams& rp, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_axpy_types<T, U>(loc);
    constexpr uint32_t esize = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    constexpr uint32_t lanes = 256 / esize;
    Plan p = make_plan<isSetMask>(c, mask, lanes, esize, repeat, "Axpy", loc);
    if (p.repeats == 0) return;
    const Stream s[2] = {{bytes_of(dst), sizeof(T), rp.dstBlkStride, rp.dstRepStride},
                         {bytes_of(src), sizeof(U), rp.srcBlkStride, rp.srcRepStride}};
    check_level0_operand(dst, s[0], p, lanes, "Axpy", "dst", loc);
    check_level0_operand(src, s[1], p, lanes, "Axpy", "src", loc);
    const U a = scalar;
    const bool sat = saturates<T>(c);
    walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool, uint32_t n, uint64_t) {
        T* d = reinterpret_cast<T*>(ptr[0]);
        const U* x = reinterpret_cast<const U*>(ptr[1]);
        for (uint32_t k = 0; k < n; ++k)
            if ((bits >> k) & 1) d[k] = sat ? saturate_half(axpy(d[k], x[k], a)) : axpy(d[k], x[k], a);
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Axpy, p.repeats, {src.timing(), dst.timing()}, dst.timing());
}
}  // namespace sim_detail

template <typename T, typename U, bool isSetMask = true>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const uint64_t mask[],
          const int64_t repeatTime, const UnaryRepeatParams& repeatParams,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::axpy_level0<T, U, isSetMask>(dst, src, scalarValue, sim_detail::MaskArg{mask, 0}, repeatTime,
                                             repeatParams, loc);
}

template <typename T, typename U, bool isSetMask = true>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, uint64_t mask,
          const int64_t repeatTime, const UnaryRepeatParams& repeatParams,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::axpy_level0<T, U, isSetMask>(dst, src, scalarValue, sim_detail::MaskArg{nullptr, mask}, repeatTime,
                                             repeatParams, loc);
}

// ---- Brcb: repeat r fills dst block k with src0[8r + k] -----------------------------------------------

template <typename T>
void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const int64_t repeatTime,
          const BrcbRepeatParams& repeatParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sim_detail::kFillTypesA2, sim_detail::kFillTypes, "Brcb", loc);
    sim_detail::check_repeat_arg(repeatTime, "Brcb", loc);
    if (repeatTime == 0) return;
    const uint64_t repeats = static_cast<uint64_t>(repeatTime);
    constexpr uint32_t per_block = 32 / sizeof(T);
    const uint64_t blk = repeatParams.dstBlkStride == 0 ? 1 : repeatParams.dstBlkStride;  // Brcb.md: 0 acts as 1
    const uint64_t rep = repeatParams.dstRepStride;
    ascendc_sim::check_operand(src0, repeats * 8, "Brcb", "src0", loc);
    ascendc_sim::check_operand(dst, 0, "Brcb", "dst", loc);
    const uint64_t dst_elems = ((repeats - 1) * rep * 32 + 7 * blk * 32 + 32) / sizeof(T);
    if (dst_elems > dst.GetSize())
        ascendc_sim::fail(ascendc_sim::Diag::LocalOverrun, loc,
                          "Brcb: dst is written up to element %llu (%llu repeats of 8 blocks, dstBlkStride %llu, "
                          "dstRepStride %llu) but the LocalTensor has only %u elements.",
                          (unsigned long long)dst_elems, (unsigned long long)repeats, (unsigned long long)blk,
                          (unsigned long long)rep, (unsigned)dst.GetSize());
    const uint8_t* d0 = sim_detail::bytes_of(dst);
    const uint8_t* s0 = sim_detail::bytes_of(src0);
    if (d0 < s0 + repeats * 8 * sizeof(T) && s0 < d0 + dst_elems * sizeof(T))
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "Brcb: src0 and dst overlap in UB; Brcb.md does not allow src0 and dst to share memory. "
                          "Broadcast into a separate buffer.");
    T* d = dst.GetPhyAddrPtr();
    const T* x = src0.GetPhyAddrPtr();
    for (uint64_t r = 0; r < repeats; ++r)
        for (uint64_t k = 0; k < 8; ++k) {
            T* out = d + (r * rep + k * blk) * per_block;
            const T v = x[r * 8 + k];
            for (uint32_t j = 0; j < per_block; ++j) out[j] = v;
        }
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Brcb, repeats, {src0.timing()}, dst.timing());
}

}  // namespace AscendC
