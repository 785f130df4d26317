// Quantization (high-level APIs): AscendQuant, AscendDequant, AscendAntiQuant.
//
// Written from asc-devkit v8.5.0 AscendQuant.md, AscendDequant.md, AscendAntiQuant.md:
//   AscendQuant      int8 dst = round_half_even(half(half(x) * scale) + offset), per tensor (float scale/offset)
//                    or per channel (scale/offset tensors of scaleCount elements, repeating along calCount). The
//                    page's steps: src, scale and offset go to half first, Muls/Mul and Adds/Add run in half, then
//                    half -> int8. Out-of-range results saturate and NaN gives 0 (the vector Cast's rule, cast.h).
//   AscendDequant    dst[r][i] = dstT(float(src[r][i]) * float(scale[i] or scale)) for i < calCount, on int32 src
//                    [m, n]; dst rows are n_dst = n rounded up to 32 bytes of dstT long and their elements from
//                    calCount on are left NaN (the page: "不确定的值"). A uint64_t scale uses its low 32 bits as a
//                    float. DEQUANT_WITH_SINGLE_ROW turns {1, n, calCount} into {n/calCount, calCount, calCount}
//                    when calCount is a multiple of 32 bytes of dstT and divides n.
//   AscendAntiQuant  dst = scale * (src + offset) on int8 src [K, N] (isTranspose: [N, K]); per tensor (scalars) or
//                    per channel (offset/scale [K/groupSize, N], transposed [N, K/groupSize]). N is src.GetSize()/k
//                    (the page: "确保输入数据的size正确"); without AntiQuantShapeInfo the offset/scale height (width when
//                    transposed) is their size / N. half output: Add then Mul in half; bfloat16 output: in float,
//                    rounded once (the page's bfloat16 steps). int4b_t src (A2/A3): the same, from the nibbles
//                    (order: types.h), sizes in elements and the 32-byte alignment rules in bytes.
// Types: the pages' tables on A2/A3; 310P the same without bfloat16_t (hl_checks.h kSameAsA2; hiascend's
// AscendDequant page marks the Atlas inference AI Core supported).
// Temporary space (ours): 512 bytes at least; host/tiling/quant_tiling.h reports the same.
// Cost: one composite instruction of `passes` float repeats over the elements: Quant 4, Dequant 3, AntiQuant 4.
#pragma once
#include <cmath>
#include <cstring>
#include <type_traits>

#include "hl_checks.h"

namespace AscendC {

enum class DeQuantMode { DEQUANT_WITH_SINGLE_ROW = 0, DEQUANT_WITH_MULTI_ROW = 1 };

struct DequantParams {
    uint32_t m;
    uint32_t n;
    uint32_t calCount;
};

struct AscendQuantConfig {
    uint32_t calcCount = 0;
    uint32_t offsetCount = 0;
    uint32_t scaleCount = 0;
    uint32_t workLocalSize = 0;
};
inline constexpr AscendQuantConfig ASCEND_QUANT_DEFAULT_CFG = {0, 0, 0, 0};

struct AntiQuantShapeInfo {
    uint32_t offsetHeight{0};
    uint32_t offsetWidth{0};
    uint32_t scaleHeight{0};
    uint32_t scaleWidth{0};
};

namespace quant_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::dtype_bit;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using hl_detail::Span;

constexpr uint32_t kMinTmpBytes = 512;

inline int8_t to_int8(half v) {
    float f = static_cast<float>(v);
    if (std::isnan(f)) return 0;
    f = std::nearbyint(f);  // round half to even (the default rounding mode)
    return static_cast<int8_t>(f > 127.f ? 127.f : (f < -128.f ? -128.f : f));
}

inline void check_half_range(float v, const char* what, Loc loc) {
    if (std::isfinite(v) && std::fabs(v) > 65504.0f)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "AscendQuant: %s %g is outside half's range; AscendQuant.md: a float scale must stay within "
                          "half's range (the API computes in half).",
                          what, v);
}

