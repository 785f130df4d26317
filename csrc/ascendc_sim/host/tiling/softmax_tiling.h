// Host tiling helpers of the SoftMax family (SoftMax-SimpleSoftMax-Tiling.md, SoftmaxFlash-Tiling接口.md,
// SoftmaxFlashV2-Tiling接口.md, SoftmaxGrad-Tiling接口.md, LogSoftMax-Tiling.md): the temporary-space range and the
// SoftMaxTiling a kernel passes to the API. Names and parameters as the pages; the numbers are the simulator's
// model (sim/softmax_tiling.h), which the kernel side checks against. Shapes: see shape.h.
#pragma once
#include "../../sim/softmax_tiling.h"
#include "shape.h"

namespace AscendC {
namespace host_detail {

template <typename Shape>
uint32_t softmax_max_tmp(const Shape& srcShape) {
    RowShape s = rows_of(srcShape);
    return softmax_model::max_tmp_bytes(s.m, s.k);
}

template <typename Shape>
uint32_t softmax_min_tmp(const Shape& srcShape) {
    return softmax_model::min_tmp_bytes(rows_of(srcShape).k);
}

template <typename Shape>
void softmax_tiling(const Shape& srcShape, uint32_t dataTypeSize, uint32_t localWorkSpaceSize, SoftMaxTiling& tiling) {
    RowShape s = rows_of(srcShape);
    tiling = softmax_model::make_tiling(s.m, s.k, dataTypeSize, localWorkSpaceSize);
}

}  // namespace host_detail

// ---- SoftMax / SimpleSoftMax --------------------------------------------------------------------------------------

template <typename Shape>
uint32_t GetSoftMaxMaxTmpSize(const Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    (void)dataTypeSize, (void)isReuseSource;
    return host_detail::softmax_max_tmp(srcShape);
}
template <typename Shape>
uint32_t GetSoftMaxMinTmpSize(const Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    (void)dataTypeSize, (void)isReuseSource;
    return host_detail::softmax_min_tmp(srcShape);
}
template <typename Shape>
void SoftMaxTilingFunc(const Shape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                       SoftMaxTiling& softmaxTiling) {
    host_detail::softmax_tiling(srcShape, dataTypeSize, localWorkSpaceSize, softmaxTiling);
}

// ---- SoftmaxFlash ------------------------------------------------------------------------------------------------

template <typename Shape>
uint32_t GetSoftMaxFlashMaxTmpSize(const Shape& srcShape, const uint32_t dataTypeSize, const bool isUpdate,
                                   const bool isReuseSource) {
    (void)dataTypeSize, (void)isUpdate, (void)isReuseSource;
    return host_detail::softmax_max_tmp(srcShape);
}
template <typename Shape>
uint32_t GetSoftMaxFlashMinTmpSize(const Shape& srcShape, const uint32_t dataTypeSize, const bool isUpdate,
                                   const bool isReuseSource) {
    (void)dataTypeSize, (void)isUpdate, (void)isReuseSource;
    return host_detail::softmax_min_tmp(srcShape);
}
template <typename Shape>
void SoftMaxFlashTilingFunc(const Shape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                            SoftMaxTiling& softmaxFlashTiling, const bool isUpdate = false) {
    (void)isUpdate;
    host_detail::softmax_tiling(srcShape, dataTypeSize, localWorkSpaceSize, softmaxFlashTiling);
}

// ---- SoftmaxFlashV2: dataTypeSize1 is src's type size, dataTypeSize2 that of max/sum ------------------------------

template <typename Shape>
uint32_t GetSoftMaxFlashV2MaxTmpSize(const Shape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const bool isUpdate, const bool isBasicBlock = false,
                                     const bool isFlashOutputBrc = false) {
    (void)dataTypeSize1, (void)dataTypeSize2, (void)isUpdate, (void)isBasicBlock, (void)isFlashOutputBrc;
    return host_detail::softmax_max_tmp(srcShape);
}
template <typename Shape>
uint32_t GetSoftMaxFlashV2MinTmpSize(const Shape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const bool isUpdate, const bool isBasicBlock = false,
                                     const bool isFlashOutputBrc = false) {
    (void)dataTypeSize1, (void)dataTypeSize2, (void)isUpdate, (void)isBasicBlock, (void)isFlashOutputBrc;
    return host_detail::softmax_min_tmp(srcShape);
}
template <typename Shape>
void SoftMaxFlashV2TilingFunc(const Shape& srcShape, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
                              const uint32_t localWorkSpaceSize, SoftMaxTiling& softmaxFlashTiling,
                              const bool isUpdate, const bool isBasicBlock = false,
                              const bool isFlashOutputBrc = false) {
    (void)dataTypeSize1, (void)isUpdate, (void)isBasicBlock, (void)isFlashOutputBrc;
    host_detail::softmax_tiling(srcShape, dataTypeSize2, localWorkSpaceSize, softmaxFlashTiling);
}

// ---- SoftmaxFlashV3 -------------------------------------------------------------------------------------------------

template <typename Shape>
void GetSoftMaxFlashV3MaxMinTmpSize(const Shape& srcShape, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
                                    uint32_t& maxValue, uint32_t& minValue, const bool isUpdate,
                                    const bool isBasicBlock = false) {
    (void)dataTypeSize1, (void)dataTypeSize2, (void)isUpdate, (void)isBasicBlock;
    maxValue = host_detail::softmax_max_tmp(srcShape);
    minValue = host_detail::softmax_min_tmp(srcShape);
}
template <typename Shape>
void SoftMaxFlashV3TilingFunc(const Shape& srcShape, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
                              const uint32_t localWorkSpaceSize, SoftMaxTiling& softmaxFlashV3Tiling,
                              const bool isUpdate, const bool isBasicBlock = false) {
    (void)dataTypeSize1, (void)isUpdate, (void)isBasicBlock;
    host_detail::softmax_tiling(srcShape, dataTypeSize2, localWorkSpaceSize, softmaxFlashV3Tiling);
}

// ---- SoftmaxGrad ---------------------------------------------------------------------------------------------------

template <typename Shape>
uint32_t GetSoftMaxGradMaxTmpSize(const Shape& srcShape, const uint32_t dataTypeSize, const bool isFront,
                                  const bool isReuseSource) {
    (void)dataTypeSize, (void)isFront, (void)isReuseSource;
    return host_detail::softmax_max_tmp(srcShape);
}
template <typename Shape>
uint32_t GetSoftMaxGradMinTmpSize(const Shape& srcShape, const uint32_t dataTypeSize, const bool isFront,
                                  const bool isReuseSource) {
    (void)dataTypeSize, (void)isFront, (void)isReuseSource;
    return host_detail::softmax_min_tmp(srcShape);
}
template <typename Shape>
void SoftMaxGradTilingFunc(const Shape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                           SoftMaxTiling& softmaxGradTiling, const bool isFront = false) {
    (void)isFront;
    host_detail::softmax_tiling(srcShape, dataTypeSize, localWorkSpaceSize, softmaxGradTiling);
}

// ---- IsBasicBlockInSoftMax: the pages' basic-block shape (last axis a multiple of 64 in [256/size, 2048), rows a
// multiple of 8) for the tiled shape and the rows per pass ----------------------------------------------------------

inline bool IsBasicBlockInSoftMax(const SoftMaxTiling& tiling, const uint32_t dataTypeSize = 2) {
    uint32_t k = tiling.srcK;
    return dataTypeSize != 0 && k < 2048 && k >= 256 / dataTypeSize && k % 64 == 0 && tiling.srcM % 8 == 0 &&
           tiling.splitM % 8 == 0 && tiling.splitM != 0;
}

// ---- LogSoftMax ----------------------------------------------------------------------------------------------------

template <typename Shape>
uint32_t GetLogSoftMaxMaxTmpSize(const Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    (void)dataTypeSize, (void)isReuseSource;
    return host_detail::softmax_max_tmp(srcShape);
}
template <typename Shape>
uint32_t GetLogSoftMaxMinTmpSize(const Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    (void)dataTypeSize, (void)isReuseSource;
    return host_detail::softmax_min_tmp(srcShape);
}
template <typename Shape>
void LogSoftMaxTilingFunc(const Shape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                          LogSoftMaxTiling& softmaxTiling) {
    host_detail::softmax_tiling(srcShape, dataTypeSize, localWorkSpaceSize, softmaxTiling);
}

}  // namespace AscendC
