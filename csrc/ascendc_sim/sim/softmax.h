// The SoftMax family (high-level APIs): SoftMax, SimpleSoftMax, SoftmaxFlash, SoftmaxFlashV2, LogSoftMax,
// SoftmaxGrad, on ND [m, k] data, row by row.
//
// Written from asc-devkit v8.5.0 SoftMax.md, SimpleSoftMax.md, SoftmaxFlash.md, SoftmaxFlashV2.md, LogSoftMax.md,
// SoftmaxGrad.md, SoftmaxGradFront.md, AdjustSoftMaxRes.md (their Python formulas are the semantics):
//   SoftMax        max = rowmax(x); sum = rowsum(e^(x-max)); dst = e^(x-max) / sum
//   SimpleSoftMax  dst = e^(x - inMax) / inSum
//   SoftmaxFlash   update=false: as SoftMax; update=true: max = max(inMax, rowmax x), e = e^(x-max),
//                  expMax = e^(inMax-max), sum = expMax*inSum + rowsum e, expMax = expMax*inSum/sum, dst = e/sum
//   SoftmaxFlashV2 update=false: max = rowmax x, dst = e^(x-max), sum = rowsum dst;
//                  update=true: max = max(inMax, rowmax x), dst = e^(x-max), expMax = e^(inMax-max),
//                  sum = expMax*inSum + rowsum dst
//   LogSoftMax     dst = log10(softmax(x)): the v8.5.0 page's Python and its step 8 say log10 (hiascend's pages up
//                  to CANN 8.2 said np.log; from 8.5 on they say np.log10 in both places, a deliberate change)
//   SoftmaxFlashV3 the page's Python (PASA): each row shifted per 8-lane group by (global - local mean) *
//                  alpha / (1 - alpha), then a V2-style flash step carrying the mean (half data, float statistics)
//   SoftmaxGrad    d = rowsum(grad*src); isFront: dst = d (one block per row); else dst = (grad - d) * src
//   SoftmaxGradFront  SoftmaxGrad's isFront result, with isBasicBlock
//   AdjustSoftMaxRes  rows whose max (each block's first element, or every element with stepSizeMode != 0) has
//                  the bit pattern `from` are filled with `to`; returns whether any row matched
// The max/sum/expMax tensors hold one 32-byte block per row, every element the row's value (SoftmaxFlashV2 with
// SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC: one element per row). Inputs given as blocks are read from the
// block's first element.
//
// Shape: SoftMaxShapeInfo when given (srcK must be 32-byte aligned), else the tiling's srcM/srcK. When oriSrcK <
// srcK the reductions run over the first oriSrcK columns and dst's padding columns are left NaN (the pages say
// the results overwrite them with values they do not define); padding rows are computed like any row.
// Values: computed in float, each output rounded once to its type.
// Not simulated (reported): the NZ data format; isBasicBlock is accepted only where its documented shape
// conditions hold. Types: half/float on Atlas A2/A3 and 310P (hiascend's SoftMax page: AI Core supported).
// Cost: one composite instruction under the API's OpId, `passes` float repeats over m*k (a half call adds a Cast
// in and out): SoftMax 5, SimpleSoftMax 3, SoftmaxFlash 5 (7 update), SoftmaxFlashV2 4 (6 update), LogSoftMax 6,
// SoftmaxGrad 2 (front) / 4.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "hl_checks.h"
#include "softmax_tiling.h"

namespace AscendC {
namespace softmax_detail {

using ascendc_sim::Diag;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using hl_detail::Span;

struct Shape {
    uint32_t m, k, ori_m, ori_k;
    uint64_t elements() const { return uint64_t(m) * k; }
};

// Elements per row of a max/sum-style tensor of U.
template <typename U>
constexpr uint32_t block_of(bool no_brc) {
    return no_brc ? 1u : 32u / sizeof(U);
}

template <typename T>
Shape resolve(const char* api, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& info, Loc loc) {
    Shape s{info.srcM, info.srcK, info.oriSrcM, info.oriSrcK};
    if (s.m == 0 && s.k == 0) s = Shape{tiling.srcM, tiling.srcK, tiling.srcM, tiling.srcK};
    if (s.m == 0 || s.k == 0)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: the shape is empty (srcM = %u, srcK = %u from %s). Pass SoftMaxShapeInfo{srcM, srcK, "
                          "oriSrcM, oriSrcK}, or fill the tiling on the host with the API's tiling function.",
                          api, s.m, s.k, info.srcK ? "softmaxShapeInfo" : "the tiling (no softmaxShapeInfo given)");
    if (s.ori_m == 0) s.ori_m = s.m;
    if (s.ori_k == 0) s.ori_k = s.k;
    if (s.k * sizeof(T) % 32 != 0)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: srcK = %u elements of %s is %zu bytes, not a multiple of 32; the last axis must be "
                          "32-byte aligned. Pad each row to %u elements and give the real length as oriSrcK.",
                          api, s.k, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), s.k * sizeof(T),
                          softmax_model::align_up(s.k, 32 / sizeof(T)));
    if (s.ori_k > s.k || s.ori_m > s.m)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: the original shape [%u, %u] is larger than the padded shape [%u, %u] in "
                          "softmaxShapeInfo; oriSrcM/oriSrcK must not exceed srcM/srcK.",
                          api, s.ori_m, s.ori_k, s.m, s.k);
    return s;
}

inline void check_nz(const char* api, bool nz, Loc loc) {
    if (nz)
        ascendc_sim::fail(Diag::UnsupportedApi, loc,
                          "%s with isDataFormatNZ = true: the simulator does not model the NZ format. Use ND data.",
                          api);
}

template <typename T, bool isBasicBlock, bool isDataFormatNZ>
void check_modes(const char* api, const Shape& s, Loc loc) {
    check_nz(api, isDataFormatNZ, loc);
    if (isBasicBlock) {
        uint32_t min_k = 256 / sizeof(T);
        if (!(s.k < 2048 && s.k >= min_k && s.k % 64 == 0 && s.m % 8 == 0))
            ascendc_sim::fail(Diag::BadArgument, loc,
                              "%s with isBasicBlock = true on [%u, %u]: a basic block needs the last axis a multiple "
                              "of 64 in [%u, 2048) and the row count a multiple of 8. Pass isBasicBlock = false.",
                              api, s.m, s.k, min_k);
    }
}

