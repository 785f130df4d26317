// High-level activation APIs: Sigmoid, Tanh, Silu, Gelu, FasterGelu, FasterGeluV2.
//
// Formulas (asc-devkit v8.5.0 Sigmoid.md, Tanh.md, Silu.md, Gelu.md, FasterGelu.md, FasterGeluV2.md):
//   Sigmoid(x)      = 1 / (1 + e^-x)
//   Tanh(x)         = (e^x - e^-x) / (e^x + e^-x)            (evaluated as tanhf: same value, no overflow)
//   Silu(x)         = x / (1 + e^-x)
//   Gelu(x)         = x / (1 + e^(-1.59576912 (x + 0.044715 x^3)))   (the tanh approximation, simplified)
//   FasterGelu(x)   = x e^(0.851 (x - |x|)) / (1 + e^(-1.702 |x|))
//   FasterGeluV2(x) = x (sgn(x) (-0.1444 (min(|0.7071 x|, 1.769) - 1.769)^2 + 0.5) + 0.5),
//                     sgn(x) = (x + 1e-12) / |x + 1e-12|
// float is computed in float; half is widened to float, computed, and rounded once (the pages
// state no precision; Gelu's highPrecision/highPerformance flags change nothing here).
//
// Cost: each call is booked under its OpId with the repeats of the basic instructions it is
// assumed to expand to, all over float repeats (a half call adds a Cast in and a Cast out):
//   Sigmoid 4 (Muls, Exp, Adds, Reciprocal)      Silu 4 (Muls, Exp, Adds, Div)
//   Tanh 7 (Mins, Maxs clamp, Muls, Exp, Adds, Adds, Div)
//   Gelu 8 (Mul, Mul, Muls, Add, Muls, Exp, Adds, Div)
//   FasterGelu 9 (Abs, Sub, Muls, Exp, Mul, Muls, Exp, Adds, Div)   FasterGeluV2 12.
// FasterGelu and FasterGeluV2 are booked as Gelu.
//
// Temporary space: the pages defer to GetXxxMaxMinTmpSize, whose numbers they do not give.
// GetTanhTmpBufferFactorSize.md says the API works on at least 256 bytes of elements at a time,
// so the minimum assumed here is one 256-byte float working set per live float buffer: 256
// bytes for float and 512 for half (a float copy of the input plus a float result).
// activation_min_tmp_bytes() is that number, for a host-side GetXxxMaxMinTmpSize to agree with.
// Without sharedTmpBuffer the framework takes the space from the UB left after InitBuffer.
#pragma once
#include <cmath>

#include "vector_ops.h"

namespace ascendc_sim {

constexpr uint32_t activation_min_tmp_bytes(uint32_t type_size) { return type_size == 2 ? 512u : 256u; }

// The space the whole count could use at once (the most that helps), per the same model.
constexpr uint64_t activation_max_tmp_bytes(uint64_t count, uint32_t type_size) {
    uint64_t per_node = (count * sizeof(float) + kRepeatBytes - 1) / kRepeatBytes * kRepeatBytes;
    uint64_t bytes = per_node * (type_size == 2 ? 2 : 1);
    return bytes < activation_min_tmp_bytes(type_size) ? activation_min_tmp_bytes(type_size) : bytes;
}

}  // namespace ascendc_sim

