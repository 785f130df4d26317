// Normalization over axes other than the last (high-level APIs): BatchNorm and GroupNorm.
//
// Written from asc-devkit v8.5.0 BatchNorm.md, BatchNorm-Tiling.md, GroupNorm.md, GroupNorm-Tiling.md:
//   BatchNorm [B, S, H]    for every (s, h): mean and variance over B; y[b] = gamma[b] * (x[b] - mean) /
//                          sqrt(var + eps) + beta[b] (gamma and beta have shape [B], as the page says); outputs
//                          mean and variance [S, H]. B and S*H come from the tiling (originalBLength, meanVarSize);
//                          S*H must be 32-byte aligned; inputX and output may overlap (the page).
//   GroupNorm [N, C, H, W] each sample's C channels split into G groups; mean and variance over a group's
//                          (C/G)*H*W values; y = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c]; outputs mean and
//                          variance [N, G]. Shape from the tiling (n, c, hw, g); gamma/beta within [-100, 100]
//                          (the page's range, checked); isReuseSource float only, inputX NaN afterwards.
// Values computed in float, rounded once. Types: half/float on Atlas A2/A3 and 310P (hl_checks.h kSameAsA2).
// Temporary space (ours, sim/norm_tiling.h): BatchNorm 3 floats per batch row for 8 columns at least; GroupNorm one
// group of 3 float copies plus 64 bytes. Cost: one composite instruction of 8 float passes.
#pragma once
#include <cmath>
#include <vector>

#include "hl_checks.h"
#include "norm_tiling.h"

namespace AscendC {
namespace channel_norm_detail {

using ascendc_sim::Diag;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using hl_detail::Span;

template <typename T>
float at(const LocalTensor<T>& t, uint64_t i) {
    return static_cast<float>(t.GetPhyAddrPtr()[i]);
}

inline void apart(const char* api, const Span& out, std::initializer_list<Span> others, Loc loc) {
    for (const Span& other : others) hl_detail::check_apart(api, out, other, false, loc);
}

inline void check_planned(const char* api, const LocalTensor<uint8_t>* tmp, uint64_t planned, uint32_t units,
                          const char* unit, Loc loc) {
    if (tmp != nullptr && planned > tmp->GetSize())
        ascendc_sim::fail(Diag::LocalOverrun, loc,
                          "%s: the tiling was computed for %u %s per pass (%llu bytes of temporary space) but "
                          "sharedTmpBuffer has only %u bytes; the API would write past it. Pass the tmp buffer's size "
                          "to the host tiling function.",
                          api, units, unit, (unsigned long long)planned, (unsigned)tmp->GetSize());
}

// ---- BatchNorm ------------------------------------------------------------------------------------------------

template <typename T, bool isBasicBlock>
void batch_norm(const LocalTensor<T>& y, const LocalTensor<T>& mean, const LocalTensor<T>& var,
                const LocalTensor<T>& x, const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
                const LocalTensor<uint8_t>* tmp, float eps, const BatchNormTiling& tiling, Loc loc) {
    const char* api = "BatchNorm";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    uint32_t b = tiling.originalBLength, sh = tiling.meanVarSize;
    if (b == 0 || sh == 0 || sh * sizeof(T) % 32 != 0)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "BatchNorm: the tiling gives B = %u and S*H = %u; both must be positive and S*H 32-byte "
                          "aligned (BatchNorm.md). Fill the tiling with GetBatchNormNDTilingInfo.",
                          b, sh);
    if (isBasicBlock && !(b % 8 == 0 && sh % 64 == 0 && sh < 2048))
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "BatchNorm with isBasicBlock = true on B = %u, S*H = %u: a basic block needs B a multiple of "
                          "8 and S*H a multiple of 64 below 2048. Pass isBasicBlock = false.",
                          b, sh);
    uint64_t n = uint64_t(b) * sh;
    ascendc_sim::check_operand(y, n, api, "output", loc);
    ascendc_sim::check_operand(x, n, api, "inputX", loc);
    ascendc_sim::check_operand(mean, sh, api, "outputMean", loc);
    ascendc_sim::check_operand(var, sh, api, "outputVariance", loc);
    ascendc_sim::check_operand(gamma, b, api, "gamm", loc);
    ascendc_sim::check_operand(beta, b, api, "beta", loc);
    Span sy = hl_detail::span(y, n, "output"), sx = hl_detail::span(x, n, "inputX");
    Span sm = hl_detail::span(mean, sh, "outputMean"), sv = hl_detail::span(var, sh, "outputVariance");
    Span sg = hl_detail::span(gamma, b, "gamm"), sb = hl_detail::span(beta, b, "beta");
    hl_detail::check_apart(api, sy, sx, true, loc);
    apart(api, sy, {sm, sv, sg, sb}, loc);
    apart(api, sm, {sx, sv, sg, sb}, loc);
    apart(api, sv, {sx, sg, sb}, loc);
    hl_detail::check_tmp(api, tmp, norm_model::batch_norm_min_tmp(b), {sy, sx, sm, sv, sg, sb}, loc);
    uint32_t cols = tiling.shCurLength < sh ? tiling.shCurLength : sh;
    check_planned(api, tmp, uint64_t(cols) * b * 4 * norm_model::kLayerNormFloats, cols, "columns", loc);
    std::vector<float> out(n), mv(sh), vv(sh);
    for (uint32_t j = 0; j < sh; ++j) {
        double sum = 0.0, sq = 0.0;
        for (uint32_t i = 0; i < b; ++i) sum += at(x, uint64_t(i) * sh + j);
        mv[j] = static_cast<float>(sum / b);
        for (uint32_t i = 0; i < b; ++i) {
            double dv = at(x, uint64_t(i) * sh + j) - mv[j];
            sq += dv * dv;
        }
        vv[j] = static_cast<float>(sq / b);
        float rstd = 1.0f / std::sqrt(vv[j] + eps);
        for (uint32_t i = 0; i < b; ++i)
            out[uint64_t(i) * sh + j] = at(gamma, i) * (at(x, uint64_t(i) * sh + j) - mv[j]) * rstd + at(beta, i);
    }
    for (uint64_t i = 0; i < n; ++i) y.GetPhyAddrPtr()[i] = T(out[i]);
    for (uint32_t j = 0; j < sh; ++j) mean.GetPhyAddrPtr()[j] = T(mv[j]), var.GetPhyAddrPtr()[j] = T(vv[j]);
    hl_detail::poison_tmp(tmp, uint64_t(cols) * b * 4 * norm_model::kLayerNormFloats);
    hl_detail::book(OpId::BatchNorm, n, 8, sizeof(T) == 2,
                    {x.timing(), gamma.timing(), beta.timing(), tmp ? tmp->timing() : nullptr}, y.timing(),
                    {mean.timing(), var.timing()}, loc);
}