// ---- AscendQuant ----------------------------------------------------------------------------------------------

template <typename T>
struct QuantParams {
    const LocalTensor<T>* scale;   // per channel when set
    const LocalTensor<T>* offset;  // per-channel offset tensor when set
    float scale_value, offset_value;
    uint32_t scale_count, offset_count, count;
};

template <typename T>
void check_quant(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp,
                 const QuantParams<T>& q, Loc loc) {
    const char* api = "AscendQuant";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kHalfFloat, loc);
    if (q.count % 32 != 0)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "AscendQuant: calCount %u is not a multiple of 32; the int8 result must be 32-byte aligned "
                          "(AscendQuant.md: data lengths 32-byte aligned). Pad the data to a multiple of 32.",
                          q.count);
    ascendc_sim::check_operand(dst, q.count, api, "dstTensor", loc);
    ascendc_sim::check_operand(src, q.count, api, "srcTensor", loc);
    Span d = hl_detail::span(dst, q.count, "dstTensor"), s = hl_detail::span(src, q.count, "srcTensor");
    hl_detail::check_apart(api, d, s, true, loc);
    Span sc{nullptr, 0, "scaleTensor"}, of{nullptr, 0, "offsetTensor"};
    if (q.scale != nullptr) {
        if (q.scale_count == 0 || q.scale_count % 32 != 0 || q.count % q.scale_count != 0 ||
            q.scale_count > dst.GetSize())
            ascendc_sim::fail(Diag::BadArgument, loc,
                              "AscendQuant: scaleCount %u must be a positive multiple of 32, at most dstTensor's size, "
                              "and divide calCount %u (AscendQuant.md).",
                              q.scale_count, q.count);
        ascendc_sim::check_operand(*q.scale, q.scale_count, api, "scaleTensor", loc);
        sc = hl_detail::span(*q.scale, q.scale_count, "scaleTensor");
        hl_detail::check_apart(api, d, sc, false, loc);
        if (q.offset != nullptr) {
            if (q.offset_count != q.scale_count)
                ascendc_sim::fail(Diag::BadArgument, loc,
                                  "AscendQuant: offsetCount %u must equal scaleCount %u (AscendQuant.md).",
                                  q.offset_count, q.scale_count);
            ascendc_sim::check_operand(*q.offset, q.offset_count, api, "offsetTensor", loc);
            of = hl_detail::span(*q.offset, q.offset_count, "offsetTensor");
            hl_detail::check_apart(api, d, of, false, loc);
        }
    } else {
        check_half_range(q.scale_value, "scale", loc);
        check_half_range(q.offset_value, "offset", loc);
    }
    hl_detail::check_tmp(api, tmp, kMinTmpBytes, {d, s, sc, of}, loc);
}

// AscendQuantConfig fixes counts at compile time; a constant that disagrees with the call's value, or a
// workLocalSize larger than sharedTmpBuffer, is a kernel bug the page rules out.
inline void check_config(const AscendQuantConfig& config, const LocalTensor<uint8_t>* tmp, uint32_t count,
                         uint32_t scale_count, uint32_t offset_count, bool channel, Loc loc) {
    bool bad = (config.calcCount != 0 && config.calcCount != count) ||
               (channel && config.scaleCount != 0 && config.scaleCount != scale_count) ||
               (channel && config.offsetCount != 0 && config.offsetCount != offset_count) ||
               (config.workLocalSize != 0 && (tmp == nullptr || config.workLocalSize > tmp->GetSize()));
    if (bad)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "AscendQuant: AscendQuantConfig {calcCount %u, offsetCount %u, scaleCount %u, workLocalSize "
                          "%u} disagrees with the call (calCount %u, scaleCount %u, offsetCount %u, sharedTmpBuffer "
                          "%u bytes). The constants must equal the runtime values and workLocalSize may not exceed "
                          "the tmp buffer (AscendQuant.md); leave them 0 to use the runtime values.",
                          config.calcCount, config.offsetCount, config.scaleCount, config.workLocalSize, count,
                          scale_count, offset_count, tmp ? (unsigned)tmp->GetSize() : 0u);
}

