// The fused vector instructions of the 复合计算 chapter: AddRelu SubRelu FusedMulAdd FusedMulAddRelu
// MulAddDst AddReluCast SubReluCast MulCast AddDeqRelu CastDeq. Each has the count form and both
// level-0 mask forms (BinaryRepeatParams; CastDeq UnaryRepeatParams), with the checks of the basic
// instructions in vector_ops.h.
//
// From asc-devkit v8.5.0 AddRelu.md, SubRelu.md, FusedMulAdd.md, FusedMulAddRelu.md, MulAddDst.md,
// AddReluCast.md, SubReluCast.md, MulCast.md, AddDeqRelu.md, CastDeq.md, 通用说明和约束.md:
// - AddRelu/SubRelu: dst = max(src0 +- src1, 0); int16_t, half, float.
// - FusedMulAdd: dst = src0 * dst + src1; FusedMulAddRelu: its Relu; half, float.
// - MulAddDst: dst = src0 * src1 + dst; (src, dst) = (half, half), (float, float), (half, float).
// - AddReluCast/SubReluCast: Relu(src0 +- src1) converted, CAST_NONE, saturating: float -> half,
//   half -> int8_t, int16_t -> int8_t. MulCast: src0 * src1, half -> int8_t/uint8_t.
// - AddDeqRelu: int32_t sum -> Deq (deq_scale.h) -> half, then Relu; dst may not overlap a source.
// - CastDeq: int16_t -> int8_t/uint8_t by SetDeqScale's scale/offset (isVecDeq: 16 groups) into one
//   half of each 32-byte dst block (halfBlock true: the upper 16 bytes), and int32_t -> half by Deq.
// - When the types differ, a level-0 repeat has 256 bytes of the wider type (the mask counts its
//   lanes); operands of different widths may not overlap at all (MulAddDst.md).
// The pages' worked examples fix the rounding of FusedMulAdd, FusedMulAddRelu and MulAddDst: the
// product is rounded to the type before the sum (no fused multiply-add).
// Assumptions (not on the pages): the sum or product is rounded to the source type before Relu and
// conversion; CAST_NONE
// to an integer rounds to nearest even (Cast.md's CAST_NONE is CAST_RINT when precision is lost), to
// half it overflows to +-65504 ("溢出默认按照饱和处理"); integer sums wrap as Add does; CastDeq
// uses vdeq group i % 16 for source element i, and leaves the other half of each dst block as it was
// (CastDeq.md's example zeroes dst first).
// 310P: the v8.5.0 pages cover Atlas A2/A3 only; 310P is assumed to support the same types (it has
// no bfloat16_t, which none of these take). The CANN 9 pages of FusedMulAdd, MulCast, AddReluCast and
// AddDeqRelu list "Atlas 推理系列产品 AI Core" with the same types, which agrees.
#pragma once
#include <cmath>

#include "cast.h"
#include "deq_scale.h"

