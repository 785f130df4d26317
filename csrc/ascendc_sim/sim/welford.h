// Welford's online mean and variance (high-level APIs): WelfordUpdate and WelfordFinalize.
//
// Written from asc-devkit v8.5.0 WelfordUpdate.md and WelfordFinalize.md (their formula figures):
//   WelfordUpdate    for j < abComputeLength: Mean' = Mean + (x - Mean) * nRec,  M' = M + (x - Mean)(x - Mean');
//                    from abComputeLength to abLength the outputs are the inputs (WelfordUpdateConfig.isInplace) or
//                    left alone. x is T (half/float), the statistics U = float; para.rnLength must be 1.
//   WelfordFinalize  without a tail (no counts tensor, tailCount 0): Mean = sum(Mean_i) * abRec,
//                    Var = sum(Var_i + Rn (Mean_i - Mean)^2) * rRec with Rn = rnLength; with per-position counts
//                    (the counts tensor, or headCount for the first headCountLength positions and tailCount for the
//                    rest): Mean = sum(Mean_i c_i) * rRec, Var = sum(Var_i + c_i (Mean_i - Mean)^2) * rRec.
//                    The result is one float each in outputMean/outputVariance.
// Checks: the pages' parameter rules, no source/destination overlap (the outputs of WelfordUpdate may be its
// inputs only with isInplace), sharedTmpBuffer apart. Computed in float. A2/A3 and 310P.
// Temporary space (ours): 256 bytes at least; at most two float rows of abLength (host/tiling/welford_tiling.h).
// Cost: one composite instruction: WelfordUpdate 6 float passes over abLength, WelfordFinalize 6.
#pragma once
#include <cmath>
#include <type_traits>

#include "hl_checks.h"

namespace AscendC {

struct WelfordUpdateParam {
    uint32_t rnLength;
    uint32_t abLength;
    uint32_t abComputeLength;
    float nRec;
};

struct WelfordUpdateConfig {
    bool isInplace = false;
};
inline constexpr WelfordUpdateConfig WFUPDATE_DEFAULT_CFG = {false};

struct WelfordFinalizePara {
    uint32_t rnLength;
    uint32_t abLength;
    uint32_t headCount;
    uint32_t headCountLength;
    uint32_t tailCount;
    uint32_t tailCountLength;
    float abRec;
    float rRec;
};

namespace welford_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::dtype_bit;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using hl_detail::Span;

constexpr uint32_t kMinTmpBytes = 256;

template <typename T, typename U, bool isReuseSource, const WelfordUpdateConfig& config>
void update(const LocalTensor<U>& out_mean, const LocalTensor<U>& out_var, const LocalTensor<U>& in_mean,
            const LocalTensor<U>& in_var, const LocalTensor<T>& x, const LocalTensor<uint8_t>* tmp,
            const WelfordUpdateParam& p, Loc loc) {
    const char* api = "WelfordUpdate";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<U>, dtype_bit(DType::F32), hl_detail::kSameAsA2, loc);
    if (p.rnLength != 1 || p.abLength == 0 || p.abLength % (32 / sizeof(T)) != 0 || p.abComputeLength == 0 ||
        p.abComputeLength > p.abLength)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "WelfordUpdate: WelfordUpdateParam {rnLength %u, abLength %u, abComputeLength %u}: rnLength "
                          "must be 1, abLength a positive multiple of %zu, and 0 < abComputeLength <= abLength "
                          "(WelfordUpdate.md).",
                          p.rnLength, p.abLength, p.abComputeLength, 32 / sizeof(T));
    uint32_t n = p.abLength;
    ascendc_sim::check_operand(out_mean, n, api, "outputMean", loc);
    ascendc_sim::check_operand(out_var, n, api, "outputVariance", loc);
    ascendc_sim::check_operand(in_mean, n, api, "inputMean", loc);
    ascendc_sim::check_operand(in_var, n, api, "inputVariance", loc);
    ascendc_sim::check_operand(x, n, api, "inputX", loc);
    Span om = hl_detail::span(out_mean, n, "outputMean"), ov = hl_detail::span(out_var, n, "outputVariance");
    Span im = hl_detail::span(in_mean, n, "inputMean"), iv = hl_detail::span(in_var, n, "inputVariance");
    Span sx = hl_detail::span(x, n, "inputX");
    hl_detail::check_apart(api, om, im, config.isInplace, loc);
    hl_detail::check_apart(api, ov, iv, config.isInplace, loc);
    for (const Span& other : {sx, iv, ov}) hl_detail::check_apart(api, om, other, false, loc);
    for (const Span& other : {sx, im}) hl_detail::check_apart(api, ov, other, false, loc);
    hl_detail::check_tmp(api, tmp, kMinTmpBytes, {om, ov, im, iv, sx}, loc);
    for (uint32_t j = 0; j < n; ++j) {
        float m = in_mean.GetPhyAddrPtr()[j], v = in_var.GetPhyAddrPtr()[j];
        if (j < p.abComputeLength) {
            float xv = static_cast<float>(x.GetPhyAddrPtr()[j]);
            float m2 = m + (xv - m) * p.nRec;
            out_var.GetPhyAddrPtr()[j] = v + (xv - m) * (xv - m2);
            out_mean.GetPhyAddrPtr()[j] = m2;
        } else if (config.isInplace) {
            out_mean.GetPhyAddrPtr()[j] = m;
            out_var.GetPhyAddrPtr()[j] = v;
        }
    }
    if (isReuseSource)
        for (uint32_t j = 0; j < n; ++j) x.GetPhyAddrPtr()[j] = hl_detail::poison_value<T>();
    hl_detail::poison_tmp(tmp, kMinTmpBytes);
    hl_detail::book(OpId::WelfordUpdate, n, 6, sizeof(T) == 2,
                    {x.timing(), in_mean.timing(), in_var.timing(), tmp ? tmp->timing() : nullptr},
                    out_mean.timing(), {out_var.timing(), isReuseSource ? x.timing() : nullptr}, loc);
}