template <typename T, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
void quant(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp,
           const QuantParams<T>& q, Loc loc) {
    check_config(config, tmp, q.count, q.scale_count, q.offset ? q.offset_count : 0, q.scale != nullptr, loc);
    check_quant(dst, src, tmp, q, loc);
    if (q.count == 0) return;
    const T* s = src.GetPhyAddrPtr();
    std::vector<int8_t> out(q.count);
    for (uint32_t i = 0; i < q.count; ++i) {
        half x = half(static_cast<float>(s[i]));
        half sc = q.scale ? half(static_cast<float>(q.scale->GetPhyAddrPtr()[i % q.scale_count]))
                          : half(q.scale_value);
        half of = q.offset ? half(static_cast<float>(q.offset->GetPhyAddrPtr()[i % q.scale_count]))
                           : half(q.offset_value);
        half t = half(x * sc);
        out[i] = to_int8(half(t + of));
    }
    std::memcpy(dst.GetPhyAddrPtr(), out.data(), q.count);
    hl_detail::poison_tmp(tmp, kMinTmpBytes);
    hl_detail::book(OpId::AscendQuant, q.count, 4, sizeof(T) == 2,
                    {src.timing(), q.scale ? q.scale->timing() : nullptr, q.offset ? q.offset->timing() : nullptr,
                     tmp ? tmp->timing() : nullptr},
                    dst.timing(), {}, loc);
}

// ---- AscendDequant ----------------------------------------------------------------------------------------------

template <typename S>
float scale_value(S s) {
    if constexpr (std::is_same_v<S, uint64_t>) {
        uint32_t low = static_cast<uint32_t>(s);
        float f;
        std::memcpy(&f, &low, sizeof f);
        return f;
    } else {
        return static_cast<float>(s);
    }
}

template <typename D, typename S>
void check_dequant_types(bool vector_scale, Loc loc) {
    const char* api = "AscendDequant";
    constexpr uint32_t kDst = dtype_bit(DType::F16) | dtype_bit(DType::BF16) | dtype_bit(DType::F32);
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<D>, kDst, hl_detail::kSameAsA2, loc);
    constexpr bool vec_ok = (std::is_same_v<D, half> && std::is_same_v<S, uint64_t>) ||
                            (std::is_same_v<D, float> && (std::is_same_v<S, float> || std::is_same_v<S, bfloat16_t>)) ||
                            (std::is_same_v<D, bfloat16_t> &&
                             (std::is_same_v<S, bfloat16_t> || std::is_same_v<S, float>));
    constexpr bool scalar_ok = (std::is_same_v<D, float> || std::is_same_v<D, bfloat16_t>) &&
                               (std::is_same_v<S, float> || std::is_same_v<S, bfloat16_t>);
    if (vector_scale ? !vec_ok : !scalar_ok)
        ascendc_sim::fail(Diag::UnsupportedDtype, loc,
                          "AscendDequant: dstTensor %s with a %s deqScale %s is not a documented combination "
                          "(AscendDequant.md tables 3 and 4: tensor scale half/uint64_t, float/float, float/bfloat16_t, "
                          "bfloat16_t/bfloat16_t, bfloat16_t/float; scalar scale float or bfloat16_t dst with a float or "
                          "bfloat16_t scale).",
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<D>), vector_scale ? "tensor" : "scalar",
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<S>));
}

template <DeQuantMode mode, typename D>
DequantParams effective(DequantParams p) {
    uint32_t block = 32 / sizeof(D);
    if (mode == DeQuantMode::DEQUANT_WITH_SINGLE_ROW && p.m == 1 && p.calCount != 0 && p.calCount % block == 0 &&
        p.n % p.calCount == 0)
        return DequantParams{p.n / p.calCount, p.calCount, p.calCount};
    return p;
}

