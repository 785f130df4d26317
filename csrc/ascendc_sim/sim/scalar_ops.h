// The scalar helpers of the 标量计算 chapter (ScalarGetCountOfValue, ScalarCountLeadingZero,
// ScalarCast, CountBitsCntSameAsSignBit, ScalarGetSFFValue; ToBfloat16/ToFloat live in types.h).
//
// From asc-devkit v8.5.0 ScalarGetCountOfValue.md, ScalarCountLeadingZero.md, ScalarCast.md,
// CountBitsCntSameAsSignBit.md, ScalarGetSFFValue.md:
// - ScalarCast converts float to half (CAST_ODD only) or int32_t (CAST_ROUND, CAST_CEIL, CAST_FLOOR,
//   CAST_RINT), with Cast's rules (cast.h's convert).
// - CountBitsCntSameAsSignBit counts the bits after the sign bit equal to it; -1 for 0 and -1.
// - ScalarGetSFFValue<v>: the index of the first bit equal to v from the least significant end, -1 if none.
// These are scalar instructions; they are not counted as vector ops.
#pragma once
#include "cast.h"

namespace AscendC {

template <int countValue>
inline int64_t ScalarGetCountOfValue(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "ScalarGetCountOfValue<countValue>: countValue must be 0 or 1");
    const int64_t ones = __builtin_popcountll(valueIn);
    return countValue == 1 ? ones : 64 - ones;
}

inline int64_t ScalarCountLeadingZero(uint64_t valueIn) { return valueIn == 0 ? 64 : __builtin_clzll(valueIn); }

inline int64_t CountBitsCntSameAsSignBit(int64_t valueIn) {
    if (valueIn == 0 || valueIn == -1) return -1;
    const uint64_t v = static_cast<uint64_t>(valueIn);
    const uint64_t flipped = (valueIn < 0 ? ~v : v) << 1;  // the bits after the sign, a 1 where they differ from it
    return __builtin_clzll(flipped);
}

template <int countValue>
inline int64_t ScalarGetSFFValue(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "ScalarGetSFFValue<countValue>: countValue must be 0 or 1");
    const uint64_t v = countValue == 1 ? valueIn : ~valueIn;
    return v == 0 ? -1 : __builtin_ctzll(v);
}

template <typename T, typename U, RoundMode roundMode>
inline U ScalarCast(T valueIn, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    constexpr bool to_half = std::is_same_v<T, float> && std::is_same_v<U, half>;
    constexpr bool to_int = std::is_same_v<T, float> && std::is_same_v<U, int32_t>;
    if constexpr (!to_half && !to_int) {
        ascendc_sim::fail(ascendc_sim::Diag::UnsupportedDtype, loc,
                          "ScalarCast<%s, %s> is not supported: ScalarCast converts float to half (CAST_ODD) or to "
                          "int32_t (CAST_ROUND, CAST_CEIL, CAST_FLOOR, CAST_RINT) only (ScalarCast.md).",
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>),
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<U>));
    } else {
        constexpr bool ok = to_half ? roundMode == RoundMode::CAST_ODD
                                    : (roundMode == RoundMode::CAST_ROUND || roundMode == RoundMode::CAST_CEIL ||
                                       roundMode == RoundMode::CAST_FLOOR || roundMode == RoundMode::CAST_RINT);
        if (!ok)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "ScalarCast from float to %s does not take RoundMode::%s; supported: %s (ScalarCast.md).",
                              to_half ? "half" : "int32_t", sim_detail::round_mode_name(roundMode),
                              to_half ? "CAST_ODD" : "CAST_ROUND, CAST_CEIL, CAST_FLOOR, CAST_RINT");
        return sim_detail::convert<U, roundMode>(valueIn);
    }
}

}  // namespace AscendC