namespace AscendC {
namespace sim_detail {

struct TypePair {
    DType src;
    DType dst;
};

struct FusedSpec {
    ascendc_sim::OpId op;
    const char* name;
    const TypePair* pairs;
    int n_pairs;
};

template <typename T, typename U>
inline void check_pair(const FusedSpec& spec, Loc loc) {
    const DType src = ascendc_sim::dtype_of<U>, dst = ascendc_sim::dtype_of<T>;
    for (int i = 0; i < spec.n_pairs; ++i)
        if (spec.pairs[i].src == src && spec.pairs[i].dst == dst) return;
    std::string list;
    for (int i = 0; i < spec.n_pairs; ++i)
        list += std::string(list.empty() ? "" : ", ") + ascendc_sim::dtype_name(spec.pairs[i].src) + " -> " +
                ascendc_sim::dtype_name(spec.pairs[i].dst);
    ascendc_sim::fail(ascendc_sim::Diag::UnsupportedDtype, loc,
                      "%s does not support sources of %s with a %s dst on %s. Supported (sources -> dst): %s. Cast "
                      "the data to a supported type first, or use the separate instructions.",
                      spec.name, ascendc_sim::dtype_name(src), ascendc_sim::dtype_name(dst),
                      ascendc_sim::core(loc).soc().name, list.c_str());
}

// Operands of different widths cannot coincide element for element, so they may not overlap at all.
inline void check_disjoint(const void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, const char* api,
                           const char* role, Loc loc) {
    const uint8_t* d = static_cast<const uint8_t*>(dst);
    const uint8_t* s = static_cast<const uint8_t*>(src);
    if (d >= s + src_bytes || s >= d + dst_bytes) return;
    ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                      "%s: dst and %s overlap in UB, which this instruction does not allow (%s). Use a separate "
                      "buffer for dst.",
                      api, role,
                      std::string(api) == "AddDeqRelu" ? "AddDeqRelu.md" : "their element sizes differ, so they "
                                                                           "cannot overlap 100%");
}

template <typename T, typename U>
inline void check_fused_overlap(const char* api, const void* dst, const void* src, uint64_t count, const char* role,
                                bool disjoint, Loc loc) {
    if (sizeof(T) != sizeof(U) || disjoint)
        check_disjoint(dst, count * sizeof(T), src, count * sizeof(U), api, role, loc);
    else
        check_overlap(dst, count * sizeof(T), src, count * sizeof(U), api, role, loc);
}

// dst[i] = f(dst[i], src0[i], src1[i]) for the first `count` elements. `reads_dst`: dst is a source.
template <typename T, typename U, typename F>
void fused_count(const FusedSpec& spec, const LocalTensor<T>& dst, const LocalTensor<U>& a, const LocalTensor<U>& b,
                 int64_t count, bool reads_dst, bool disjoint, F f, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_count(count, spec.name, loc);
    if (count == 0) return;
    ascendc_sim::check_operand(dst, count, spec.name, "dst", loc);
    ascendc_sim::check_operand(a, count, spec.name, "src0", loc);
    ascendc_sim::check_operand(b, count, spec.name, "src1", loc);
    check_fused_overlap<T, U>(spec.name, dst.GetPhyAddrPtr(), a.GetPhyAddrPtr(), count, "src0", disjoint, loc);
    check_fused_overlap<T, U>(spec.name, dst.GetPhyAddrPtr(), b.GetPhyAddrPtr(), count, "src1", disjoint, loc);
    T* d = dst.GetPhyAddrPtr();
    const U* x = a.GetPhyAddrPtr();
    const U* y = b.GetPhyAddrPtr();
    const bool sat = saturates<T>(c);
    for (int64_t i = 0; i < count; ++i) {
        const T v = f(d[i], x[i], y[i]);
        d[i] = sat ? T(saturate_half(half(v))) : v;
    }
    constexpr uint64_t esize = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    const uint64_t repeats = (uint64_t(count) * esize + ascendc_sim::kRepeatBytes - 1) / ascendc_sim::kRepeatBytes;
    ascendc_sim::count_vector(c, spec.op, repeats, {a.timing(), b.timing(), reads_dst ? dst.timing() : nullptr},
                              dst.timing());
}

template <typename T, typename U, bool isSetMask, typename F>
void fused_level0(const FusedSpec& spec, const LocalTensor<T>& dst, const LocalTensor<U>& a, const LocalTensor<U>& b,
                  const MaskArg& mask, int64_t repeat, const BinaryRepeatParams& rp, bool reads_dst, F f, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    constexpr uint32_t esize = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    constexpr uint32_t lanes = 256 / esize;
    Plan p = make_plan<isSetMask>(c, mask, lanes, esize, repeat, spec.name, loc);
    if (p.repeats == 0) return;
    const Stream s[3] = {{bytes_of(dst), sizeof(T), rp.dstBlkStride, rp.dstRepStride},
                         {bytes_of(a), sizeof(U), rp.src0BlkStride, rp.src0RepStride},
                         {bytes_of(b), sizeof(U), rp.src1BlkStride, rp.src1RepStride}};
    check_level0_operand(dst, s[0], p, lanes, spec.name, "dst", loc);
    check_level0_operand(a, s[1], p, lanes, spec.name, "src0", loc);
    check_level0_operand(b, s[2], p, lanes, spec.name, "src1", loc);
    if (sizeof(T) != sizeof(U) || spec.op == ascendc_sim::OpId::AddDeqRelu) {
        const uint64_t dst_bytes = footprint_bytes(s[0], p, lanes);
        check_disjoint(s[0].base, dst_bytes, s[1].base, footprint_bytes(s[1], p, lanes), spec.name, "src0", loc);
        check_disjoint(s[0].base, dst_bytes, s[2].base, footprint_bytes(s[2], p, lanes), spec.name, "src1", loc);
    }
    const bool sat = saturates<T>(c);
    walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool, uint32_t n, uint64_t) {
        T* d = reinterpret_cast<T*>(ptr[0]);
        const U* x = reinterpret_cast<const U*>(ptr[1]);
        const U* y = reinterpret_cast<const U*>(ptr[2]);
        for (uint32_t k = 0; k < n; ++k)
            if ((bits >> k) & 1) {
                const T v = f(d[k], x[k], y[k]);
                d[k] = sat ? T(saturate_half(half(v))) : v;
            }
    });
    ascendc_sim::count_vector(c, spec.op, p.repeats, {a.timing(), b.timing(), reads_dst ? dst.timing() : nullptr},
                              dst.timing());
}

