// Host tiling helpers of the ConfusionTransposeTiling form of Transpose (Transpose-Tiling.md):
// GetTransposeMaxMinTmpSize and GetTransposeTilingInfo, and the deprecated GetConfusionTransposeMaxMinTmpSize,
// GetConfusionTransposeTilingInfo and GetConfusionTransposeOnlyTilingInfo (scenario 7). Names and parameters as the
// page; the numbers are the simulator's model (sim/confusion_transpose_tiling.h), which the kernel checks against.
// srcShape is [B, N, S, H/N] for scenarios 1-6 and [H, W] for scenario 7 (ge::Shape, a GetDimNum/GetDim stand-in
// or a std::vector<int64_t>; see shape.h). The page's example calls GetTransposeMaxMinTmpSize without
// transposeTypeIn: that overload reports the largest need of any scenario.
#pragma once
#include "../../sim/confusion_transpose_tiling.h"
#include "shape.h"

namespace AscendC {
namespace host_detail {

template <typename Shape>
confusion_model::Shape4 shape4(const Shape& srcShape, uint32_t transposeTypeIn) {
    std::vector<int64_t> d = dims_of(srcShape);
    confusion_model::Shape4 s;
    if (transposeTypeIn == 7 && d.size() == 2) {
        s.s = static_cast<uint32_t>(d[0]);
        s.hn = static_cast<uint32_t>(d[1]);
    } else if (d.size() == 4) {
        s.b = static_cast<uint32_t>(d[0]);
        s.n = static_cast<uint32_t>(d[1]);
        s.s = static_cast<uint32_t>(d[2]);
        s.hn = static_cast<uint32_t>(d[3]);
    }  // any other rank leaves an empty shape, which the kernel reports
    return s;
}

}  // namespace host_detail

template <typename Shape>
void GetTransposeMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const uint32_t transposeTypeIn,
                               uint32_t& maxValue, uint32_t& minValue) {
    minValue = maxValue = confusion_model::tmp_bytes(transposeTypeIn, host_detail::shape4(srcShape, transposeTypeIn).s,
                                                     typeSize);
}

template <typename Shape>
void GetTransposeMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                               uint32_t& minValue) {
    GetTransposeMaxMinTmpSize(srcShape, typeSize, 3, maxValue, minValue);  // 3-6 need the most
}

template <typename Shape>
void GetConfusionTransposeMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize,
                                        const uint32_t transposeTypeIn, uint32_t& maxValue, uint32_t& minValue) {
    GetTransposeMaxMinTmpSize(srcShape, typeSize, transposeTypeIn, maxValue, minValue);
}

template <typename Shape>
void GetTransposeTilingInfo(const Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                            const uint32_t transposeTypeIn, ConfusionTransposeTiling& tiling) {
    tiling = confusion_model::make(host_detail::shape4(srcShape, transposeTypeIn), stackBufferSize, typeSize,
                                   transposeTypeIn);
}

template <typename Shape>
void GetConfusionTransposeTilingInfo(const Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                     const uint32_t transposeTypeIn, ConfusionTransposeTiling& tiling) {
    GetTransposeTilingInfo(srcShape, stackBufferSize, typeSize, transposeTypeIn, tiling);
}

template <typename Shape>
void GetConfusionTransposeOnlyTilingInfo(const Shape& srcShape, const uint32_t stackBufferSize,
                                         const uint32_t typeSize, ConfusionTransposeTiling& tiling) {
    GetTransposeTilingInfo(srcShape, stackBufferSize, typeSize, 7, tiling);
}

}  // namespace AscendC

namespace optiling {
using AscendC::tiling::ConfusionTransposeTiling;
}  // namespace optiling
