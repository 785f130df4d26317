// Normalization (high-level APIs): LayerNorm in its two forms, DeepNorm, Normalize and RmsNorm.
//
// Written from asc-devkit v8.5.0 LayerNorm.md, LayerNorm-Tiling.md, RmsNorm.md, RmsNorm-Tiling.md:
//   LayerNorm [B, S, H]  mean = sum(x)/H, var = sum((x-mean)^2)/H, y = (x-mean)/sqrt(var+eps)*gamma + beta;
//                        outputs y [B,S,H], mean [B,S], variance [B,S], all of T. Shape from the tiling
//                        (bLength, sLength, hLength, originalHLength).
//   LayerNorm [A, R]     the same y, with mean [A] and rstd = 1/sqrt(var+eps) [A] in float; gamma/beta of U
//                        (at least T's precision); LayerNormConfig isNoGamma/isNoBeta drop them. Shape from
//                        LayerNormPara {aLength, rLength, rLengthWithPadding}.
//   DeepNorm [B, S, H]   LayerNorm [B,S,H] of alpha * x + gx (DeepNorm.md); H at most 2040; src/dst may share only
//                        with isReuseSrc (float only). DeepNormTiling has LayerNormTiling's fields.
//   Normalize [A, R]     the [A, R] LayerNorm's y and rstd from a given mean and variance (Normalize.md).
//   RmsNorm [B, S, H]    y = x / sqrt(sum(x^2)/H + eps) * gamma. Shape from the tiling.
// H in the statistics is the original length (originalHLength / rLength); the padding columns of y are left NaN
// (the pages say the results overwrite them without defining the values). Values are computed in float and
// rounded once. isReuseSource = true (LayerNorm [B,S,H], float only) leaves inputX NaN unless it is the output.
// Types: half/float on Atlas A2/A3 and 310P (hiascend's LayerNorm, DeepNorm and RmsNorm pages: AI Core supported;
// see hl_checks.h kSameAsA2).
// Cost: one composite instruction, float repeats over the data: LayerNorm 8 passes, LayerNorm [A,R] 8, DeepNorm 10,
// Normalize 5, RmsNorm 5.
#pragma once
#include <cmath>
#include <vector>

#include "hl_checks.h"
#include "norm_tiling.h"

namespace AscendC {
namespace norm_detail {

using ascendc_sim::Diag;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using hl_detail::Span;

struct Rows {
    uint32_t rows, h, ori_h;
    uint64_t elements() const { return uint64_t(rows) * h; }
};

template <typename T>
Rows resolve_bsh(const char* api, uint32_t b, uint32_t s, uint32_t h, uint32_t ori_h, Loc loc) {
    if (b == 0 || s == 0 || h == 0)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: the tiling's shape is empty (bLength %u, sLength %u, hLength %u). Fill it on the host "
                          "with the API's tiling function (GetLayerNormNDTilingInfo / GetRmsNormTilingInfo).",
                          api, b, s, h);
    if (h * sizeof(T) % 32 != 0)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: hLength %u of %s is not 32-byte aligned; pad H on the host to a multiple of %zu and give "
                          "the real length as originalHLength.",
                          api, h, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), 32 / sizeof(T));
    if (ori_h == 0) ori_h = h;
    if (ori_h > h)
        ascendc_sim::fail(Diag::BadArgument, loc, "%s: originalHLength %u is larger than hLength %u.", api, ori_h, h);
    return Rows{b * s, h, ori_h};
}

// The temporary space: a row in flight at least (min_bytes); a tiling planned for `planned_rows` rows per pass
// (needing `planned` bytes) must fit what is given.
inline void check_workspace_bytes(const char* api, const LocalTensor<uint8_t>* tmp, uint64_t min_bytes,
                                  uint32_t planned_rows, uint64_t planned, std::initializer_list<Span> operands,
                                  Loc loc) {
    hl_detail::check_tmp(api, tmp, min_bytes, operands, loc);
    if (tmp != nullptr && planned > tmp->GetSize())
        ascendc_sim::fail(Diag::LocalOverrun, loc,
                          "%s: the tiling was computed for %u rows per pass (%llu bytes of temporary space) but "
                          "sharedTmpBuffer has only %u bytes; the API would write past it. Pass the tmp buffer's size "
                          "as the stack buffer size to the host tiling function.",
                          api, planned_rows, (unsigned long long)planned, (unsigned)tmp->GetSize());
}

