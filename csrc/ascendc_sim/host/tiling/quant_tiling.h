// Host helpers of the quantization APIs (GetAscendQuantMaxMinTmpSize.md, GetAscendDequantMaxMinTmpSize.md,
// GetAscendAntiQuantMaxMinTmpSize.md): the temporary-space range. The numbers are the simulator's model
// (sim/quant.h: 512 bytes at least; at most a float copy of the data and of the parameters). Shapes: see shape.h;
// the DataType parameters accept any type (ge::DataType).
#pragma once
#include "shape.h"

namespace AscendC {
namespace host_detail {

constexpr uint32_t kQuantMinTmpBytes = 512;

template <typename Shape>
uint32_t quant_max_tmp(const Shape& srcShape) {
    uint64_t n = 1;
    for (int64_t d : dims_of(srcShape)) n *= static_cast<uint64_t>(d);
    uint64_t bytes = 2 * ((n * 4 + 31) / 32 * 32);
    return bytes < kQuantMinTmpBytes ? kQuantMinTmpBytes : static_cast<uint32_t>(bytes);
}

}  // namespace host_detail

template <typename Shape>
void GetAscendQuantMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                 uint32_t& minValue) {
    (void)typeSize;
    maxValue = host_detail::quant_max_tmp(srcShape);
    minValue = host_detail::kQuantMinTmpBytes;
}

template <typename Shape>
void GetAscendDequantMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                   uint32_t& minValue) {
    (void)typeSize;
    maxValue = host_detail::quant_max_tmp(srcShape);
    minValue = host_detail::kQuantMinTmpBytes;
}

template <typename Shape, typename DataType>
void GetAscendAntiQuantMaxMinTmpSize(const Shape& srcShape, const Shape& scaleShape, bool isTranspose,
                                     DataType inputDataType, DataType outputDataType, uint32_t& maxValue,
                                     uint32_t& minValue) {
    (void)scaleShape, (void)isTranspose, (void)inputDataType, (void)outputDataType;
    maxValue = host_detail::quant_max_tmp(srcShape);
    minValue = host_detail::kQuantMinTmpBytes;
}
template <typename Shape, typename DataType>
uint32_t GetAscendAntiQuantMaxTmpSize(const Shape& srcShape, const Shape& scaleShape, bool isTranspose,
                                      DataType inputDataType, DataType outputDataType) {
    (void)scaleShape, (void)isTranspose, (void)inputDataType, (void)outputDataType;
    return host_detail::quant_max_tmp(srcShape);
}
template <typename Shape, typename DataType>
uint32_t GetAscendAntiQuantMinTmpSize(const Shape& srcShape, const Shape& scaleShape, bool isTranspose,
                                      DataType inputDataType, DataType outputDataType) {
    (void)srcShape, (void)scaleShape, (void)isTranspose, (void)inputDataType, (void)outputDataType;
    return host_detail::kQuantMinTmpBytes;
}

}  // namespace AscendC