// SoftmaxConfig.oriSrcM/oriSrcK make the shape a compile-time constant (the pages); one that disagrees with the
// shape of the call is a kernel bug.
inline void check_config_shape(const char* api, const SoftmaxConfig& config, const Shape& s, Loc loc) {
    if ((config.oriSrcM != 0 && config.oriSrcM != s.ori_m) || (config.oriSrcK != 0 && config.oriSrcK != s.ori_k))
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: SoftmaxConfig fixes the shape at oriSrcM %u, oriSrcK %u but this call's shape is [%u, "
                          "%u]. Make the config match, or leave oriSrcM/oriSrcK 0 for a runtime shape.",
                          api, config.oriSrcM, config.oriSrcK, s.ori_m, s.ori_k);
}

// Sizes of the common operand sets. `rows` are [m, k] tensors, `blocks` per-row blocks.
template <typename T>
void check_rows(const char* api, const LocalTensor<T>& t, const Shape& s, const char* role, Loc loc) {
    ascendc_sim::check_operand(t, s.elements(), api, role, loc);
}

template <typename U>
void check_blocks(const char* api, const LocalTensor<U>& t, const Shape& s, uint32_t blk, const char* role, Loc loc) {
    ascendc_sim::check_operand(t, uint64_t(s.m) * blk, api, role, loc);
}

template <typename T>
std::vector<float> load(const LocalTensor<T>& t, const Shape& s) {
    std::vector<float> v(s.elements());
    const T* p = t.GetPhyAddrPtr();
    for (uint64_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(p[i]);
    return v;
}

template <typename U>
std::vector<float> load_blocks(const LocalTensor<U>& t, const Shape& s, uint32_t blk) {
    std::vector<float> v(s.m);
    const U* p = t.GetPhyAddrPtr();
    for (uint32_t r = 0; r < s.m; ++r) v[r] = static_cast<float>(p[uint64_t(r) * blk]);
    return v;
}

// Writes [m, k] values; dst's padding columns are NaN.
template <typename T>
void store(const LocalTensor<T>& t, const Shape& s, const std::vector<float>& v) {
    T* p = t.GetPhyAddrPtr();
    for (uint32_t r = 0; r < s.m; ++r)
        for (uint32_t j = 0; j < s.k; ++j) {
            uint64_t i = uint64_t(r) * s.k + j;
            p[i] = j < s.ori_k ? T(v[i]) : hl_detail::poison_value<T>();
        }
}

template <typename U>
void store_blocks(const LocalTensor<U>& t, const Shape& s, uint32_t blk, const std::vector<float>& v) {
    U* p = t.GetPhyAddrPtr();
    for (uint32_t r = 0; r < s.m; ++r)
        for (uint32_t j = 0; j < blk; ++j) p[uint64_t(r) * blk + j] = U(v[r]);
}

inline float row_max(const std::vector<float>& x, const Shape& s, uint32_t r) {
    float m = -std::numeric_limits<float>::infinity();
    for (uint32_t j = 0; j < s.ori_k; ++j) m = std::max(m, x[uint64_t(r) * s.k + j]);
    return m;
}

// e[r][j] = exp(x[r][j] - max[r]); returns the row sums.
inline std::vector<float> exp_rows(std::vector<float>& x, const Shape& s, const std::vector<float>& max) {
    std::vector<float> sum(s.m, 0.0f);
    for (uint32_t r = 0; r < s.m; ++r)
        for (uint32_t j = 0; j < s.ori_k; ++j) {
            float& e = x[uint64_t(r) * s.k + j];
            e = std::exp(e - max[r]);
            sum[r] += e;
        }
    return sum;
}

inline void scale_rows(std::vector<float>& x, const Shape& s, const std::vector<float>& divisor) {
    for (uint32_t r = 0; r < s.m; ++r)
        for (uint32_t j = 0; j < s.ori_k; ++j) x[uint64_t(r) * s.k + j] /= divisor[r];
}

// The temporary space: at least one row in flight; a tiling made for this shape must fit what is given.
inline void check_workspace(const char* api, const LocalTensor<uint8_t>* tmp, const SoftMaxTiling& tiling,
                            const Shape& s, std::initializer_list<Span> operands, Loc loc) {
    hl_detail::check_tmp(api, tmp, softmax_model::min_tmp_bytes(s.k), operands, loc);
    if (tmp == nullptr || tiling.srcK != s.k || tiling.srcM != s.m) return;
    uint64_t planned = uint64_t(std::min(tiling.splitM, s.m)) * softmax_model::row_tmp_bytes(s.k);
    if (planned > tmp->GetSize())
        ascendc_sim::fail(Diag::LocalOverrun, loc,
                          "%s: the tiling was computed for %u rows per pass (%llu bytes of temporary space) but "
                          "sharedTmpBuffer has only %u bytes; the API would write past it. Pass the tmp buffer's "
                          "size as localWorkSpaceSize to the host tiling function.",
                          api, tiling.splitM, (unsigned long long)planned, (unsigned)tmp->GetSize());
}

inline void poison(const LocalTensor<uint8_t>* tmp, const Shape& s) {
    hl_detail::poison_tmp(tmp, uint64_t(s.m) * softmax_model::row_tmp_bytes(s.k));
}

template <typename T>
constexpr bool narrow() {
    return sizeof(T) == 2;
}

// ---- SoftMax and SoftmaxFlash (update = false) -------------------------------------------------------------

template <typename T, typename U, bool isBasicBlock, bool isDataFormatNZ, const SoftmaxConfig& config>
void softmax(const char* api, OpId op, const LocalTensor<T>& dst, const LocalTensor<U>* sum,
             const LocalTensor<U>* max, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp,
             const SoftMaxTiling& tiling, const SoftMaxShapeInfo& info, Loc loc) {
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kHalfFloat, loc);
    if (config.mode != SoftmaxMode::SOFTMAX_NORMAL)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: SoftmaxConfig.mode must be SOFTMAX_NORMAL (the page: mode is not configurable here).",
                          api);
    Shape s = resolve<T>(api, tiling, info, loc);
    check_modes<T, isBasicBlock, isDataFormatNZ>(api, s, loc);
    check_config_shape(api, config, s, loc);
    constexpr uint32_t blk = block_of<U>(false);
    check_rows(api, dst, s, "dstTensor", loc);
    check_rows(api, src, s, "srcTensor", loc);
    Span d = hl_detail::span(dst, s.elements(), "dstTensor"), x = hl_detail::span(src, s.elements(), "srcTensor");
    hl_detail::check_apart(api, d, x, true, loc);
    Span sm{nullptr, 0, "sumTensor"}, mx{nullptr, 0, "maxTensor"};
    if (sum != nullptr) {
        check_blocks(api, *sum, s, blk, "sumTensor", loc);
        check_blocks(api, *max, s, blk, "maxTensor", loc);
        sm = hl_detail::span(*sum, uint64_t(s.m) * blk, "sumTensor");
        mx = hl_detail::span(*max, uint64_t(s.m) * blk, "maxTensor");
        for (const Span& o : {d, x}) {
            hl_detail::check_apart(api, sm, o, false, loc);
            hl_detail::check_apart(api, mx, o, false, loc);
        }
        hl_detail::check_apart(api, sm, mx, false, loc);
    }
    check_workspace(api, tmp, tiling, s, {d, x, sm, mx}, loc);
    std::vector<float> v = load(src, s);
    std::vector<float> mv(s.m);
    for (uint32_t r = 0; r < s.m; ++r) mv[r] = row_max(v, s, r);
    std::vector<float> sv = exp_rows(v, s, mv);
    scale_rows(v, s, sv);
    store(dst, s, v);
    if (sum != nullptr) {
        store_blocks(*sum, s, blk, sv);
        store_blocks(*max, s, blk, mv);
    }
    poison(tmp, s);
    hl_detail::book(op, s.elements(), 5, narrow<T>(), {src.timing(), tmp ? tmp->timing() : nullptr}, dst.timing(),
                    {sum ? sum->timing() : nullptr, max ? max->timing() : nullptr}, loc);
}

