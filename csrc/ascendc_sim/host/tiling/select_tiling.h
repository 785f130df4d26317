// Host helpers of the byte-mask Select (GetSelectMaxMinTmpSize.md, and the deprecated GetSelectWithBytesMask*
// names): the temporary-space range of the simulator's model (sim/select_bytes_mask.h). Shapes: see shape.h; a
// scalar operand's shape is {1}.
#pragma once
#include "shape.h"

namespace AscendC {
namespace host_detail {

template <typename Shape>
uint32_t select_min_tmp(const Shape& src0Shape, const Shape& src1Shape, const Shape& maskShape, bool isReuseMask) {
    RowShape a = rows_of(src0Shape), b = rows_of(src1Shape), m = rows_of(maskShape);
    RowShape s = a.k >= b.k ? a : b;  // the tensor operand (the scalar's shape is {1})
    uint32_t keep = (!isReuseMask && m.k != s.k) ? m.m * ((s.k * 2u + 31u) / 32u * 32u) : 0u;
    return 256u + keep;
}

}  // namespace host_detail

template <typename Shape>
uint32_t GetSelectMinTmpSize(const Shape& src0Shape, const Shape& src1Shape, const uint32_t srcTypeSize,
                             const Shape& maskShape, const uint32_t maskTypeSize, const bool isReuseMask) {
    (void)srcTypeSize, (void)maskTypeSize;
    return host_detail::select_min_tmp(src0Shape, src1Shape, maskShape, isReuseMask);
}
template <typename Shape>
uint32_t GetSelectMaxTmpSize(const Shape& src0Shape, const Shape& src1Shape, const uint32_t srcTypeSize,
                             const Shape& maskShape, const uint32_t maskTypeSize, const bool isReuseMask) {
    (void)srcTypeSize, (void)maskTypeSize;
    return host_detail::select_min_tmp(src0Shape, src1Shape, maskShape, isReuseMask);
}
template <typename Shape>
void GetSelectMaxMinTmpSize(const Shape& src0Shape, const Shape& src1Shape, const uint32_t srcTypeSize,
                            const Shape& maskShape, const uint32_t maskTypeSize, const bool isReuseMask,
                            uint32_t& maxValue, uint32_t& minValue) {
    minValue = maxValue =
        GetSelectMinTmpSize(src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize, isReuseMask);
}
template <typename Shape>
void GetSelectWithBytesMaskMaxMinTmpSize(const Shape& src0Shape, const Shape& src1Shape, const uint32_t srcTypeSize,
                                         const Shape& maskShape, const uint32_t maskTypeSize, const bool isReuseMask,
                                         uint32_t& maxValue, uint32_t& minValue) {
    GetSelectMaxMinTmpSize(src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize, isReuseMask, maxValue,
                           minValue);
}

}  // namespace AscendC