inline void check_workspace(const char* api, const LocalTensor<uint8_t>* tmp, const Rows& r, uint32_t floats,
                            uint32_t planned_rows, std::initializer_list<Span> operands, Loc loc) {
    uint64_t planned = uint64_t(planned_rows < r.rows ? planned_rows : r.rows) * norm_model::row_tmp_bytes(r.h, floats);
    check_workspace_bytes(api, tmp, norm_model::row_tmp_bytes(r.h, floats), planned_rows, planned, operands, loc);
}

inline void apart(const char* api, const Span& out, std::initializer_list<Span> others, Loc loc) {
    for (const Span& other : others) hl_detail::check_apart(api, out, other, false, loc);
}

template <typename T>
float at(const LocalTensor<T>& t, uint64_t i) {
    return static_cast<float>(t.GetPhyAddrPtr()[i]);
}

struct Stats {
    float mean, var;
};

template <typename T>
std::vector<float> load(const LocalTensor<T>& x, const Rows& r) {
    std::vector<float> v(r.elements());
    for (uint64_t i = 0; i < v.size(); ++i) v[i] = at(x, i);
    return v;
}

inline Stats row_stats(const std::vector<float>& x, const Rows& r, uint32_t row) {
    double sum = 0.0, sq = 0.0;
    for (uint32_t j = 0; j < r.ori_h; ++j) sum += x[uint64_t(row) * r.h + j];
    float mean = static_cast<float>(sum / r.ori_h);
    for (uint32_t j = 0; j < r.ori_h; ++j) {
        double d = x[uint64_t(row) * r.h + j] - mean;
        sq += d * d;
    }
    return Stats{mean, static_cast<float>(sq / r.ori_h)};
}

// ---- LayerNorm [B, S, H] and DeepNorm ---------------------------------------------------------------------------

// The [B, S, H] operands. DeepNorm adds gx (SubLayer(X)) and alpha: the normalised input is alpha * x + gx.
template <typename T>
struct BshArgs {
    const LocalTensor<T>& y;
    const LocalTensor<T>& mean;
    const LocalTensor<T>& var;
    const LocalTensor<T>& x;
    const LocalTensor<T>* gx;
    const LocalTensor<T>& gamma;
    const LocalTensor<T>& beta;
    float alpha;
};

template <typename T>
void check_bsh(const char* api, const BshArgs<T>& a, const Rows& r, const LocalTensor<uint8_t>* tmp,
               uint32_t planned_rows, bool src_dst_reuse, Loc loc) {
    ascendc_sim::check_operand(a.y, r.elements(), api, "output", loc);
    ascendc_sim::check_operand(a.x, r.elements(), api, "inputX", loc);
    ascendc_sim::check_operand(a.mean, r.rows, api, "outputMean", loc);
    ascendc_sim::check_operand(a.var, r.rows, api, "outputVariance", loc);
    ascendc_sim::check_operand(a.gamma, r.h, api, "gamma", loc);
    ascendc_sim::check_operand(a.beta, r.h, api, "beta", loc);
    Span sy = hl_detail::span(a.y, r.elements(), "output"), sx = hl_detail::span(a.x, r.elements(), "inputX");
    Span sm = hl_detail::span(a.mean, r.rows, "outputMean"), sv = hl_detail::span(a.var, r.rows, "outputVariance");
    Span sg = hl_detail::span(a.gamma, r.h, "gamma"), sb = hl_detail::span(a.beta, r.h, "beta");
    Span sgx{nullptr, 0, "gxLocal"};
    if (a.gx != nullptr) {
        ascendc_sim::check_operand(*a.gx, r.elements(), api, "gxLocal", loc);
        sgx = hl_detail::span(*a.gx, r.elements(), "gxLocal");
    }
    hl_detail::check_apart(api, sy, sx, src_dst_reuse, loc);
    apart(api, sy, {sm, sv, sg, sb, sgx}, loc);
    apart(api, sm, {sx, sv, sg, sb, sgx}, loc);
    apart(api, sv, {sx, sg, sb, sgx}, loc);
    check_workspace(api, tmp, r, norm_model::kLayerNormFloats, planned_rows, {sy, sx, sm, sv, sg, sb, sgx}, loc);
}