// ---- element functions ------------------------------------------------------------------------------

// a * b + c with the product rounded to T before the sum: the worked examples of FusedMulAdd.md and
// FusedMulAddRelu.md (256 halves each) match this and not a single rounding.
template <typename T>
inline T fused_mul_add(T a, T b, T c) {
    return add(mul(a, b), c);
}

// MulAddDst: the product in dst's type, then the sum (a half product is exact in float, so the mixed
// form rounds once; MulAddDst.md's half -> float example matches).
template <typename T, typename U>
inline T mul_add_dst(U x, U y, T d) {
    return add(T(wide_t<U>(x) * wide_t<U>(y)), d);
}

// CAST_NONE with saturation (the *Cast pages' table 3).
template <typename T, typename U>
inline T cast_none_saturating(U v) {
    const T r = convert<T, RoundMode::CAST_RINT>(v);
    if constexpr (std::is_same_v<T, half>) {
        const float f = float(r);
        if (std::isinf(f)) return half(f > 0 ? 65504.0f : -65504.0f);
    }
    return r;
}

constexpr TypePair kReluPairs[] = {{DType::I16, DType::I16}, {DType::F16, DType::F16}, {DType::F32, DType::F32}};
constexpr TypePair kFmaPairs[] = {{DType::F16, DType::F16}, {DType::F32, DType::F32}};
constexpr TypePair kMulAddDstPairs[] = {{DType::F16, DType::F16}, {DType::F32, DType::F32}, {DType::F16, DType::F32}};
constexpr TypePair kReluCastPairs[] = {{DType::F32, DType::F16}, {DType::F16, DType::I8}, {DType::I16, DType::I8}};
constexpr TypePair kMulCastPairs[] = {{DType::F16, DType::I8}, {DType::F16, DType::U8}};
constexpr TypePair kDeqReluPairs[] = {{DType::I32, DType::F16}};

template <typename T, typename U>
inline constexpr bool same_relu_v = std::is_same_v<T, U> && (std::is_same_v<T, int16_t> || std::is_same_v<T, half> ||
                                                             std::is_same_v<T, float>);
template <typename T, typename U>
inline constexpr bool fma_v = std::is_same_v<T, U> && (std::is_same_v<T, half> || std::is_same_v<T, float>);
template <typename T, typename U>
inline constexpr bool mul_add_dst_v = fma_v<T, U> || (std::is_same_v<T, float> && std::is_same_v<U, half>);
template <typename T, typename U>
inline constexpr bool relu_cast_v = (std::is_same_v<U, float> && std::is_same_v<T, half>) ||
                                    (std::is_same_v<U, half> && std::is_same_v<T, int8_t>) ||
                                    (std::is_same_v<U, int16_t> && std::is_same_v<T, int8_t>);