// ---- SimpleSoftMax ---------------------------------------------------------------------------------------------

template <typename T, typename U, bool isBasicBlock, bool isDataFormatNZ>
void simple(const LocalTensor<T>& dst, const LocalTensor<U>& in_sum, const LocalTensor<U>& in_max,
            const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp, const SoftMaxTiling& tiling,
            const SoftMaxShapeInfo& info, Loc loc) {
    const char* api = "SimpleSoftMax";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kHalfFloat, loc);
    Shape s = resolve<T>(api, tiling, info, loc);
    check_modes<T, isBasicBlock, isDataFormatNZ>(api, s, loc);
    constexpr uint32_t blk = block_of<U>(false);
    check_rows(api, dst, s, "dstTensor", loc);
    check_rows(api, src, s, "srcTensor", loc);
    check_blocks(api, in_sum, s, blk, "inSumTensor", loc);
    check_blocks(api, in_max, s, blk, "inMaxTensor", loc);
    Span d = hl_detail::span(dst, s.elements(), "dstTensor"), x = hl_detail::span(src, s.elements(), "srcTensor");
    Span sm = hl_detail::span(in_sum, uint64_t(s.m) * blk, "inSumTensor");
    Span mx = hl_detail::span(in_max, uint64_t(s.m) * blk, "inMaxTensor");
    hl_detail::check_apart(api, d, x, true, loc);
    hl_detail::check_apart(api, d, sm, false, loc);
    hl_detail::check_apart(api, d, mx, false, loc);
    check_workspace(api, tmp, tiling, s, {d, x, sm, mx}, loc);
    std::vector<float> v = load(src, s);
    std::vector<float> mv = load_blocks(in_max, s, blk), sv = load_blocks(in_sum, s, blk);
    exp_rows(v, s, mv);
    scale_rows(v, s, sv);
    store(dst, s, v);
    poison(tmp, s);
    hl_detail::book(OpId::SimpleSoftMax, s.elements(), 3, narrow<T>(),
                    {src.timing(), in_sum.timing(), in_max.timing(), tmp ? tmp->timing() : nullptr}, dst.timing(), {},
                    loc);
}

// ---- SoftmaxFlash / SoftmaxFlashV2 ----------------------------------------------------------------------------

// The tensors of one flash call. `reduce_max` only for SoftmaxFlashV2's outReduceMax form.
template <typename T, typename U, typename E>
struct Flash {
    const LocalTensor<T>& dst;
    const LocalTensor<U>& sum;
    const LocalTensor<U>& max;
    const LocalTensor<T>& src;
    const LocalTensor<E>& exp_max;
    const LocalTensor<U>& in_sum;
    const LocalTensor<U>& in_max;
    const LocalTensor<U>* reduce_max;
};

template <typename T, typename U, typename E>
void check_flash(const char* api, const Flash<T, U, E>& f, const Shape& s, uint32_t blk, uint32_t eblk, bool update,
                 const LocalTensor<uint8_t>* tmp, const SoftMaxTiling& tiling, Loc loc) {
    check_rows(api, f.dst, s, "dstTensor", loc);
    check_rows(api, f.src, s, "srcTensor", loc);
    check_blocks(api, f.sum, s, blk, "expSumTensor", loc);
    check_blocks(api, f.max, s, blk, "maxTensor", loc);
    Span d = hl_detail::span(f.dst, s.elements(), "dstTensor"), x = hl_detail::span(f.src, s.elements(), "srcTensor");
    Span sm = hl_detail::span(f.sum, uint64_t(s.m) * blk, "expSumTensor");
    Span mx = hl_detail::span(f.max, uint64_t(s.m) * blk, "maxTensor");
    Span em{nullptr, 0, "expMaxTensor"}, ism{nullptr, 0, "inExpSumTensor"}, imx{nullptr, 0, "inMaxTensor"};
    hl_detail::check_apart(api, d, x, true, loc);
    if (update) {
        check_blocks(api, f.exp_max, s, eblk, "expMaxTensor", loc);
        check_blocks(api, f.in_sum, s, blk, "inExpSumTensor", loc);
        check_blocks(api, f.in_max, s, blk, "inMaxTensor", loc);
        em = hl_detail::span(f.exp_max, uint64_t(s.m) * eblk, "expMaxTensor");
        ism = hl_detail::span(f.in_sum, uint64_t(s.m) * blk, "inExpSumTensor");
        imx = hl_detail::span(f.in_max, uint64_t(s.m) * blk, "inMaxTensor");
        hl_detail::check_apart(api, sm, ism, true, loc);
        hl_detail::check_apart(api, mx, imx, true, loc);
    }
    for (const Span& out : {sm, mx, em})
        for (const Span& operand : {d, x}) hl_detail::check_apart(api, out, operand, false, loc);
    hl_detail::check_apart(api, sm, mx, false, loc);
    hl_detail::check_apart(api, sm, em, false, loc);
    hl_detail::check_apart(api, mx, em, false, loc);
    hl_detail::check_apart(api, sm, imx, false, loc);
    hl_detail::check_apart(api, mx, ism, false, loc);
    hl_detail::check_apart(api, em, ism, false, loc);
    hl_detail::check_apart(api, em, imx, false, loc);
    check_workspace(api, tmp, tiling, s, {d, x, sm, mx, em, ism, imx}, loc);
}