template <typename T, bool isReuseSource, typename Tiling>
void bsh_norm(const char* api, OpId op, const BshArgs<T>& a, const LocalTensor<uint8_t>* tmp, float eps,
              const Tiling& tiling, Loc loc) {
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    if (isReuseSource && sizeof(T) == 2)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: reusing the source (isReuseSource/isReuseSrc = true) is supported for float input only "
                          "(%s.md), not half. Pass false.",
                          api, api);
    Rows r = resolve_bsh<T>(api, tiling.bLength, tiling.sLength, tiling.hLength, tiling.originalHLength, loc);
    // LayerNorm.md: output may be inputX. DeepNorm.md: src and dst may share only with isReuseSrc.
    check_bsh(api, a, r, tmp, tiling.bsCurLength, a.gx == nullptr || isReuseSource, loc);
    std::vector<float> xv = load(a.x, r);
    if (a.gx != nullptr)
        for (uint64_t i = 0; i < xv.size(); ++i) xv[i] = a.alpha * xv[i] + at(*a.gx, i);
    std::vector<float> out(r.elements());
    std::vector<Stats> st(r.rows);
    for (uint32_t i = 0; i < r.rows; ++i) {
        st[i] = row_stats(xv, r, i);
        float rstd = 1.0f / std::sqrt(st[i].var + eps);
        for (uint32_t j = 0; j < r.ori_h; ++j) {
            uint64_t k = uint64_t(i) * r.h + j;
            out[k] = (xv[k] - st[i].mean) * rstd * at(a.gamma, j) + at(a.beta, j);
        }
    }
    if (isReuseSource && a.x.GetPhyAddrPtr() != a.y.GetPhyAddrPtr())
        for (uint64_t i = 0; i < r.elements(); ++i) a.x.GetPhyAddrPtr()[i] = hl_detail::poison_value<T>();
    for (uint32_t i = 0; i < r.rows; ++i) {
        for (uint32_t j = 0; j < r.h; ++j)
            a.y.GetPhyAddrPtr()[uint64_t(i) * r.h + j] =
                j < r.ori_h ? T(out[uint64_t(i) * r.h + j]) : hl_detail::poison_value<T>();
        a.mean.GetPhyAddrPtr()[i] = T(st[i].mean);
        a.var.GetPhyAddrPtr()[i] = T(st[i].var);
    }
    hl_detail::poison_tmp(tmp, uint64_t(r.rows) * norm_model::row_tmp_bytes(r.h, norm_model::kLayerNormFloats));
    hl_detail::book(op, r.elements(), a.gx ? 10 : 8, sizeof(T) == 2,
                    {a.x.timing(), a.gx ? a.gx->timing() : nullptr, a.gamma.timing(), a.beta.timing(),
                     tmp ? tmp->timing() : nullptr},
                    a.y.timing(), {a.mean.timing(), a.var.timing(), isReuseSource ? a.x.timing() : nullptr}, loc);
}

template <typename T, bool isBasicBlock>
void check_deep_norm_shape(const DeepNormTiling& tiling, Loc loc) {
    uint32_t h = tiling.hLength, bs = tiling.bLength * tiling.sLength;
    if (h > 2040)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "DeepNorm: H = %u; DeepNorm.md allows at most 2040. Split H or use LayerNorm.", h);
    if (isBasicBlock && !(h % 64 == 0 && bs % 8 == 0))
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "DeepNorm with isBasicBlock = true on B*S = %u, H = %u: a basic block needs H a multiple of "
                          "64 (at most 2040) and B*S a multiple of 8 (DeepNorm.md). Pass isBasicBlock = false.",
                          bs, h);
}

// ---- LayerNorm [A, R] (rstd) ----------------------------------------------------------------------------------------

