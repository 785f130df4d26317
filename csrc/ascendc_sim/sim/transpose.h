// Transpose: the 16x16 basic form, the TransposeParamsExt form (TRANSPOSE_ND2ND_B16,
// TRANSPOSE_NCHW2NHWC, TRANSPOSE_NHWC2NCHW) and TransDataTo5HD (its three list forms); the
// ConfusionTransposeTiling form is in sim/confusion_transpose.h, Pad / UnPad in sim/pad.h.
//
// Semantics, from the asc-devkit v8.5.0 pages Transpose.md, Transpose-39.md, TransDataTo5HD.md:
// - Basic form: dst[j][i] = src[i][j] for one 16x16 matrix of 2-byte elements; src and dst may be
//   the same buffer.
// - TransposeParamsExt: ND2ND_B16 is the basic form (uint16_t; hSize = wSize = 16; no tmp);
//   NCHW2NHWC / NHWC2NCHW convert [N,C,H,W] <-> [N,H,W,C] for 1/2/4-byte types with cSize <= 4095,
//   hSize * wSize <= 4095 and hSize * wSize * sizeof(T) a multiple of 32 bytes, src and dst apart,
//   and a sharedTmpBuffer of at least (cSize + 2) (NCHW2NHWC) or (2 cSize + 1) (NHWC2NCHW) blocks
//   of h0 * w0 elements (h0 = 32 for 1-byte types, else 16; w0 = 32 / sizeof(T)), as the page's
//   table gives. TRANSPOSE_TYPE_NONE does nothing; every other type is "not supported" there.
//   The tmp buffer is left poisoned (scratch).
// - TransDataTo5HD (TransDataTo5HD.md), per repeat over 16 source and 16 destination 32-byte blocks:
//   16-bit: destination block j = element j of the 16 source blocks; 32-bit: element j of source
//   blocks 0-7 fills destination block 2j and of blocks 8-15 block 2j+1; 8-bit: element j (+16 with
//   srcHighHalf) of the 16 source blocks fills the low (or, with dstHighHalf, high) 16 bytes of
//   destination block j. repeatTimes 1 starts at list + RepStride, repeat r of several at list +
//   r * RepStride (both as the page says). The address forms (uint64_t lists, LocalTensor<uint64_t>)
//   take GetPhyAddr values; each block must lie 32-byte aligned inside the allocated UB. Blocks given
//   by address are not tied to a buffer, so the cross-pipe race check does not see them.
#pragma once
#include <cstring>
#include <vector>

#include "vector_ops.h"

namespace AscendC {

enum class TransposeType : uint8_t {
    TRANSPOSE_TYPE_NONE,
    TRANSPOSE_NZ2ND_0213,
    TRANSPOSE_NZ2NZ_0213,
    TRANSPOSE_NZ2NZ_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITHOUT_N,
    TRANSPOSE_NZ2NZ_012_WITHOUT_N,
    TRANSPOSE_ND2ND_ONLY,
    TRANSPOSE_ND_UB_GM,
    TRANSPOSE_GRAD_ND_UB_GM,
    TRANSPOSE_ND2ND_B16,
    TRANSPOSE_NCHW2NHWC,
    TRANSPOSE_NHWC2NCHW
};

struct TransposeParamsExt {
    TransposeParamsExt() {}
    TransposeParamsExt(const uint16_t nSizeIn, const uint16_t cSizeIn, const uint16_t hSizeIn, const uint16_t wSizeIn,
                       const TransposeType transposeTypeIn)
        : nSize(nSizeIn), cSize(cSizeIn), hSize(hSizeIn), wSize(wSizeIn), transposeType(transposeTypeIn) {}
    uint16_t nSize = 0;
    uint16_t cSize = 0;
    uint16_t hSize = 0;
    uint16_t wSize = 0;
    TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
};

constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
    TransDataTo5HDParams() {}
    TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                         const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn), srcHighHalf(srcHighHalfIn), repeatTimes(repeatTimesIn),
          dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};


namespace transpose_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using ascendc_sim::dtype_bit;
using ascendc_sim::fail;

constexpr uint32_t kB16 = dtype_bit(DType::U16) | dtype_bit(DType::I16) | dtype_bit(DType::F16);
constexpr uint32_t kFormat = kB16 | dtype_bit(DType::I8) | dtype_bit(DType::U8) | dtype_bit(DType::I32) |
                             dtype_bit(DType::U32) | dtype_bit(DType::F32);