template <typename T, typename U>
inline constexpr bool mul_cast_v = std::is_same_v<U, half> && (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>);

}  // namespace sim_detail

// ---- the public forms ---------------------------------------------------------------------------------

// NAME(dst, src0, src1, count) and the two level-0 forms for one element function. VALID is the
// compile-time test for (T, U); the runtime check_pair reports an unsupported pair at the kernel's line.
#define ASCENDC_SIM_FUSED(NAME, TPARAMS, DST_T, SRC_T, PAIRS, VALID, READS_DST, DISJOINT, EXPR)             \
    template <TPARAMS>                                                                                              \
    void NAME(const LocalTensor<DST_T>& dst, const LocalTensor<SRC_T>& src0, const LocalTensor<SRC_T>& src1,          \
              const int32_t& count, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                              \
        static constexpr sim_detail::FusedSpec spec{ascendc_sim::OpId::NAME, #NAME, PAIRS,                          \
                                                    int(sizeof(PAIRS) / sizeof(PAIRS[0]))};                         \
        sim_detail::check_pair<DST_T, SRC_T>(spec, loc);                                                            \
        if constexpr (VALID)                                                                                        \
            sim_detail::fused_count<DST_T, SRC_T>(spec, dst, src0, src1, count, READS_DST, DISJOINT,                \
                                                  [&](DST_T d, SRC_T x, SRC_T y) { return EXPR; }, loc);            \
    }                                                                                                               \
    template <TPARAMS, bool isSetMask = true>                                                                       \
    void NAME(const LocalTensor<DST_T>& dst, const LocalTensor<SRC_T>& src0, const LocalTensor<SRC_T>& src1,          \
              const uint64_t mask[], const int64_t repeatTime, const BinaryRepeatParams& repeatParams,              \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                    \
        static constexpr sim_detail::FusedSpec spec{ascendc_sim::OpId::NAME, #NAME, PAIRS,                          \
                                                    int(sizeof(PAIRS) / sizeof(PAIRS[0]))};                         \
        sim_detail::check_pair<DST_T, SRC_T>(spec, loc);                                                            \
        if constexpr (VALID)                                                                                        \
            sim_detail::fused_level0<DST_T, SRC_T, isSetMask>(spec, dst, src0, src1, sim_detail::MaskArg{mask, 0},  \
                                                              repeatTime, repeatParams, READS_DST,                  \
                                                              [&](DST_T d, SRC_T x, SRC_T y) { return EXPR; }, loc); \
    }                                                                                                               \
    template <TPARAMS, bool isSetMask = true>                                                                       \
    void NAME(const LocalTensor<DST_T>& dst, const LocalTensor<SRC_T>& src0, const LocalTensor<SRC_T>& src1,          \
              uint64_t mask, const int64_t repeatTime, const BinaryRepeatParams& repeatParams,                      \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                    \
        static constexpr sim_detail::FusedSpec spec{ascendc_sim::OpId::NAME, #NAME, PAIRS,                          \
                                                    int(sizeof(PAIRS) / sizeof(PAIRS[0]))};                         \
        sim_detail::check_pair<DST_T, SRC_T>(spec, loc);                                                            \
        if constexpr (VALID)                                                                                        \
            sim_detail::fused_level0<DST_T, SRC_T, isSetMask>(                                                      \
                spec, dst, src0, src1, sim_detail::MaskArg{nullptr, mask}, repeatTime, repeatParams, READS_DST,     \
                [&](DST_T d, SRC_T x, SRC_T y) { return EXPR; }, loc);                                              \
    }

#define ASCENDC_SIM_COMMA ,

