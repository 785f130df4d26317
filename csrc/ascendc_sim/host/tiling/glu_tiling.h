// Host helpers of Swish, SwiGLU, GeGLU and ReGlu (GetSwishTmpSize.md, GetSwiGLUMaxMinTmpSize.md,
// GetGeGLUMaxMinTmpSize.md, GetReGluMaxMinTmpSize.md): the temporary-space range. The numbers repeat the rule of
// sim/activation.h (activation_min_tmp_bytes / activation_max_tmp_bytes; that header needs the simulator's core,
// so it cannot be included here): a 256-byte float working set per live float buffer, two for 16-bit types.
// tests/sim/test_sim_glu.py checks that the kernel side accepts exactly the minimum reported here. Swish takes
// none (its API has no sharedTmpBuffer). Parameter orders as the pages (they differ). Shapes: see shape.h.
#pragma once
#include "shape.h"

namespace AscendC {
namespace host_detail {

template <typename Shape>
uint64_t element_count(const Shape& srcShape) {
    uint64_t n = 1;
    for (int64_t d : dims_of(srcShape)) n *= static_cast<uint64_t>(d);
    return n;
}

template <typename Shape>
void glu_tmp(const Shape& srcShape, uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue) {
    minValue = typeSize == 2 ? 512u : 256u;
    uint64_t per_buffer = (element_count(srcShape) * 4u + 255u) / 256u * 256u;
    uint64_t bytes = per_buffer * (typeSize == 2 ? 2u : 1u);
    maxValue = static_cast<uint32_t>(bytes < minValue ? minValue : bytes);
}

}  // namespace host_detail

template <typename Shape>
inline void GetSwishTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                            uint32_t& maxValue, uint32_t& minValue) {
    (void)srcShape, (void)typeSize, (void)isReuseSource;
    maxValue = minValue = 0;
}
template <typename Shape>
void GetSwiGLUMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue,
                            const bool isReuseSource) {
    (void)isReuseSource;
    host_detail::glu_tmp(srcShape, typeSize, maxValue, minValue);
}
template <typename Shape>
void GetGeGLUMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                           uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    host_detail::glu_tmp(srcShape, typeSize, maxValue, minValue);
}
template <typename Shape>
void GetReGluMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                           uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    host_detail::glu_tmp(srcShape, typeSize, maxValue, minValue);
}

}  // namespace AscendC
