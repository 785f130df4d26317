// The math library (high-level APIs): Sin Cos Tan Asin Acos Atan Sinh Cosh Erf Erfc Floor Ceil Round
// Trunc Frac Log2 Log10 Sign Power ClampMax ClampMin Xor, and the basic ShiftLeft/ShiftRight.
//
// Written from the public AscendC API pages (Sin.md, Power.md, ClampMax.md, Xor.md, ShiftLeft.md,
// ShiftRight.md and their siblings). Forms: (dst, src, sharedTmpBuffer, calCount), (dst, src,
// sharedTmpBuffer), (dst, src, calCount), (dst, src); Floor Ceil Round Trunc only the two calCount
// forms (Floor.md, Round.md); Power has the same four for tensor^tensor,
// tensor^scalar and scalar^tensor; ClampMax/ClampMin take (dst, src, [sharedTmpBuffer,] scalar, calCount).
//
// Values: half is widened to float, computed, and rounded once (the pages give no precision).
// Round takes halves away from zero (Round.md: 四舍五入, Round(3.5) = 4). int32 Power is exact integer
// power; a negative int32 exponent is not described by Power.md and is reported, not guessed.
// dst overlapping a source is reported for every API here (Power.md forbids it; the other pages
// are assumed to follow). Temporary space: the rule of activation.h (activation_min_tmp_bytes).
//
// Cost: each call is booked under its OpId with `passes` float repeats (half adds a Cast in and
// out); integer APIs count repeats of their own type. ShiftLeft/ShiftRight are single instructions
// (count form and both mask forms, through vector_ops.h), A2/A3 only: the pages mark 310P unsupported.
#pragma once
#include <cmath>
#include <type_traits>

#include "activation.h"

namespace AscendC {
namespace math_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::dtype_bit;
using ascendc_sim::Loc;
using ascendc_sim::OpId;

constexpr uint32_t kFloatTypes = dtype_bit(DType::F16) | dtype_bit(DType::F32);
constexpr uint32_t kPowerTypes = kFloatTypes | dtype_bit(DType::I32);
constexpr uint32_t kXorTypes = dtype_bit(DType::I16) | dtype_bit(DType::U16);
constexpr uint32_t kShiftTypes = dtype_bit(DType::I16) | dtype_bit(DType::U16) | dtype_bit(DType::I32) |
                            dtype_bit(DType::U32);

struct Spec {
    OpId op;
    const char* name;
    uint32_t passes;
    uint32_t dtypes;  // the same on A2/A3 and 310P for these APIs
};

template <typename T>
void check_tmp(const Spec& spec, const LocalTensor<uint8_t>* tmp, std::initializer_list<const void*> ptrs,
               uint64_t bytes, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    uint32_t min_tmp = ascendc_sim::activation_min_tmp_bytes(sizeof(T));
    if (tmp == nullptr) {
        uint64_t left = uint64_t(c.soc().ub_bytes) - c.ub_used;
        if (left < min_tmp)
            ascendc_sim::fail(Diag::UbOverflow, loc,
                              "%s without sharedTmpBuffer takes at least %u bytes of temporary space from the UB left "
                              "after the InitBuffer calls, but only %llu bytes are left on %s. Allocate less with "
                              "InitBuffer, or pass a sharedTmpBuffer.",
                              spec.name, min_tmp, (unsigned long long)left, c.soc().name);
        return;
    }
    ascendc_sim::check_operand(*tmp, 0, spec.name, "sharedTmpBuffer", loc);
    if (tmp->GetSize() < min_tmp)
        ascendc_sim::fail(Diag::LocalOverrun, loc,
                          "%s: sharedTmpBuffer has %u bytes but %s on %s needs at least %u bytes of temporary space. "
                          "Give the tmp buffer at least %u bytes (GetXxxMaxMinTmpSize gives the range).",
                          spec.name, (unsigned)tmp->GetSize(), spec.name,
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), min_tmp, min_tmp);
    for (const void* p : ptrs)
        if (p != nullptr && act_detail::overlaps(tmp->GetPhyAddrPtr(), tmp->GetSize(), p, bytes))
            ascendc_sim::fail(Diag::BadArgument, loc,
                              "%s: sharedTmpBuffer overlaps a source or dst in UB. Give the temporary space its own "
                              "buffer (a separate TBuf).",
                              spec.name);
}

