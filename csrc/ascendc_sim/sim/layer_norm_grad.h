// LayerNorm's backward pass (high-level APIs): LayerNormGrad and LayerNormGradBeta.
//
// Written from asc-devkit v8.5.0 LayerNormGrad.md (its Python formulas) and LayerNormGradBeta.md (its formula
// figures), on [B, S, H] with the shape from the tiling and H the original length:
//   LayerNormGrad     pd_xl = dy * gamma; r = (var + eps)^-0.5;
//                     pd_var = sum(-0.5 * pd_xl * (x - mean) * r^3);
//                     pd_mean = sum(-pd_xl * r) + pd_var / H * sum(-2 (x - mean));
//                     pd_x = pd_xl * r + pd_var * 2 / H * (x - mean) + pd_mean / H;  resForGamma = (x - mean) * r
//   LayerNormGradBeta pd_gamma = (1/m) sum over B*S of dy * resForGamma,  pd_beta = (1/m) sum over B*S of dy,
//                     m = B*S — the page's figures divide by m (torch's gradients are plain sums).
// Sources and destinations may share a buffer (the pages); partial overlaps are reported. isReuseSource (float
// only) leaves inputX (LayerNormGrad) / inputDy (LayerNormGradBeta) NaN unless it is an output. The padding
// columns of pdX/resForGamma are NaN. Computed in double, rounded once. half/float on Atlas A2/A3 and 310P.
// Temporary space (ours, sim/norm_tiling.h): LayerNormGrad 4 float rows + 64 bytes per row in flight;
// LayerNormGradBeta 2 float rows of H plus 2 per row in flight. Cost: 12 and 4 float passes.
#pragma once
#include <cmath>
#include <utility>
#include <vector>

#include "hl_checks.h"
#include "norm_tiling.h"

