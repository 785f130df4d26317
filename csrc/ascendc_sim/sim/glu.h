// Gated activations (high-level APIs): Swish, SwiGLU, GeGLU, ReGlu.
//
// Formulas (asc-devkit v8.5.0 Swish.md, SwiGLU.md, GeGLU.md, ReGlu.md, from their formula figures):
//   Swish(x)        = x / (1 + e^(-beta x))
//   SwiGLU(x0, x1)  = x0 * Swish(x1)                              (beta: scalarValue)
//   GeGLU(x0, x1)   = x0 * x1 / (1 + e^(a x1 (b + x1^2))),  a = -0.0713548162726, b = 22.363860002236
//   ReGlu(x0, x1)   = x0 * max(x1, 0)
// Values: computed in float, rounded once. Types: half/float (ReGlu also bfloat16_t) on Atlas A2/A3; 310P the same
// without bfloat16_t (hiascend's SwiGLU page: AI Core supported). No operand may overlap dst; sharedTmpBuffer may not
// overlap any operand.
// Temporary space: the rule of activation.h (activation_min_tmp_bytes); Swish takes none.
// Cost: one composite instruction, float repeats: Swish 4, SwiGLU 5, GeGLU 8, ReGlu 2 (a 16-bit type adds 2).
#pragma once
#include <cmath>

#include "activation.h"
#include "hl_checks.h"

namespace AscendC {
namespace glu_detail {

using ascendc_sim::DType;
using ascendc_sim::dtype_bit;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using hl_detail::Span;

struct Spec {
    OpId op;
    const char* name;
    uint32_t passes;
    uint32_t dtypes;
};

constexpr Spec kSwish{OpId::Swish, "Swish", 4, hl_detail::kHalfFloat};
constexpr Spec kSwiGLU{OpId::SwiGLU, "SwiGLU", 5, hl_detail::kHalfFloat};
constexpr Spec kGeGLU{OpId::GeGLU, "GeGLU", 8, hl_detail::kHalfFloat};
constexpr Spec kReGlu{OpId::ReGlu, "ReGlu", 2, hl_detail::kHalfFloat | dtype_bit(DType::BF16)};

// dst[i] = f(x0[i], x1[i]) (x1 unused by Swish: pass x0 twice).
template <typename T, typename F>
void run(const Spec& spec, const LocalTensor<T>& dst, const LocalTensor<T>& x0, const LocalTensor<T>* x1,
         const LocalTensor<uint8_t>* tmp, bool uses_tmp, uint32_t count, F f, Loc loc) {
    hl_detail::check_soc_dtype(spec.name, ascendc_sim::dtype_of<T>, spec.dtypes, hl_detail::kSameAsA2, loc);
    if (count == 0) return;
    ascendc_sim::check_operand(dst, count, spec.name, "dst", loc);
    ascendc_sim::check_operand(x0, count, spec.name, x1 ? "srcTensor0" : "src", loc);
    Span d = hl_detail::span(dst, count, "dst"), a = hl_detail::span(x0, count, x1 ? "srcTensor0" : "src");
    Span b{nullptr, 0, "srcTensor1"};
    hl_detail::check_apart(spec.name, d, a, false, loc);
    if (x1 != nullptr) {
        ascendc_sim::check_operand(*x1, count, spec.name, "srcTensor1", loc);
        b = hl_detail::span(*x1, count, "srcTensor1");
        hl_detail::check_apart(spec.name, d, b, false, loc);
    }
    if (uses_tmp) hl_detail::check_tmp(spec.name, tmp, ascendc_sim::activation_min_tmp_bytes(sizeof(T)), {d, a, b}, loc);
    const T* p = x0.GetPhyAddrPtr();
    const T* q = x1 ? x1->GetPhyAddrPtr() : p;
    T* o = dst.GetPhyAddrPtr();
    for (uint32_t i = 0; i < count; ++i) o[i] = T(f(static_cast<float>(p[i]), static_cast<float>(q[i])));
    hl_detail::poison_tmp(tmp, ascendc_sim::activation_max_tmp_bytes(count, sizeof(T)));
    hl_detail::book(spec.op, count, spec.passes, sizeof(T) == 2,
                    {x0.timing(), x1 ? x1->timing() : nullptr, tmp ? tmp->timing() : nullptr}, dst.timing(), {}, loc);
}

inline float geglu(float x0, float x1) {
    constexpr float a = -0.0713548162726f, b = 22.363860002236f;
    return x0 * x1 / (1.0f + std::exp(a * x1 * (b + x1 * x1)));
}

}  // namespace glu_detail

// Swish.md: no temporary space, dataSize and beta.
template <typename T, bool isReuseSource = false>
void Swish(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize, const T scalarValue,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const float beta = static_cast<float>(scalarValue);
    glu_detail::run<T>(glu_detail::kSwish, dstLocal, srcLocal, nullptr, nullptr, false, dataSize,
                       [beta](float x, float) { return x / (1.0f + std::exp(-beta * x)); }, loc);
}

// SwiGLU.md: dst is a non-const reference there; a const one binds the same arguments.
#define ASCENDC_SIM_SWIGLU_FN [beta](float x0, float x1) { return x0 * x1 / (1.0f + std::exp(-beta * x1)); }
template <typename T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
            const float& scalarValue, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const float beta = scalarValue;
    glu_detail::run(glu_detail::kSwiGLU, dstTensor, srcTensor0, &srcTensor1, &sharedTmpBuffer, true, calCount,
                    ASCENDC_SIM_SWIGLU_FN, loc);
}
template <typename T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
            const float& scalarValue, const LocalTensor<uint8_t>& sharedTmpBuffer,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const float beta = scalarValue;
    glu_detail::run(glu_detail::kSwiGLU, dstTensor, srcTensor0, &srcTensor1, &sharedTmpBuffer, true,
                    srcTensor0.GetSize(), ASCENDC_SIM_SWIGLU_FN, loc);
}
template <typename T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
            const float& scalarValue, const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const float beta = scalarValue;
    glu_detail::run<T>(glu_detail::kSwiGLU, dstTensor, srcTensor0, &srcTensor1, nullptr, true, calCount,
                       ASCENDC_SIM_SWIGLU_FN, loc);
}
template <typename T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
            const float& scalarValue, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const float beta = scalarValue;
    glu_detail::run<T>(glu_detail::kSwiGLU, dstTensor, srcTensor0, &srcTensor1, nullptr, true, srcTensor0.GetSize(),
                       ASCENDC_SIM_SWIGLU_FN, loc);
}
#undef ASCENDC_SIM_SWIGLU_FN