// dst[i] = f(i) for i < count, after the documented checks. `srcs` are the tensor operands.
template <typename T, typename F>
void run(const Spec& spec, const LocalTensor<T>& dst, std::initializer_list<const LocalTensor<T>*> srcs,
         const LocalTensor<uint8_t>* tmp, uint32_t count, F f, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, spec.dtypes, spec.dtypes, spec.name, loc);
    if (count == 0) return;
    uint64_t bytes = uint64_t(count) * sizeof(T);
    ascendc_sim::check_operand(dst, count, spec.name, "dst", loc);
    for (const LocalTensor<T>* s : srcs) {
        ascendc_sim::check_operand(*s, count, spec.name, "src", loc);
        if (act_detail::overlaps(dst.GetPhyAddrPtr(), bytes, s->GetPhyAddrPtr(), bytes))
            ascendc_sim::fail(Diag::BadArgument, loc,
                              "%s: dst and a source overlap in UB (in-place use), which %s does not support. Write "
                              "the result to a different buffer.",
                              spec.name, spec.name);
    }
    const void* a = srcs.size() > 0 ? (*srcs.begin())->GetPhyAddrPtr() : nullptr;
    const void* b = srcs.size() > 1 ? (*(srcs.begin() + 1))->GetPhyAddrPtr() : nullptr;
    check_tmp<T>(spec, tmp, {a, b, dst.GetPhyAddrPtr()}, bytes, loc);
    T* d = dst.GetPhyAddrPtr();
    for (uint32_t i = 0; i < count; ++i) d[i] = f(i);
    uint64_t repeats = std::is_floating_point_v<T> || std::is_same_v<T, half>
                           ? ascendc_sim::repeats_for<float>(count) * (spec.passes + (sizeof(T) == 2 ? 2 : 0))
                           : ascendc_sim::repeats_for<T>(count) * spec.passes;
    ascendc_sim::BufferTiming* ta = srcs.size() > 0 ? (*srcs.begin())->timing() : nullptr;
    ascendc_sim::BufferTiming* tb = srcs.size() > 1 ? (*(srcs.begin() + 1))->timing() : nullptr;
    ascendc_sim::count_vector(c, spec.op, repeats, {ta, tb, tmp ? tmp->timing() : nullptr}, dst.timing());
}

template <typename T, typename G>
void unary(const Spec& spec, const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp,
           uint32_t count, G g, Loc loc) {
    const T* s = src.GetPhyAddrPtr();
    run(spec, dst, {&src}, tmp, count, [&](uint32_t i) { return T(g(static_cast<float>(s[i]))); }, loc);
}

inline float frac(float x) { return x - std::trunc(x); }
inline float sign(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x); }  // 0, -0 and NaN pass through

template <typename T> T power(T base, T exponent, Loc loc) {
    if constexpr (std::is_integral_v<T>) {
        if (exponent < 0)
            ascendc_sim::fail(Diag::BadArgument, loc,
                              "Power on int32_t: exponent %d is negative, whose result Power.md does not define. "
                              "Use float tensors for negative exponents.",
                              (int)exponent);
        uint32_t result = 1, b = static_cast<uint32_t>(base);
        for (T e = exponent; e > 0; e >>= 1, b *= b)
            if (e & 1) result *= b;
        return static_cast<T>(result);
    } else {
        return T(std::pow(static_cast<float>(base), static_cast<float>(exponent)));
    }
}