// v2: no division by the sum. Returns nothing; writes every output.
template <typename T, typename U, typename E>
void flash(const char* api, OpId op, bool v2, const Flash<T, U, E>& f, bool update, bool no_brc,
           const LocalTensor<uint8_t>* tmp, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& info, Loc loc) {
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kHalfFloat, loc);
    Shape s = resolve<T>(api, tiling, info, loc);
    uint32_t blk = no_brc ? 1u : 32u / sizeof(U), eblk = no_brc ? 1u : 32u / sizeof(E);
    check_flash(api, f, s, blk, eblk, update, tmp, tiling, loc);
    if (f.reduce_max != nullptr && update) check_blocks(api, *f.reduce_max, s, blk, "outReduceMax", loc);
    std::vector<float> v = load(f.src, s);
    std::vector<float> rmax(s.m), mv(s.m);
    for (uint32_t r = 0; r < s.m; ++r) rmax[r] = mv[r] = row_max(v, s, r);
    std::vector<float> in_max, in_sum;
    if (update) {
        in_max = load_blocks(f.in_max, s, blk);
        in_sum = load_blocks(f.in_sum, s, blk);
        for (uint32_t r = 0; r < s.m; ++r) mv[r] = std::max(in_max[r], rmax[r]);
    }
    std::vector<float> sv = exp_rows(v, s, mv);
    std::vector<float> ev(s.m);
    if (update)
        for (uint32_t r = 0; r < s.m; ++r) {
            ev[r] = std::exp(in_max[r] - mv[r]);
            sv[r] = ev[r] * in_sum[r] + sv[r];
            if (!v2) ev[r] = ev[r] * in_sum[r] / sv[r];
        }
    if (!v2) scale_rows(v, s, sv);
    store(f.dst, s, v);
    store_blocks(f.sum, s, blk, sv);
    store_blocks(f.max, s, blk, mv);
    if (update) store_blocks(f.exp_max, s, eblk, ev);
    if (f.reduce_max != nullptr && update) store_blocks(*f.reduce_max, s, blk, rmax);
    poison(tmp, s);
    uint32_t passes = (v2 ? 4 : 5) + (update ? 2 : 0);
    hl_detail::book(op, s.elements(), passes, narrow<T>(),
                    {f.src.timing(), update ? f.in_sum.timing() : nullptr, update ? f.in_max.timing() : nullptr,
                     tmp ? tmp->timing() : nullptr},
                    f.dst.timing(),
                    {f.sum.timing(), f.max.timing(), update ? f.exp_max.timing() : nullptr,
                     f.reduce_max && update ? f.reduce_max->timing() : nullptr},
                    loc);
}

template <typename U>
bool present(const LocalTensor<U>* t) {
    return t != nullptr;
}

template <bool isDataFormatNZ, const SoftmaxConfig& config>
void check_flash_v2_modes(bool reduce_max_form, Loc loc) {
    check_nz("SoftmaxFlashV2", isDataFormatNZ, loc);
    if (reduce_max_form && config.mode != SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "SoftmaxFlashV2 with outReduceMax: config.mode must be SOFTMAX_OUTPUT_WITHOUT_BRC; with "
                          "SOFTMAX_NORMAL the page says the call does nothing and writes no output.");
}

// ---- LogSoftMax and SoftmaxGrad -------------------------------------------------------------------------------

template <typename T>
void log_softmax(const LocalTensor<T>& dst, const LocalTensor<T>& sum, const LocalTensor<T>& max,
                 const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp, const LogSoftMaxTiling& tiling,
                 const SoftMaxShapeInfo& info, Loc loc) {
    const char* api = "LogSoftMax";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kHalfFloat, loc);
    Shape s = resolve<T>(api, tiling, info, loc);
    constexpr uint32_t blk = block_of<T>(false);
    check_rows(api, dst, s, "dst", loc);
    check_rows(api, src, s, "src", loc);
    check_blocks(api, sum, s, blk, "sum", loc);
    check_blocks(api, max, s, blk, "max", loc);
    Span d = hl_detail::span(dst, s.elements(), "dst"), x = hl_detail::span(src, s.elements(), "src");
    Span sm = hl_detail::span(sum, uint64_t(s.m) * blk, "sum"), mx = hl_detail::span(max, uint64_t(s.m) * blk, "max");
    hl_detail::check_apart(api, d, x, false, loc);
    for (const Span& o : {d, x, mx}) hl_detail::check_apart(api, sm, o, false, loc);
    for (const Span& o : {d, x}) hl_detail::check_apart(api, mx, o, false, loc);
    check_workspace(api, &tmp, tiling, s, {d, x, sm, mx}, loc);
    std::vector<float> v = load(src, s);
    std::vector<float> mv(s.m);
    for (uint32_t r = 0; r < s.m; ++r) mv[r] = row_max(v, s, r);
    std::vector<float> sv = exp_rows(v, s, mv);
    scale_rows(v, s, sv);
    for (uint32_t r = 0; r < s.m; ++r)
        for (uint32_t j = 0; j < s.ori_k; ++j) v[uint64_t(r) * s.k + j] = std::log10(v[uint64_t(r) * s.k + j]);
    store(dst, s, v);
    store_blocks(sum, s, blk, sv);
    store_blocks(max, s, blk, mv);
    poison(&tmp, s);
    hl_detail::book(OpId::LogSoftMax, s.elements(), 6, narrow<T>(), {src.timing(), tmp.timing()}, dst.timing(),
                    {sum.timing(), max.timing()}, loc);
}