template <typename D, typename S, DeQuantMode mode>
void dequant(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>* scale_t, S scale_s,
             const LocalTensor<uint8_t>* tmp, DequantParams params, Loc loc) {
    const char* api = "AscendDequant";
    check_dequant_types<D, S>(scale_t != nullptr, loc);
    DequantParams p = effective<mode, D>(params);
    if (p.m == 0 || p.n % 8 != 0 || p.calCount == 0 || p.calCount > p.n)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "AscendDequant: DequantParams {m %u, n %u, calCount %u} is not valid: n * sizeof(int32_t) "
                          "must be a multiple of 32 bytes and 1 <= calCount <= n (AscendDequant.md).",
                          p.m, p.n, p.calCount);
    uint32_t n_dst = (p.n * sizeof(D) + 31) / 32 * 32 / sizeof(D);
    ascendc_sim::check_operand(src, uint64_t(p.m) * p.n, api, "srcTensor", loc);
    ascendc_sim::check_operand(dst, uint64_t(p.m) * n_dst, api, "dstTensor", loc);
    Span sd = hl_detail::span(dst, uint64_t(p.m) * n_dst, "dstTensor");
    Span ss = hl_detail::span(src, uint64_t(p.m) * p.n, "srcTensor");
    Span sc{nullptr, 0, "deqScale"};
    hl_detail::check_apart(api, sd, ss, false, loc);
    if (scale_t != nullptr) {
        ascendc_sim::check_operand(*scale_t, p.calCount, api, "deqScale", loc);
        sc = hl_detail::span(*scale_t, p.calCount, "deqScale");
        hl_detail::check_apart(api, sd, sc, false, loc);
    }
    hl_detail::check_tmp(api, tmp, kMinTmpBytes, {sd, ss, sc}, loc);
    const int32_t* s = src.GetPhyAddrPtr();
    D* d = dst.GetPhyAddrPtr();
    for (uint32_t r = 0; r < p.m; ++r)
        for (uint32_t i = 0; i < n_dst; ++i) {
            float k = i < p.calCount ? scale_value(scale_t ? scale_t->GetPhyAddrPtr()[i] : scale_s) : 0.0f;
            d[uint64_t(r) * n_dst + i] = i < p.calCount ? D(static_cast<float>(s[uint64_t(r) * p.n + i]) * k)
                                                        : hl_detail::poison_value<D>();
        }
    hl_detail::poison_tmp(tmp, kMinTmpBytes);
    hl_detail::book(OpId::AscendDequant, uint64_t(p.m) * p.n, 3, false,
                    {src.timing(), scale_t ? scale_t->timing() : nullptr, tmp ? tmp->timing() : nullptr},
                    dst.timing(), {}, loc);
}

// ---- AscendAntiQuant ----------------------------------------------------------------------------------------------

template <typename O>
struct AntiParams {
    const LocalTensor<O>* offset;  // per channel when scale is set; nullptr: no offset
    const LocalTensor<O>* scale;
    O offset_value, scale_value;
    bool has_offset;
    uint32_t k;
    AntiQuantShapeInfo info;
};

// Element e of an int8_t or int4b_t source (int4b_t: nibble order of types.h).
template <typename I>
float source_value(const LocalTensor<I>& src, uint64_t e) {
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(src.GetPhyAddrPtr());
    if constexpr (ascendc_sim::is_int4_v<I>) {
        int v = (bytes[e / 2] >> (4 * (e % 2))) & 0xF;
        return static_cast<float>(v >= 8 ? v - 16 : v);
    } else {
        return static_cast<float>(src.GetPhyAddrPtr()[e]);
    }
}

