// Host tiling helpers of LayerNorm (LayerNorm-Tiling.md), DeepNorm (DeepNorm-Tiling.md), BatchNorm
// (BatchNorm-Tiling.md), GroupNorm (GroupNorm-Tiling.md) and RmsNorm (RmsNorm-Tiling.md): the temporary-space
// range and the tiling structs the kernel passes to the APIs. Names and parameters as the pages; the numbers are
// the simulator's model (sim/norm_tiling.h), which the kernel side checks against. Shapes: see shape.h.
#pragma once
#include "../../sim/norm_tiling.h"
#include "shape.h"

namespace AscendC {
namespace host_detail {

// LayerNorm's [B, S, H] form takes {B, S, storageHLength, originHLength}.
struct Bsh {
    uint32_t b = 0, s = 0, h = 0, ori_h = 0;
};

inline Bsh bsh_of(const std::vector<int64_t>& d) {
    Bsh r;
    if (d.size() >= 3) r = Bsh{uint32_t(d[0]), uint32_t(d[1]), uint32_t(d[2]), uint32_t(d[2])};
    if (d.size() >= 4) r.ori_h = uint32_t(d[3]);
    return r;
}

}  // namespace host_detail

// ---- LayerNorm [B, S, H]: output, mean, variance ------------------------------------------------------------------

template <typename Shape>
void GetLayerNormMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                               uint32_t& maxValue, uint32_t& minValue) {
    (void)typeSize, (void)isReuseSource;
    host_detail::Bsh s = host_detail::bsh_of(host_detail::dims_of(srcShape));
    minValue = norm_model::row_tmp_bytes(s.h, norm_model::kLayerNormFloats);
    maxValue = (s.b * s.s == 0 ? 1 : s.b * s.s) * minValue;
}
template <typename Shape>
void GetLayerNormNDTilingInfo(const Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                              const bool isReuseSource, LayerNormTiling& tiling) {
    (void)typeSize, (void)isReuseSource;
    host_detail::Bsh s = host_detail::bsh_of(host_detail::dims_of(srcShape));
    tiling = norm_model::layer_norm(s.b, s.s, s.h, s.ori_h, stackBufferSize);
}
// The page's deprecated spelling.
template <typename Shape>
void GetLayerNormNDTillingInfo(const Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                               const bool isReuseSource, LayerNormTiling& tilling) {
    GetLayerNormNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource, tilling);
}

// ---- LayerNorm [A, R]: output, mean, rstd -----------------------------------------------------------------------

template <typename Shape>
void GetLayerNormMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                               const bool isComputeRstd, const bool isOnlyOutput, uint32_t& maxValue,
                               uint32_t& minValue) {
    (void)isReuseSource, (void)isComputeRstd, (void)isOnlyOutput;
    host_detail::RowShape s = host_detail::rows_of(srcShape);
    uint32_t r_pad = norm_model::align_up(s.k, 32u / (typeSize == 0 ? 4 : typeSize));
    minValue = norm_model::row_tmp_bytes(r_pad, norm_model::kLayerNormFloats);
    maxValue = (s.m == 0 ? 1 : s.m) * minValue;
}
template <typename Shape>
void GetLayerNormNDTilingInfo(const Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                              const bool isReuseSource, const bool isComputeRstd, LayerNormSeparateTiling& tiling) {
    (void)isReuseSource, (void)isComputeRstd;
    host_detail::RowShape s = host_detail::rows_of(srcShape);
    tiling = norm_model::layer_norm_separate(s.m, s.k, typeSize, stackBufferSize);
}

// ---- DeepNorm (DeepNorm-Tiling.md): srcShape [B, S, H] 32-byte aligned, originSrcShape the unpadded one -------

