// Host helpers of WelfordUpdate and WelfordFinalize (WelfordUpdate-Tiling.md, WelfordFinalize-Tiling.md): the
// temporary-space range of the simulator's model (sim/welford.h): 256 bytes at least, at most two float rows of the
// shape's last axis (abLength). Shapes: see shape.h.
#pragma once
#include "shape.h"

namespace AscendC {
namespace host_detail {

template <typename Shape>
void welford_tmp(const Shape& srcShape, uint32_t& maxValue, uint32_t& minValue) {
    RowShape s = rows_of(srcShape);
    uint32_t bytes = 2u * ((s.k * 4u + 31u) / 32u * 32u);
    minValue = 256u;
    maxValue = bytes < minValue ? minValue : bytes;
}

}  // namespace host_detail

template <typename Shape>
void GetWelfordUpdateMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSizeT, const uint32_t typeSizeU,
                                   const bool isReuseSource, const bool isInplace, uint32_t& maxValue,
                                   uint32_t& minValue) {
    (void)typeSizeT, (void)typeSizeU, (void)isReuseSource, (void)isInplace;
    host_detail::welford_tmp(srcShape, maxValue, minValue);
}

template <typename Shape>
void GetWelfordFinalizeMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                     uint32_t& maxValue, uint32_t& minValue) {
    (void)typeSize, (void)isReuseSource;
    host_detail::welford_tmp(srcShape, maxValue, minValue);
}

}  // namespace AscendC