#define ASCENDC_SIM_MATH_SPEC(NAME, PASSES, TYPES) constexpr Spec k##NAME{OpId::NAME, #NAME, PASSES, TYPES};
ASCENDC_SIM_MATH_SPEC(Sin, 14, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Cos, 14, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Tan, 18, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Asin, 20, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Acos, 21, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Atan, 16, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Sinh, 6, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Cosh, 6, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Erf, 14, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Erfc, 18, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Floor, 2, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Ceil, 2, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Round, 2, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Trunc, 2, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Frac, 3, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Log2, 2, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Log10, 2, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Sign, 4, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Power, 8, kPowerTypes)
ASCENDC_SIM_MATH_SPEC(ClampMax, 2, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(ClampMin, 2, kFloatTypes)
ASCENDC_SIM_MATH_SPEC(Xor, 4, kXorTypes)
#undef ASCENDC_SIM_MATH_SPEC

}  // namespace math_detail

#define ASCENDC_SIM_MATH_UNARY(NAME, FN)                                                                              \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                       \
              const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,                                   \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        math_detail::unary(math_detail::k##NAME, dstTensor, srcTensor, &sharedTmpBuffer, calCount, FN, loc);         \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                       \
              const LocalTensor<uint8_t>& sharedTmpBuffer, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {         \
        math_detail::unary(math_detail::k##NAME, dstTensor, srcTensor, &sharedTmpBuffer, srcTensor.GetSize(), FN,    \
                           loc);                                                                                      \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount,              \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        math_detail::unary<T>(math_detail::k##NAME, dstTensor, srcTensor, nullptr, calCount, FN, loc);               \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                       \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        math_detail::unary<T>(math_detail::k##NAME, dstTensor, srcTensor, nullptr, srcTensor.GetSize(), FN, loc);    \
    }

ASCENDC_SIM_MATH_UNARY(Sin, [](float x) { return std::sin(x); })
ASCENDC_SIM_MATH_UNARY(Cos, [](float x) { return std::cos(x); })
ASCENDC_SIM_MATH_UNARY(Tan, [](float x) { return std::tan(x); })
ASCENDC_SIM_MATH_UNARY(Asin, [](float x) { return std::asin(x); })
ASCENDC_SIM_MATH_UNARY(Acos, [](float x) { return std::acos(x); })
ASCENDC_SIM_MATH_UNARY(Atan, [](float x) { return std::atan(x); })
ASCENDC_SIM_MATH_UNARY(Sinh, [](float x) { return std::sinh(x); })
ASCENDC_SIM_MATH_UNARY(Cosh, [](float x) { return std::cosh(x); })
ASCENDC_SIM_MATH_UNARY(Erf, [](float x) { return std::erf(x); })
ASCENDC_SIM_MATH_UNARY(Erfc, [](float x) { return std::erfc(x); })
ASCENDC_SIM_MATH_UNARY(Frac, math_detail::frac)
ASCENDC_SIM_MATH_UNARY(Log2, [](float x) { return std::log2(x); })
ASCENDC_SIM_MATH_UNARY(Log10, [](float x) { return std::log10(x); })
ASCENDC_SIM_MATH_UNARY(Sign, math_detail::sign)
#undef ASCENDC_SIM_MATH_UNARY

// Floor.md / Ceil / Round.md / Trunc document only the calCount forms (with and without sharedTmpBuffer).
#define ASCENDC_SIM_MATH_ROUNDING(NAME, FN)                                                                           \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                       \
              const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,                                   \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        math_detail::unary(math_detail::k##NAME, dstTensor, srcTensor, &sharedTmpBuffer, calCount, FN, loc);         \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount,              \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        math_detail::unary<T>(math_detail::k##NAME, dstTensor, srcTensor, nullptr, calCount, FN, loc);               \
    }

// Round.md: "rounds to the nearest integer" (四舍五入, Round(3.5) = 4): halves go away from zero.
ASCENDC_SIM_MATH_ROUNDING(Floor, [](float x) { return std::floor(x); })
ASCENDC_SIM_MATH_ROUNDING(Ceil, [](float x) { return std::ceil(x); })
ASCENDC_SIM_MATH_ROUNDING(Round, [](float x) { return std::round(x); })
ASCENDC_SIM_MATH_ROUNDING(Trunc, [](float x) { return std::trunc(x); })
#undef ASCENDC_SIM_MATH_ROUNDING

// ---- Power: tensor^tensor, tensor^scalar, scalar^tensor (Power.md) --------------------------------------

template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
           const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T* a = src0Tensor.GetPhyAddrPtr();
    const T* b = src1Tensor.GetPhyAddrPtr();
    math_detail::run(math_detail::kPower, dstTensor, {&src0Tensor, &src1Tensor}, &sharedTmpBuffer, calCount,
                     [&](uint32_t i) { return math_detail::power(a[i], b[i], loc); }, loc);
}
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
           uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T* a = src0Tensor.GetPhyAddrPtr();
    const T* b = src1Tensor.GetPhyAddrPtr();
    math_detail::run<T>(math_detail::kPower, dstTensor, {&src0Tensor, &src1Tensor}, nullptr, calCount,
                        [&](uint32_t i) { return math_detail::power(a[i], b[i], loc); }, loc);
}
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
           const LocalTensor<uint8_t>& sharedTmpBuffer, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    Power<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, sharedTmpBuffer, src0Tensor.GetSize(), loc);
}
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    Power<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, src0Tensor.GetSize(), loc);
}

