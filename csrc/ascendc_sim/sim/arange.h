// Arange (high-level API, Arange.md; ArithProgression is its older name): dst[i] = firstValue + i * diffValue for
// i < count. int16_t/int32_t are exact (wrapping like the vector adds); half/float follow the page's steps: the first
// 8 values by scalar writes (first + j * diff, computed in float), values 8..63 by Adds of (i - i mod 8) * diff to
// them, and from 64 on by Adds of (i - i mod 64) * diff to the first 64 (assumed: one Adds per 64-element block; the
// scalars computed in float). Each Adds rounds to T.
// Checks: count > 0 and diffValue >= 0 (the page), dst large enough. Types: int16_t/half/int32_t/float on Atlas
// A2/A3, and 310P (hl_checks.h kSameAsA2). No temporary space (GetArangeMaxMinTmpSize.md: 0). Cost: one composite instruction of
// ceil(count / 8) + 1 repeats of T.
#pragma once
#include <type_traits>

#include "hl_checks.h"

namespace AscendC {
namespace arange_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::dtype_bit;
using ascendc_sim::Loc;

constexpr uint32_t kTypes = dtype_bit(DType::I16) | dtype_bit(DType::F16) | dtype_bit(DType::I32) |
                            dtype_bit(DType::F32);

template <typename T>
void arange(const char* api, const LocalTensor<T>& dst, T first, T diff, int32_t count, Loc loc) {
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, kTypes, hl_detail::kSameAsA2, loc);
    if (count <= 0 || static_cast<float>(diff) < 0.0f)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: count %d and diffValue %g: count must be positive and diffValue at least 0 (Arange.md). "
                          "For a falling sequence, Arange with -diff and Muls by -1.",
                          api, count, static_cast<double>(static_cast<float>(diff)));
    ascendc_sim::check_operand(dst, uint64_t(count), api, "dst", loc);
    T* d = dst.GetPhyAddrPtr();
    for (int32_t i = 0; i < count; ++i) {
        if constexpr (std::is_integral_v<T>) {
            d[i] = static_cast<T>(static_cast<uint32_t>(first) + static_cast<uint32_t>(i) * static_cast<uint32_t>(diff));
        } else {
            const float f = static_cast<float>(first), df = static_cast<float>(diff);
            T v = T(f + static_cast<float>(i % 8) * df);
            if (i % 64 >= 8) v = T(v + T(static_cast<float>(i % 64 - i % 8) * df));
            if (i >= 64) v = T(v + T(static_cast<float>(i - i % 64) * df));
            d[i] = v;
        }
    }
    uint64_t repeats = (uint64_t(count) + 7) / 8 + 1;
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Arange, repeats, {}, dst.timing());
}

}  // namespace arange_detail

template <typename T>
void Arange(const LocalTensor<T>& dst, const T firstValue, const T diffValue, const int32_t count,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    arange_detail::arange("Arange", dst, firstValue, diffValue, count, loc);
}

template <typename T>
void ArithProgression(const LocalTensor<T>& dstLocal, const T firstValue, const T diffValue, const int32_t count,
                      ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    arange_detail::arange("ArithProgression", dstLocal, firstValue, diffValue, count, loc);
}

}  // namespace AscendC
