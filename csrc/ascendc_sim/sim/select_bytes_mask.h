// Select with a byte mask (the high-level Select, Select-38.md in asc-devkit v8.5.0): dst[r][j] picks src0 where the
// mask element is 0 and src1 otherwise, one of them a scalar; src is [firstAxis, srcLastAxis] and the mask
// [firstAxis, maskLastAxis], of which only the first srcLastAxis elements of each row count.
//
// Checks (the page): firstAxis * srcLastAxis == the src tensor's size and firstAxis * maskLastAxis == the mask's
// size; maskLastAxis >= srcLastAxis; the src last axis 32-byte aligned; the mask last axis 32-byte aligned and a
// multiple of 16. dst may be the src tensor. With isReuseMask (the default) and differing last axes the page says
// the mask may be rewritten: it is left scrambled. Types: T half/float, U bool/int8/uint8/int16/uint16/int32/
// uint32, on Atlas A2/A3 and 310P. The basic bit-mask Select (compare_select.h) is unaffected: its parameters differ.
// Temporary space (ours): 256 bytes at least, plus one half row of the mask per row when the mask must be kept
// (isReuseMask false and differing axes); host/tiling/select_tiling.h agrees. Cost: one composite instruction of
// 3 float passes (4 with a mask to compact).
#pragma once
#include <cstring>
#include <type_traits>
#include <vector>

#include "hl_checks.h"

namespace AscendC {

struct SelectWithBytesMaskShapeInfo {
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};

namespace select_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::dtype_bit;
using ascendc_sim::Loc;
using hl_detail::Span;

constexpr uint32_t kMaskTypes = dtype_bit(DType::Bool) | dtype_bit(DType::I8) | dtype_bit(DType::U8) |
                                dtype_bit(DType::I16) | dtype_bit(DType::U16) | dtype_bit(DType::I32) |
                                dtype_bit(DType::U32);

constexpr uint32_t min_tmp_bytes(uint32_t first_axis, uint32_t mask_last, uint32_t src_last, bool reuse_mask) {
    uint32_t keep = (!reuse_mask && mask_last != src_last) ? first_axis * ((src_last * 2u + 31u) / 32u * 32u) : 0u;
    return 256u + keep;
}

template <typename T, typename U, bool isReuseMask>
void select(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar, bool scalar_is_src1,
            const LocalTensor<U>& mask, const LocalTensor<uint8_t>& tmp, const SelectWithBytesMaskShapeInfo& info,
            Loc loc) {
    const char* api = "Select";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, hl_detail::kHalfFloat, hl_detail::kSameAsA2, loc);
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<U>, kMaskTypes, hl_detail::kSameAsA2, loc);
    uint32_t rows = info.firstAxis, n = info.srcLastAxis, k = info.maskLastAxis;
    if (rows == 0 || n == 0 || k < n || n * sizeof(T) % 32 != 0 || k * sizeof(U) % 32 != 0 || k % 16 != 0)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "Select (byte mask): SelectWithBytesMaskShapeInfo {firstAxis %u, srcLastAxis %u, maskLastAxis "
                          "%u}: the src last axis must be 32-byte aligned, the mask last axis 32-byte aligned, a "
                          "multiple of 16 and at least the src last axis (Select-38.md).",
                          rows, n, k);
    if (uint64_t(rows) * n != src.GetSize() || uint64_t(rows) * k != mask.GetSize())
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "Select (byte mask): firstAxis * srcLastAxis = %llu and firstAxis * maskLastAxis = %llu must "
                          "equal the src tensor's size (%u) and the mask's size (%u) (Select-38.md). Size the tensors "
                          "with SetSize or Get<T>(count).",
                          (unsigned long long)(uint64_t(rows) * n), (unsigned long long)(uint64_t(rows) * k),
                          src.GetSize(), mask.GetSize());
    uint64_t total = uint64_t(rows) * n;
    ascendc_sim::check_operand(dst, total, api, "dst", loc);
    ascendc_sim::check_operand(mask, uint64_t(rows) * k, api, "mask", loc);
    Span d = hl_detail::span(dst, total, "dst"), s = hl_detail::span(src, total, "srcTensor");
    Span m = hl_detail::span(mask, uint64_t(rows) * k, "mask");
    hl_detail::check_apart(api, d, s, true, loc);
    hl_detail::check_apart(api, d, m, false, loc);
    hl_detail::check_tmp(api, &tmp, min_tmp_bytes(rows, k, n, isReuseMask), {d, s, m}, loc);
    std::vector<T> out(total);
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t j = 0; j < n; ++j) {
            bool pick1 = mask.GetPhyAddrPtr()[uint64_t(r) * k + j] != U(0);
            T tensor_value = src.GetPhyAddrPtr()[uint64_t(r) * n + j];
            out[uint64_t(r) * n + j] = pick1 == scalar_is_src1 ? scalar : tensor_value;
        }
    std::memcpy(dst.GetPhyAddrPtr(), out.data(), total * sizeof(T));
    if (isReuseMask && k != n) std::memset(mask.GetPhyAddrPtr(), 0x5A, uint64_t(rows) * k * sizeof(U));
    hl_detail::poison_tmp(&tmp, min_tmp_bytes(rows, k, n, isReuseMask));
    hl_detail::book(ascendc_sim::OpId::SelectBytesMask, total, k != n ? 4 : 3, sizeof(T) == 2,
                    {src.timing(), mask.timing(), tmp.timing()}, dst.timing(),
                    {isReuseMask && k != n ? mask.timing() : nullptr}, loc);
}

}  // namespace select_detail

template <typename T, typename U, bool isReuseMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1, const LocalTensor<U>& mask,
            const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    select_detail::select<T, U, isReuseMask>(dst, src0, src1, true, mask, sharedTmpBuffer, info, loc);
}
template <typename T, typename U, bool isReuseMask = true>
void Select(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1, const LocalTensor<U>& mask,
            const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    select_detail::select<T, U, isReuseMask>(dst, src1, src0, false, mask, sharedTmpBuffer, info, loc);
}

}  // namespace AscendC