// GeGLU.md: four forms.
template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    glu_detail::run(glu_detail::kGeGLU, dstTensor, srcTensor0, &srcTensor1, &sharedTmpBuffer, true, calCount,
                    glu_detail::geglu, loc);
}
template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           const LocalTensor<uint8_t>& sharedTmpBuffer, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    glu_detail::run(glu_detail::kGeGLU, dstTensor, srcTensor0, &srcTensor1, &sharedTmpBuffer, true,
                    srcTensor0.GetSize(), glu_detail::geglu, loc);
}
template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    glu_detail::run<T>(glu_detail::kGeGLU, dstTensor, srcTensor0, &srcTensor1, nullptr, true, calCount,
                       glu_detail::geglu, loc);
}
template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    glu_detail::run<T>(glu_detail::kGeGLU, dstTensor, srcTensor0, &srcTensor1, nullptr, true, srcTensor0.GetSize(),
                       glu_detail::geglu, loc);
}

// ReGlu.md: the two calCount forms.
template <typename T, bool isReuseSource = false>
void ReGlu(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    glu_detail::run(glu_detail::kReGlu, dstTensor, srcTensor0, &srcTensor1, &sharedTmpBuffer, true, calCount,
                    [](float x0, float x1) { return x0 * (x1 > 0.0f ? x1 : 0.0f); }, loc);
}
template <typename T, bool isReuseSource = false>
void ReGlu(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    glu_detail::run<T>(glu_detail::kReGlu, dstTensor, srcTensor0, &srcTensor1, nullptr, true, calCount,
                       [](float x0, float x1) { return x0 * (x1 > 0.0f ? x1 : 0.0f); }, loc);
}

}  // namespace AscendC