// The [A, R] forms: LayerNorm computes mean and variance and writes mean; Normalize is given both (`in_var` set).
template <typename U, typename T>
struct ArArgs {
    const LocalTensor<T>& y;
    const LocalTensor<float>& mean;  // LayerNorm: outputMean; Normalize: inputMean
    const LocalTensor<float>& rstd;
    const LocalTensor<float>* in_var;
    const LocalTensor<T>& x;
    const LocalTensor<U>& gamma;
    const LocalTensor<U>& beta;
    bool no_gamma, no_beta, only_output;
};

template <typename U, typename T>
Rows check_ar(const char* api, const ArArgs<U, T>& a, uint32_t a_len, uint32_t r_len, uint32_t r_pad,
              uint32_t a_max, Loc loc) {
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<U>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    if (sizeof(U) < sizeof(T))
        ascendc_sim::fail(Diag::UnsupportedDtype, loc,
                          "%s: gamma/beta are half but inputX is float; %s.md requires gamma and beta of at least the "
                          "input's precision. Use float gamma/beta.",
                          api, api);
    if (a.only_output)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: isOnlyOutput = true is not supported yet (%s.md: only false); every output is written.",
                          api, api);
    if (r_pad * sizeof(T) % 32 != 0 || r_len > r_pad || a_len == 0 || r_len == 0)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: para {aLength %u, rLength %u, rLengthWithPadding %u} is not valid: A and R must be "
                          "positive, rLength <= rLengthWithPadding, and rLengthWithPadding 32-byte aligned.",
                          api, a_len, r_len, r_pad);
    if (a_max != 0 && a_len > a_max)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: para.aLength %u exceeds the A of %u the tiling was computed for; the A axis may shrink "
                          "in the kernel but not grow (LayerNorm-Tiling.md).",
                          api, a_len, a_max);
    Rows r{a_len, r_pad, r_len};
    ascendc_sim::check_operand(a.y, r.elements(), api, "output", loc);
    ascendc_sim::check_operand(a.x, r.elements(), api, "inputX", loc);
    ascendc_sim::check_operand(a.mean, r.rows, api, a.in_var ? "inputMean" : "outputMean", loc);
    ascendc_sim::check_operand(a.rstd, r.rows, api, "outputRstd", loc);
    if (a.in_var) ascendc_sim::check_operand(*a.in_var, r.rows, api, "inputVariance", loc);
    if (!a.no_gamma) ascendc_sim::check_operand(a.gamma, r.ori_h, api, "gamma", loc);
    if (!a.no_beta) ascendc_sim::check_operand(a.beta, r.ori_h, api, "beta", loc);
    Span sy = hl_detail::span(a.y, r.elements(), "output"), sx = hl_detail::span(a.x, r.elements(), "inputX");
    Span sm = hl_detail::span(a.mean, r.rows, a.in_var ? "inputMean" : "outputMean");
    Span sr = hl_detail::span(a.rstd, r.rows, "outputRstd");
    Span sv = a.in_var ? hl_detail::span(*a.in_var, r.rows, "inputVariance") : Span{nullptr, 0, "inputVariance"};
    apart(api, sy, {sx, sm, sr, sv}, loc);  // "src和dst的Tensor空间不可以复用"
    apart(api, sr, {sx, sm, sv}, loc);
    if (!a.in_var) apart(api, sm, {sx}, loc);
    return r;
}