constexpr uint32_t kSide = 16;

inline bool overlaps(const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes) {
    auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
    return x < y + b_bytes && y < x + a_bytes;
}

template <typename T>
void square(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t types, const char* api, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, types, types, api, loc);
    ascendc_sim::check_operand(src, kSide * kSide, api, "src", loc);
    ascendc_sim::check_operand(dst, kSide * kSide, api, "dst", loc);
    T m[kSide * kSide];
    std::memcpy(m, src.GetPhyAddrPtr(), sizeof m);  // src and dst may be one buffer
    for (uint32_t i = 0; i < kSide; ++i)
        for (uint32_t j = 0; j < kSide; ++j) dst.GetPhyAddrPtr()[j * kSide + i] = m[i * kSide + j];
    ascendc_sim::count_vector(c, OpId::Transpose, 2, {src.timing()}, dst.timing());
}

template <typename T>
uint64_t format_tmp_bytes(const TransposeParamsExt& p) {
    uint64_t h0 = sizeof(T) == 1 ? 32 : 16, w0 = 32 / sizeof(T);
    uint64_t blocks = p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC ? uint64_t(p.cSize) + 2
                                                                             : 2 * uint64_t(p.cSize) + 1;
    return blocks * h0 * w0 * sizeof(T);
}

template <typename T>
void check_format(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                  const TransposeParamsExt& p, uint64_t elems, const char* api, Loc loc) {
    uint64_t hw = uint64_t(p.hSize) * p.wSize;
    if (p.cSize > 4095)
        fail(Diag::BadArgument, loc, "%s: cSize is %u but must be in [0, 4095].", api, unsigned(p.cSize));
    if (hw > 4095 || (hw * sizeof(T)) % ascendc_sim::kBlockBytes != 0)
        fail(Diag::BadArgument, loc,
             "%s: hSize * wSize is %llu (%llu bytes); it must be at most 4095 and a multiple of 32 bytes (%u "
             "elements of %s). Pad H*W to a multiple of 32 bytes.",
             api, (unsigned long long)hw, (unsigned long long)(hw * sizeof(T)), unsigned(32 / sizeof(T)),
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    ascendc_sim::check_operand(src, elems, api, "src", loc);
    ascendc_sim::check_operand(dst, elems, api, "dst", loc);
    if (overlaps(dst.GetPhyAddrPtr(), elems * sizeof(T), src.GetPhyAddrPtr(), elems * sizeof(T)))
        fail(Diag::BadArgument, loc,
             "%s: src and dst overlap; NCHW2NHWC / NHWC2NCHW do not support sharing them (only ND2ND_B16 does). "
             "Write to a separate buffer.",
             api);
    ascendc_sim::check_operand(tmp, 0, api, "sharedTmpBuffer", loc);
    uint64_t need = format_tmp_bytes<T>(p);
    if (tmp.GetSize() < need)
        fail(Diag::LocalOverrun, loc,
             "%s: sharedTmpBuffer has %u bytes but this transpose needs %llu: (%s) * h0 * w0 * sizeof(T) with "
             "cSize = %u (Transpose.md, table 4). Give the tmp buffer at least that many bytes.",
             api, (unsigned)tmp.GetSize(), (unsigned long long)need,
             p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC ? "cSize + 2" : "cSize * 2 + 1", unsigned(p.cSize));
}

template <typename T>
void format(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
            const TransposeParamsExt& p, const char* api, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kFormat, kFormat, api, loc);
    uint64_t hw = uint64_t(p.hSize) * p.wSize, cs = p.cSize, elems = uint64_t(p.nSize) * cs * hw;
    check_format(dst, src, tmp, p, elems, api, loc);
    bool to_nhwc = p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC;
    const T* s = src.GetPhyAddrPtr();
    T* d = dst.GetPhyAddrPtr();
    for (uint64_t n = 0; n < p.nSize; ++n)
        for (uint64_t ch = 0; ch < cs; ++ch)
            for (uint64_t k = 0; k < hw; ++k) {
                uint64_t nchw = (n * cs + ch) * hw + k, nhwc = (n * hw + k) * cs + ch;
                if (to_nhwc) d[nhwc] = s[nchw];
                else d[nchw] = s[nhwc];
            }
    std::memset(tmp.GetPhyAddrPtr(), 0xFF, std::min<uint64_t>(tmp.GetSize(), format_tmp_bytes<T>(p)));
    // Two TransDataTo5HD passes over the data, as the page's pseudo-code for the tmp size suggests.
    ascendc_sim::count_vector(c, OpId::TransposeExt, 2 * ascendc_sim::repeats_for<T>(elems) + 1, {src.timing()},
                              dst.timing());
}