template <typename T, bool isDataFormatNZ, bool isBasicBlock = false>
void grad(const LocalTensor<T>& dst, const LocalTensor<T>& g, const LocalTensor<T>& src,
          const LocalTensor<uint8_t>* tmp, const SoftMaxTiling& tiling, bool is_front, const SoftMaxShapeInfo& info,
          Loc loc, const char* api = "SoftmaxGrad", OpId op = OpId::SoftmaxGrad) {
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kHalfFloat, loc);
    Shape s = resolve<T>(api, tiling, info, loc);
    check_modes<T, isBasicBlock, isDataFormatNZ>(api, s, loc);
    constexpr uint32_t blk = block_of<T>(false);
    check_rows(api, g, s, "gradTensor", loc);
    check_rows(api, src, s, "srcTensor", loc);
    uint64_t dst_elems = is_front ? uint64_t(s.m) * blk : s.elements();
    ascendc_sim::check_operand(dst, dst_elems, api, "dstTensor", loc);
    Span d = hl_detail::span(dst, dst_elems, "dstTensor"), x = hl_detail::span(src, s.elements(), "srcTensor");
    Span gr = hl_detail::span(g, s.elements(), "gradTensor");
    hl_detail::check_apart(api, d, x, !is_front, loc);
    hl_detail::check_apart(api, d, gr, false, loc);
    check_workspace(api, tmp, tiling, s, {d, x, gr}, loc);
    std::vector<float> gv = load(g, s), yv = load(src, s);
    std::vector<float> dv(s.m, 0.0f);
    for (uint32_t r = 0; r < s.m; ++r)
        for (uint32_t j = 0; j < s.ori_k; ++j) dv[r] += gv[uint64_t(r) * s.k + j] * yv[uint64_t(r) * s.k + j];
    if (is_front) {
        store_blocks(dst, s, blk, dv);
    } else {
        for (uint32_t r = 0; r < s.m; ++r)
            for (uint32_t j = 0; j < s.ori_k; ++j) {
                uint64_t i = uint64_t(r) * s.k + j;
                gv[i] = (gv[i] - dv[r]) * yv[i];
            }
        store(dst, s, gv);
    }
    poison(tmp, s);
    hl_detail::book(op, s.elements(), is_front ? 2 : 4, narrow<T>(),
                    {g.timing(), src.timing(), tmp ? tmp->timing() : nullptr}, dst.timing(), {}, loc);
}

// AdjustSoftMaxRes: rows whose max block holds the bit pattern `from` are filled with `to`.
template <typename T1, typename T2, bool isDataFormatNZ, uint8_t stepSizeMode>
bool adjust(const LocalTensor<T1>& res, const LocalTensor<T2>& max, uint32_t from, T1 to, const SoftMaxShapeInfo& info,
            Loc loc) {
    const char* api = "AdjustSoftMaxRes";
    check_nz(api, isDataFormatNZ, loc);
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T1>, hl_detail::kHalfFloat, hl_detail::kHalfFloat, loc);
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T2>, hl_detail::kHalfFloat, hl_detail::kHalfFloat, loc);
    if (info.srcM == 0 || info.srcK == 0 || info.srcK * sizeof(T1) % 32 != 0)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "AdjustSoftMaxRes: softmaxShapeInfo {srcM %u, srcK %u}: both must be positive and srcK "
                          "32-byte aligned (AdjustSoftMaxRes.md).",
                          info.srcM, info.srcK);
    uint32_t step = stepSizeMode != 0 ? 1u : 32u / sizeof(T2);
    ascendc_sim::check_operand(res, uint64_t(info.srcM) * info.srcK, api, "softMaxRes", loc);
    ascendc_sim::check_operand(max, uint64_t(info.srcM) * step, api, "maxTensor", loc);
    bool found = false;
    for (uint32_t r = 0; r < info.srcM; ++r) {
        T2 value = max.GetPhyAddrPtr()[uint64_t(r) * step];
        uint32_t bits = 0;
        std::memcpy(&bits, &value, sizeof(T2));
        if (bits != from) continue;
        found = true;
        for (uint32_t j = 0; j < info.srcK; ++j) res.GetPhyAddrPtr()[uint64_t(r) * info.srcK + j] = to;
    }
    hl_detail::book(OpId::AdjustSoftMaxRes, uint64_t(info.srcM) * info.srcK, 2, narrow<T1>(), {max.timing()},
                    res.timing(), {}, loc);
    return found;
}

// ---- SoftmaxFlashV3 ------------------------------------------------------------------------------------------

// The tensors of one SoftmaxFlashV3 call: T = half data, U = float statistics.
template <typename T, typename U>
struct FlashV3 {
    const LocalTensor<T>& dst;
    const LocalTensor<U>& mean;
    const LocalTensor<U>& sum;
    const LocalTensor<U>& max;
    const LocalTensor<T>& src;
    const LocalTensor<T>& exp_max;
    const LocalTensor<U>& in_mean;
    const LocalTensor<U>& in_sum;
    const LocalTensor<U>& in_max;
};

inline void check_v3_params(const SoftMaxParams& p, bool update, Loc loc) {
    bool shape_ok = p.srcM == p.oriSrcM && p.srcK == p.oriSrcK && p.srcK >= 512 && p.srcK % 64 == 0 &&
                    p.srcM % 8 == 0 && p.srcM != 0;
    if (!shape_ok || p.splitMeanCnt != 8 || (update && p.loopCnt == 0) || !(p.alpha > 0.0f && p.alpha < 1.0f))
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "SoftmaxFlashV3: SoftMaxParams {srcM %u, srcK %u, oriSrcM %u, oriSrcK %u, loopCnt %u, "
                          "splitMeanCnt %u, alpha %g} is not valid: the shape must be unpadded (ori == src), srcK a "
                          "multiple of 64 of at least 512, srcM a multiple of 8, splitMeanCnt 8, loopCnt >= 1 with "
                          "isUpdate, and 0 < alpha < 1 (SoftmaxFlashV3.md).",
                          p.srcM, p.srcK, p.oriSrcM, p.oriSrcK, p.loopCnt, p.splitMeanCnt,
                          static_cast<double>(p.alpha));
}