namespace AscendC {
namespace act_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::Loc;
using ascendc_sim::OpId;

constexpr uint32_t kTypes = ascendc_sim::dtype_bit(DType::F16) | ascendc_sim::dtype_bit(DType::F32);

struct Spec {
    OpId op;
    const char* name;
    uint32_t passes;
    bool src_dst_overlap_ok;  // the page allows dst and src to share space
    bool tmp_overlap_ok;      // the page does not forbid sharedTmpBuffer overlapping src/dst
};

inline bool overlaps(const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes) {
    auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
    return x < y + b_bytes && y < x + a_bytes;
}

template <typename T, typename F>
void run(const Spec& spec, const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp,
         uint32_t count, F f, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, spec.name, loc);
    if (count == 0) return;
    ascendc_sim::check_operand(dst, count, spec.name, "dst", loc);
    ascendc_sim::check_operand(src, count, spec.name, "src", loc);
    uint64_t bytes = uint64_t(count) * sizeof(T);
    uint32_t min_tmp = ascendc_sim::activation_min_tmp_bytes(sizeof(T));
    if (!spec.src_dst_overlap_ok && overlaps(dst.GetPhyAddrPtr(), bytes, src.GetPhyAddrPtr(), bytes))
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: dst and src overlap in UB (in-place use); the %s page does not support src and dst "
                          "sharing space. Write the result to a different buffer.",
                          spec.name, spec.name);
    if (tmp != nullptr) {
        ascendc_sim::check_operand(*tmp, 0, spec.name, "sharedTmpBuffer", loc);
        if (tmp->GetSize() < min_tmp)
            ascendc_sim::fail(Diag::LocalOverrun, loc,
                              "%s: sharedTmpBuffer has %u bytes but %s on %s needs at least %u bytes of temporary "
                              "space (the minimum GetXxxMaxMinTmpSize reports; up to %llu bytes for %u elements "
                              "is useful). Give the tmp buffer at least %u bytes.",
                              spec.name, (unsigned)tmp->GetSize(), spec.name,
                              ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), min_tmp,
                              (unsigned long long)ascendc_sim::activation_max_tmp_bytes(count, sizeof(T)), count,
                              min_tmp);
        if (!spec.tmp_overlap_ok && (overlaps(tmp->GetPhyAddrPtr(), tmp->GetSize(), src.GetPhyAddrPtr(), bytes) ||
                                     overlaps(tmp->GetPhyAddrPtr(), tmp->GetSize(), dst.GetPhyAddrPtr(), bytes)))
            ascendc_sim::fail(Diag::BadArgument, loc,
                              "%s: sharedTmpBuffer overlaps src or dst in UB; the %s page does not allow it. Give the "
                              "temporary space its own buffer (a separate TBuf).",
                              spec.name, spec.name);
    } else {
        uint64_t left = uint64_t(c.soc().ub_bytes) - c.ub_used;
        if (left < min_tmp)
            ascendc_sim::fail(Diag::UbOverflow, loc,
                              "%s without sharedTmpBuffer takes at least %u bytes of temporary space from the UB left "
                              "after the InitBuffer calls, but only %llu bytes are left on %s. Allocate less with "
                              "InitBuffer, or pass a sharedTmpBuffer.",
                              spec.name, min_tmp, (unsigned long long)left, c.soc().name);
    }
    const T* s = src.GetPhyAddrPtr();
    T* d = dst.GetPhyAddrPtr();
    for (uint32_t i = 0; i < count; ++i) d[i] = T(f(static_cast<float>(s[i])));
    if (tmp != nullptr) {
        // The temporary space holds float intermediates afterwards, as on the NPU.
        float* t = reinterpret_cast<float*>(tmp->GetPhyAddrPtr());
        uint32_t n = std::min<uint32_t>(count, tmp->GetSize() / sizeof(float));
        for (uint32_t i = 0; i < n; ++i) t[i] = static_cast<float>(d[i]);
    }
    uint64_t float_repeats = ascendc_sim::repeats_for<float>(count);
    uint64_t repeats = float_repeats * (spec.passes + (sizeof(T) == 2 ? 2 : 0));
    ascendc_sim::count_vector(c, spec.op, repeats, {src.timing(), tmp ? tmp->timing() : nullptr}, dst.timing());
}

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
inline float tanh_value(float x) { return std::tanh(x); }
inline float silu(float x) { return x / (1.0f + std::exp(-x)); }
inline float gelu(float x) { return x / (1.0f + std::exp(-1.59576912f * (x + 0.044715f * x * x * x))); }
inline float faster_gelu(float x) {
    float a = std::fabs(x);
    return x * std::exp(0.851f * (x - a)) / (1.0f + std::exp(-1.702f * a));
}
inline float faster_gelu_v2(float x) {
    float shifted = x + 1e-12f;
    float sgn = shifted / std::fabs(shifted);
    float t = std::fmin(std::fabs(0.7071f * x), 1.769f) - 1.769f;
    return x * (sgn * (-0.1444f * t * t + 0.5f) + 0.5f);
}