ASCENDC_SIM_FUSED(AddRelu, typename T, T, T, sim_detail::kReluPairs, (sim_detail::same_relu_v<T, T>), false, false,
                  ((void)d, sim_detail::vrelu(sim_detail::add(x, y))))
ASCENDC_SIM_FUSED(SubRelu, typename T, T, T, sim_detail::kReluPairs, (sim_detail::same_relu_v<T, T>), false, false,
                  ((void)d, sim_detail::vrelu(sim_detail::sub(x, y))))
ASCENDC_SIM_FUSED(FusedMulAdd, typename T, T, T, sim_detail::kFmaPairs, (sim_detail::fma_v<T, T>), true, false,
                  sim_detail::fused_mul_add(x, d, y))
ASCENDC_SIM_FUSED(FusedMulAddRelu, typename T, T, T, sim_detail::kFmaPairs, (sim_detail::fma_v<T, T>), true, false,
                  sim_detail::vrelu(sim_detail::fused_mul_add(x, d, y)))
ASCENDC_SIM_FUSED(MulAddDst, typename T ASCENDC_SIM_COMMA typename U, T, U, sim_detail::kMulAddDstPairs,
                  (sim_detail::mul_add_dst_v<T, U>), true, false,
                  sim_detail::mul_add_dst<T>(x, y, d))
ASCENDC_SIM_FUSED(AddReluCast, typename T ASCENDC_SIM_COMMA typename U, T, U, sim_detail::kReluCastPairs,
                  (sim_detail::relu_cast_v<T, U>), false, false,
                  ((void)d, sim_detail::cast_none_saturating<T>(sim_detail::vrelu(sim_detail::add(x, y)))))
ASCENDC_SIM_FUSED(SubReluCast, typename T ASCENDC_SIM_COMMA typename U, T, U, sim_detail::kReluCastPairs,
                  (sim_detail::relu_cast_v<T, U>), false, false,
                  ((void)d, sim_detail::cast_none_saturating<T>(sim_detail::vrelu(sim_detail::sub(x, y)))))
ASCENDC_SIM_FUSED(MulCast, typename T ASCENDC_SIM_COMMA typename U, T, U, sim_detail::kMulCastPairs,
                  (sim_detail::mul_cast_v<T, U>), false, false,
                  ((void)d, sim_detail::cast_none_saturating<T>(sim_detail::mul(x, y))))

#undef ASCENDC_SIM_COMMA
#undef ASCENDC_SIM_FUSED

// ---- AddDeqRelu: Relu(Deq(src0 + src1)), int32_t -> half ------------------------------------------------

namespace sim_detail {
constexpr FusedSpec kAddDeqRelu{ascendc_sim::OpId::AddDeqRelu, "AddDeqRelu", kDeqReluPairs, 1};

inline auto add_deq_relu(half scale) {
    return [scale](half, int32_t x, int32_t y) { return vrelu(deq_to_half(add(x, y), scale)); };
}
template <typename T, typename U, bool isSetMask>
void add_deq_relu_level0(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                         const MaskArg& mask, int64_t repeatTime, const BinaryRepeatParams& repeatParams,
                         ascendc_sim::Loc loc) {
    check_pair<T, U>(kAddDeqRelu, loc);
    if constexpr (std::is_same_v<T, half> && std::is_same_v<U, int32_t>) {
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        const half scale = require_deq(c, DeqForm::Half, "AddDeqRelu", loc).scale16;
        fused_level0<T, U, isSetMask>(kAddDeqRelu, dst, src0, src1, mask, repeatTime, repeatParams, false,
                                      add_deq_relu(scale), loc);
    }
}

}  // namespace sim_detail

template <typename T, typename U>
void AddDeqRelu(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, const int32_t& count,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::check_pair<T, U>(sim_detail::kAddDeqRelu, loc);
    if constexpr (std::is_same_v<T, half> && std::is_same_v<U, int32_t>) {
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        const half scale = sim_detail::require_deq(c, sim_detail::DeqForm::Half, "AddDeqRelu", loc).scale16;
        sim_detail::fused_count<T, U>(sim_detail::kAddDeqRelu, dst, src0, src1, count, false, true,
                                      sim_detail::add_deq_relu(scale), loc);
    }
}

