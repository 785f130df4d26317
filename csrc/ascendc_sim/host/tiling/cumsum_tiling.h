// Host helpers of CumSum (GetCumSumMaxMinTmpSize.md) and Arange (GetArangeMaxMinTmpSize.md): the temporary-space
// range. CumSum: the simulator's model in sim/cumsum.h (one float row of `inner`, 256 bytes at least; at most one
// per row); Arange needs none (the page: both 0). Shapes: see shape.h ([outter, inner]).
#pragma once
#include "shape.h"

namespace AscendC {

template <typename Shape>
void GetCumSumMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isLastAxis,
                            const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)typeSize, (void)isLastAxis, (void)isReuseSource;
    host_detail::RowShape s = host_detail::rows_of(srcShape);
    uint32_t row = (s.k * 4u + 31u) / 32u * 32u;
    minValue = row < 256u ? 256u : row;
    maxValue = (s.m == 0 ? 1 : s.m) * minValue;
}

inline void GetArangeMaxMinTmpSize(uint32_t& maxValue, uint32_t& minValue) { maxValue = minValue = 0; }
inline void GetArithProgressionMaxMinTmpSize(uint32_t& maxValue, uint32_t& minValue) { maxValue = minValue = 0; }

}  // namespace AscendC