constexpr Spec kSigmoid{OpId::Sigmoid, "Sigmoid", 4, false, false};
constexpr Spec kTanh{OpId::Tanh, "Tanh", 7, false, false};
constexpr Spec kSilu{OpId::Silu, "Silu", 4, false, false};
constexpr Spec kGelu{OpId::Gelu, "Gelu", 8, true, false};
constexpr Spec kFasterGelu{OpId::Gelu, "FasterGelu", 9, true, true};
constexpr Spec kFasterGeluV2{OpId::Gelu, "FasterGeluV2", 12, true, true};

}  // namespace act_detail

// Sigmoid.md / Tanh.md: with or without sharedTmpBuffer, with calCount or over the whole src.
#define ASCENDC_SIM_ACTIVATION_CAL(NAME, SPEC, FN)                                                                    \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                       \
              const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,                                   \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        act_detail::run(act_detail::SPEC, dstTensor, srcTensor, &sharedTmpBuffer, calCount, act_detail::FN, loc);     \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                       \
              const LocalTensor<uint8_t>& sharedTmpBuffer, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {         \
        act_detail::run(act_detail::SPEC, dstTensor, srcTensor, &sharedTmpBuffer, srcTensor.GetSize(),                \
                        act_detail::FN, loc);                                                                         \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount,              \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        act_detail::run<T>(act_detail::SPEC, dstTensor, srcTensor, nullptr, calCount, act_detail::FN, loc);           \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                       \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        act_detail::run<T>(act_detail::SPEC, dstTensor, srcTensor, nullptr, srcTensor.GetSize(), act_detail::FN, loc); \
    }

ASCENDC_SIM_ACTIVATION_CAL(Sigmoid, kSigmoid, sigmoid)
ASCENDC_SIM_ACTIVATION_CAL(Tanh, kTanh, tanh_value)
#undef ASCENDC_SIM_ACTIVATION_CAL

// Silu.md documents only the form without sharedTmpBuffer.
template <typename T, bool isReuseSource = false>
void Silu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    act_detail::run<T>(act_detail::kSilu, dstLocal, srcLocal, nullptr, dataSize, act_detail::silu, loc);
}

// Gelu.md / FasterGelu.md / FasterGeluV2.md: with or without sharedTmpBuffer, always a dataSize.
#define ASCENDC_SIM_GELU(NAME, SPEC, FN)                                                                              \
    template <typename T, bool highPrecision = false, bool highPerformance = false>                                   \
    void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,                                         \
              const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t dataSize,                                   \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        act_detail::run(act_detail::SPEC, dstLocal, srcLocal, &sharedTmpBuffer, dataSize, act_detail::FN, loc);       \
    }                                                                                                                 \
    template <typename T, bool highPrecision = false, bool highPerformance = false>                                   \
    void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dataSize,                \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                      \
        act_detail::run<T>(act_detail::SPEC, dstLocal, srcLocal, nullptr, dataSize, act_detail::FN, loc);            \
    }

ASCENDC_SIM_GELU(Gelu, kGelu, gelu)
ASCENDC_SIM_GELU(FasterGelu, kFasterGelu, faster_gelu)
ASCENDC_SIM_GELU(FasterGeluV2, kFasterGeluV2, faster_gelu_v2)
#undef ASCENDC_SIM_GELU

}  // namespace AscendC