// ---- TransDataTo5HD --------------------------------------------------------------------------------

constexpr uint32_t kBlocks = 16;

// Block i of a list at repeat r: its base plus the repeat offset (repeatTimes 1: one stride, see above).
inline uint64_t repeat_offset(const TransDataTo5HDParams& p, uint32_t r, bool dst) {
    uint64_t stride = uint64_t(dst ? p.dstRepStride : p.srcRepStride) * ascendc_sim::kBlockBytes;
    return (p.repeatTimes == 1 ? 1 : r) * stride;
}

// A GetPhyAddr value of a UB address (the shadow in a checked launch) back to the simulator's UB.
inline uint8_t* ub_from_address(ascendc_sim::CoreState& c, uint64_t address, uint64_t bytes, const char* role,
                                uint32_t i, Loc loc) {
    uint64_t base = reinterpret_cast<uint64_t>(c.ub_shadow != nullptr ? c.ub_shadow : c.ub);
    uint64_t offset = address - base;
    if (address < base || offset + bytes > c.ub_used)
        fail(Diag::BadArgument, loc,
             "TransDataTo5HD: %s[%u] is address 0x%llx, which with its repeats (%llu bytes) is not inside the UB "
             "buffers allocated so far. Pass LocalTensor::GetPhyAddr() values of allocated tensors.",
             role, i, (unsigned long long)address, (unsigned long long)bytes);
    if (offset % ascendc_sim::kBlockBytes != 0)
        fail(Diag::UbMisaligned, loc, "TransDataTo5HD: %s[%u] is at UB byte offset %llu, not 32-byte aligned.", role,
             i, (unsigned long long)offset);
    return c.ub + offset;
}

template <typename T>
void trans_5hd(uint8_t* const dst[kBlocks], const uint8_t* const src[kBlocks], const TransDataTo5HDParams& p,
               std::initializer_list<ascendc_sim::BufferTiming*> sources, ascendc_sim::BufferTiming* dest, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    constexpr uint32_t per_block = ascendc_sim::kBlockBytes / sizeof(T);
    // All reads of a repeat happen before its writes (lists may name the same blocks).
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        T in[kBlocks][per_block];
        for (uint32_t i = 0; i < kBlocks; ++i) std::memcpy(in[i], src[i] + repeat_offset(p, r, false), sizeof in[i]);
        for (uint32_t j = 0; j < kBlocks; ++j) {
            T* out = reinterpret_cast<T*>(dst[j] + repeat_offset(p, r, true));
            if constexpr (sizeof(T) == 2) {
                for (uint32_t i = 0; i < kBlocks; ++i) out[i] = in[i][j];
            } else if constexpr (sizeof(T) == 4) {
                for (uint32_t i = 0; i < per_block; ++i) out[i] = in[(j % 2) * per_block + i][j / 2];
            } else {
                uint32_t from = j + (p.srcHighHalf ? 16 : 0), to = p.dstHighHalf ? 16 : 0;
                for (uint32_t i = 0; i < kBlocks; ++i) out[to + i] = in[i][from];
            }
        }
    }
    int index = static_cast<int>(OpId::TransDataTo5HD);
    c.report->op_instrs[index] += 1;
    c.report->op_repeats[index] += p.repeatTimes;
    ascendc_sim::schedule(c, ascendc_sim::kPipeV, ascendc_sim::CostModel::vector_ns(OpId::TransDataTo5HD,
                                                                                    2 * uint64_t(p.repeatTimes), c.soc()),
                          sources, dest);
}

inline uint64_t list_span(const TransDataTo5HDParams& p, bool dst) {
    uint32_t last = p.repeatTimes == 1 ? 1 : p.repeatTimes - 1u;
    return uint64_t(last) * (dst ? p.dstRepStride : p.srcRepStride) * ascendc_sim::kBlockBytes +
           ascendc_sim::kBlockBytes;
}

template <typename T>
void check_5hd(const TransDataTo5HDParams& p, Loc loc) {
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kFormat, kFormat, "TransDataTo5HD", loc);
    if (sizeof(T) != 1 && (p.dstHighHalf || p.srcHighHalf))
        fail(Diag::BadArgument, loc,
             "TransDataTo5HD: dstHighHalf / srcHighHalf apply to int8_t/uint8_t only; pass false for %s.",
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
}