template <typename Shape>
bool GetDeepNormMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                              const bool isBasicBlock, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource, (void)isBasicBlock;
    std::vector<int64_t> d = host_detail::dims_of(srcShape);
    if (d.size() != 3 || typeSize == 0 || d[2] * typeSize % 32 != 0 || d[2] > 2040) return false;
    minValue = norm_model::row_tmp_bytes(uint32_t(d[2]), norm_model::kLayerNormFloats);
    maxValue = uint32_t(d[0] * d[1]) * minValue;
    return true;
}
template <typename Shape>
bool GetDeepNormTilingInfo(const Shape& srcShape, const Shape& originSrcShape, const uint32_t stackBufferSize,
                           const uint32_t typeSize, const bool isReuseSource, const bool isBasicBlock,
                           DeepNormTiling& tiling) {
    std::vector<int64_t> d = host_detail::dims_of(srcShape), o = host_detail::dims_of(originSrcShape);
    uint32_t maxValue = 0, minValue = 0;
    if (!GetDeepNormMaxMinTmpSize(srcShape, typeSize, isReuseSource, isBasicBlock, maxValue, minValue)) return false;
    if (o.size() != 3 || o[0] != d[0] || o[1] != d[1] || o[2] > d[2] || stackBufferSize < minValue) return false;
    if (isBasicBlock && !(d[2] % 64 == 0 && (d[0] * d[1]) % 8 == 0)) return false;
    static_cast<LayerNormTiling&>(tiling) =
        norm_model::layer_norm(uint32_t(d[0]), uint32_t(d[1]), uint32_t(d[2]), uint32_t(o[2]), stackBufferSize);
    return true;
}

// ---- Normalize (Normalize-Tiling.md): srcShape [A, R]; the [A, R] LayerNorm's model ------------------------------

template <typename Shape>
void GetNormalizeMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSizeU, const uint32_t typeSizeT,
                               const bool isReuseSource, const bool isComputeRstd, const bool isOnlyOutput,
                               uint32_t& maxValue, uint32_t& minValue) {
    (void)typeSizeU;
    GetLayerNormMaxMinTmpSize(srcShape, typeSizeT, isReuseSource, isComputeRstd, isOnlyOutput, maxValue, minValue);
}

// ---- LayerNormGrad / LayerNormGradBeta: srcShape {B, S, H, originH} (originH optional) --------------------------

template <typename Shape>
void GetLayerNormGradMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                   uint32_t& maxValue, uint32_t& minValue) {
    (void)typeSize, (void)isReuseSource;
    host_detail::Bsh s = host_detail::bsh_of(host_detail::dims_of(srcShape));
    minValue = norm_model::row_tmp_bytes(s.h, norm_model::kLayerNormGradFloats);
    maxValue = (s.b * s.s == 0 ? 1 : s.b * s.s) * minValue;
}
template <typename Shape>
void GetLayerNormGradNDTilingInfo(const Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                  const bool isReuseSource, LayerNormGradTiling& tiling) {
    (void)typeSize, (void)isReuseSource;
    host_detail::Bsh s = host_detail::bsh_of(host_detail::dims_of(srcShape));
    tiling = norm_model::layer_norm_grad(s.b, s.s, s.h, s.ori_h, stackBufferSize);
}
template <typename Shape>
void GetLayerNormGradBetaMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                       uint32_t& maxValue, uint32_t& minValue) {
    (void)typeSize, (void)isReuseSource;
    host_detail::Bsh s = host_detail::bsh_of(host_detail::dims_of(srcShape));
    uint32_t fixed = 2 * norm_model::align_up(s.h * 4u, 32u), row = norm_model::row_tmp_bytes(s.h, 2);
    minValue = fixed + row;
    maxValue = fixed + (s.b * s.s == 0 ? 1 : s.b * s.s) * row;
}
template <typename Shape>
void GetLayerNormGradBetaNDTilingInfo(const Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                      const bool isReuseSource, LayerNormGradBetaTiling& tiling) {
    (void)typeSize, (void)isReuseSource;
    host_detail::Bsh s = host_detail::bsh_of(host_detail::dims_of(srcShape));
    tiling = norm_model::layer_norm_grad_beta(s.b, s.s, s.h, s.ori_h, stackBufferSize);
}

// ---- BatchNorm (BatchNorm-Tiling.md): srcShape [B, S, H] (S*H 32-byte aligned), originSrcShape the unpadded one ---