template <typename U, typename T>
void ar_norm(const char* api, OpId op, const ArArgs<U, T>& a, const Rows& r, float eps,
             const LocalTensor<uint8_t>* tmp, uint32_t planned_rows, Loc loc) {
    Span sy = hl_detail::span(a.y, r.elements(), "output"), sx = hl_detail::span(a.x, r.elements(), "inputX");
    check_workspace(api, tmp, r, norm_model::kLayerNormFloats, planned_rows, {sy, sx}, loc);
    std::vector<float> xv = load(a.x, r);
    for (uint32_t i = 0; i < r.rows; ++i) {
        Stats st = a.in_var ? Stats{a.mean.GetPhyAddrPtr()[i], a.in_var->GetPhyAddrPtr()[i]} : row_stats(xv, r, i);
        float rs = 1.0f / std::sqrt(st.var + eps);
        for (uint32_t j = 0; j < r.h; ++j) {
            float v = (xv[uint64_t(i) * r.h + j] - st.mean) * rs;
            if (!a.no_gamma && j < r.ori_h) v *= at(a.gamma, j);
            if (!a.no_beta && j < r.ori_h) v += at(a.beta, j);
            a.y.GetPhyAddrPtr()[uint64_t(i) * r.h + j] = j < r.ori_h ? T(v) : hl_detail::poison_value<T>();
        }
        if (!a.in_var) a.mean.GetPhyAddrPtr()[i] = st.mean;
        a.rstd.GetPhyAddrPtr()[i] = rs;
    }
    hl_detail::poison_tmp(tmp, uint64_t(r.rows) * norm_model::row_tmp_bytes(r.h, norm_model::kLayerNormFloats));
    hl_detail::book(op, r.elements(), a.in_var ? 5 : 8, sizeof(T) == 2,
                    {a.x.timing(), a.no_gamma ? nullptr : a.gamma.timing(), a.no_beta ? nullptr : a.beta.timing(),
                     a.in_var ? a.in_var->timing() : nullptr, a.in_var ? a.mean.timing() : nullptr,
                     tmp ? tmp->timing() : nullptr},
                    a.y.timing(), {a.rstd.timing(), a.in_var ? nullptr : a.mean.timing()}, loc);
}

template <typename U, typename T, const LayerNormConfig& config>
void layer_norm_rstd(const LocalTensor<T>& y, const LocalTensor<float>& mean, const LocalTensor<float>& rstd,
                     const LocalTensor<T>& x, const LocalTensor<U>& gamma, const LocalTensor<U>& beta, float eps,
                     const LocalTensor<uint8_t>* tmp, const LayerNormPara& para, const LayerNormSeparateTiling& tiling,
                     Loc loc) {
    ArArgs<U, T> a{y, mean, rstd, nullptr, x, gamma, beta, config.isNoGamma, config.isNoBeta, config.isOnlyOutput};
    Rows r = check_ar("LayerNorm", a, para.aLength, para.rLength, para.rLengthWithPadding, tiling.aLength, loc);
    ar_norm("LayerNorm", OpId::LayerNorm, a, r, eps, tmp, tiling.aCurLength, loc);
}

template <typename U, typename T, const NormalizeConfig& config>
void normalize(const LocalTensor<T>& y, const LocalTensor<float>& rstd, const LocalTensor<float>& mean,
               const LocalTensor<float>& var, const LocalTensor<T>& x, const LocalTensor<U>& gamma,
               const LocalTensor<U>& beta, float eps, const LocalTensor<uint8_t>* tmp, const NormalizePara& para,
               Loc loc) {
    if (static_cast<uint32_t>(config.reducePattern) != 0 ||  // ReducePattern::AR
        (config.aLength != -1 && uint32_t(config.aLength) != para.aLength))
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "Normalize: NormalizeConfig must use ReducePattern::AR and aLength -1 or para.aLength "
                          "(%u); got aLength %d (Normalize.md).",
                          para.aLength, config.aLength);
    ArArgs<U, T> a{y, mean, rstd, &var, x, gamma, beta, config.isNoGamma, config.isNoBeta, config.isOnlyOutput};
    Rows r = check_ar("Normalize", a, para.aLength, para.rLength, para.rLengthWithPadding, 0, loc);
    ar_norm("Normalize", OpId::Normalize, a, r, eps, tmp, 0, loc);
}

// ---- RmsNorm ------------------------------------------------------------------------------------------------------

