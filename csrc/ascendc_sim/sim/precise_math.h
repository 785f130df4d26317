// High-level versions of two basic instructions (the math library's "Exp" and "Axpy" pages, Exp-26.md and
// Axpy-25.md in asc-devkit v8.5.0): Exp with an optional Taylor expansion, and Axpy built from Muls and Add.
//
//   Exp<T, taylorExpandLevel>   level 0: e^x; level n > 0: e^floor(x) * (1 + f + ... + f^n / n!), f = x - floor(x)
//                               (the page's formula figures). half/float; isReuseSource (float only) leaves src NaN.
//   Axpy<T, U>(dst, src, s, tmp, n)  dst = dst + U(src * s): Muls in U, then Add in T. The page's combinations:
//                               half/half, float/float, and float dst with half src (mix).
// Both: no src/dst overlap, sharedTmpBuffer apart, on A2/A3 and 310P (hl_checks.h kSameAsA2). The basic
// Exp(dst, src, count) / Axpy(dst, src, s, count) stay in vector_ops.h; these take an explicit taylorExpandLevel or
// a sharedTmpBuffer, so the overloads never compete.
// Temporary space: activation.h's rule (activation_min_tmp_bytes). Cost: one composite instruction: Exp 2 + n float
// passes (Floor, Sub, Exp, then one Muls+Add per term), Axpy 2.
#pragma once
#include <cmath>

#include "activation.h"
#include "hl_checks.h"

namespace AscendC {
namespace precise_detail {

using ascendc_sim::Diag;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using hl_detail::Span;

inline float taylor_exp(float x, uint32_t level) {
    if (level == 0) return std::exp(x);
    float whole = std::floor(x), f = x - whole, term = 1.0f, sum = 1.0f;
    for (uint32_t k = 1; k <= level; ++k) {
        term *= f / static_cast<float>(k);
        sum += term;
    }
    return std::exp(whole) * sum;
}

template <typename D, typename S>
void check_pair(const char* api, const LocalTensor<D>& dst, const LocalTensor<S>& src,
                const LocalTensor<uint8_t>* tmp, uint32_t count, uint32_t tmp_type_size, Loc loc) {
    ascendc_sim::check_operand(dst, count, api, "dst", loc);
    ascendc_sim::check_operand(src, count, api, "src", loc);
    Span d = hl_detail::span(dst, count, "dst"), s = hl_detail::span(src, count, "src");
    hl_detail::check_apart(api, d, s, false, loc);
    hl_detail::check_tmp(api, tmp, ascendc_sim::activation_min_tmp_bytes(tmp_type_size), {d, s}, loc);
}

template <typename T, uint8_t level, bool isReuseSource>
void exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp, uint32_t count,
         Loc loc) {
    hl_detail::check_soc_dtype("Exp", ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    if (count == 0) return;
    check_pair("Exp", dst, src, tmp, count, sizeof(T), loc);
    for (uint32_t i = 0; i < count; ++i)
        dst.GetPhyAddrPtr()[i] = T(taylor_exp(static_cast<float>(src.GetPhyAddrPtr()[i]), level));
    if (isReuseSource && sizeof(T) == 4)
        for (uint32_t i = 0; i < count; ++i) src.GetPhyAddrPtr()[i] = hl_detail::poison_value<T>();
    hl_detail::poison_tmp(tmp, ascendc_sim::activation_max_tmp_bytes(count, sizeof(T)));
    hl_detail::book(OpId::ExpTaylor, count, 2 + level, sizeof(T) == 2, {src.timing(), tmp ? tmp->timing() : nullptr},
                    dst.timing(), {isReuseSource ? src.timing() : nullptr}, loc);
}

template <typename T, typename U>
void axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, U scalar, const LocalTensor<uint8_t>& tmp,
          uint32_t count, Loc loc) {
    const char* api = "Axpy";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<U>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    if (sizeof(T) < sizeof(U))
        ascendc_sim::fail(Diag::UnsupportedDtype, loc,
                          "Axpy (with sharedTmpBuffer): half dst with float src is not one of the page's combinations "
                          "(half/half, float/float, float dst with half src).");
    if (count == 0) return;
    check_pair(api, dst, src, &tmp, count, sizeof(U), loc);
    for (uint32_t i = 0; i < count; ++i) {
        U product = U(static_cast<float>(src.GetPhyAddrPtr()[i]) * static_cast<float>(scalar));
        dst.GetPhyAddrPtr()[i] = T(static_cast<float>(dst.GetPhyAddrPtr()[i]) + static_cast<float>(product));
    }
    hl_detail::poison_tmp(&tmp, ascendc_sim::activation_max_tmp_bytes(count, sizeof(U)));
    hl_detail::book(OpId::AxpyPrecise, count, 2, sizeof(T) == 2, {src.timing(), dst.timing(), tmp.timing()},
                    dst.timing(), {}, loc);
}

}  // namespace precise_detail

template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint8_t>& sharedTmpBuffer,
         const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    precise_detail::exp<T, taylorExpandLevel, isReuseSource>(dstLocal, srcLocal, &sharedTmpBuffer, calCount, loc);
}
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t calCount,
         ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    precise_detail::exp<T, taylorExpandLevel, isReuseSource>(dstLocal, srcLocal, nullptr, calCount, loc);
}

template <typename T, typename U, bool isReuseSource = false>
void Axpy(const LocalTensor<T>& dstTensor, const LocalTensor<U>& srcTensor, const U scalarValue,
          const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    precise_detail::axpy<T, U>(dstTensor, srcTensor, scalarValue, sharedTmpBuffer, calCount, loc);
}

}  // namespace AscendC