template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar,
           const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T* a = src0Tensor.GetPhyAddrPtr();
    const T e = src1Scalar;
    math_detail::run(math_detail::kPower, dstTensor, {&src0Tensor}, &sharedTmpBuffer, calCount,
                     [&](uint32_t i) { return math_detail::power(a[i], e, loc); }, loc);
}
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar, uint32_t calCount,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T* a = src0Tensor.GetPhyAddrPtr();
    const T e = src1Scalar;
    math_detail::run<T>(math_detail::kPower, dstTensor, {&src0Tensor}, nullptr, calCount,
                        [&](uint32_t i) { return math_detail::power(a[i], e, loc); }, loc);
}
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar,
           const LocalTensor<uint8_t>& sharedTmpBuffer, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    Power<T, isReuseSource>(dstTensor, src0Tensor, src1Scalar, sharedTmpBuffer, src0Tensor.GetSize(), loc);
}
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    Power<T, isReuseSource>(dstTensor, src0Tensor, src1Scalar, src0Tensor.GetSize(), loc);
}

template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar, const LocalTensor<T>& src1Tensor,
           const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T* b = src1Tensor.GetPhyAddrPtr();
    const T base = src0Scalar;
    math_detail::run(math_detail::kPower, dstTensor, {&src1Tensor}, &sharedTmpBuffer, calCount,
                     [&](uint32_t i) { return math_detail::power(base, b[i], loc); }, loc);
}
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar, const LocalTensor<T>& src1Tensor, uint32_t calCount,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T* b = src1Tensor.GetPhyAddrPtr();
    const T base = src0Scalar;
    math_detail::run<T>(math_detail::kPower, dstTensor, {&src1Tensor}, nullptr, calCount,
                        [&](uint32_t i) { return math_detail::power(base, b[i], loc); }, loc);
}
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar, const LocalTensor<T>& src1Tensor,
           const LocalTensor<uint8_t>& sharedTmpBuffer, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    Power<T, isReuseSource>(dstTensor, src0Scalar, src1Tensor, sharedTmpBuffer, src1Tensor.GetSize(), loc);
}
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar, const LocalTensor<T>& src1Tensor,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    Power<T, isReuseSource>(dstTensor, src0Scalar, src1Tensor, src1Tensor.GetSize(), loc);
}