namespace AscendC {
namespace ln_grad_detail {

using ascendc_sim::Diag;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using hl_detail::Span;

struct Shape {
    uint32_t rows, h, ori_h;
    uint64_t elements() const { return uint64_t(rows) * h; }
};

template <typename T>
Shape resolve(const char* api, uint32_t b, uint32_t s, uint32_t h, uint32_t ori_h, Loc loc) {
    if (b == 0 || s == 0 || h == 0 || h * sizeof(T) % 32 != 0 || ori_h > h)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: the tiling gives B = %u, S = %u, H = %u (original %u): all must be positive, H 32-byte "
                          "aligned and the original H at most H. Fill it with the host tiling function.",
                          api, b, s, h, ori_h);
    return Shape{b * s, h, ori_h == 0 ? h : ori_h};
}

template <typename T>
double at(const LocalTensor<T>& t, uint64_t i) {
    return static_cast<double>(static_cast<float>(t.GetPhyAddrPtr()[i]));
}

// Every pair of spans must be apart or the very same buffer (the pages allow reuse).
inline void check_reuse(const char* api, std::initializer_list<Span> spans, Loc loc) {
    for (const Span* a = spans.begin(); a != spans.end(); ++a)
        for (const Span* b = a + 1; b != spans.end(); ++b) hl_detail::check_apart(api, *a, *b, true, loc);
}

template <typename T, bool isReuseSource>
void grad(const LocalTensor<T>& pd_x, const LocalTensor<T>& res_gamma, const LocalTensor<T>& dy,
          const LocalTensor<T>& x, const LocalTensor<T>& var, const LocalTensor<T>& mean, const LocalTensor<T>& gamma,
          const LocalTensor<uint8_t>* tmp, float eps, const LayerNormGradTiling& tiling,
          const LayerNormGradShapeInfo& info, Loc loc) {
    const char* api = "LayerNormGrad";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    if (static_cast<uint8_t>(info.dataFormat) != 0)  // DataFormat::ND
        ascendc_sim::fail(Diag::UnsupportedApi, loc, "LayerNormGrad: only DataFormat::ND is supported (the page).");
    if (isReuseSource && sizeof(T) == 2)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "LayerNormGrad: isReuseSource = true is supported for float input only, not half.");
    Shape r = resolve<T>(api, tiling.bLength, tiling.sLength, tiling.hLength, tiling.originalHLength, loc);
    uint64_t n = r.elements();
    for (auto [t, role] : {std::pair{&pd_x, "outputPdX"}, {&res_gamma, "resForGamma"}, {&dy, "inputDy"},
                           {&x, "inputX"}})
        ascendc_sim::check_operand(*t, n, api, role, loc);
    ascendc_sim::check_operand(var, r.rows, api, "inputVariance", loc);
    ascendc_sim::check_operand(mean, r.rows, api, "inputMean", loc);
    ascendc_sim::check_operand(gamma, r.h, api, "inputGamma", loc);
    Span so = hl_detail::span(pd_x, n, "outputPdX"), sr = hl_detail::span(res_gamma, n, "resForGamma");
    Span sd = hl_detail::span(dy, n, "inputDy"), sx = hl_detail::span(x, n, "inputX");
    Span sv = hl_detail::span(var, r.rows, "inputVariance"), sm = hl_detail::span(mean, r.rows, "inputMean");
    Span sg = hl_detail::span(gamma, r.h, "inputGamma");
    hl_detail::check_apart(api, so, sr, false, loc);
    check_reuse(api, {so, sd, sx, sv, sm, sg}, loc);
    check_reuse(api, {sr, sd, sx, sv, sm, sg}, loc);
    uint32_t row = norm_model::row_tmp_bytes(r.h, norm_model::kLayerNormGradFloats);
    hl_detail::check_tmp(api, tmp, row, {so, sr, sd, sx, sv, sm, sg}, loc);
    uint32_t planned = tiling.nohCalSize < r.rows ? tiling.nohCalSize : r.rows;
    if (tmp != nullptr && uint64_t(planned) * row > tmp->GetSize())
        ascendc_sim::fail(Diag::LocalOverrun, loc,
                          "LayerNormGrad: the tiling was computed for %u rows per pass (%llu bytes of temporary space) "
                          "but sharedTmpBuffer has only %u bytes. Pass the tmp buffer's size to "
                          "GetLayerNormGradNDTilingInfo.",
                          planned, (unsigned long long)planned * row, (unsigned)tmp->GetSize());
    std::vector<double> out_x(n), out_g(n);
    const double h = r.ori_h;
    for (uint32_t i = 0; i < r.rows; ++i) {
        double mu = at(mean, i), rs = 1.0 / std::sqrt(at(var, i) + eps);
        double pd_var = 0.0, sum_pd = 0.0, sum_d = 0.0;
        for (uint32_t j = 0; j < r.ori_h; ++j) {
            uint64_t k = uint64_t(i) * r.h + j;
            double pd_xl = at(dy, k) * at(gamma, j), d = at(x, k) - mu;
            pd_var += -0.5 * pd_xl * d * rs * rs * rs;
            sum_pd += -pd_xl * rs;
            sum_d += -2.0 * d;
        }
        double pd_mean = sum_pd + pd_var / h * sum_d;
        for (uint32_t j = 0; j < r.ori_h; ++j) {
            uint64_t k = uint64_t(i) * r.h + j;
            double pd_xl = at(dy, k) * at(gamma, j), d = at(x, k) - mu;
            out_x[k] = pd_xl * rs + pd_var * 2.0 / h * d + pd_mean / h;
            out_g[k] = d * rs;
        }
    }
    if (isReuseSource)
        for (uint64_t k = 0; k < n; ++k) x.GetPhyAddrPtr()[k] = hl_detail::poison_value<T>();
    for (uint64_t k = 0; k < n; ++k) {
        bool real = k % r.h < r.ori_h;
        pd_x.GetPhyAddrPtr()[k] = real ? T(static_cast<float>(out_x[k])) : hl_detail::poison_value<T>();
        res_gamma.GetPhyAddrPtr()[k] = real ? T(static_cast<float>(out_g[k])) : hl_detail::poison_value<T>();
    }
    hl_detail::poison_tmp(tmp, uint64_t(planned) * row);
    hl_detail::book(OpId::LayerNormGrad, n, 12, sizeof(T) == 2,
                    {dy.timing(), x.timing(), var.timing(), mean.timing(), gamma.timing(),
                     tmp ? tmp->timing() : nullptr},
                    pd_x.timing(), {res_gamma.timing(), isReuseSource ? x.timing() : nullptr}, loc);
}