template <typename T, bool isBasicBlock>
void rms_norm(const LocalTensor<T>& y, const LocalTensor<T>& x, const LocalTensor<T>& gamma,
              const LocalTensor<uint8_t>* tmp, float eps, const RmsNormTiling& tiling, Loc loc) {
    const char* api = "RmsNorm";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kHalfFloat, loc);
    Rows r = resolve_bsh<T>(api, tiling.bLength, tiling.sLength, tiling.hLength, tiling.originalHLength, loc);
    if (isBasicBlock && !(r.h % 64 == 0 && r.h < 2048 && r.rows % 8 == 0))
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "RmsNorm with isBasicBlock = true on B*S = %u, H = %u: a basic block needs H a multiple of "
                          "64 below 2048 and B*S a multiple of 8 (RmsNorm.md). Pass isBasicBlock = false.",
                          r.rows, r.h);
    ascendc_sim::check_operand(y, r.elements(), api, "dstLocal", loc);
    ascendc_sim::check_operand(x, r.elements(), api, "srcLocal", loc);
    ascendc_sim::check_operand(gamma, r.h, api, "gammaLocal", loc);
    Span sy = hl_detail::span(y, r.elements(), "dstLocal"), sx = hl_detail::span(x, r.elements(), "srcLocal");
    Span sg = hl_detail::span(gamma, r.h, "gammaLocal");
    hl_detail::check_apart(api, sy, sg, false, loc);  // "dstLocal和gammaLocal的Tensor空间不允许复用"
    hl_detail::check_apart(api, sy, sx, true, loc);   // assumed: in place is allowed, partial overlap is not
    uint32_t planned_rows = tiling.mainBsLength < r.rows ? tiling.mainBsLength : r.rows;
    uint64_t planned = norm_model::rms_tmp_bytes(planned_rows, r.h, sizeof(T));
    check_workspace_bytes(api, tmp, norm_model::rms_tmp_bytes(1, r.h, sizeof(T)), tiling.mainBsLength, planned,
                          {sy, sx, sg}, loc);
    std::vector<float> out(r.elements());
    for (uint32_t i = 0; i < r.rows; ++i) {
        double sq = 0.0;
        for (uint32_t j = 0; j < r.ori_h; ++j) {
            double v = at(x, uint64_t(i) * r.h + j);
            sq += v * v;
        }
        float scale = 1.0f / std::sqrt(static_cast<float>(sq / r.ori_h) + eps);
        for (uint32_t j = 0; j < r.ori_h; ++j)
            out[uint64_t(i) * r.h + j] = at(x, uint64_t(i) * r.h + j) * scale * at(gamma, j);
    }
    for (uint32_t i = 0; i < r.rows; ++i)
        for (uint32_t j = 0; j < r.h; ++j)
            y.GetPhyAddrPtr()[uint64_t(i) * r.h + j] =
                j < r.ori_h ? T(out[uint64_t(i) * r.h + j]) : hl_detail::poison_value<T>();
    hl_detail::poison_tmp(tmp, norm_model::rms_tmp_bytes(r.rows, r.h, sizeof(T)));
    hl_detail::book(OpId::RmsNorm, r.elements(), 5, sizeof(T) == 2,
                    {x.timing(), gamma.timing(), tmp ? tmp->timing() : nullptr}, y.timing(), {}, loc);
}

}  // namespace norm_detail

// ---- LayerNorm.md -------------------------------------------------------------------------------------------------
// The page passes the tiling as a non-const reference; a const one binds the same arguments and also a field of
// GET_TILING_DATA's const struct.

template <typename T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
               const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon, const LayerNormTiling& tiling,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    norm_detail::BshArgs<T> a{output, outputMean, outputVariance, inputX, nullptr, gamma, beta, 1.0f};
    norm_detail::bsh_norm<T, isReuseSource>("LayerNorm", ascendc_sim::OpId::LayerNorm, a, &sharedTmpBuffer,
                                            static_cast<float>(epsilon), tiling, loc);
}
template <typename T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const T epsilon,
               const LayerNormTiling& tiling, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    norm_detail::BshArgs<T> a{output, outputMean, outputVariance, inputX, nullptr, gamma, beta, 1.0f};
    norm_detail::bsh_norm<T, isReuseSource>("LayerNorm", ascendc_sim::OpId::LayerNorm, a, nullptr,
                                            static_cast<float>(epsilon), tiling, loc);
}

template <typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
               const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
               const LocalTensor<U>& beta, const float epsilon, const LocalTensor<uint8_t>& sharedTmpBuffer,
               const LayerNormPara& para, const LayerNormSeparateTiling& tiling,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    norm_detail::layer_norm_rstd<U, T, config>(output, outputMean, outputRstd, inputX, gamma, beta, epsilon,
                                               &sharedTmpBuffer, para, tiling, loc);
}
template <typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
               const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
               const LocalTensor<U>& beta, const float epsilon, const LayerNormPara& para,
               const LayerNormSeparateTiling& tiling, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    norm_detail::layer_norm_rstd<U, T, config>(output, outputMean, outputRstd, inputX, gamma, beta, epsilon, nullptr,
                                               para, tiling, loc);
}

