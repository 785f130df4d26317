// Host helpers of the high-level Exp and Axpy (GetExpMaxMinTmpSize.md, GetAxpyMaxMinTmpSize.md): the temporary-space
// range by activation.h's rule (repeated here as in glu_tiling.h: that header needs the simulator's core). Shapes:
// see shape.h.
#pragma once
#include "glu_tiling.h"

namespace AscendC {

template <typename Shape>
bool GetExpMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                         uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    host_detail::glu_tmp(srcShape, typeSize, maxValue, minValue);
    return true;
}

template <typename Shape>
void GetAxpyMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                          uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    host_detail::glu_tmp(srcShape, typeSize, maxValue, minValue);
}

}  // namespace AscendC
