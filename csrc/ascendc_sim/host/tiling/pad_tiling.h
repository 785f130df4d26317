// Host tiling helpers of Pad and UnPad (Pad-Tiling.md, UnPad-Tiling.md): the temporary-space range and the
// PadTiling / UnPadTiling a kernel passes to the API. Names and parameters as the pages; the numbers are the
// simulator's model (sim/pad_tiling.h), which the kernel side checks against. Shapes are two-dimensional
// [height, width] (ge::Shape or a stand-in with GetDimNum/GetDim, or a std::vector<int64_t>; see shape.h); a shape of
// more axes is read as [product of the leading axes, last axis]. GetUnPadMaxMinTmpSize's platform is a template, so
// any PlatformAscendC fits (the model does not depend on the SoC).
#pragma once
#include "../../sim/pad_tiling.h"
#include "shape.h"

namespace AscendC {

template <typename Shape>
void GetPadMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue) {
    host_detail::RowShape s = host_detail::rows_of(srcShape);
    maxValue = pad_model::max_tmp_bytes(s.m, s.k, typeSize);
    minValue = pad_model::min_tmp_bytes(s.k, typeSize);
}

template <typename Shape>
void PadTilingFunc(const Shape srcShape, const Shape oriSrcShape, const uint32_t stackBufferSize,
                   const uint32_t typeSize, PadTiling& tiling) {
    host_detail::RowShape s = host_detail::rows_of(srcShape), ori = host_detail::rows_of(oriSrcShape);
    tiling = pad_model::make_pad(s.m, s.k, ori.k, typeSize, stackBufferSize);
}

template <typename Platform, typename Shape>
void GetUnPadMaxMinTmpSize(const Platform& ascendcPlatform, const Shape& srcShape, const uint32_t typeSize,
                           uint32_t& maxValue, uint32_t& minValue) {
    (void)ascendcPlatform;
    host_detail::RowShape s = host_detail::rows_of(srcShape);
    maxValue = pad_model::max_tmp_bytes(s.m, s.k, typeSize);
    minValue = pad_model::min_tmp_bytes(s.k, typeSize);
}

template <typename Shape>
void UnPadTilingFunc(const Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                     UnPadTiling& tiling) {
    host_detail::RowShape s = host_detail::rows_of(srcShape);
    tiling = pad_model::make_unpad(s.m, s.k, typeSize, stackBufferSize);
}

}  // namespace AscendC

namespace optiling {
using AscendC::tiling::PadTiling;
using AscendC::tiling::UnPadTiling;
}  // namespace optiling