template <typename T, typename U, bool isSetMask = true>
void AddDeqRelu(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                const uint64_t mask[], const int64_t repeatTime, const BinaryRepeatParams& repeatParams,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::add_deq_relu_level0<T, U, isSetMask>(dst, src0, src1, sim_detail::MaskArg{mask, 0}, repeatTime,
                                                     repeatParams, loc);
}

template <typename T, typename U, bool isSetMask = true>
void AddDeqRelu(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, uint64_t mask,
                const int64_t repeatTime, const BinaryRepeatParams& repeatParams,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::add_deq_relu_level0<T, U, isSetMask>(dst, src0, src1, sim_detail::MaskArg{nullptr, mask},
                                                     repeatTime, repeatParams, loc);
}

// The non-template prototypes of AddDeqRelu.md (half dst, int32_t sources).
template <bool isSetMask = true>
void AddDeqRelu(const LocalTensor<half>& dst, const LocalTensor<int32_t>& src0, const LocalTensor<int32_t>& src1,
                const uint64_t mask[], const int64_t repeatTime, const BinaryRepeatParams& repeatParams,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::add_deq_relu_level0<half, int32_t, isSetMask>(dst, src0, src1, sim_detail::MaskArg{mask, 0},
                                                              repeatTime, repeatParams, loc);
}

template <bool isSetMask = true>
void AddDeqRelu(const LocalTensor<half>& dst, const LocalTensor<int32_t>& src0, const LocalTensor<int32_t>& src1,
                uint64_t mask, const int64_t repeatTime, const BinaryRepeatParams& repeatParams,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::add_deq_relu_level0<half, int32_t, isSetMask>(dst, src0, src1, sim_detail::MaskArg{nullptr, mask},
                                                              repeatTime, repeatParams, loc);
}

// ---- CastDeq ------------------------------------------------------------------------------------------

namespace sim_detail {

constexpr TypePair kCastDeqPairs[] = {{DType::I16, DType::I8}, {DType::I16, DType::U8}, {DType::I32, DType::F16}};
constexpr FusedSpec kCastDeq{ascendc_sim::OpId::CastDeq, "CastDeq", kCastDeqPairs, 3};

template <typename T, typename U>
inline constexpr bool cast_deq_v = (std::is_same_v<U, int16_t> && (std::is_same_v<T, int8_t> ||
                                                                   std::is_same_v<T, uint8_t>)) ||
                                   (std::is_same_v<U, int32_t> && std::is_same_v<T, half>);

// The 16 parameter groups an int16_t CastDeq uses (one group repeated for the scalar form).
template <typename T>
inline void deq_groups(ascendc_sim::CoreState& c, bool vec, DeqParams (&g)[16], ascendc_sim::BufferTiming** timing,
                       Loc loc) {
    const DeqRegister& r = require_deq(c, vec ? DeqForm::Vector : DeqForm::Scalar, "CastDeq", loc);
    *timing = vec ? r.vdeq_timing : nullptr;
    for (int j = 0; j < 16; ++j) g[j] = vec ? unpack_vdeq(r.vdeq[j]) : DeqParams{r.scale, offset9(r.offset), r.sign};
    const bool want = std::is_same_v<T, int8_t>;
    for (int j = 0; j < 16; ++j)
        if (g[j].sign != want)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "CastDeq to %s needs signMode = %s in SetDeqScale (line %d)%s, but it is %s. signMode "
                              "true gives int8_t, false uint8_t (CastDeq.md): make dst's type and signMode agree.",
                              want ? "int8_t" : "uint8_t", want ? "true" : "false", r.set_loc.line,
                              vec ? " for every vdeq group" : "", want ? "false" : "true");
}