inline void finalize(const LocalTensor<float>& out_mean, const LocalTensor<float>& out_var,
                     const LocalTensor<float>& in_mean, const LocalTensor<float>& in_var,
                     const LocalTensor<int32_t>* counts, const LocalTensor<uint8_t>* tmp,
                     const WelfordFinalizePara& p, Loc loc) {
    const char* api = "WelfordFinalize";
    hl_detail::check_soc_dtype(api, DType::F32, dtype_bit(DType::F32), hl_detail::kSameAsA2, loc);
    uint32_t n = p.abLength;
    bool split_ok = counts != nullptr || p.headCountLength + p.tailCountLength == n;
    if (n == 0 || n % 8 != 0 || !split_ok || (p.tailCount == 0 && p.tailCountLength != 0))
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "WelfordFinalize: WelfordFinalizePara {abLength %u, headCountLength %u, tailCount %u, "
                          "tailCountLength %u}: abLength must be a positive multiple of 8, headCountLength + "
                          "tailCountLength must equal abLength, and tailCountLength must be 0 when tailCount is 0 "
                          "(WelfordFinalize.md).",
                          n, p.headCountLength, p.tailCount, p.tailCountLength);
    ascendc_sim::check_operand(out_mean, 1, api, "outputMean", loc);
    ascendc_sim::check_operand(out_var, 1, api, "outputVariance", loc);
    ascendc_sim::check_operand(in_mean, n, api, "inputMean", loc);
    ascendc_sim::check_operand(in_var, n, api, "inputVariance", loc);
    Span om = hl_detail::span(out_mean, 1, "outputMean"), ov = hl_detail::span(out_var, 1, "outputVariance");
    Span im = hl_detail::span(in_mean, n, "inputMean"), iv = hl_detail::span(in_var, n, "inputVariance");
    Span sc{nullptr, 0, "counts"};
    if (counts != nullptr) {
        ascendc_sim::check_operand(*counts, n, api, "counts", loc);
        sc = hl_detail::span(*counts, n, "counts");
    }
    for (const Span& out : {om, ov})
        for (const Span& other : {im, iv, sc}) hl_detail::check_apart(api, out, other, false, loc);
    hl_detail::check_apart(api, om, ov, false, loc);
    hl_detail::check_tmp(api, tmp, kMinTmpBytes, {om, ov, im, iv, sc}, loc);
    const float* m = in_mean.GetPhyAddrPtr();
    const float* v = in_var.GetPhyAddrPtr();
    auto count = [&](uint32_t i) -> float {
        if (counts != nullptr) return static_cast<float>(counts->GetPhyAddrPtr()[i]);
        return static_cast<float>(i < p.headCountLength ? p.headCount : p.tailCount);
    };
    bool weighted = counts != nullptr || p.tailCount != 0;
    double sum = 0.0;
    for (uint32_t i = 0; i < n; ++i) sum += weighted ? double(m[i]) * count(i) : double(m[i]);
    float mean = static_cast<float>(sum * (weighted ? p.rRec : p.abRec));
    double acc = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        double c = weighted ? count(i) : static_cast<double>(p.rnLength);
        acc += v[i] + c * (double(m[i]) - mean) * (double(m[i]) - mean);
    }
    out_mean.GetPhyAddrPtr()[0] = mean;
    out_var.GetPhyAddrPtr()[0] = static_cast<float>(acc * p.rRec);
    hl_detail::poison_tmp(tmp, kMinTmpBytes);
    hl_detail::book(OpId::WelfordFinalize, n, 6, false,
                    {in_mean.timing(), in_var.timing(), counts ? counts->timing() : nullptr,
                     tmp ? tmp->timing() : nullptr},
                    out_mean.timing(), {out_var.timing()}, loc);
}

}  // namespace welford_detail