template <typename I, typename O, bool isTranspose>
void anti_quant(const LocalTensor<O>& dst, const LocalTensor<I>& src, const LocalTensor<uint8_t>* tmp,
                const AntiParams<O>& a, Loc loc) {
    const char* api = "AscendAntiQuant";
    // int4b_t: A2/A3 (the page's tables); not on 310P, whose Cast has no int4b_t (cast.h).
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<I>, dtype_bit(DType::I8) | dtype_bit(DType::I4),
                               dtype_bit(DType::I8), loc);
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<O>, dtype_bit(DType::F16) | dtype_bit(DType::BF16), hl_detail::kSameAsA2, loc);
    uint32_t total = src.GetSize(), per_block = 32 * uint32_t(ascendc_sim::elems_per_unit<I>);  // elements in 32 B
    if (a.k == 0 || total % a.k != 0 || total % per_block != 0 || (isTranspose && a.k % per_block != 0))
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "AscendAntiQuant: src has %u elements of %s and k = %u; k must divide the size, the data "
                          "must be 32-byte aligned (%u elements), and with isTranspose k itself 32-byte aligned "
                          "(AscendAntiQuant.md).",
                          total, ascendc_sim::dtype_name(ascendc_sim::dtype_of<I>), a.k, per_block);
    uint32_t n = total / a.k;
    uint32_t rows = isTranspose ? n : a.k, cols = isTranspose ? a.k : n;  // src is [rows, cols]
    ascendc_sim::check_operand(dst, total, api, "dst", loc);
    Span sd = hl_detail::span(dst, total, "dst");
    Span ss{src.GetPhyAddrPtr(), total / ascendc_sim::elems_per_unit<I> * sizeof(I), "src"};
    hl_detail::check_apart(api, sd, ss, false, loc);
    // Per-channel parameter shape [h, w]: non-transposed [K/g, N], transposed [N, K/g].
    uint32_t h = 1, w = 1;
    if (a.scale != nullptr) {
        uint32_t info_h = a.info.scaleHeight, info_w = a.info.scaleWidth;
        if (isTranspose) h = rows, w = info_w ? info_w : a.scale->GetSize() / rows;
        else w = cols, h = info_h ? info_h : a.scale->GetSize() / cols;
        uint32_t groups = isTranspose ? w : h, along = isTranspose ? cols : rows;
        if (groups == 0 || along % groups != 0)
            ascendc_sim::fail(Diag::BadArgument, loc,
                              "AscendAntiQuant: scale/offset shape [%u, %u] does not split src [%u, %u] into equal "
                              "groups along K. Give AntiQuantShapeInfo, or size scale/offset to [K/groupSize, N] "
                              "([N, K/groupSize] with isTranspose).",
                              h, w, rows, cols);
        ascendc_sim::check_operand(*a.scale, uint64_t(h) * w, api, "scale", loc);
        if (a.offset) ascendc_sim::check_operand(*a.offset, uint64_t(h) * w, api, "offset", loc);
    }
    hl_detail::check_tmp(api, tmp, kMinTmpBytes, {sd, ss}, loc);
    std::vector<O> out(total);
    uint32_t group = a.scale ? (isTranspose ? cols / w : rows / h) : 1;
    for (uint32_t i = 0; i < rows; ++i)
        for (uint32_t j = 0; j < cols; ++j) {
            O sc = a.scale_value, of = a.offset_value;
            if (a.scale != nullptr) {
                uint64_t p = isTranspose ? uint64_t(i) * w + j / group : uint64_t(i / group) * w + j;
                sc = a.scale->GetPhyAddrPtr()[p];
                of = a.offset ? a.offset->GetPhyAddrPtr()[p] : O(0.0f);
            }
            float x = source_value(src, uint64_t(i) * cols + j);
            if (!a.has_offset) of = O(0.0f);
            if constexpr (std::is_same_v<O, half>) out[uint64_t(i) * cols + j] = half(half(half(x) + of) * sc);
            else out[uint64_t(i) * cols + j] = O((x + static_cast<float>(of)) * static_cast<float>(sc));
        }
    std::memcpy(dst.GetPhyAddrPtr(), out.data(), total * sizeof(O));
    hl_detail::poison_tmp(tmp, kMinTmpBytes);
    hl_detail::book(OpId::AscendAntiQuant, total, 4, true,
                    {src.timing(), a.scale ? a.scale->timing() : nullptr, a.offset ? a.offset->timing() : nullptr,
                     tmp ? tmp->timing() : nullptr},
                    dst.timing(), {}, loc);
}

}  // namespace quant_detail