template <typename T>
inline T deq_int8(int16_t x, const DeqParams& g) {
    const float v = std::nearbyint(float(x) * g.scale + float(g.offset));
    const float lo = float(std::numeric_limits<T>::min()), hi = float(std::numeric_limits<T>::max());
    return v != v ? T(0) : T(v < lo ? lo : (v > hi ? hi : v));
}

// int16_t source block b (16 elements) lands in 32-byte dst block b: bytes 16..31 when halfBlock, else 0..15.
template <typename T, bool halfBlock>
void cast_deq_int16_count(ascendc_sim::CoreState& c, const LocalTensor<T>& dst, const LocalTensor<int16_t>& src,
                          uint32_t count, bool vec, Loc loc) {
    DeqParams g[16];
    ascendc_sim::BufferTiming* vdeq_timing = nullptr;
    deq_groups<T>(c, vec, g, &vdeq_timing, loc);
    const uint32_t last = count - 1;
    const uint64_t dst_bytes = uint64_t(last / 16) * 32 + (halfBlock ? 16 : 0) + last % 16 + 1;
    ascendc_sim::check_operand(src, count, "CastDeq", "src", loc);
    ascendc_sim::check_operand(dst, dst_bytes, "CastDeq", "dst", loc);
    check_disjoint(dst.GetPhyAddrPtr(), dst_bytes, src.GetPhyAddrPtr(), uint64_t(count) * 2, "CastDeq", "src", loc);
    T* d = dst.GetPhyAddrPtr();
    const int16_t* x = src.GetPhyAddrPtr();
    for (uint32_t i = 0; i < count; ++i)
        d[(i / 16) * 32 + (halfBlock ? 16 : 0) + i % 16] = deq_int8<T>(x[i], g[i % 16]);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::CastDeq, ascendc_sim::repeats_for<int16_t>(count),
                              {src.timing(), vdeq_timing}, dst.timing());
}

template <typename T, bool isSetMask, bool halfBlock>
void cast_deq_int16_level0(ascendc_sim::CoreState& c, const LocalTensor<T>& dst, const LocalTensor<int16_t>& src,
                           const MaskArg& mask, int64_t repeat, const UnaryRepeatParams& rp, bool vec, Loc loc) {
    constexpr uint32_t lanes = 128;
    Plan p = make_plan<isSetMask>(c, mask, lanes, 2, repeat, "CastDeq", loc);
    if (p.repeats == 0) return;
    DeqParams g[16];
    ascendc_sim::BufferTiming* vdeq_timing = nullptr;
    deq_groups<T>(c, vec, g, &vdeq_timing, loc);
    // dst is addressed by blocks like a 16-bit operand; each block's 16 results fill one half of it.
    const Stream s[2] = {{bytes_of(dst), 2, rp.dstBlkStride, rp.dstRepStride},
                         {bytes_of(src), 2, rp.srcBlkStride, rp.srcRepStride}};
    check_level0_operand(dst, s[0], p, lanes, "CastDeq", "dst", loc);
    check_level0_operand(src, s[1], p, lanes, "CastDeq", "src", loc);
    walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool, uint32_t n, uint64_t) {
        T* d = reinterpret_cast<T*>(ptr[0]) + (halfBlock ? 16 : 0);
        const int16_t* x = reinterpret_cast<const int16_t*>(ptr[1]);
        for (uint32_t k = 0; k < n; ++k)
            if ((bits >> k) & 1) d[k] = deq_int8<T>(x[k], g[k]);
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::CastDeq, p.repeats, {src.timing(), vdeq_timing}, dst.timing());
}

inline auto deq_half(half scale) {
    return [scale](int32_t x) { return deq_to_half(x, scale); };
}