// ---- GroupNorm ------------------------------------------------------------------------------------------------

template <typename T>
void check_affine_range(const LocalTensor<T>& t, uint32_t c, const char* role, Loc loc) {
    for (uint32_t i = 0; i < c; ++i) {
        float v = at(t, i);
        if (!(v >= -100.0f && v <= 100.0f))
            ascendc_sim::fail(Diag::BadArgument, loc,
                              "GroupNorm: %s[%u] = %g is outside [-100, 100], the range GroupNorm.md supports for "
                              "gamma and beta.",
                              role, i, static_cast<double>(v));
    }
}

template <typename T, bool isReuseSource>
void group_norm(const LocalTensor<T>& y, const LocalTensor<T>& mean, const LocalTensor<T>& var,
                const LocalTensor<T>& x, const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
                const LocalTensor<uint8_t>* tmp, float eps, const GroupNormTiling& tiling, Loc loc) {
    const char* api = "GroupNorm";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    if (isReuseSource && sizeof(T) == 2)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "GroupNorm: isReuseSource = true is supported for float input only (GroupNorm.md), not half.");
    uint32_t n = tiling.n, c = tiling.c, hw = tiling.hw, g = tiling.g;
    if (n == 0 || c == 0 || hw == 0 || g == 0 || c % g != 0)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "GroupNorm: the tiling gives N = %u, C = %u, H*W = %u, groupNum = %u; all must be positive "
                          "and C a multiple of groupNum. Fill it with GetGroupNormNDTilingInfo.",
                          n, c, hw, g);
    uint32_t d = c / g;
    uint64_t total = uint64_t(n) * c * hw, group = uint64_t(d) * hw;
    ascendc_sim::check_operand(y, total, api, "output", loc);
    ascendc_sim::check_operand(x, total, api, "inputX", loc);
    ascendc_sim::check_operand(mean, uint64_t(n) * g, api, "outputMean", loc);
    ascendc_sim::check_operand(var, uint64_t(n) * g, api, "outputVariance", loc);
    ascendc_sim::check_operand(gamma, c, api, "gamma", loc);
    ascendc_sim::check_operand(beta, c, api, "beta", loc);
    Span sy = hl_detail::span(y, total, "output"), sx = hl_detail::span(x, total, "inputX");
    Span sm = hl_detail::span(mean, uint64_t(n) * g, "outputMean");
    Span sv = hl_detail::span(var, uint64_t(n) * g, "outputVariance");
    Span sg = hl_detail::span(gamma, c, "gamma"), sb = hl_detail::span(beta, c, "beta");
    hl_detail::check_apart(api, sy, sx, true, loc);  // assumed: in place like LayerNorm; the page is silent
    apart(api, sy, {sm, sv, sg, sb}, loc);
    apart(api, sm, {sx, sv, sg, sb}, loc);
    apart(api, sv, {sx, sg, sb}, loc);
    uint32_t row = norm_model::row_tmp_bytes(uint32_t(group), norm_model::kLayerNormFloats);
    hl_detail::check_tmp(api, tmp, row, {sy, sx, sm, sv, sg, sb}, loc);
    uint32_t rows = tiling.bsCurLength < n * g ? tiling.bsCurLength : n * g;
    check_planned(api, tmp, uint64_t(rows) * row, rows, "groups", loc);
    check_affine_range(gamma, c, "gamma", loc);
    check_affine_range(beta, c, "beta", loc);
    std::vector<float> out(total), mv(uint64_t(n) * g), vv(uint64_t(n) * g);
    for (uint64_t k = 0; k < uint64_t(n) * g; ++k) {
        uint64_t base = k * group;
        double sum = 0.0, sq = 0.0;
        for (uint64_t i = 0; i < group; ++i) sum += at(x, base + i);
        mv[k] = static_cast<float>(sum / group);
        for (uint64_t i = 0; i < group; ++i) {
            double dv = at(x, base + i) - mv[k];
            sq += dv * dv;
        }
        vv[k] = static_cast<float>(sq / group);
        float rstd = 1.0f / std::sqrt(vv[k] + eps);
        for (uint64_t i = 0; i < group; ++i) {
            uint32_t ch = uint32_t((k % g) * d + i / hw);
            out[base + i] = (at(x, base + i) - mv[k]) * rstd * at(gamma, ch) + at(beta, ch);
        }
    }
    if (isReuseSource && x.GetPhyAddrPtr() != y.GetPhyAddrPtr())
        for (uint64_t i = 0; i < total; ++i) x.GetPhyAddrPtr()[i] = hl_detail::poison_value<T>();
    for (uint64_t i = 0; i < total; ++i) y.GetPhyAddrPtr()[i] = T(out[i]);
    for (uint64_t k = 0; k < uint64_t(n) * g; ++k) {
        mean.GetPhyAddrPtr()[k] = T(mv[k]);
        var.GetPhyAddrPtr()[k] = T(vv[k]);
    }
    hl_detail::poison_tmp(tmp, uint64_t(rows) * row);
    hl_detail::book(OpId::GroupNorm, total, 8, sizeof(T) == 2,
                    {x.timing(), gamma.timing(), beta.timing(), tmp ? tmp->timing() : nullptr}, y.timing(),
                    {mean.timing(), var.timing(), isReuseSource ? x.timing() : nullptr}, loc);
}

}  // namespace channel_norm_detail