template <typename T, typename U>
void check_v3_operands(const FlashV3<T, U>& f, const Shape& s, bool update, const LocalTensor<uint8_t>* tmp,
                       const SoftMaxTiling& tiling, Loc loc) {
    const char* api = "SoftmaxFlashV3";
    constexpr uint32_t ub = 32 / sizeof(U), tb = 32 / sizeof(T);
    check_rows(api, f.dst, s, "dstTensor", loc);
    check_rows(api, f.src, s, "srcTensor", loc);
    check_blocks(api, f.mean, s, ub, "meanTensor", loc);
    check_blocks(api, f.sum, s, ub, "expSumTensor", loc);
    check_blocks(api, f.max, s, ub, "maxTensor", loc);
    Span d = hl_detail::span(f.dst, s.elements(), "dstTensor"), x = hl_detail::span(f.src, s.elements(), "srcTensor");
    Span mn = hl_detail::span(f.mean, uint64_t(s.m) * ub, "meanTensor");
    Span sm = hl_detail::span(f.sum, uint64_t(s.m) * ub, "expSumTensor");
    Span mx = hl_detail::span(f.max, uint64_t(s.m) * ub, "maxTensor");
    Span em{nullptr, 0, "expMaxTensor"}, imn{nullptr, 0, "inMeanTensor"}, ism{nullptr, 0, "inExpSumTensor"},
        imx{nullptr, 0, "inMaxTensor"};
    if (update) {
        check_blocks(api, f.exp_max, s, tb, "expMaxTensor", loc);
        check_blocks(api, f.in_mean, s, ub, "inMeanTensor", loc);
        check_blocks(api, f.in_sum, s, ub, "inExpSumTensor", loc);
        check_blocks(api, f.in_max, s, ub, "inMaxTensor", loc);
        em = hl_detail::span(f.exp_max, uint64_t(s.m) * tb, "expMaxTensor");
        imn = hl_detail::span(f.in_mean, uint64_t(s.m) * ub, "inMeanTensor");
        ism = hl_detail::span(f.in_sum, uint64_t(s.m) * ub, "inExpSumTensor");
        imx = hl_detail::span(f.in_max, uint64_t(s.m) * ub, "inMaxTensor");
    }
    hl_detail::check_apart(api, d, x, true, loc);
    hl_detail::check_apart(api, mn, imn, true, loc);
    hl_detail::check_apart(api, sm, ism, true, loc);
    hl_detail::check_apart(api, mx, imx, true, loc);
    for (const Span& out : {mn, sm, mx, em})
        for (const Span& other : {d, x}) hl_detail::check_apart(api, out, other, false, loc);
    auto apart = [&](const Span& a, std::initializer_list<Span> others) {
        for (const Span& b : others) hl_detail::check_apart(api, a, b, false, loc);
    };
    apart(mn, {sm, mx, em, ism, imx});
    apart(sm, {mx, em, imn, imx});
    apart(mx, {em, imn, ism});
    apart(em, {imn, ism, imx});
    check_workspace(api, tmp, tiling, s, {d, x, mn, sm, mx, em, imn, ism, imx}, loc);
}

// The page's Python: the row is shifted by (global mean - local mean) * alpha / (1 - alpha) per group, where group
// g holds the elements whose position in their 64-element repeat is in [8g, 8g + 8), then a flash update.
template <typename T, typename U, bool isUpdate>
void flash_v3(const FlashV3<T, U>& f, const LocalTensor<uint8_t>* tmp, const SoftMaxTiling& tiling,
              const SoftMaxParams& p, Loc loc) {
    const char* api = "SoftmaxFlashV3";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, ascendc_sim::dtype_bit(ascendc_sim::DType::F16), hl_detail::kSameAsA2, loc);
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<U>, ascendc_sim::dtype_bit(ascendc_sim::DType::F32), hl_detail::kSameAsA2, loc);
    check_v3_params(p, isUpdate, loc);
    Shape s{p.srcM, p.srcK, p.srcM, p.srcK};
    check_v3_operands(f, s, isUpdate, tmp, tiling, loc);
    constexpr uint32_t ub = 32 / sizeof(U), tb = 32 / sizeof(T);
    const float scalar = p.alpha / (1.0f - p.alpha);
    const float base_k = static_cast<float>(s.k / 8);
    std::vector<float> v = load(f.src, s);
    std::vector<float> mean(s.m), mx(s.m), sum(s.m), em(s.m);
    for (uint32_t r = 0; r < s.m; ++r) {
        float* row = v.data() + uint64_t(r) * s.k;
        float group[8] = {}, total = 0.0f;
        for (uint32_t j = 0; j < s.k; ++j) group[(j % 64) / 8] += row[j], total += row[j];
        float global = total / static_cast<float>(s.k);
        for (uint32_t j = 0; j < s.k; ++j) row[j] -= (global - group[(j % 64) / 8] / base_k) * scalar;
        float row_max = -std::numeric_limits<float>::infinity();
        for (uint32_t j = 0; j < s.k; ++j) row_max = std::max(row_max, row[j]);
        float shift = 0.0f;
        if (isUpdate) {
            float in_mean = f.in_mean.GetPhyAddrPtr()[uint64_t(r) * ub];
            float in_max = f.in_max.GetPhyAddrPtr()[uint64_t(r) * ub];
            mean[r] = (global + in_mean * static_cast<float>(p.loopCnt - 1)) / static_cast<float>(p.loopCnt);
            shift = (global - mean[r]) * scalar;
            float shift_prev = (in_mean - mean[r]) * scalar;
            mx[r] = std::max(shift + row_max, shift_prev + in_max);
            em[r] = std::exp(in_max - mx[r] + shift_prev);
        } else {
            mean[r] = global;
            mx[r] = row_max;
        }
        float acc = 0.0f;
        for (uint32_t j = 0; j < s.k; ++j) acc += row[j] = std::exp(row[j] - (mx[r] - shift));
        sum[r] = isUpdate ? em[r] * f.in_sum.GetPhyAddrPtr()[uint64_t(r) * ub] + acc : acc;
    }
    store(f.dst, s, v);
    store_blocks(f.mean, s, ub, mean);
    store_blocks(f.sum, s, ub, sum);
    store_blocks(f.max, s, ub, mx);
    if (isUpdate) store_blocks(f.exp_max, s, tb, em);
    poison(tmp, s);
    hl_detail::book(OpId::SoftmaxFlashV3, s.elements(), isUpdate ? 9 : 7, true,
                    {f.src.timing(), isUpdate ? f.in_mean.timing() : nullptr, isUpdate ? f.in_sum.timing() : nullptr,
                     isUpdate ? f.in_max.timing() : nullptr, tmp ? tmp->timing() : nullptr},
                    f.dst.timing(),
                    {f.mean.timing(), f.sum.timing(), f.max.timing(), isUpdate ? f.exp_max.timing() : nullptr}, loc);
}

}  // namespace softmax_detail

// ---- SoftMax (SoftMax.md) ----------------------------------------------------------------------------------------

#define ASCENDC_SIM_SOFTMAX_TEMPLATE                                                                           \
    template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false, \
              const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>

