// Pad and UnPad (the high-level 数据填充 APIs), with the PadTiling / UnPadTiling our host tiling functions fill
// (sim/pad_tiling.h). Semantics from the asc-devkit v8.5.0 pages Pad.md and UnPad.md:
// - Pad: an [height, width] tensor is padded in the width direction to 32 bytes. Scenario 1: width is not 32-byte
//   aligned (every column valid, rows `width` elements apart, as the page's example copies height * width elements);
//   the result has rows of alignedWidth elements: leftPad columns of padValue, the row, rightPad columns of padValue;
//   leftPad + width + rightPad must not exceed alignedWidth ("pad之后的总width不超过原width向最近32B对齐后的宽度"), and
//   columns past that are not written by the page's definition: poisoned. Scenario 2: width is aligned but only
//   oriSrcWidth columns are valid; only the right side may be padded (leftPad 0): columns [oriSrcWidth,
//   oriSrcWidth + rightPad) take padValue, the rest of the redundant columns are poisoned. An aligned width with
//   every column valid is "不支持". padValue is an int32_t converted to T.
// - UnPad: an [height, width] tensor whose width is 32-byte aligned loses rightPad columns on the right (0 <
//   rightPad, rightPad * sizeof(T) < 32); dst rows are width - rightPad elements apart, as the page's example copies
//   height * (width - rightPad) elements out. leftPad is "当前暂不生效": a nonzero one is refused rather than guessed.
// - Types int16_t/uint16_t/half/int32_t/uint32_t/float. The v8.5.0 pages list Atlas A2/A3; CANN 8.0's Pad/UnPad
//   pages (hiascend atlasascendc_api_07_0848/0849) list the same types for Atlas 推理系列产品 AI Core, so 310P runs too.
// - The shape comes from the tiling (the call has no shape argument); a tiling of another element size or a
//   temporary space below the minimum is reported. src and dst may not overlap (the pages do not say they may); the
//   sharedTmpBuffer is left poisoned.
#pragma once
#include <cstring>

#include "hl_checks.h"
#include "pad_tiling.h"

namespace AscendC {

struct PadParams {
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
    int32_t padValue = 0;
};

struct UnPadParams {
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
};

namespace pad_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::dtype_bit;
using ascendc_sim::fail;
using ascendc_sim::Loc;
using ascendc_sim::OpId;

constexpr uint32_t kTypes = dtype_bit(DType::I16) | dtype_bit(DType::U16) | dtype_bit(DType::F16) |
                            dtype_bit(DType::I32) | dtype_bit(DType::U32) | dtype_bit(DType::F32);

// What every call checks of its tiling: filled for this element size, with at least the minimum temporary space.
template <typename T>
void check_tiling(const char* api, const char* name, uint32_t height, uint32_t width, uint32_t typeSize,
                  uint32_t rowsPerPass, Loc loc) {
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, kTypes, kTypes, loc);
    if (height == 0 || width == 0)
        fail(Diag::BadArgument, loc,
             "%s: the %s is empty (shape [%u, %u]). Fill it on the host with %sTilingFunc for the tensor's "
             "two-dimensional shape and pass it through the TilingData.",
             api, name, height, width, api);
    if (typeSize != sizeof(T))
        fail(Diag::BadArgument, loc,
             "%s: the %s was computed for %u-byte elements but the tensors hold %s (%u bytes). Pass sizeof(T) as "
             "typeSize to %sTilingFunc.",
             api, name, typeSize, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), unsigned(sizeof(T)), api);
    if (rowsPerPass == 0)
        fail(Diag::BadArgument, loc,
             "%s: the %s was computed with a stackBufferSize below the minimum temporary space (%u bytes for this "
             "shape, from Get%sMaxMinTmpSize). Pass at least the minimum to %sTilingFunc.",
             api, name, pad_model::min_tmp_bytes(width, typeSize), api, api);
}

template <typename T>
void check_buffers(const char* api, const LocalTensor<T>& dst, uint64_t dst_elems, const LocalTensor<T>& src,
                   uint64_t src_elems, const LocalTensor<uint8_t>* tmp, uint32_t tmpBytes, Loc loc) {
    ascendc_sim::check_operand(src, src_elems, api, "srcTensor", loc);
    ascendc_sim::check_operand(dst, dst_elems, api, "dstTensor", loc);
    hl_detail::Span d = hl_detail::span(dst, dst_elems, "dstTensor"), s = hl_detail::span(src, src_elems, "srcTensor");
    hl_detail::check_apart(api, d, s, false, loc);
    hl_detail::check_tmp(api, tmp, tmpBytes, {d, s}, loc);
}