// ---- ClampMax / ClampMin (ClampMax.md, ClampMin.md) -----------------------------------------------------

#define ASCENDC_SIM_CLAMP(NAME, KEEP)                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                       \
              const LocalTensor<uint8_t>& sharedTmpBuffer, const T scalar, const uint32_t calCount,                   \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        const T* s = srcTensor.GetPhyAddrPtr();                                                                       \
        const float c = static_cast<float>(scalar);                                                                   \
        math_detail::run(math_detail::k##NAME, dstTensor, {&srcTensor}, &sharedTmpBuffer, calCount,                  \
                         [&](uint32_t i) { float x = static_cast<float>(s[i]); return (KEEP) ? s[i] : T(c); }, loc);  \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const T scalar,                       \
              const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                             \
        const T* s = srcTensor.GetPhyAddrPtr();                                                                       \
        const float c = static_cast<float>(scalar);                                                                   \
        math_detail::run<T>(math_detail::k##NAME, dstTensor, {&srcTensor}, nullptr, calCount,                        \
                            [&](uint32_t i) { float x = static_cast<float>(s[i]); return (KEEP) ? s[i] : T(c); },     \
                            loc);                                                                                     \
    }

// NaN elements pass through (assumption: the pages do not say; torch.clamp does the same).
ASCENDC_SIM_CLAMP(ClampMax, !(x > c))
ASCENDC_SIM_CLAMP(ClampMin, !(x < c))
#undef ASCENDC_SIM_CLAMP

// ---- Xor (Xor.md): int16_t / uint16_t --------------------------------------------------------------------

template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
         const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
         ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T* a = src0Tensor.GetPhyAddrPtr();
    const T* b = src1Tensor.GetPhyAddrPtr();
    math_detail::run(math_detail::kXor, dstTensor, {&src0Tensor, &src1Tensor}, &sharedTmpBuffer, calCount,
                     [&](uint32_t i) {
                         if constexpr (std::is_integral_v<T>) return T(a[i] ^ b[i]);
                         else return T(0);
                     },
                     loc);
}
template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
         const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T* a = src0Tensor.GetPhyAddrPtr();
    const T* b = src1Tensor.GetPhyAddrPtr();
    math_detail::run<T>(math_detail::kXor, dstTensor, {&src0Tensor, &src1Tensor}, nullptr, calCount,
                        [&](uint32_t i) {
                            if constexpr (std::is_integral_v<T>) return T(a[i] ^ b[i]);
                            else return T(0);
                        },
                        loc);
}
template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
         const LocalTensor<uint8_t>& sharedTmpBuffer, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    Xor<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, sharedTmpBuffer, src0Tensor.GetSize(), loc);
}
template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
         ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    Xor<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, src0Tensor.GetSize(), loc);
}

// ---- ShiftLeft / ShiftRight (basic instructions, ShiftLeft.md / ShiftRight.md) -----------------------------