// BatchNorm.md / GroupNorm.md pass the tiling as a non-const reference; a const one binds the same arguments.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
void BatchNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<T>& gamm, const LocalTensor<T>& beta, const T epsilon,
               const BatchNormTiling& tiling, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    channel_norm_detail::batch_norm<T, isBasicBlock>(output, outputMean, outputVariance, inputX, gamm, beta, nullptr,
                                                     static_cast<float>(epsilon), tiling, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
void BatchNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<T>& gamm, const LocalTensor<T>& beta,
               const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon, const BatchNormTiling& tiling,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    channel_norm_detail::batch_norm<T, isBasicBlock>(output, outputMean, outputVariance, inputX, gamm, beta,
                                                     &sharedTmpBuffer, static_cast<float>(epsilon), tiling, loc);
}

template <typename T, bool isReuseSource = false>
void GroupNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const T epsilon,
               const GroupNormTiling& tiling, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    channel_norm_detail::group_norm<T, isReuseSource>(output, outputMean, outputVariance, inputX, gamma, beta,
                                                      nullptr, static_cast<float>(epsilon), tiling, loc);
}
template <typename T, bool isReuseSource = false>
void GroupNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
               const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon, const GroupNormTiling& tiling,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    channel_norm_detail::group_norm<T, isReuseSource>(output, outputMean, outputVariance, inputX, gamma, beta,
                                                      &sharedTmpBuffer, static_cast<float>(epsilon), tiling, loc);
}

}  // namespace AscendC