template <typename T, typename U, bool isVecDeq, bool halfBlock>
void cast_deq_count(const LocalTensor<T>& dst, const LocalTensor<U>& src, uint32_t count, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_pair<T, U>(kCastDeq, loc);
    if (count == 0) return;
    if constexpr (std::is_same_v<U, int16_t> && cast_deq_v<T, U>) {
        cast_deq_int16_count<T, halfBlock>(c, dst, src, count, isVecDeq, loc);
    } else if constexpr (cast_deq_v<T, U>) {
        const half scale = require_deq(c, DeqForm::Half, "CastDeq", loc).scale16;
        ascendc_sim::check_operand(dst, count, "CastDeq", "dst", loc);
        ascendc_sim::check_operand(src, count, "CastDeq", "src", loc);
        check_disjoint(dst.GetPhyAddrPtr(), uint64_t(count) * 2, src.GetPhyAddrPtr(), uint64_t(count) * 4, "CastDeq",
                       "src", loc);
        const auto f = deq_half(scale);
        for (uint32_t i = 0; i < count; ++i) dst.GetPhyAddrPtr()[i] = f(src.GetPhyAddrPtr()[i]);
        ascendc_sim::count_vector(c, ascendc_sim::OpId::CastDeq, ascendc_sim::repeats_for<int32_t>(count),
                                  {src.timing()}, dst.timing());
    }
}

template <typename T, typename U, bool isSetMask, bool isVecDeq, bool halfBlock>
void cast_deq_level0(const LocalTensor<T>& dst, const LocalTensor<U>& src, const MaskArg& mask, int64_t repeat,
                     const UnaryRepeatParams& rp, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_pair<T, U>(kCastDeq, loc);
    if constexpr (std::is_same_v<U, int16_t> && cast_deq_v<T, U>) {
        cast_deq_int16_level0<T, isSetMask, halfBlock>(c, dst, src, mask, repeat, rp, isVecDeq, loc);
    } else if constexpr (cast_deq_v<T, U>) {
        Plan p = make_plan<isSetMask>(c, mask, 64, 4, repeat, "CastDeq", loc);
        if (p.repeats == 0) return;
        const half scale = require_deq(c, DeqForm::Half, "CastDeq", loc).scale16;
        const Stream s[2] = {{bytes_of(dst), 2, rp.dstBlkStride, rp.dstRepStride},
                             {bytes_of(src), 4, rp.srcBlkStride, rp.srcRepStride}};
        check_level0_operand(dst, s[0], p, 64, "CastDeq", "dst", loc);
        check_level0_operand(src, s[1], p, 64, "CastDeq", "src", loc);
        const auto f = deq_half(scale);
        walk(p, 64, s, [&](uint8_t* const* ptr, uint64_t bits, bool, uint32_t n, uint64_t) {
            half* d = reinterpret_cast<half*>(ptr[0]);
            const int32_t* x = reinterpret_cast<const int32_t*>(ptr[1]);
            for (uint32_t k = 0; k < n; ++k)
                if ((bits >> k) & 1) d[k] = f(x[k]);
        });
        ascendc_sim::count_vector(c, ascendc_sim::OpId::CastDeq, p.repeats, {src.timing()}, dst.timing());
    }
}

}  // namespace sim_detail

template <typename T, typename U, bool isVecDeq = true, bool halfBlock = true>
void CastDeq(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint32_t count,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::cast_deq_count<T, U, isVecDeq, halfBlock>(dst, src, count, loc);
}

template <typename T, typename U, bool isSetMask = true, bool isVecDeq = true, bool halfBlock = true>
void CastDeq(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[], const int64_t repeatTime,
             const UnaryRepeatParams& repeatParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::cast_deq_level0<T, U, isSetMask, isVecDeq, halfBlock>(dst, src, sim_detail::MaskArg{mask, 0},
                                                                      repeatTime, repeatParams, loc);
}

template <typename T, typename U, bool isSetMask = true, bool isVecDeq = true, bool halfBlock = true>
void CastDeq(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask, const int64_t repeatTime,
             const UnaryRepeatParams& repeatParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::cast_deq_level0<T, U, isSetMask, isVecDeq, halfBlock>(
        dst, src, sim_detail::MaskArg{nullptr, static_cast<uint64_t>(mask)}, repeatTime, repeatParams, loc);
}

}  // namespace AscendC
