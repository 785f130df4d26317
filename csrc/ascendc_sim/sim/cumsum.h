// CumSum (high-level API, CumSum.md): running sums of a 2-D [outter, inner] tensor along the last axis
// (CumSumConfig.isLastAxis, the default: along each row) or the first axis (down each column), optionally copying
// the result's last row to lastRowTensor (outputLastRow).
//
// Values: accumulated in float (the page: the API converts precision internally) and rounded once per element.
// Checks: outter and inner positive, inner * sizeof(T) a multiple of 32 bytes, outter * inner within src and dst,
// inner within lastRowTensor when it is written. dst may be src (assumed: the page forbids no overlap; the sums
// are formed before they are written); lastRowTensor may not overlap either. Types: half/float on Atlas A2/A3 and 310P.
// Temporary space (ours): one float row of inner elements, 256 bytes at least (host/tiling/misc_tiling.h agrees).
// Cost: one composite instruction, 2 float repeats per element (a half call adds a Cast in and out).
#pragma once
#include <vector>

#include "hl_checks.h"

namespace AscendC {

struct CumSumConfig {
    bool isLastAxis{true};
    bool isReuseSource{false};
    bool outputLastRow{false};
};
inline constexpr CumSumConfig defaultCumSumConfig = {true, false, false};

struct CumSumInfo {
    uint32_t outter{0};
    uint32_t inner{0};
};

namespace cumsum_detail {

using ascendc_sim::Diag;
using ascendc_sim::Loc;
using hl_detail::Span;

constexpr uint32_t min_tmp_bytes(uint32_t inner) {
    uint32_t row = (inner * 4u + 31u) / 32u * 32u;
    return row < 256u ? 256u : row;
}

template <typename T, const CumSumConfig& config>
void cumsum(const LocalTensor<T>& dst, const LocalTensor<T>& last, const LocalTensor<T>& src,
            const LocalTensor<uint8_t>* tmp, const CumSumInfo& info, Loc loc) {
    const char* api = "CumSum";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    if (info.outter == 0 || info.inner == 0 || info.inner * sizeof(T) % 32 != 0)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "CumSum: cumSumInfo {outter %u, inner %u}: both must be positive and inner * sizeof(%s) a "
                          "multiple of 32 bytes (CumSum.md). Pad each row to %zu elements.",
                          info.outter, info.inner, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), 32 / sizeof(T));
    uint64_t n = uint64_t(info.outter) * info.inner;
    ascendc_sim::check_operand(dst, n, api, "dstTensor", loc);
    ascendc_sim::check_operand(src, n, api, "srcTensor", loc);
    Span d = hl_detail::span(dst, n, "dstTensor"), s = hl_detail::span(src, n, "srcTensor");
    Span l{nullptr, 0, "lastRowTensor"};
    hl_detail::check_apart(api, d, s, true, loc);
    if (config.outputLastRow) {
        ascendc_sim::check_operand(last, info.inner, api, "lastRowTensor", loc);
        l = hl_detail::span(last, info.inner, "lastRowTensor");
        hl_detail::check_apart(api, l, d, false, loc);
        hl_detail::check_apart(api, l, s, false, loc);
    }
    hl_detail::check_tmp(api, tmp, min_tmp_bytes(info.inner), {d, s, l}, loc);
    std::vector<float> acc(n);
    const T* p = src.GetPhyAddrPtr();
    for (uint32_t r = 0; r < info.outter; ++r)
        for (uint32_t c = 0; c < info.inner; ++c) {
            uint64_t i = uint64_t(r) * info.inner + c;
            float prev = config.isLastAxis ? (c > 0 ? acc[i - 1] : 0.0f) : (r > 0 ? acc[i - info.inner] : 0.0f);
            acc[i] = prev + static_cast<float>(p[i]);
        }
    for (uint64_t i = 0; i < n; ++i) dst.GetPhyAddrPtr()[i] = T(acc[i]);
    if (config.outputLastRow)
        for (uint32_t c = 0; c < info.inner; ++c) last.GetPhyAddrPtr()[c] = T(acc[n - info.inner + c]);
    hl_detail::poison_tmp(tmp, min_tmp_bytes(info.inner));
    hl_detail::book(ascendc_sim::OpId::CumSum, n, 2, sizeof(T) == 2, {src.timing(), tmp ? tmp->timing() : nullptr},
                    dst.timing(), {config.outputLastRow ? last.timing() : nullptr}, loc);
}

}  // namespace cumsum_detail

// CumSum.md: the tensors are non-const references there; const ones bind the same arguments.
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
void CumSum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
            const LocalTensor<uint8_t>& sharedTmpBuffer, const CumSumInfo& cumSumInfo,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    cumsum_detail::cumsum<T, config>(dstTensor, lastRowTensor, srcTensor, &sharedTmpBuffer, cumSumInfo, loc);
}
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
void CumSum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
            const CumSumInfo& cumSumInfo, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    cumsum_detail::cumsum<T, config>(dstTensor, lastRowTensor, srcTensor, nullptr, cumSumInfo, loc);
}

}  // namespace AscendC