ASCENDC_SIM_SOFTMAX_TEMPLATE
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
             const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::softmax<T, T, isBasicBlock, isDataFormatNZ, config>(
        "SoftMax", ascendc_sim::OpId::SoftMax, dstTensor, &sumTensor, &maxTensor, srcTensor, nullptr, tiling,
        softmaxShapeInfo, loc);
}
ASCENDC_SIM_SOFTMAX_TEMPLATE
void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
             const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::softmax<half, float, isBasicBlock, isDataFormatNZ, config>(
        "SoftMax", ascendc_sim::OpId::SoftMax, dstTensor, &sumTensor, &maxTensor, srcTensor, nullptr, tiling,
        softmaxShapeInfo, loc);
}
ASCENDC_SIM_SOFTMAX_TEMPLATE
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
             const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::softmax<T, T, isBasicBlock, isDataFormatNZ, config>(
        "SoftMax", ascendc_sim::OpId::SoftMax, dstTensor, &sumTensor, &maxTensor, srcTensor, &sharedTmpBuffer, tiling,
        softmaxShapeInfo, loc);
}
ASCENDC_SIM_SOFTMAX_TEMPLATE
void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
             const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::softmax<half, float, isBasicBlock, isDataFormatNZ, config>(
        "SoftMax", ascendc_sim::OpId::SoftMax, dstTensor, &sumTensor, &maxTensor, srcTensor, &sharedTmpBuffer, tiling,
        softmaxShapeInfo, loc);
}

// The forms without sum/max have no isDataFormatNZ parameter (SoftMax.md).
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::softmax<T, T, isBasicBlock, false, config>("SoftMax", ascendc_sim::OpId::SoftMax, dstTensor,
                                                                nullptr, nullptr, srcTensor, nullptr, tiling,
                                                                softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::softmax<T, T, isBasicBlock, false, config>("SoftMax", ascendc_sim::OpId::SoftMax, dstTensor,
                                                                nullptr, nullptr, srcTensor, &sharedTmpBuffer, tiling,
                                                                softmaxShapeInfo, loc);
}

// ---- SimpleSoftMax (SimpleSoftMax.md) ------------------------------------------------------------------------------

ASCENDC_SIM_SOFTMAX_TEMPLATE
void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
                   const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::simple<T, T, isBasicBlock, isDataFormatNZ>(dstTensor, inSumTensor, inMaxTensor, srcTensor, nullptr,
                                                              tiling, softmaxShapeInfo, loc);
}
ASCENDC_SIM_SOFTMAX_TEMPLATE
void SimpleSoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor,
                   const LocalTensor<float>& inMaxTensor, const LocalTensor<half>& srcTensor,
                   const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::simple<half, float, isBasicBlock, isDataFormatNZ>(dstTensor, inSumTensor, inMaxTensor, srcTensor,
                                                                     nullptr, tiling, softmaxShapeInfo, loc);
}
ASCENDC_SIM_SOFTMAX_TEMPLATE
void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
                   const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::simple<T, T, isBasicBlock, isDataFormatNZ>(dstTensor, inSumTensor, inMaxTensor, srcTensor,
                                                              &sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}
ASCENDC_SIM_SOFTMAX_TEMPLATE
void SimpleSoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor,
                   const LocalTensor<float>& inMaxTensor, const LocalTensor<half>& srcTensor,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::simple<half, float, isBasicBlock, isDataFormatNZ>(dstTensor, inSumTensor, inMaxTensor, srcTensor,
                                                                     &sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}
#undef ASCENDC_SIM_SOFTMAX_TEMPLATE

// ---- SoftmaxFlash (SoftmaxFlash.md; deprecated there in favour of SoftmaxFlashV2) -------------------------------