template <typename T, bool isReuseSource>
void grad_beta(const LocalTensor<T>& pd_gamma, const LocalTensor<T>& pd_beta, const LocalTensor<T>& res_gamma,
               const LocalTensor<T>& dy, const LocalTensor<uint8_t>* tmp, const LayerNormGradBetaTiling& tiling,
               Loc loc) {
    const char* api = "LayerNormGradBeta";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    if (isReuseSource && sizeof(T) == 2)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "LayerNormGradBeta: isReuseSource = true is supported for float input only, not half.");
    Shape r = resolve<T>(api, tiling.bLength, tiling.sLength, tiling.hLength, tiling.originalHLength, loc);
    uint64_t n = r.elements();
    ascendc_sim::check_operand(pd_gamma, r.h, api, "outputPdGamma", loc);
    ascendc_sim::check_operand(pd_beta, r.h, api, "outputPdBeta", loc);
    ascendc_sim::check_operand(res_gamma, n, api, "resForGamma", loc);
    ascendc_sim::check_operand(dy, n, api, "inputDy", loc);
    Span sg = hl_detail::span(pd_gamma, r.h, "outputPdGamma"), sb = hl_detail::span(pd_beta, r.h, "outputPdBeta");
    Span sr = hl_detail::span(res_gamma, n, "resForGamma"), sd = hl_detail::span(dy, n, "inputDy");
    hl_detail::check_apart(api, sg, sb, false, loc);
    check_reuse(api, {sg, sr, sd}, loc);
    check_reuse(api, {sb, sr, sd}, loc);
    uint32_t fixed = 2 * norm_model::align_up(r.h * 4u, 32u);
    uint32_t row = norm_model::row_tmp_bytes(r.h, 2);
    hl_detail::check_tmp(api, tmp, fixed + row, {sg, sb, sr, sd}, loc);
    uint32_t planned = tiling.bsCurLength < r.rows ? tiling.bsCurLength : r.rows;
    if (tmp != nullptr && fixed + uint64_t(planned) * row > tmp->GetSize())
        ascendc_sim::fail(Diag::LocalOverrun, loc,
                          "LayerNormGradBeta: the tiling was computed for %u rows per pass (%llu bytes of temporary "
                          "space) but sharedTmpBuffer has only %u bytes. Pass the tmp buffer's size to "
                          "GetLayerNormGradBetaNDTilingInfo.",
                          planned, (unsigned long long)(fixed + uint64_t(planned) * row), (unsigned)tmp->GetSize());
    std::vector<double> g(r.h, 0.0), b(r.h, 0.0);
    for (uint32_t i = 0; i < r.rows; ++i)
        for (uint32_t j = 0; j < r.ori_h; ++j) {
            uint64_t k = uint64_t(i) * r.h + j;
            g[j] += at(dy, k) * at(res_gamma, k);
            b[j] += at(dy, k);
        }
    if (isReuseSource)
        for (uint64_t k = 0; k < n; ++k) dy.GetPhyAddrPtr()[k] = hl_detail::poison_value<T>();
    for (uint32_t j = 0; j < r.h; ++j) {
        bool real = j < r.ori_h;
        pd_gamma.GetPhyAddrPtr()[j] = real ? T(static_cast<float>(g[j] / r.rows)) : hl_detail::poison_value<T>();
        pd_beta.GetPhyAddrPtr()[j] = real ? T(static_cast<float>(b[j] / r.rows)) : hl_detail::poison_value<T>();
    }
    hl_detail::poison_tmp(tmp, fixed + uint64_t(planned) * row);
    hl_detail::book(OpId::LayerNormGradBeta, n, 4, sizeof(T) == 2,
                    {res_gamma.timing(), dy.timing(), tmp ? tmp->timing() : nullptr}, pd_gamma.timing(),
                    {pd_beta.timing(), isReuseSource ? dy.timing() : nullptr}, loc);
}

}  // namespace ln_grad_detail

// The pages pass the tiling (and sharedTmpBuffer) as non-const references; const ones bind the same arguments.
template <typename T, bool isReuseSource = false>
void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                   const LocalTensor<T>& inputX, const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                   const LocalTensor<T>& inputGamma, const LocalTensor<uint8_t>& sharedTmpBuffer, T epsilon,
                   const LayerNormGradTiling& tiling, const LayerNormGradShapeInfo& shapeInfo = {},
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ln_grad_detail::grad<T, isReuseSource>(outputPdX, resForGamma, inputDy, inputX, inputVariance, inputMean,
                                           inputGamma, &sharedTmpBuffer, static_cast<float>(epsilon), tiling,
                                           shapeInfo, loc);
}
template <typename T, bool isReuseSource = false>
void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                   const LocalTensor<T>& inputX, const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                   const LocalTensor<T>& inputGamma, T epsilon, const LayerNormGradTiling& tiling,
                   const LayerNormGradShapeInfo& shapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ln_grad_detail::grad<T, isReuseSource>(outputPdX, resForGamma, inputDy, inputX, inputVariance, inputMean,
                                           inputGamma, nullptr, static_cast<float>(epsilon), tiling, shapeInfo, loc);
}

template <typename T, bool isReuseSource = false>
void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                       const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                       const LocalTensor<uint8_t>& sharedTmpBuffer, const LayerNormGradBetaTiling& tiling,
                       ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ln_grad_detail::grad_beta<T, isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy, &sharedTmpBuffer,
                                                tiling, loc);
}
template <typename T, bool isReuseSource = false>
void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                       const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                       const LayerNormGradBetaTiling& tiling, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ln_grad_detail::grad_beta<T, isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy, nullptr, tiling,
                                                loc);
}

}  // namespace AscendC