// ---- AscendQuant.md: per tensor ---------------------------------------------------------------------------------

#define ASCENDC_SIM_QUANT_TEMPLATE \
    template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>

ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale, const float offset,
                 const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer, {nullptr, nullptr, scale, offset, 0, 0, calCount},
                           loc);
}
ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale, const float offset,
                 ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer,
                           {nullptr, nullptr, scale, offset, 0, 0, srcTensor.GetSize()}, loc);
}
ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor, const float scale,
                 const float offset, const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, nullptr, {nullptr, nullptr, scale, offset, 0, 0, calCount}, loc);
}
ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor, const float scale,
                 const float offset, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, nullptr,
                           {nullptr, nullptr, scale, offset, 0, 0, srcTensor.GetSize()}, loc);
}

// ---- AscendQuant.md: per channel ----------------------------------------------------------------------------------

ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor, const T offset,
                 const uint32_t scaleCount, const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer,
                           {&scaleTensor, nullptr, 0.0f, static_cast<float>(offset), scaleCount, 0, calCount}, loc);
}
ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor,
                 const LocalTensor<T>& offsetTensor, const uint32_t scaleCount, const uint32_t offsetCount,
                 const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer,
                           {&scaleTensor, &offsetTensor, 0.0f, 0.0f, scaleCount, offsetCount, calCount}, loc);
}
ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor, const T offset,
                 ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer,
                           {&scaleTensor, nullptr, 0.0f, static_cast<float>(offset), scaleTensor.GetSize(), 0,
                            srcTensor.GetSize()},
                           loc);
}
ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor,
                 const LocalTensor<T>& offsetTensor, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer,
                           {&scaleTensor, &offsetTensor, 0.0f, 0.0f, scaleTensor.GetSize(), offsetTensor.GetSize(),
                            srcTensor.GetSize()},
                           loc);
}
ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<T>& scaleTensor, const T offset, const uint32_t scaleCount, const uint32_t calCount,
                 ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, nullptr,
                           {&scaleTensor, nullptr, 0.0f, static_cast<float>(offset), scaleCount, 0, calCount}, loc);
}
ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<T>& scaleTensor, const LocalTensor<T>& offsetTensor, const uint32_t scaleCount,
                 const uint32_t offsetCount, const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, nullptr,
                           {&scaleTensor, &offsetTensor, 0.0f, 0.0f, scaleCount, offsetCount, calCount}, loc);
}
ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<T>& scaleTensor, const T offset, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, nullptr,
                           {&scaleTensor, nullptr, 0.0f, static_cast<float>(offset), scaleTensor.GetSize(), 0,
                            srcTensor.GetSize()},
                           loc);
}
ASCENDC_SIM_QUANT_TEMPLATE
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<T>& scaleTensor, const LocalTensor<T>& offsetTensor,
                 ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::quant<T, config>(dstTensor, srcTensor, nullptr,
                           {&scaleTensor, &offsetTensor, 0.0f, 0.0f, scaleTensor.GetSize(), offsetTensor.GetSize(),
                            srcTensor.GetSize()},
                           loc);
}
#undef ASCENDC_SIM_QUANT_TEMPLATE

// ---- AscendDequant.md -------------------------------------------------------------------------------------------

#define ASCENDC_SIM_DEQUANT_TEMPLATE \
    template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>