template <typename T, typename U, bool isReuseSource = false, const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
void WelfordUpdate(const LocalTensor<U>& outputMean, const LocalTensor<U>& outputVariance,
                   const LocalTensor<U>& inputMean, const LocalTensor<U>& inputVariance, const LocalTensor<T>& inputX,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const WelfordUpdateParam& para,
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    welford_detail::update<T, U, isReuseSource, config>(outputMean, outputVariance, inputMean, inputVariance, inputX,
                                                        &sharedTmpBuffer, para, loc);
}
template <typename T, typename U, bool isReuseSource = false, const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
void WelfordUpdate(const LocalTensor<U>& outputMean, const LocalTensor<U>& outputVariance,
                   const LocalTensor<U>& inputMean, const LocalTensor<U>& inputVariance, const LocalTensor<T>& inputX,
                   const WelfordUpdateParam& para, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    welford_detail::update<T, U, isReuseSource, config>(outputMean, outputVariance, inputMean, inputVariance, inputX,
                                                        nullptr, para, loc);
}

// WelfordFinalize.md passes para as a non-const reference; a const one binds the same arguments.
template <bool isReuseSource = false>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     const LocalTensor<uint8_t>& sharedTmpBuffer, const WelfordFinalizePara& para,
                     ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    welford_detail::finalize(outputMean, outputVariance, inputMean, inputVariance, nullptr, &sharedTmpBuffer, para,
                             loc);
}
template <bool isReuseSource = false>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     const LocalTensor<int32_t>& counts, const LocalTensor<uint8_t>& sharedTmpBuffer,
                     const WelfordFinalizePara& para, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    welford_detail::finalize(outputMean, outputVariance, inputMean, inputVariance, &counts, &sharedTmpBuffer, para,
                             loc);
}
template <bool isReuseSource = false>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     const WelfordFinalizePara& para, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    welford_detail::finalize(outputMean, outputVariance, inputMean, inputVariance, nullptr, nullptr, para, loc);
}
template <bool isReuseSource = false>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     const LocalTensor<int32_t>& counts, const WelfordFinalizePara& para,
                     ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    welford_detail::finalize(outputMean, outputVariance, inputMean, inputVariance, &counts, nullptr, para, loc);
}

}  // namespace AscendC