template <typename Shape>
bool GetBatchNormMaxMinTmpSize(const Shape& srcShape, const Shape& originSrcShape, const uint32_t typeSize,
                               const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue,
                               const bool isBasicBlock = false) {
    (void)isReuseSource, (void)isBasicBlock;
    std::vector<int64_t> d = host_detail::dims_of(srcShape), o = host_detail::dims_of(originSrcShape);
    if (d.size() != 3 || o.size() != 3 || typeSize == 0 || (d[1] * d[2] * typeSize) % 32 != 0) return false;
    uint32_t b = uint32_t(o[0]), sh = uint32_t(d[1] * d[2]);
    minValue = norm_model::batch_norm_min_tmp(b);
    maxValue = b * 4u * norm_model::kLayerNormFloats * norm_model::align_up(sh, 8u);
    return true;
}
template <typename Shape>
bool GetBatchNormNDTilingInfo(const Shape& srcShape, const Shape& originSrcShape, const uint32_t stackBufferByteSize,
                              const uint32_t typeSize, const bool isReuseSource, BatchNormTiling& tilling,
                              const bool isBasicBlock = false) {
    uint32_t maxValue = 0, minValue = 0;
    if (!GetBatchNormMaxMinTmpSize(srcShape, originSrcShape, typeSize, isReuseSource, maxValue, minValue,
                                   isBasicBlock) ||
        stackBufferByteSize < minValue)
        return false;
    std::vector<int64_t> d = host_detail::dims_of(srcShape), o = host_detail::dims_of(originSrcShape);
    uint32_t b = uint32_t(o[0]), sh = uint32_t(d[1] * d[2]);
    if (isBasicBlock && !(b % 8 == 0 && sh % 64 == 0 && sh < 2048)) return false;
    tilling = norm_model::batch_norm(b, sh, stackBufferByteSize);
    return true;
}

// ---- GroupNorm (GroupNorm-Tiling.md): srcShape [N, C, H, W] -------------------------------------------------------

template <typename Shape>
void GetGroupNormMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                               const uint32_t groupNum, uint32_t& maxValue, uint32_t& minValue) {
    (void)typeSize, (void)isReuseSource;
    std::vector<int64_t> d = host_detail::dims_of(srcShape);
    maxValue = minValue = 0;
    if (d.size() != 4 || groupNum == 0) return;
    uint32_t group = uint32_t(d[1] / groupNum * d[2] * d[3]);
    minValue = norm_model::row_tmp_bytes(group, norm_model::kLayerNormFloats);
    maxValue = uint32_t(d[0]) * groupNum * minValue;
}
template <typename Shape>
void GetGroupNormNDTilingInfo(const Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                              const bool isReuseSource, const uint32_t groupNum, GroupNormTiling& tiling) {
    (void)typeSize, (void)isReuseSource;
    std::vector<int64_t> d = host_detail::dims_of(srcShape);
    if (d.size() != 4) return;
    tiling = norm_model::group_norm(uint32_t(d[0]), uint32_t(d[1]), uint32_t(d[2] * d[3]), groupNum, stackBufferSize);
}

// ---- RmsNorm: srcShape is [B, S, H] with H 32-byte aligned, originSrcShape the unpadded one ----------------------

template <typename Shape>
bool GetRmsNormMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue,
                             const bool isBasicBlock = false) {
    (void)isBasicBlock;
    std::vector<int64_t> d = host_detail::dims_of(srcShape);
    if (d.size() != 3 || typeSize == 0 || d[2] * typeSize % 32 != 0) return false;
    minValue = norm_model::rms_tmp_bytes(1, uint32_t(d[2]), typeSize);
    maxValue = norm_model::rms_tmp_bytes(uint32_t(d[0] * d[1]), uint32_t(d[2]), typeSize);
    return true;
}
template <typename Shape>
bool GetRmsNormTilingInfo(const Shape& srcShape, const Shape& originSrcShape, const uint32_t stackBufferByteSize,
                          const uint32_t typeSize, RmsNormTiling& tiling, const bool isBasicBlock = false) {
    std::vector<int64_t> d = host_detail::dims_of(srcShape), o = host_detail::dims_of(originSrcShape);
    uint32_t maxValue = 0, minValue = 0;
    if (!GetRmsNormMaxMinTmpSize(srcShape, typeSize, maxValue, minValue, isBasicBlock)) return false;
    if (o.size() != 3 || o[0] != d[0] || o[1] != d[1] || o[2] > d[2] || stackBufferByteSize < minValue) return false;
    if (isBasicBlock && !(d[2] % 64 == 0 && d[2] < 2048 && (d[0] * d[1]) % 8 == 0 && o[2] == d[2])) return false;
    tiling = norm_model::rms_norm(uint32_t(d[0]), uint32_t(d[1]), uint32_t(d[2]), uint32_t(o[2]), typeSize,
                                  stackBufferByteSize);
    return true;
}

}  // namespace AscendC