ASCENDC_SIM_DEQUANT_TEMPLATE
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                   const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                   DequantParams params, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, &deqScale, scaleT{}, &sharedTmpBuffer, params,
                                              loc);
}
ASCENDC_SIM_DEQUANT_TEMPLATE
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                   const LocalTensor<scaleT>& deqScale, DequantParams params,
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, &deqScale, scaleT{}, nullptr, params, loc);
}
ASCENDC_SIM_DEQUANT_TEMPLATE
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor, const scaleT deqScale,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, DequantParams params,
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, nullptr, deqScale, &sharedTmpBuffer, params, loc);
}
ASCENDC_SIM_DEQUANT_TEMPLATE
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor, const scaleT deqScale,
                   DequantParams params, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, nullptr, deqScale, nullptr, params, loc);
}
// The page's deprecated forms: one row of calCount elements (the whole srcTensor without calCount).
ASCENDC_SIM_DEQUANT_TEMPLATE
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                   const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                   const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::dequant<dstT, scaleT, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(
        dstTensor, srcTensor, &deqScale, scaleT{}, &sharedTmpBuffer, DequantParams{1, calCount, calCount}, loc);
}
ASCENDC_SIM_DEQUANT_TEMPLATE
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                   const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    uint32_t n = srcTensor.GetSize();
    quant_detail::dequant<dstT, scaleT, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(
        dstTensor, srcTensor, &deqScale, scaleT{}, &sharedTmpBuffer, DequantParams{1, n, n}, loc);
}
ASCENDC_SIM_DEQUANT_TEMPLATE
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                   const LocalTensor<scaleT>& deqScale, const uint32_t calCount,
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::dequant<dstT, scaleT, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(
        dstTensor, srcTensor, &deqScale, scaleT{}, nullptr, DequantParams{1, calCount, calCount}, loc);
}
ASCENDC_SIM_DEQUANT_TEMPLATE
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                   const LocalTensor<scaleT>& deqScale, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    uint32_t n = srcTensor.GetSize();
    quant_detail::dequant<dstT, scaleT, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(
        dstTensor, srcTensor, &deqScale, scaleT{}, nullptr, DequantParams{1, n, n}, loc);
}
#undef ASCENDC_SIM_DEQUANT_TEMPLATE

// ---- AscendAntiQuant.md ----------------------------------------------------------------------------------------------

template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale,
                     const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                     const AntiQuantShapeInfo& shapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::anti_quant<InputDataType, OutputDataType, isTranspose>(
        dst, src, &sharedTmpBuffer, {&offset, &scale, {}, {}, true, k, shapeInfo}, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const LocalTensor<OutputDataType>& scale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                     const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {},
                     ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::anti_quant<InputDataType, OutputDataType, isTranspose>(
        dst, src, &sharedTmpBuffer, {nullptr, &scale, {}, {}, false, k, shapeInfo}, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const OutputDataType offset, const OutputDataType scale,
                     const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                     const AntiQuantShapeInfo& shapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::anti_quant<InputDataType, OutputDataType, isTranspose>(
        dst, src, &sharedTmpBuffer, {nullptr, nullptr, offset, scale, true, k, shapeInfo}, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const OutputDataType scale, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                     const AntiQuantShapeInfo& shapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::anti_quant<InputDataType, OutputDataType, isTranspose>(
        dst, src, &sharedTmpBuffer, {nullptr, nullptr, OutputDataType(0.0f), scale, false, k, shapeInfo}, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale,
                     const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {},
                     ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::anti_quant<InputDataType, OutputDataType, isTranspose>(
        dst, src, nullptr, {&offset, &scale, {}, {}, true, k, shapeInfo}, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const OutputDataType offset, const OutputDataType scale, const uint32_t k,
                     const AntiQuantShapeInfo& shapeInfo = {}, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    quant_detail::anti_quant<InputDataType, OutputDataType, isTranspose>(
        dst, src, nullptr, {nullptr, nullptr, offset, scale, true, k, shapeInfo}, loc);
}

}  // namespace AscendC
