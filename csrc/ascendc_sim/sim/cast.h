// Cast: precision conversion between tensors, count form and level-0 form.
//
// From asc-devkit v8.5.0 Cast.md: the rounding rules of each RoundMode, the conversion rules table
// (表1) and the Atlas A2 pair/mode table (表4, identical to the A3 table 5). A level-0 repeat is
// sized by the wider of the two types (64 lanes for half->float); each operand is addressed with its
// own element size, so the narrower one covers 4 blocks per repeat.
//
// Overflow and NaN: integer targets saturate (Cast.md: "溢出默认按照饱和处理"); NaN to an integer
// gives 0 (assumption: the saturation-mode rule of the CTRL register, asc_set_ctrl.md, NaN -> 0).
// Floating-point targets follow IEEE 754 on A2/A3, whose default is INF_NAN mode (PyTorch
// INF_NAN_MODE_ENABLE docs), so a finite value that rounds past the largest half becomes inf under
// CAST_RINT/CAST_ROUND and the largest finite value under CAST_TRUNC/CAST_ODD. 310P runs in
// saturation mode: a half result of inf becomes +-65504 and NaN becomes 0.
#pragma once
#include <cmath>
#include <vector>

#include "deq_scale.h"
#include "vector_ops.h"

namespace AscendC {

enum class RoundMode {
    CAST_NONE = 0,  // CAST_RINT when the conversion loses precision, else no rounding
    CAST_RINT,      // to nearest, ties to even
    CAST_FLOOR,     // toward -inf
    CAST_CEIL,      // toward +inf
    CAST_ROUND,     // to nearest, ties away from zero
    CAST_TRUNC,     // toward zero
    CAST_ODD,       // von Neumann: truncate, then set the last bit if inexact
};

namespace sim_detail {

constexpr uint8_t round_bit(RoundMode m) { return static_cast<uint8_t>(1u << static_cast<int>(m)); }
constexpr uint8_t kNone = round_bit(RoundMode::CAST_NONE);
constexpr uint8_t kOdd = round_bit(RoundMode::CAST_ODD);
constexpr uint8_t kDirected = round_bit(RoundMode::CAST_RINT) | round_bit(RoundMode::CAST_FLOOR) |
                              round_bit(RoundMode::CAST_CEIL) | round_bit(RoundMode::CAST_ROUND) |
                              round_bit(RoundMode::CAST_TRUNC);

struct CastRule {
    DType src;
    DType dst;
    uint8_t modes;
};

// Cast.md 表4 (Atlas A2). int32_t->half is the dequantising
// conversion: x / 2^17 * scale * 2^17 with the scale of SetDeqScale(half), roundMode has no effect
// (deq_scale.h). 310P: the same pairs minus bfloat16_t (assumption; the v8.5.0 page has no 310P table) and
// minus int4b_t (ggml's CANN kernels: "310P not support 4bit"). half <-> int4b_t runs in the count form only
// (cast_int4): an even count (Cast.md 约束说明), the int4b_t result saturated to [-8, 7], NaN to 0.
constexpr CastRule kCastRules[] = {
    {DType::F16, DType::I32, kDirected},         {DType::F16, DType::I16, kDirected},
    {DType::F16, DType::F32, kNone},             {DType::F16, DType::I8, kDirected | kNone},
    {DType::F16, DType::U8, kDirected | kNone},  {DType::F32, DType::F32, kDirected},
    {DType::F32, DType::I32, kDirected},         {DType::F32, DType::F16, kDirected | kOdd | kNone},
    {DType::F32, DType::I64, kDirected},         {DType::F32, DType::I16, kDirected},
    {DType::F32, DType::BF16, kDirected},        {DType::BF16, DType::F32, kNone},
    {DType::BF16, DType::I32, kDirected},        {DType::U8, DType::F16, kNone},
    {DType::I8, DType::F16, kNone},              {DType::I16, DType::F16, kDirected | kNone},
    {DType::I16, DType::F32, kNone},             {DType::I32, DType::F32, kDirected | kNone},
    {DType::I32, DType::I16, kNone},             {DType::I32, DType::I64, kNone},
    {DType::I64, DType::I32, kNone},             {DType::I64, DType::F32, kDirected},
    {DType::I32, DType::F16, kDirected | kOdd | kNone},
    {DType::F16, DType::I4, kDirected | kNone},  {DType::I4, DType::F16, kNone},
};

inline const CastRule* find_cast_rule(DType src, DType dst, bool p310) {
    if (p310 && (src == DType::BF16 || dst == DType::BF16 || src == DType::I4 || dst == DType::I4)) return nullptr;
    for (const CastRule& r : kCastRules)
        if (r.src == src && r.dst == dst) return &r;
    return nullptr;
}

inline const char* round_mode_name(RoundMode m) {
    static const char* const names[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL",
                                        "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
    int i = static_cast<int>(m);
    return i >= 0 && i < 7 ? names[i] : "an unknown RoundMode";
}

[[noreturn]] inline void fail_cast_pair(DType src, DType dst, bool p310, const char* soc, Loc loc) {
    std::string from, to;
    for (const CastRule& r : kCastRules) {
        if (p310 && (r.src == DType::BF16 || r.dst == DType::BF16 || r.src == DType::I4 || r.dst == DType::I4))
            continue;
        if (r.src == src) from += std::string(from.empty() ? "" : ", ") + ascendc_sim::dtype_name(r.dst);
        if (r.dst == dst) to += std::string(to.empty() ? "" : ", ") + ascendc_sim::dtype_name(r.src);
    }
    const char* hint = "";
    if ((src == DType::F16 && dst == DType::BF16) || (src == DType::BF16 && dst == DType::F16))
        hint = " There is no direct half <-> bfloat16_t Cast: go through float (CAST_NONE up to float, then "
               "CAST_RINT down).";
    else if (p310 && (src == DType::BF16 || dst == DType::BF16))
        hint = " This SoC has no bfloat16_t.";
    ascendc_sim::fail(ascendc_sim::Diag::UnsupportedDtype, loc,
                      "Cast from %s to %s is not supported on %s. From %s the supported targets are: %s. Into %s the "
                      "supported sources are: %s.%s Chain two Casts through a supported type.",
                      ascendc_sim::dtype_name(src), ascendc_sim::dtype_name(dst), soc, ascendc_sim::dtype_name(src),
                      from.empty() ? "none" : from.c_str(), ascendc_sim::dtype_name(dst),
                      to.empty() ? "none" : to.c_str(), hint);
}

inline void check_cast(DType src, DType dst, RoundMode mode, Loc loc) {
    const SimSocProfile& soc = ascendc_sim::core(loc).soc();
    const bool p310 = soc.arch == 1;
    const CastRule* rule = find_cast_rule(src, dst, p310);
    if (rule == nullptr) fail_cast_pair(src, dst, p310, soc.name, loc);
    int m = static_cast<int>(mode);
    if (m >= 0 && m < 7 && (rule->modes & round_bit(mode))) return;
    std::string modes;
    for (int i = 0; i < 7; ++i)
        if (rule->modes & (1u << i))
            modes += std::string(modes.empty() ? "" : ", ") + round_mode_name(static_cast<RoundMode>(i));
    ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                      "Cast from %s to %s does not take RoundMode::%s (Cast.md table 4). Supported modes for this "
                      "pair: %s.",
                      ascendc_sim::dtype_name(src), ascendc_sim::dtype_name(dst), round_mode_name(mode), modes.c_str());
}

// ---- rounding ---------------------------------------------------------------------------------------

template <RoundMode M, typename W>
inline W round_integral(W v) {
    if constexpr (M == RoundMode::CAST_FLOOR) return std::floor(v);
    else if constexpr (M == RoundMode::CAST_CEIL) return std::ceil(v);
    else if constexpr (M == RoundMode::CAST_ROUND) return std::round(v);
    else if constexpr (M == RoundMode::CAST_TRUNC) return std::trunc(v);
    else if constexpr (M == RoundMode::CAST_ODD) {
        W t = std::trunc(v);
        if (t != v && std::fmod(t, W(2)) == 0) t += v > 0 ? W(1) : W(-1);
        return t;
    } else return std::nearbyint(v);  // CAST_RINT, CAST_NONE: the default rounding mode, ties to even
}

// v (exact in W) rounded per M to a binary format with `precision` significand bits, smallest
// normal exponent `emin` and largest finite value `max_finite`; IEEE 754 overflow per direction.
template <RoundMode M, typename W>
inline W round_to_format(W v, int precision, int emin, W max_finite) {
    if (v != v || v == 0 || std::isinf(v)) return v;
    int e;
    std::frexp(v, &e);
    const int lead = std::max(e - 1, emin);
    const W quantum = std::ldexp(W(1), lead - precision + 1);
    const W r = round_integral<M>(v / quantum) * quantum;
    if (std::fabs(r) <= max_finite) return r;
    const W inf = std::numeric_limits<W>::infinity();
    const bool pos = v > 0;
    if constexpr (M == RoundMode::CAST_TRUNC || M == RoundMode::CAST_ODD) return pos ? max_finite : -max_finite;
    else if constexpr (M == RoundMode::CAST_FLOOR) return pos ? max_finite : -inf;
    else if constexpr (M == RoundMode::CAST_CEIL) return pos ? inf : -max_finite;
    else return pos ? inf : -inf;
}

template <typename T> inline constexpr bool is_float_v = std::is_same_v<T, half> || std::is_same_v<T, float> ||
                                                         std::is_same_v<T, bfloat16_t>;

template <typename S> using exact_t = std::conditional_t<std::is_same_v<S, int64_t>, long double, double>;

template <typename D, RoundMode M, typename S>
inline D convert(S x) {
    using W = exact_t<S>;
    if constexpr (is_float_v<D>) {
        const W v = static_cast<W>(static_cast<std::conditional_t<is_float_v<S>, float, S>>(x));
        if constexpr (std::is_same_v<D, half>)
            return static_cast<half>(static_cast<float>(round_to_format<M>(v, 11, -14, W(65504.0))));
        else if constexpr (std::is_same_v<D, bfloat16_t>) {
            const float f = static_cast<float>(round_to_format<M>(v, 8, -126, W(3.3895313892515355e38)));
            uint32_t word;
            std::memcpy(&word, &f, 4);
            if (f != f) return bfloat16_t::from_bits(static_cast<uint16_t>((word >> 16) | 0x40u));
            return bfloat16_t::from_bits(static_cast<uint16_t>(word >> 16));
        } else if constexpr (std::is_same_v<S, float>)
            return static_cast<float>(std::isinf(x) || x != x ? x : static_cast<float>(round_integral<M>(W(x))));
        else return static_cast<float>(round_to_format<M>(v, 24, -126, W(3.4028234663852886e38)));
    } else if constexpr (is_float_v<S>) {
        const W v = static_cast<W>(static_cast<float>(x));
        if (v != v) return D(0);
        const W r = round_integral<M>(v);
        if (r <= static_cast<W>(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
        if (r >= static_cast<W>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
        return static_cast<D>(r);
    } else {
        const int64_t v = static_cast<int64_t>(x);
        if (v < static_cast<int64_t>(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
        if (v > static_cast<int64_t>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
        return static_cast<D>(x);
    }
}

// The per-element conversion for one mode, picked once per call. Exact widenings and the
// round-to-nearest narrowings the host does natively take a direct path.
template <typename D, RoundMode M, typename S>
inline D convert_fast(S x) {
    constexpr bool nearest = M == RoundMode::CAST_RINT || M == RoundMode::CAST_NONE;
    if constexpr (std::is_same_v<D, float> && (std::is_same_v<S, half> || std::is_same_v<S, bfloat16_t> ||
                                               std::is_same_v<S, int16_t>))
        return static_cast<float>(x);
    else if constexpr (std::is_same_v<D, half> && (std::is_same_v<S, int8_t> || std::is_same_v<S, uint8_t>))
        return static_cast<half>(static_cast<float>(x));
    else if constexpr (std::is_same_v<D, int64_t> && std::is_same_v<S, int32_t>)
        return static_cast<int64_t>(x);
    else if constexpr (nearest && std::is_same_v<D, half> && std::is_same_v<S, float>)
        return static_cast<half>(x);
    else if constexpr (nearest && std::is_same_v<D, float> && std::is_same_v<S, int32_t>)
        return static_cast<float>(x);
    else if constexpr (nearest && std::is_same_v<D, bfloat16_t> && std::is_same_v<S, float>)
        return bfloat16_t(x);
    else return convert<D, M>(x);
}

template <typename D, typename S>
inline constexpr bool castable_v =
    (std::is_same_v<S, half> && (std::is_same_v<D, int32_t> || std::is_same_v<D, int16_t> || std::is_same_v<D, float> ||
                                 std::is_same_v<D, int8_t> || std::is_same_v<D, uint8_t>)) ||
    (std::is_same_v<S, float> && (std::is_same_v<D, float> || std::is_same_v<D, int32_t> || std::is_same_v<D, half> ||
                                  std::is_same_v<D, int64_t> || std::is_same_v<D, int16_t> ||
                                  std::is_same_v<D, bfloat16_t>)) ||
    (std::is_same_v<S, bfloat16_t> && (std::is_same_v<D, float> || std::is_same_v<D, int32_t>)) ||
    ((std::is_same_v<S, uint8_t> || std::is_same_v<S, int8_t>) && std::is_same_v<D, half>) ||
    (std::is_same_v<S, int16_t> && (std::is_same_v<D, half> || std::is_same_v<D, float>)) ||
    (std::is_same_v<S, int32_t> && (std::is_same_v<D, float> || std::is_same_v<D, int16_t> ||
                                    std::is_same_v<D, int64_t> || std::is_same_v<D, half>)) ||
    (std::is_same_v<S, int64_t> && (std::is_same_v<D, int32_t> || std::is_same_v<D, float>));

template <typename D, typename S>
inline constexpr bool deq_cast_v = std::is_same_v<S, int32_t> && std::is_same_v<D, half>;

// The DEQSCALE scale an int32_t -> half Cast uses (0 for every other pair, which does not read it).
template <typename D, typename S>
inline half cast_scale(ascendc_sim::CoreState& c, Loc loc) {
    if constexpr (deq_cast_v<D, S>) return require_deq(c, DeqForm::Half, "Cast int32_t -> half", loc).scale16;
    else return half(0.0f);
}

// One element of a Cast: the round mode's conversion, or Deq for int32_t -> half.
template <typename D, RoundMode M, typename S>
inline D cast_element(S x, half scale) {
    if constexpr (deq_cast_v<D, S>) return deq_to_half(x, scale);
    else return convert_fast<D, M>(x);
}

// Runs body.template operator()<M>() with the round mode as a compile-time constant.
template <typename Body>
inline void with_round_mode(RoundMode mode, Body&& body) {
    switch (mode) {
        case RoundMode::CAST_NONE: body(std::integral_constant<RoundMode, RoundMode::CAST_NONE>{}); break;
        case RoundMode::CAST_RINT: body(std::integral_constant<RoundMode, RoundMode::CAST_RINT>{}); break;
        case RoundMode::CAST_FLOOR: body(std::integral_constant<RoundMode, RoundMode::CAST_FLOOR>{}); break;
        case RoundMode::CAST_CEIL: body(std::integral_constant<RoundMode, RoundMode::CAST_CEIL>{}); break;
        case RoundMode::CAST_ROUND: body(std::integral_constant<RoundMode, RoundMode::CAST_ROUND>{}); break;
        case RoundMode::CAST_TRUNC: body(std::integral_constant<RoundMode, RoundMode::CAST_TRUNC>{}); break;
        case RoundMode::CAST_ODD: body(std::integral_constant<RoundMode, RoundMode::CAST_ODD>{}); break;
    }
}

template <typename T, typename U>
constexpr uint32_t cast_esize() {
    return sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
}

template <typename T, typename U, bool isSetMask>
void cast_level0(const LocalTensor<T>& dst, const LocalTensor<U>& src, RoundMode mode, const MaskArg& mask,
                 int64_t repeat, const UnaryRepeatParams& rp, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_cast(ascendc_sim::dtype_of<U>, ascendc_sim::dtype_of<T>, mode, loc);
    if constexpr (ascendc_sim::is_int4_v<T> || ascendc_sim::is_int4_v<U>)
        ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                          "Cast between %s and %s with mask and repeatTime is not simulated (int4b_t lanes share "
                          "bytes). Use the count form Cast(dst, src, roundMode, count) with an even count.",
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<U>),
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    if constexpr (castable_v<T, U>) {
        constexpr uint32_t esize = cast_esize<T, U>();
        constexpr uint32_t lanes = 256 / esize;
        Plan p = make_plan<isSetMask>(c, mask, lanes, esize, repeat, "Cast", loc);
        if (p.repeats == 0) return;
        const Stream s[2] = {{bytes_of(dst), sizeof(T), rp.dstBlkStride, rp.dstRepStride},
                             {bytes_of(src), sizeof(U), rp.srcBlkStride, rp.srcRepStride}};
        check_level0_operand(dst, s[0], p, lanes, "Cast", "dst", loc);
        check_level0_operand(src, s[1], p, lanes, "Cast", "src", loc);
        const bool sat = saturates<T>(c);
        const half scale = cast_scale<T, U>(c, loc);
        with_round_mode(mode, [&](auto m) {
            walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool, uint32_t n, uint64_t) {
                T* d = reinterpret_cast<T*>(ptr[0]);
                const U* x = reinterpret_cast<const U*>(ptr[1]);
                for (uint32_t k = 0; k < n; ++k)
                    if ((bits >> k) & 1) {
                        T v = cast_element<T, decltype(m)::value>(x[k], scale);
                        if constexpr (std::is_same_v<T, half>)
                            if (sat) v = saturate_half(v);
                        d[k] = v;
                    }
            });
        });
        ascendc_sim::count_vector(c, ascendc_sim::OpId::Cast, p.repeats, {src.timing()}, dst.timing());
    }
}

// half -> int4b_t and int4b_t -> half, count form (see kCastRules). Nibble order: types.h.
inline int8_t int4_at(const uint8_t* bytes, uint32_t i) {
    int v = (bytes[i / 2] >> (4 * (i % 2))) & 0xF;
    return static_cast<int8_t>(v >= 8 ? v - 16 : v);
}

template <typename T, typename U>
void cast_int4(const LocalTensor<T>& dst, const LocalTensor<U>& src, RoundMode mode, uint32_t count, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_cast(ascendc_sim::dtype_of<U>, ascendc_sim::dtype_of<T>, mode, loc);
    if (count == 0) return;
    if (count % 2 != 0)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "Cast with int4b_t: count is %u, but it must be even (Cast.md: two int4b_t share a byte).",
                          count);
    ascendc_sim::check_operand(dst, count, "Cast", "dst", loc);
    ascendc_sim::check_operand(src, count, "Cast", "src", loc);
    const uint64_t half_bytes = uint64_t(count) * 2, nibble_bytes = count / 2;
    const bool narrowing = ascendc_sim::is_int4_v<T>;
    if (!narrowing && static_cast<const void*>(dst.GetPhyAddrPtr()) == src.GetPhyAddrPtr())
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "Cast from int4b_t to half in place: the wider result overwrites source elements before "
                          "they are read (Cast.md). Cast into a separate buffer.");
    check_overlap(dst.GetPhyAddrPtr(), narrowing ? nibble_bytes : half_bytes, src.GetPhyAddrPtr(),
                  narrowing ? half_bytes : nibble_bytes, "Cast", "src", loc);
    if constexpr (ascendc_sim::is_int4_v<T> && std::is_same_v<U, half>) {
        std::vector<uint8_t> packed(nibble_bytes, 0);
        const half* x = src.GetPhyAddrPtr();
        with_round_mode(mode, [&](auto m) {
            for (uint32_t i = 0; i < count; ++i) {
                int v = convert<int8_t, decltype(m)::value>(x[i]);
                v = v < -8 ? -8 : v > 7 ? 7 : v;
                packed[i / 2] |= static_cast<uint8_t>((v & 0xF) << (4 * (i % 2)));
            }
        });
        std::memcpy(dst.GetPhyAddrPtr(), packed.data(), nibble_bytes);
    } else if constexpr (ascendc_sim::is_int4_v<U> && std::is_same_v<T, half>) {
        const uint8_t* x = reinterpret_cast<const uint8_t*>(src.GetPhyAddrPtr());
        half* d = dst.GetPhyAddrPtr();
        for (uint32_t i = 0; i < count; ++i) d[i] = static_cast<half>(int4_at(x, i));
    }
    const uint64_t repeats = (half_bytes + ascendc_sim::kRepeatBytes - 1) / ascendc_sim::kRepeatBytes;
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Cast, repeats, {src.timing()}, dst.timing());
}

}  // namespace sim_detail

template <typename T, typename U>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint32_t count,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if constexpr (ascendc_sim::is_int4_v<T> || ascendc_sim::is_int4_v<U>)
        return sim_detail::cast_int4(dst, src, roundMode, count, loc);
    sim_detail::check_cast(ascendc_sim::dtype_of<U>, ascendc_sim::dtype_of<T>, roundMode, loc);
    if constexpr (sim_detail::castable_v<T, U>) {
        if (count == 0) return;
        const half scale = sim_detail::cast_scale<T, U>(c, loc);
        ascendc_sim::check_operand(dst, count, "Cast", "dst", loc);
        ascendc_sim::check_operand(src, count, "Cast", "src", loc);
        // In place is fine when the result is no wider than the source (each repeat writes at or
        // below what it reads); a widening Cast in place overwrites source elements not yet read
        // (Cast.md 约束说明).
        if (sizeof(T) > sizeof(U) && static_cast<const void*>(dst.GetPhyAddrPtr()) == src.GetPhyAddrPtr())
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Cast from %s to %s in place: the wider result overwrites source elements before they "
                              "are read (Cast.md). Cast into a separate buffer.",
                              ascendc_sim::dtype_name(ascendc_sim::dtype_of<U>),
                              ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
        sim_detail::check_overlap(dst.GetPhyAddrPtr(), uint64_t(count) * sizeof(T), src.GetPhyAddrPtr(),
                                  uint64_t(count) * sizeof(U), "Cast", "src", loc);
        T* d = dst.GetPhyAddrPtr();
        const U* x = src.GetPhyAddrPtr();
        sim_detail::with_round_mode(roundMode, [&](auto m) {
            for (uint32_t i = 0; i < count; ++i) d[i] = sim_detail::cast_element<T, decltype(m)::value>(x[i], scale);
        });
        if constexpr (std::is_same_v<T, half>)
            if (sim_detail::saturates<T>(c))
                for (uint32_t i = 0; i < count; ++i) d[i] = sim_detail::saturate_half(d[i]);
        constexpr uint32_t esize = sim_detail::cast_esize<T, U>();
        const uint64_t repeats = (uint64_t(count) * esize + ascendc_sim::kRepeatBytes - 1) / ascendc_sim::kRepeatBytes;
        ascendc_sim::count_vector(c, ascendc_sim::OpId::Cast, repeats, {src.timing()}, dst.timing());
    }
}

template <typename T, typename U, bool isSetMask = true>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint64_t mask[],
          const int64_t repeatTime, const UnaryRepeatParams& repeatParams,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::cast_level0<T, U, isSetMask>(dst, src, roundMode, sim_detail::MaskArg{mask, 0}, repeatTime,
                                             repeatParams, loc);
}

template <typename T, typename U, bool isSetMask = true>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint64_t mask,
          const int64_t repeatTime, const UnaryRepeatParams& repeatParams,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::cast_level0<T, U, isSetMask>(dst, src, roundMode, sim_detail::MaskArg{nullptr, mask}, repeatTime,
                                             repeatParams, loc);
}

}  // namespace AscendC