template <typename T>
void pad(const LocalTensor<T>& dst, const LocalTensor<T>& src, const PadParams& p, const LocalTensor<uint8_t>* tmp,
         const PadTiling& t, Loc loc) {
    const char* api = "Pad";
    check_tiling<T>(api, "PadTiling", t.srcHeight, t.srcWidth, t.typeSize, t.rowsPerPass, loc);
    uint32_t h = t.srcHeight, w = t.srcWidth, ori = t.oriSrcWidth, aligned = pad_model::aligned_width(w, sizeof(T));
    bool scenario1 = aligned != w;
    if (scenario1 && ori != w)
        fail(Diag::BadArgument, loc,
             "Pad: the width %u is not 32-byte aligned (scenario 1), where every column is valid data, but "
             "oriSrcShape's width is %u. Pass the same two-dimensional shape as srcShape and oriSrcShape.",
             w, ori);
    if (!scenario1 && ori >= w)
        fail(Diag::BadArgument, loc,
             "Pad: the width %u is already 32-byte aligned and every column is valid (oriSrcShape's width is %u); "
             "Pad.md does not support this case. Nothing needs padding: skip the call.",
             w, ori);
    if (!scenario1 && p.leftPad != 0)
        fail(Diag::BadArgument, loc,
             "Pad: leftPad is %u but a 32-byte aligned width with redundant columns (scenario 2) can only be padded "
             "on the right (Pad.md). Pass leftPad = 0.",
             unsigned(p.leftPad));
    uint32_t valid = scenario1 ? w : ori, total = uint32_t(p.leftPad) + valid + p.rightPad;
    if (total > aligned)
        fail(Diag::BadArgument, loc,
             "Pad: leftPad %u + width %u + rightPad %u = %u columns, more than the width rounded up to 32 bytes "
             "(%u elements of %s). Pad.md: the padded width may not exceed it.",
             unsigned(p.leftPad), valid, unsigned(p.rightPad), total, aligned,
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    check_buffers(api, dst, uint64_t(h) * aligned, src, uint64_t(h) * w, tmp, t.tmpBytes, loc);
    const T* s = src.GetPhyAddrPtr();
    T* d = dst.GetPhyAddrPtr();
    T value = static_cast<T>(p.padValue), undefined = hl_detail::poison_value<T>();
    for (uint64_t r = 0; r < h; ++r) {
        T* row = d + r * aligned;
        for (uint32_t j = 0; j < aligned; ++j) row[j] = undefined;
        for (uint32_t j = 0; j < p.leftPad; ++j) row[j] = value;
        std::memcpy(row + p.leftPad, s + r * w, valid * sizeof(T));
        for (uint32_t j = 0; j < p.rightPad; ++j) row[p.leftPad + valid + j] = value;
    }
    hl_detail::poison_tmp(tmp, t.tmpBytes);
    // Two TransDataTo5HD passes and a Duplicate per pass over the aligned rows.
    uint64_t repeats = 3 * ascendc_sim::repeats_for<T>(uint64_t(h) * aligned);
    ascendc_sim::count_vector(ascendc_sim::core(loc), OpId::Pad, repeats, {src.timing()}, dst.timing());
}

template <typename T>
void unpad(const LocalTensor<T>& dst, const LocalTensor<T>& src, const UnPadParams& p,
           const LocalTensor<uint8_t>* tmp, const UnPadTiling& t, Loc loc) {
    const char* api = "UnPad";
    check_tiling<T>(api, "UnPadTiling", t.srcHeight, t.srcWidth, t.typeSize, t.rowsPerPass, loc);
    uint32_t h = t.srcHeight, w = t.srcWidth;
    if ((uint64_t(w) * sizeof(T)) % ascendc_sim::kBlockBytes != 0)
        fail(Diag::BadArgument, loc,
             "UnPad: the width %u (%llu bytes) is not 32-byte aligned; UnPad.md does not support it. Pad the rows to "
             "32 bytes first (DataCopyPad or Pad).",
             w, (unsigned long long)(uint64_t(w) * sizeof(T)));
    if (p.leftPad != 0)
        fail(Diag::BadArgument, loc,
             "UnPad: leftPad is %u, but UnPad.md says leftPad is not in effect yet (only the right side can be "
             "removed). Pass leftPad = 0.",
             unsigned(p.leftPad));
    if (p.rightPad == 0 || uint64_t(p.rightPad) * sizeof(T) >= ascendc_sim::kBlockBytes)
        fail(Diag::BadArgument, loc,
             "UnPad: rightPad is %u; UnPad.md asks for more than 0 and less than 32 bytes (at most %u elements of "
             "%s).",
             unsigned(p.rightPad), unsigned(ascendc_sim::kBlockBytes / sizeof(T) - 1),
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    uint32_t out = w - p.rightPad;
    check_buffers(api, dst, uint64_t(h) * out, src, uint64_t(h) * w, tmp, t.tmpBytes, loc);
    const T* s = src.GetPhyAddrPtr();
    T* d = dst.GetPhyAddrPtr();
    for (uint64_t r = 0; r < h; ++r) std::memcpy(d + r * out, s + r * w, out * sizeof(T));
    hl_detail::poison_tmp(tmp, t.tmpBytes);
    uint64_t repeats = 2 * ascendc_sim::repeats_for<T>(uint64_t(h) * w);
    ascendc_sim::count_vector(ascendc_sim::core(loc), OpId::UnPad, repeats, {src.timing()}, dst.timing());
}

}  // namespace pad_detail

template <typename T>
void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams,
         const LocalTensor<uint8_t>& sharedTmpBuffer, PadTiling& tiling,
         ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    pad_detail::pad(dstTensor, srcTensor, padParams, &sharedTmpBuffer, tiling, loc);
}

template <typename T>
void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams, PadTiling& tiling,
         ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    pad_detail::pad(dstTensor, srcTensor, padParams, nullptr, tiling, loc);
}

template <typename T>
void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, UnPadParams& unPadParams,
           LocalTensor<uint8_t>& sharedTmpBuffer, UnPadTiling& tiling,
           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    pad_detail::unpad(dstTensor, srcTensor, unPadParams, &sharedTmpBuffer, tiling, loc);
}

template <typename T>
void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, UnPadParams& unPadParams,
           UnPadTiling& tiling, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    pad_detail::unpad(dstTensor, srcTensor, unPadParams, nullptr, tiling, loc);
}

}  // namespace AscendC