// ---- DeepNorm.md: LayerNorm(alpha * X + SubLayer(X)); rstdLocal receives the variance (the page's table and its
// example, which passes outputVariance there) ------------------------------------------------------------------------

template <typename T, bool isReuseSrc = false, bool isBasicBlock = false>
void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal, const LocalTensor<T>& rstdLocal,
              const LocalTensor<T>& srcLocal, const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
              const LocalTensor<T>& gammaLocal, const LocalTensor<uint8_t>& sharedTmpBuffer, const T alpha,
              const T epsilon, const DeepNormTiling& tiling, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    norm_detail::check_deep_norm_shape<T, isBasicBlock>(tiling, loc);
    norm_detail::BshArgs<T> a{dstLocal, meanLocal, rstdLocal, srcLocal, &gxLocal, gammaLocal, betaLocal,
                              static_cast<float>(alpha)};
    norm_detail::bsh_norm<T, isReuseSrc>("DeepNorm", ascendc_sim::OpId::DeepNorm, a, &sharedTmpBuffer,
                                         static_cast<float>(epsilon), tiling, loc);
}
template <typename T, bool isReuseSrc = false, bool isBasicBlock = false>
void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal, const LocalTensor<T>& rstdLocal,
              const LocalTensor<T>& srcLocal, const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
              const LocalTensor<T>& gammaLocal, const T alpha, const T epsilon, const DeepNormTiling& tiling,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    norm_detail::check_deep_norm_shape<T, isBasicBlock>(tiling, loc);
    norm_detail::BshArgs<T> a{dstLocal, meanLocal, rstdLocal, srcLocal, &gxLocal, gammaLocal, betaLocal,
                              static_cast<float>(alpha)};
    norm_detail::bsh_norm<T, isReuseSrc>("DeepNorm", ascendc_sim::OpId::DeepNorm, a, nullptr,
                                         static_cast<float>(epsilon), tiling, loc);
}

// ---- Normalize.md: y and rstd from a given mean and variance ------------------------------------------------------

template <typename U, typename T, bool isReuseSource = false, const NormalizeConfig& config = NLCFG_NORM>
void Normalize(const LocalTensor<T>& output, const LocalTensor<float>& outputRstd, const LocalTensor<float>& inputMean,
               const LocalTensor<float>& inputVariance, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
               const LocalTensor<U>& beta, const LocalTensor<uint8_t>& sharedTmpBuffer, const float epsilon,
               const NormalizePara& para, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    norm_detail::normalize<U, T, config>(output, outputRstd, inputMean, inputVariance, inputX, gamma, beta, epsilon,
                                         &sharedTmpBuffer, para, loc);
}
template <typename U, typename T, bool isReuseSource = false, const NormalizeConfig& config = NLCFG_NORM>
void Normalize(const LocalTensor<T>& output, const LocalTensor<float>& outputRstd, const LocalTensor<float>& inputMean,
               const LocalTensor<float>& inputVariance, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
               const LocalTensor<U>& beta, const float epsilon, const NormalizePara& para,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    norm_detail::normalize<U, T, config>(output, outputRstd, inputMean, inputVariance, inputX, gamma, beta, epsilon,
                                         nullptr, para, loc);
}

// ---- RmsNorm.md ---------------------------------------------------------------------------------------------------

template <typename T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon, const RmsNormTiling& tiling,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    norm_detail::rms_norm<T, isBasicBlock>(dstLocal, srcLocal, gammaLocal, &sharedTmpBuffer,
                                           static_cast<float>(epsilon), tiling, loc);
}
template <typename T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
             const T epsilon, const RmsNormTiling& tiling, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    norm_detail::rms_norm<T, isBasicBlock>(dstLocal, srcLocal, gammaLocal, nullptr, static_cast<float>(epsilon),
                                           tiling, loc);
}

}  // namespace AscendC