template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
void SoftmaxFlash(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                  const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
                  const LocalTensor<T>& inSumTensor, const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling,
                  bool isUpdate = false, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                  ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::Flash<T, T, T> f{dstTensor, sumTensor, maxTensor, srcTensor, expMaxTensor, inSumTensor, inMaxTensor,
                                     nullptr};
    softmax_detail::flash("SoftmaxFlash", ascendc_sim::OpId::SoftmaxFlash, false, f, isUpdate, false, nullptr, tiling,
                          softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
void SoftmaxFlash(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                  const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                  const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inSumTensor,
                  const LocalTensor<float>& inMaxTensor, const SoftMaxTiling& tiling, bool isUpdate = false,
                  const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::Flash<half, float, half> f{dstTensor,    sumTensor,   maxTensor,   srcTensor,
                                               expMaxTensor, inSumTensor, inMaxTensor, nullptr};
    softmax_detail::flash("SoftmaxFlash", ascendc_sim::OpId::SoftmaxFlash, false, f, isUpdate, false, nullptr, tiling,
                          softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
void SoftmaxFlash(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                  const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
                  const LocalTensor<T>& inSumTensor, const LocalTensor<T>& inMaxTensor,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling, bool isUpdate = false,
                  const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::Flash<T, T, T> f{dstTensor, sumTensor, maxTensor, srcTensor, expMaxTensor, inSumTensor, inMaxTensor,
                                     nullptr};
    softmax_detail::flash("SoftmaxFlash", ascendc_sim::OpId::SoftmaxFlash, false, f, isUpdate, false,
                          &sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
void SoftmaxFlash(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                  const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                  const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inSumTensor,
                  const LocalTensor<float>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                  const SoftMaxTiling& tiling, bool isUpdate = false, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                  ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::Flash<half, float, half> f{dstTensor,    sumTensor,   maxTensor,   srcTensor,
                                               expMaxTensor, inSumTensor, inMaxTensor, nullptr};
    softmax_detail::flash("SoftmaxFlash", ascendc_sim::OpId::SoftmaxFlash, false, f, isUpdate, false,
                          &sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}

// ---- SoftmaxFlashV2 (SoftmaxFlashV2.md) ----------------------------------------------------------------------------

#define ASCENDC_SIM_FLASHV2_TEMPLATE                                                                            \
    template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,        \
              bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
#define ASCENDC_SIM_FLASHV2_RUN(TT, UU, EE, REDUCE_MAX, TMP)                                                    \
    softmax_detail::check_flash_v2_modes<isDataFormatNZ, config>(softmax_detail::present(REDUCE_MAX), loc);   \
    softmax_detail::Flash<TT, UU, EE> f{dstTensor, expSumTensor, maxTensor,   srcTensor,                       \
                                        expMaxTensor, inExpSumTensor, inMaxTensor, REDUCE_MAX};                 \
    softmax_detail::flash("SoftmaxFlashV2", ascendc_sim::OpId::SoftmaxFlashV2, true, f, isUpdate,              \
                          config.mode == SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC, TMP, tiling, softmaxShapeInfo, loc)

ASCENDC_SIM_FLASHV2_TEMPLATE
void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                    const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                    const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ASCENDC_SIM_FLASHV2_RUN(T, T, T, static_cast<const LocalTensor<T>*>(nullptr), nullptr);
}
ASCENDC_SIM_FLASHV2_TEMPLATE
void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& outReduceMax,
                    const LocalTensor<T>& expSumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
                    const LocalTensor<T>& inExpSumTensor, const LocalTensor<T>& inMaxTensor,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ASCENDC_SIM_FLASHV2_RUN(T, T, T, &outReduceMax, nullptr);
}
ASCENDC_SIM_FLASHV2_TEMPLATE
void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                    const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                    const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                    const LocalTensor<float>& inMaxTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ASCENDC_SIM_FLASHV2_RUN(half, float, half, static_cast<const LocalTensor<float>*>(nullptr), nullptr);
}
ASCENDC_SIM_FLASHV2_TEMPLATE
void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                    const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                    const LocalTensor<T>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ASCENDC_SIM_FLASHV2_RUN(T, T, T, static_cast<const LocalTensor<T>*>(nullptr), &sharedTmpBuffer);
}
ASCENDC_SIM_FLASHV2_TEMPLATE
void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& outReduceMax,
                    const LocalTensor<T>& expSumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
                    const LocalTensor<T>& inExpSumTensor, const LocalTensor<T>& inMaxTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ASCENDC_SIM_FLASHV2_RUN(T, T, T, &outReduceMax, &sharedTmpBuffer);
}
ASCENDC_SIM_FLASHV2_TEMPLATE
void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                    const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                    const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                    const LocalTensor<float>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ASCENDC_SIM_FLASHV2_RUN(half, float, half, static_cast<const LocalTensor<float>*>(nullptr), &sharedTmpBuffer);
}
#undef ASCENDC_SIM_FLASHV2_RUN
#undef ASCENDC_SIM_FLASHV2_TEMPLATE

// ---- LogSoftMax (LogSoftMax.md: only the sharedTmpBuffer form) ------------------------------------------------------

template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
void LogSoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sum, const LocalTensor<T>& max,
                const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const LogSoftMaxTiling& tiling,
                const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::check_nz("LogSoftMax", isDataFormatNZ, loc);
    softmax_detail::log_softmax(dst, sum, max, src, sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}

// ---- SoftmaxGrad (SoftmaxGrad.md) --------------------------------------------------------------------------------

template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor, const LocalTensor<T>& srcTensor,
                 const SoftMaxTiling& tiling, bool isFront = false, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                 ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::grad<T, isDataFormatNZ>(dstTensor, gradTensor, srcTensor, nullptr, tiling, isFront,
                                            softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling, bool isFront = false,
                 const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::grad<T, isDataFormatNZ>(dstTensor, gradTensor, srcTensor, &sharedTmpBuffer, tiling, isFront,
                                            softmaxShapeInfo, loc);
}

// ---- SoftmaxFlashV3 (SoftmaxFlashV3.md): half data, float statistics --------------------------------------

template <typename T, typename U, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftmaxFlashV3(const LocalTensor<T>& dstTensor, const LocalTensor<U>& meanTensor,
                    const LocalTensor<U>& expSumTensor, const LocalTensor<U>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
                    const LocalTensor<U>& inMeanTensor, const LocalTensor<U>& inExpSumTensor,
                    const LocalTensor<U>& inMaxTensor, const SoftMaxTiling& tiling, const SoftMaxParams& params,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::FlashV3<T, U> f{dstTensor,    meanTensor,   expSumTensor,   maxTensor,  srcTensor,
                                    expMaxTensor, inMeanTensor, inExpSumTensor, inMaxTensor};
    softmax_detail::flash_v3<T, U, isUpdate>(f, nullptr, tiling, params, loc);
}
template <typename T, typename U, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftmaxFlashV3(const LocalTensor<T>& dstTensor, const LocalTensor<U>& meanTensor,
                    const LocalTensor<U>& expSumTensor, const LocalTensor<U>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
                    const LocalTensor<U>& inMeanTensor, const LocalTensor<U>& inExpSumTensor,
                    const LocalTensor<U>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const SoftMaxTiling& tiling, const SoftMaxParams& params,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::FlashV3<T, U> f{dstTensor,    meanTensor,   expSumTensor,   maxTensor,  srcTensor,
                                    expMaxTensor, inMeanTensor, inExpSumTensor, inMaxTensor};
    softmax_detail::flash_v3<T, U, isUpdate>(f, &sharedTmpBuffer, tiling, params, loc);
}

// ---- SoftmaxGradFront (SoftmaxGradFront.md): rowsum(grad * src), one 32-byte block per row ----------------------

template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                      const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                      const SoftMaxShapeInfo& softmaxShapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::grad<T, isDataFormatNZ, isBasicBlock>(dstTensor, gradTensor, srcTensor, nullptr, tiling, true,
                                                          softmaxShapeInfo, loc, "SoftmaxGradFront",
                                                          ascendc_sim::OpId::SoftmaxGradFront);
}
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                      const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                      const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                      ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    softmax_detail::grad<T, isDataFormatNZ, isBasicBlock>(dstTensor, gradTensor, srcTensor, &sharedTmpBuffer, tiling,
                                                          true, softmaxShapeInfo, loc, "SoftmaxGradFront",
                                                          ascendc_sim::OpId::SoftmaxGradFront);
}

// ---- AdjustSoftMaxRes (AdjustSoftMaxRes.md): `from` is the bit pattern of the max value to look for ------------

template <typename T1, typename T2, bool isDataFormatNZ = false, uint8_t stepSizeMode = 0>
bool AdjustSoftMaxRes(const LocalTensor<T1>& softMaxRes, const LocalTensor<T2>& maxTensor, const uint32_t from,
                      const T1 to, const SoftMaxShapeInfo& softmaxShapeInfo,
                      ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    return softmax_detail::adjust<T1, T2, isDataFormatNZ, stepSizeMode>(softMaxRes, maxTensor, from, to,
                                                                        softmaxShapeInfo, loc);
}

}  // namespace AscendC