namespace math_detail {

template <typename T> void check_shift(const char* name, T amount, Loc loc) {
    if constexpr (std::is_integral_v<T>) {
        int64_t n = static_cast<int64_t>(amount);
        if (n < 0 || n >= int64_t(8 * sizeof(T)))
            ascendc_sim::fail(Diag::BadArgument, loc,
                              "%s: scalarValue %lld is outside 0..%d, the bit width of the type; the pages do not "
                              "define such a shift. Clamp the shift amount first.",
                              name, (long long)n, int(8 * sizeof(T)) - 1);
    }
}

// Signed left shift keeps the sign bit and drops the next-highest bits (ShiftLeft.md's int16 example).
template <typename T> T shift_left(T x, T n) {
    if constexpr (!std::is_integral_v<T>) {
        return x;
    } else {
        using U = std::make_unsigned_t<T>;
        U shifted = static_cast<U>(static_cast<U>(x) << static_cast<int>(n));
        if constexpr (std::is_signed_v<T>) {
            const U sign = U(U(1) << (8 * sizeof(T) - 1));
            shifted = static_cast<U>((static_cast<U>(x) & sign) | (shifted & U(~sign)));
        }
        return static_cast<T>(shifted);
    }
}

// Unsigned: logical; signed: arithmetic (ShiftRight.md).
template <typename T> T shift_right(T x, T n) {
    if constexpr (!std::is_integral_v<T>) return x;
    else return static_cast<T>(x >> static_cast<int>(n));
}

inline constexpr sim_detail::OpSpec kShiftLeft{OpId::ShiftLeft, "ShiftLeft", kShiftTypes, 0};
inline constexpr sim_detail::OpSpec kShiftRight{OpId::ShiftRight, "ShiftRight", kShiftTypes, 0};

inline void check_round(bool roundEn, Loc loc) {
    if (roundEn)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "ShiftRight with roundEn = true: its rounding is not described precisely enough on the page "
                          "to simulate. Pass roundEn = false, or add the rounding bit with Adds before the shift.");
}

}  // namespace math_detail

template <typename T, bool isSetMask = true>
void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T n = scalarValue;
    math_detail::check_shift("ShiftLeft", n, loc);
    sim_detail::unary_count<T, isSetMask>(math_detail::kShiftLeft, dst, src, count,
                                          [n](auto x) { return decltype(x)(math_detail::shift_left<T>(T(x), n)); },
                                          loc);
}
template <typename T, bool isSetMask = true>
void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const uint64_t mask[],
               const uint8_t repeatTime, const UnaryRepeatParams& repeatParams,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T n = scalarValue;
    math_detail::check_shift("ShiftLeft", n, loc);
    sim_detail::unary_level0<T, isSetMask>(math_detail::kShiftLeft, dst, src, sim_detail::MaskArg{mask, 0},
                                           repeatTime, repeatParams,
                                           [n](T x) { return math_detail::shift_left<T>(x, n); }, loc);
}
template <typename T, bool isSetMask = true>
void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask,
               const uint8_t repeatTime, const UnaryRepeatParams& repeatParams,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T n = scalarValue;
    math_detail::check_shift("ShiftLeft", n, loc);
    sim_detail::unary_level0<T, isSetMask>(math_detail::kShiftLeft, dst, src, sim_detail::MaskArg{nullptr, mask},
                                           repeatTime, repeatParams,
                                           [n](T x) { return math_detail::shift_left<T>(x, n); }, loc);
}

template <typename T, bool isSetMask = true>
void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T n = scalarValue;
    math_detail::check_shift("ShiftRight", n, loc);
    sim_detail::unary_count<T, isSetMask>(math_detail::kShiftRight, dst, src, count,
                                          [n](auto x) { return decltype(x)(math_detail::shift_right<T>(T(x), n)); },
                                          loc);
}
template <typename T, bool isSetMask = true>
void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const uint64_t mask[],
                const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, bool roundEn = false,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T n = scalarValue;
    math_detail::check_shift("ShiftRight", n, loc);
    math_detail::check_round(roundEn, loc);
    sim_detail::unary_level0<T, isSetMask>(math_detail::kShiftRight, dst, src, sim_detail::MaskArg{mask, 0},
                                           repeatTime, repeatParams,
                                           [n](T x) { return math_detail::shift_right<T>(x, n); }, loc);
}
template <typename T, bool isSetMask = true>
void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask,
                const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, bool roundEn = false,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const T n = scalarValue;
    math_detail::check_shift("ShiftRight", n, loc);
    math_detail::check_round(roundEn, loc);
    sim_detail::unary_level0<T, isSetMask>(math_detail::kShiftRight, dst, src, sim_detail::MaskArg{nullptr, mask},
                                           repeatTime, repeatParams,
                                           [n](T x) { return math_detail::shift_right<T>(x, n); }, loc);
}

}  // namespace AscendC