template <typename T>
void trans_5hd_addresses(const uint64_t dst_list[kBlocks], const uint64_t src_list[kBlocks],
                         const TransDataTo5HDParams& p, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_5hd<T>(p, loc);
    if (p.repeatTimes == 0) return;
    uint8_t* d[kBlocks];
    const uint8_t* s[kBlocks];
    for (uint32_t i = 0; i < kBlocks; ++i) {
        d[i] = ub_from_address(c, dst_list[i], list_span(p, true), "dstList", i, loc);
        s[i] = ub_from_address(c, src_list[i], list_span(p, false), "srcList", i, loc);
    }
    trans_5hd<T>(d, s, p, {}, nullptr, loc);
}

}  // namespace transpose_detail

template <typename T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    transpose_detail::square(dst, src, transpose_detail::kB16, "Transpose", loc);
}

template <typename T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
               const TransposeParamsExt& transposeParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const char* api = "Transpose(TransposeParamsExt)";
    switch (transposeParams.transposeType) {
        case TransposeType::TRANSPOSE_TYPE_NONE:
            return;
        case TransposeType::TRANSPOSE_ND2ND_B16:
            if (transposeParams.hSize != 16 || transposeParams.wSize != 16)
                ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                                  "%s: TRANSPOSE_ND2ND_B16 transposes one 16x16 matrix; pass hSize = wSize = 16 (got "
                                  "%u x %u).",
                                  api, unsigned(transposeParams.hSize), unsigned(transposeParams.wSize));
            transpose_detail::square(dst, src, ascendc_sim::dtype_bit(ascendc_sim::DType::U16), api, loc);
            return;
        case TransposeType::TRANSPOSE_NCHW2NHWC:
        case TransposeType::TRANSPOSE_NHWC2NCHW:
            transpose_detail::format(dst, src, sharedTmpBuffer, transposeParams, api, loc);
            return;
        default:
            ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                              "%s: transposeType %u is not supported by this form (Transpose.md: only "
                              "TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW).",
                              api, unsigned(transposeParams.transposeType));
    }
}

template <typename T>
void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                    const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                    const TransDataTo5HDParams& nchwconvParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    using namespace transpose_detail;
    check_5hd<T>(nchwconvParams, loc);
    if (nchwconvParams.repeatTimes == 0) return;
    uint8_t* d[kBlocks];
    const uint8_t* s[kBlocks];
    for (uint32_t i = 0; i < kBlocks; ++i) {
        char role[24];
        std::snprintf(role, sizeof role, "dstList[%u]", i);
        ascendc_sim::check_operand(dstList[i], list_span(nchwconvParams, true) / sizeof(T), "TransDataTo5HD", role, loc);
        std::snprintf(role, sizeof role, "srcList[%u]", i);
        ascendc_sim::check_operand(srcList[i], list_span(nchwconvParams, false) / sizeof(T), "TransDataTo5HD", role,
                                   loc);
        d[i] = reinterpret_cast<uint8_t*>(dstList[i].GetPhyAddrPtr());
        s[i] = reinterpret_cast<const uint8_t*>(srcList[i].GetPhyAddrPtr());
    }
    // Timed as one write to dstList[0]'s buffer after reads of srcList[0]'s (lists usually name one buffer each).
    trans_5hd<T>(d, s, nchwconvParams, {srcList[0].timing()}, dstList[0].timing(), loc);
}

template <typename T>
void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                    const TransDataTo5HDParams& nchwconvParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    transpose_detail::trans_5hd_addresses<T>(dstList, srcList, nchwconvParams, loc);
}

template <typename T>
void TransDataTo5HD(const LocalTensor<uint64_t>& dst, const LocalTensor<uint64_t>& src,
                    const TransDataTo5HDParams& nchwconvParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::check_operand(dst, transpose_detail::kBlocks, "TransDataTo5HD", "dst (address list)", loc);
    ascendc_sim::check_operand(src, transpose_detail::kBlocks, "TransDataTo5HD", "src (address list)", loc);
    transpose_detail::trans_5hd_addresses<T>(dst.GetPhyAddrPtr(), src.GetPhyAddrPtr(), nchwconvParams, loc);
}

}  // namespace AscendC
