// The SoftMax family's tiling data (SoftMaxTiling, SoftMaxShapeInfo, SoftmaxConfig) and the simulator's model of
// its temporary space. Plain C++ with no simulator state, so that host code (host/tiling/softmax_tiling.h) and
// kernel code (sim/softmax.h) share one definition.
//
// Field names are those of SoftMax-Tiling使用说明.md; what the fields hold is ours (the page says the struct is
// opaque: "开发者无需关注该tiling结构的具体信息"). Our tiling functions fill:
//   srcM, srcK, srcSize        rows, row length (elements, 32-byte aligned), srcM * srcK
//   outMaxM, outMaxK, outMaxSize   rows of the max/sum outputs, elements in their 32-byte block, product
//   splitM, splitK, splitSize  rows handled per pass given the workspace, srcK, splitM * srcK
//   reduceM, reduceK, reduceSize   splitM, outMaxK, product
//   rangeM, tailM              full passes (srcM / splitM) and rows left (srcM % splitM)
//   tailSplitSize, tailReduceSize  tailM * srcK, tailM * outMaxK
// The kernel side reads only srcM/srcK (when no SoftMaxShapeInfo is given) and splitM (to check that the
// workspace it was computed for is there); any other layout a host writes is tolerated.
//
// Temporary space (ours, the pages give no numbers): each row in flight needs two float rows (the widened
// input and the exponentials) and 64 bytes for its float max and sum blocks, whatever the input type, so
// min = one row, max = every row.
#pragma once
#include <cstdint>

namespace AscendC {
namespace tiling {

struct SoftMaxTiling {
    uint32_t srcM = 0;
    uint32_t srcK = 0;
    uint32_t srcSize = 0;
    uint32_t outMaxM = 0;
    uint32_t outMaxK = 0;
    uint32_t outMaxSize = 0;
    uint32_t splitM = 0;
    uint32_t splitK = 0;
    uint32_t splitSize = 0;
    uint32_t reduceM = 0;
    uint32_t reduceK = 0;
    uint32_t reduceSize = 0;
    uint32_t rangeM = 0;
    uint32_t tailM = 0;
    uint32_t tailSplitSize = 0;
    uint32_t tailReduceSize = 0;
};

// LogSoftMax-Tiling.md gives no separate layout; ours is the same struct.
using LogSoftMaxTiling = SoftMaxTiling;

}  // namespace tiling

using tiling::LogSoftMaxTiling;
using tiling::SoftMaxTiling;

// SoftMax.md: the shape of src as [srcM, srcK] (srcK 32-byte aligned) and the unpadded [oriSrcM, oriSrcK].
struct SoftMaxShapeInfo {
    uint32_t srcM = 0;
    uint32_t srcK = 0;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
};

// SoftmaxFlashV3.md: the shape and the PASA parameters.
struct SoftMaxParams {
    uint32_t srcM;
    uint32_t srcK;
    uint32_t oriSrcM;
    uint32_t oriSrcK;
    uint32_t loopCnt;
    uint32_t splitMeanCnt;
    float alpha;
};

enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };

struct SoftmaxConfig {
    bool isCheckTiling = true;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
    SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};

inline constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};

namespace softmax_model {

constexpr uint32_t align_up(uint32_t value, uint32_t unit) { return (value + unit - 1) / unit * unit; }

// Bytes of temporary space one row of srcK elements needs in flight (see the header comment).
constexpr uint32_t row_tmp_bytes(uint32_t srcK) { return 2 * align_up(srcK * 4u, 32u) + 64u; }

constexpr uint32_t min_tmp_bytes(uint32_t srcK) { return row_tmp_bytes(srcK); }

constexpr uint32_t max_tmp_bytes(uint32_t srcM, uint32_t srcK) { return (srcM == 0 ? 1 : srcM) * row_tmp_bytes(srcK); }

// Fills `t` for [srcM, srcK] of `typeSize`-byte elements with `workspace` bytes of temporary space. A workspace
// below the minimum leaves splitM at 0, which the kernel reports.
constexpr SoftMaxTiling make_tiling(uint32_t srcM, uint32_t srcK, uint32_t typeSize, uint32_t workspace) {
    SoftMaxTiling t{};
    t.srcM = srcM;
    t.srcK = srcK;
    t.srcSize = srcM * srcK;
    t.outMaxM = srcM;
    t.outMaxK = typeSize == 0 ? 0 : 32u / typeSize;
    t.outMaxSize = srcM * t.outMaxK;
    uint32_t rows = srcK == 0 ? 0 : workspace / row_tmp_bytes(srcK);
    t.splitM = rows < srcM ? rows : srcM;
    t.splitK = srcK;
    t.splitSize = t.splitM * srcK;
    t.reduceM = t.splitM;
    t.reduceK = t.outMaxK;
    t.reduceSize = t.splitM * t.outMaxK;
    t.rangeM = t.splitM == 0 ? 0 : srcM / t.splitM;
    t.tailM = t.splitM == 0 ? srcM : srcM % t.splitM;
    t.tailSplitSize = t.tailM * srcK;
    t.tailReduceSize = t.tailM * t.outMaxK;
    return t;
}

}  // namespace softmax_model

// SoftmaxFlashV2.md's kernel-side tiling function: recomputes the tiling from the shape in the kernel.
// dataTypeSize1 is the size of src's type, dataTypeSize2 that of the max/sum tensors.
constexpr SoftMaxTiling SoftMaxFlashV2TilingFunc(const SoftMaxShapeInfo& shapeInfo, const uint32_t dataTypeSize1,
                                                 const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                                 const bool isUpdate = false, const bool isBasicBlock = false,
                                                 const bool isDataFormatNZ = false,
                                                 const bool isFlashOutputBrc = false) {
    (void)dataTypeSize1, (void)isUpdate, (void)isBasicBlock, (void)isDataFormatNZ, (void)isFlashOutputBrc;
    return softmax_model::make_tiling(shapeInfo.srcM, shapeInfo.srcK, dataTypeSize2, localWorkSpaceSize);
}

}  // namespace AscendC

using AscendC::LogSoftMaxTiling;
using AscendC::SoftMaxTiling;
