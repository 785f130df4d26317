// Tiling data of LayerNorm (LayerNormTiling, LayerNormSeparateTiling, LayerNormPara, LayerNormConfig) and RmsNorm
// (RmsNormTiling), and the simulator's model of their temporary space. Plain C++ shared by the host helpers
// (host/tiling/norm_tiling.h) and the kernel side (sim/normalization.h).
//
// Field names are those of LayerNorm-Tiling.md and RmsNorm-Tiling.md; what they hold is ours (the pages call the
// structs opaque). The kernel side reads the shape fields (bLength, sLength, hLength, originalHLength; aLength) and
// the rows planned per pass (bsCurLength, mainBsLength, aCurLength) to check that the workspace is there.
//
// Temporary space (ours): a row of H elements in flight needs `floats` float rows (LayerNorm 3: centred x, its
// square, the result) plus 64 bytes; RmsNorm: see rms_tmp_bytes. min = one row, max = every row.
#pragma once
#include <cstdint>

namespace AscendC {
namespace tiling {

struct LayerNormTiling {
    uint32_t bLength = 0;
    uint32_t sLength = 0;
    uint32_t hLength = 0;
    uint32_t originalHLength = 0;
    uint32_t inputXSize = 0;
    uint32_t meanVarSize = 0;
    uint32_t numberOfTmpBuf = 0;
    uint32_t meanTmpTensorPos = 0;
    uint32_t meanTmpTensorSize = 0;
    uint32_t varianceTmpTensorPos = 0;
    uint32_t varianceTmpTensorSize = 0;
    uint32_t tmpBufSize = 0;
    uint32_t oneTmpSize = 0;
    uint32_t firstTmpStartPos = 0;
    uint32_t secondTmpStartPos = 0;
    uint32_t thirdTmpStartPos = 0;
    uint32_t loopRound = 0;
    uint32_t inputRoundSize = 0;
    uint32_t inputTailSize = 0;
    uint32_t inputTailPos = 0;
    uint32_t meanVarRoundSize = 0;
    uint32_t meanVarTailSize = 0;
    uint32_t meanVarTailPos = 0;
    uint32_t bshCurLength = 0;
    uint32_t bsCurLength = 0;
    float lastDimValueBack = 0.0f;
};

// DeepNorm-Tiling.md: the same fields as LayerNormTiling.
struct DeepNormTiling : LayerNormTiling {};

struct LayerNormSeparateTiling {
    uint32_t aLength = 0;
    uint32_t rLength = 0;
    uint32_t halfAddRepeatTimes = 0;
    uint32_t rHeadLength = 0;
    float k2Rec = 0;
    float k2RRec = 0;
    uint32_t inputXSize = 0;
    uint32_t meanVarSize = 0;
    uint32_t numberOfTmpBuf = 0;
    uint32_t varianceTmpTensorPos = 0;
    uint32_t varianceTmpTensorSize = 0;
    uint32_t tmpBufSize = 0;
    uint32_t oneTmpSize = 0;
    uint32_t firstTmpStartPos = 0;
    uint32_t secondTmpStartPos = 0;
    uint32_t thirdTmpStartPos = 0;
    uint32_t loopRound = 0;
    uint32_t inputRoundSize = 0;
    uint32_t inputTailSize = 0;
    uint32_t inputTailPos = 0;
    uint32_t meanVarRoundSize = 0;
    uint32_t meanVarTailSize = 0;
    uint32_t meanVarTailPos = 0;
    uint32_t arCurLength = 0;
    uint32_t aCurLength = 0;
    float rValueBack = 0;
};

// BatchNorm-Tiling.md. Ours: originalBLength = B, meanVarSize = S*H, shCurLength = S*H columns per pass.
struct BatchNormTiling {
    uint32_t originalBLength = 0;
    uint32_t meanVarSize = 0;
    uint32_t meanTmpTensorPos = 0;
    uint32_t varianceTmpTensorPos = 0;
    uint32_t tmpBufSize = 0;
    uint32_t oneTmpSize = 0;
    uint32_t firstTmpStartPos = 0;
    uint32_t secondTmpStartPos = 0;
    uint32_t thirdTmpStartPos = 0;
    uint32_t loopRound = 0;
    uint32_t inputTailSize = 0;
    uint32_t inputTailPos = 0;
    uint32_t meanVarTailSize = 0;
    uint32_t meanVarTailPos = 0;
    uint32_t bshCurLength = 0;
    uint32_t shCurLength = 0;
    float firstDimValueBack = 0;
    uint32_t castHalfRepStride = 0;
    uint32_t shCurLengthBlockNum = 0;
    uint32_t castHalfOutRepStride = 0;
};

// GroupNorm-Tiling.md. Ours: n, c, hw = H*W, g groups, d = c/g channels per group, factor = 1/(d*hw),
// bsCurLength = groups (n*g rows of d*hw) per pass.
struct GroupNormTiling {
    uint32_t n = 0;
    uint32_t c = 0;
    uint32_t hw = 0;
    uint32_t g = 0;
    uint32_t d = 0;
    uint32_t hwAlignSize = 0;
    uint32_t dhwAlignSize = 0;
    uint32_t inputXSize = 0;
    uint32_t meanVarSize = 0;
    uint32_t numberOfTmpBuf = 0;
    uint32_t meanTmpTensorPos = 0;
    uint32_t meanTmpTensorSize = 0;
    uint32_t varianceTmpTensorPos = 0;
    uint32_t varianceTmpTensorSize = 0;
    uint32_t tmpBufSize = 0;
    uint32_t oneTmpSize = 0;
    uint32_t firstTmpStartPos = 0;
    uint32_t secondTmpStartPos = 0;
    uint32_t thirdTmpStartPos = 0;
    uint32_t loopRound = 0;
    uint32_t inputRoundSize = 0;
    uint32_t inputTailSize = 0;
    uint32_t inputTailPos = 0;
    uint32_t meanVarRoundSize = 0;
    uint32_t meanVarTailSize = 0;
    uint32_t meanVarTailPos = 0;
    uint32_t bshCurLength = 0;
    uint32_t bsCurLength = 0;
    float factor = 0;
    bool smallShape = 0;
};

// LayerNormGrad-Tiling.md / LayerNormGradBeta-Tiling.md. Ours: the shape fields, oneCalSize = rows per pass * H,
// nohCalSize / bsCurLength = rows per pass.
struct LayerNormGradTiling {
    uint32_t stackBufferSize = 0;
    uint32_t bLength = 0;
    uint32_t sLength = 0;
    uint32_t hLength = 0;
    uint32_t originalHLength = 0;
    uint32_t oneCalSize = 0;
    uint32_t nohCalSize = 0;
    uint32_t loopNum = 0;
    uint32_t tailSize = 0;
    uint32_t nohTailSize = 0;
    uint32_t tmpTensorBSHPos = 0;
    uint32_t tmpTensorBSHSize = 0;
    uint32_t pdVarTensorPos = 0;
    uint32_t pdVarTensorSize = 0;
    uint32_t pdMeanTensorPos = 0;
    uint32_t pdMeanTensorSize = 0;
    uint32_t x1TensorPos = 0;
    uint32_t x1TensorSize = 0;
    uint32_t x2TensorPos = 0;
    uint32_t x2TensorSize = 0;
    uint32_t x3TensorPos = 0;
    uint32_t x3TensorSize = 0;
    uint32_t tmpTensorPos = 0;
    uint32_t tmpTensorSize = 0;
    uint32_t tmpTensor1Pos = 0;
    uint32_t tmpTensor1Size = 0;
    uint32_t tmpTensor2Pos = 0;
    uint32_t tmpTensor2Size = 0;
    uint32_t lastDimValueBack = 0;
    uint32_t lastDimValueBackMulTwo = 0;
};

struct LayerNormGradBetaTiling {
    uint32_t stackBufferSize = 0;
    uint32_t bLength = 0;
    uint32_t sLength = 0;
    uint32_t hLength = 0;
    uint32_t originalHLength = 0;
    uint32_t bshLength = 0;
    uint32_t bsLength = 0;
    uint32_t oneCalSize = 0;
    uint32_t numberOfTmpBuf = 0;
    uint32_t loopRound = 0;
    uint32_t inputTailSize = 0;
    uint32_t inputTailPos = 0;
    uint32_t bsTailSize = 0;
    uint32_t bshCurLength = 0;
    uint32_t bsCurLength = 0;
    uint32_t gammaTempTensorPos = 0;
    uint32_t betaTempTensorPos = 0;
    uint32_t inputDyTmpTensorPos = 0;
    uint32_t resForGammaTmpTensorPos = 0;
    uint32_t reserved = 0;
};

struct RmsNormTiling {
    uint32_t bLength = 0;
    uint32_t sLength = 0;
    uint32_t hLength = 0;
    uint32_t originalHLength = 0;
    float reciprocalOfHLength = 0;
    uint32_t mainBshLength = 0;
    uint32_t mainBsLength = 0;
    uint32_t mainBsLengthAlign = 0;
    uint32_t loopRound = 0;
    uint32_t inputTailPos = 0;
    uint32_t tailBshLength = 0;
    uint32_t tailBsLength = 0;
};

}  // namespace tiling

using tiling::BatchNormTiling;
using tiling::DeepNormTiling;
using tiling::GroupNormTiling;
using tiling::LayerNormGradBetaTiling;
using tiling::LayerNormGradTiling;
using tiling::LayerNormSeparateTiling;
using tiling::LayerNormTiling;
using tiling::RmsNormTiling;

// LayerNorm.md, the [A, R] form.
struct LayerNormPara {
    uint32_t aLength;
    uint32_t rLength;
    uint32_t rLengthWithPadding;
};

struct LayerNormConfig {
    bool isNoBeta = false;
    bool isNoGamma = false;
    bool isOnlyOutput = false;
};

inline constexpr LayerNormConfig LNCFG_NORM = {false, false, false};

// Normalize.md. ReducePattern (AR = 0, ...) and DataFormat (ND = 0, ...) belong to other headers (the reduction
// APIs' host tiling and tensor.h); declaring them opaquely here keeps this header host-usable and lets it sit
// beside their definitions. Only the 0 values (AR, ND) are accepted by the APIs of this group.
enum class ReducePattern : uint32_t;
enum class DataFormat : uint8_t;

// LayerNormGrad.md (DataFormat{} is ND).
struct LayerNormGradShapeInfo {
    DataFormat dataFormat = DataFormat{};
};

struct NormalizeConfig {
    ReducePattern reducePattern = ReducePattern{};  // AR
    int32_t aLength = -1;
    bool isNoBeta = false;
    bool isNoGamma = false;
    bool isOnlyOutput = false;
};
inline constexpr NormalizeConfig NLCFG_NORM = {ReducePattern{}, -1, false, false, false};

struct NormalizePara {
    uint32_t aLength;
    uint32_t rLength;
    uint32_t rLengthWithPadding;
};

namespace norm_model {

constexpr uint32_t kLayerNormFloats = 3;

constexpr uint32_t align_up(uint32_t value, uint32_t unit) { return (value + unit - 1) / unit * unit; }

constexpr uint32_t row_tmp_bytes(uint32_t h, uint32_t floats) { return floats * align_up(h * 4u, 32u) + 64u; }

constexpr uint32_t rows_per_pass(uint32_t rows, uint32_t h, uint32_t floats, uint32_t workspace) {
    uint32_t fit = h == 0 ? 0 : workspace / row_tmp_bytes(h, floats);
    return fit < rows ? fit : rows;
}

// RmsNorm's temporary space for `rows` rows in flight: the row sums (rows aligned to 8 floats) and x^2 in float, and
// for half a float copy of x too. Ours, sized as public kernels give it (Tencent KsanaLLM's rmsnorm_kernel.cc: a
// workspace of mainBsLengthAlign + mainBshLength floats, plus mainBshLength more for half), so that they fit.
constexpr uint32_t rms_tmp_bytes(uint32_t rows, uint32_t h, uint32_t type_size) {
    return 4u * (align_up(rows, 8u) + rows * h * (type_size == 2 ? 2u : 1u));
}

constexpr uint32_t rms_rows_per_pass(uint32_t rows, uint32_t h, uint32_t type_size, uint32_t workspace) {
    uint32_t per_row = 4u * h * (type_size == 2 ? 2u : 1u);
    uint32_t fit = per_row == 0 ? 0 : workspace / per_row;
    if (fit > rows) fit = rows;
    while (fit > 0 && rms_tmp_bytes(fit, h, type_size) > workspace) --fit;
    return fit;
}

constexpr LayerNormTiling layer_norm(uint32_t b, uint32_t s, uint32_t h, uint32_t ori_h, uint32_t workspace) {
    LayerNormTiling t{};
    uint32_t bs = b * s, rows = rows_per_pass(bs, h, kLayerNormFloats, workspace);
    t.bLength = b, t.sLength = s, t.hLength = h, t.originalHLength = ori_h;
    t.inputXSize = bs * h, t.meanVarSize = bs, t.numberOfTmpBuf = kLayerNormFloats;
    t.tmpBufSize = workspace / 4, t.oneTmpSize = rows * h;
    t.meanTmpTensorSize = t.varianceTmpTensorSize = rows;
    t.firstTmpStartPos = 0, t.secondTmpStartPos = rows * h, t.thirdTmpStartPos = 2 * rows * h;
    t.loopRound = rows == 0 ? 0 : bs / rows;
    t.inputRoundSize = rows * h, t.inputTailSize = (rows == 0 ? bs : bs % rows) * h;
    t.inputTailPos = t.loopRound * rows * h;
    t.meanVarRoundSize = rows, t.meanVarTailSize = rows == 0 ? bs : bs % rows, t.meanVarTailPos = t.loopRound * rows;
    t.bshCurLength = rows * h, t.bsCurLength = rows;
    t.lastDimValueBack = ori_h == 0 ? 0.0f : 1.0f / static_cast<float>(ori_h);
    return t;
}

constexpr LayerNormSeparateTiling layer_norm_separate(uint32_t a, uint32_t r, uint32_t type_size,
                                                      uint32_t workspace) {
    LayerNormSeparateTiling t{};
    uint32_t r_pad = type_size == 0 ? r : align_up(r, 32u / type_size);
    uint32_t rows = rows_per_pass(a, r_pad, kLayerNormFloats, workspace);
    uint32_t head = 1;
    while (head * 2 <= r) head *= 2;
    t.aLength = a, t.rLength = r, t.rHeadLength = head;
    t.k2Rec = 1.0f / static_cast<float>(head), t.k2RRec = r == 0 ? 0.0f : static_cast<float>(head) / r;
    t.inputXSize = a * r_pad, t.meanVarSize = a, t.numberOfTmpBuf = kLayerNormFloats;
    t.tmpBufSize = workspace / 4, t.oneTmpSize = rows * r_pad;
    t.secondTmpStartPos = rows * r_pad, t.thirdTmpStartPos = 2 * rows * r_pad;
    t.loopRound = rows == 0 ? 0 : a / rows;
    t.inputRoundSize = rows * r_pad, t.inputTailSize = (rows == 0 ? a : a % rows) * r_pad;
    t.inputTailPos = t.loopRound * rows * r_pad;
    t.meanVarRoundSize = rows, t.meanVarTailSize = rows == 0 ? a : a % rows, t.meanVarTailPos = t.loopRound * rows;
    t.arCurLength = rows * r_pad, t.aCurLength = rows;
    t.rValueBack = r == 0 ? 0.0f : 1.0f / static_cast<float>(r);
    return t;
}

constexpr RmsNormTiling rms_norm(uint32_t b, uint32_t s, uint32_t h, uint32_t ori_h, uint32_t type_size,
                                 uint32_t workspace) {
    RmsNormTiling t{};
    uint32_t bs = b * s, rows = rms_rows_per_pass(bs, h, type_size, workspace);
    t.bLength = b, t.sLength = s, t.hLength = h, t.originalHLength = ori_h;
    t.reciprocalOfHLength = ori_h == 0 ? 0.0f : 1.0f / static_cast<float>(ori_h);
    t.mainBshLength = rows * h, t.mainBsLength = rows, t.mainBsLengthAlign = align_up(rows, 8);
    t.loopRound = rows == 0 ? 0 : bs / rows;
    t.inputTailPos = t.loopRound * rows * h;
    t.tailBsLength = rows == 0 ? bs : bs % rows, t.tailBshLength = t.tailBsLength * h;
    return t;
}

// BatchNorm: a pass covers all B rows of `cols` columns; a column needs kLayerNormFloats floats per row.
constexpr BatchNormTiling batch_norm(uint32_t b, uint32_t sh, uint32_t workspace) {
    BatchNormTiling t{};
    uint32_t per_col = b * 4u * kLayerNormFloats;
    uint32_t cols = per_col == 0 ? 0 : workspace / per_col / 8u * 8u;  // whole 32-byte blocks of floats
    if (cols > sh) cols = sh;
    t.originalBLength = b, t.meanVarSize = sh;
    t.tmpBufSize = workspace / 4, t.oneTmpSize = b * cols;
    t.secondTmpStartPos = b * cols, t.thirdTmpStartPos = 2 * b * cols;
    t.loopRound = cols == 0 ? 0 : sh / cols;
    t.inputTailSize = cols == 0 ? 0 : sh % cols, t.inputTailPos = t.loopRound * cols;
    t.meanVarTailSize = t.inputTailSize, t.meanVarTailPos = t.inputTailPos;
    t.bshCurLength = b * cols, t.shCurLength = cols, t.shCurLengthBlockNum = cols / 8u;
    t.firstDimValueBack = b == 0 ? 0.0f : 1.0f / static_cast<float>(b);
    return t;
}

constexpr uint32_t batch_norm_min_tmp(uint32_t b) { return b * 4u * kLayerNormFloats * 8u; }

// GroupNorm: a group of d*hw elements in flight needs kLayerNormFloats float copies plus 64 bytes.
constexpr GroupNormTiling group_norm(uint32_t n, uint32_t c, uint32_t hw, uint32_t g, uint32_t workspace) {
    GroupNormTiling t{};
    uint32_t d = g == 0 ? 0 : c / g, groups = n * g;
    uint32_t fit = d * hw == 0 ? 0 : workspace / row_tmp_bytes(d * hw, kLayerNormFloats);
    uint32_t rows = fit < groups ? fit : groups;
    t.n = n, t.c = c, t.hw = hw, t.g = g, t.d = d;
    t.hwAlignSize = align_up(hw, 8u), t.dhwAlignSize = align_up(d * hw, 8u);
    t.inputXSize = n * c * hw, t.meanVarSize = groups, t.numberOfTmpBuf = kLayerNormFloats;
    t.tmpBufSize = workspace / 4, t.oneTmpSize = rows * d * hw;
    t.loopRound = rows == 0 ? 0 : groups / rows;
    t.inputRoundSize = rows * d * hw, t.inputTailSize = (rows == 0 ? groups : groups % rows) * d * hw;
    t.inputTailPos = t.loopRound * rows * d * hw;
    t.meanVarRoundSize = rows, t.meanVarTailSize = rows == 0 ? groups : groups % rows;
    t.meanVarTailPos = t.loopRound * rows;
    t.bshCurLength = rows * d * hw, t.bsCurLength = rows;
    t.factor = d * hw == 0 ? 0.0f : 1.0f / static_cast<float>(d * hw);
    t.smallShape = rows == groups;
    return t;
}

// LayerNormGrad: a row of H in flight needs kLayerNormGradFloats float rows plus 64 bytes.
constexpr uint32_t kLayerNormGradFloats = 4;

constexpr LayerNormGradTiling layer_norm_grad(uint32_t b, uint32_t s, uint32_t h, uint32_t ori_h, uint32_t workspace) {
    LayerNormGradTiling t{};
    uint32_t bs = b * s, rows = rows_per_pass(bs, h, kLayerNormGradFloats, workspace);
    t.stackBufferSize = workspace, t.bLength = b, t.sLength = s, t.hLength = h, t.originalHLength = ori_h;
    t.oneCalSize = rows * h, t.nohCalSize = rows;
    t.loopNum = rows == 0 ? 0 : bs / rows;
    t.nohTailSize = rows == 0 ? bs : bs % rows, t.tailSize = t.nohTailSize * h;
    return t;
}

// LayerNormGradBeta: a row of H needs 2 float rows; the gamma/beta sums need 2 float rows more.
constexpr LayerNormGradBetaTiling layer_norm_grad_beta(uint32_t b, uint32_t s, uint32_t h, uint32_t ori_h,
                                                       uint32_t workspace) {
    LayerNormGradBetaTiling t{};
    uint32_t bs = b * s, fixed = 2 * align_up(h * 4u, 32u);
    uint32_t rows = workspace < fixed ? 0 : rows_per_pass(bs, h, 2, workspace - fixed);
    t.stackBufferSize = workspace, t.bLength = b, t.sLength = s, t.hLength = h, t.originalHLength = ori_h;
    t.bshLength = bs * h, t.bsLength = bs, t.oneCalSize = rows * h, t.numberOfTmpBuf = 4;
    t.loopRound = rows == 0 ? 0 : bs / rows;
    t.bsTailSize = rows == 0 ? bs : bs % rows, t.inputTailSize = t.bsTailSize * h, t.inputTailPos = t.loopRound * rows * h;
    t.bshCurLength = rows * h, t.bsCurLength = rows;
    return t;
}

}  // namespace norm_model
}  // namespace AscendC

using AscendC::BatchNormTiling;
using AscendC::DeepNormTiling;
using AscendC::GroupNormTiling;
using AscendC::LayerNormGradBetaTiling;
using AscendC::LayerNormGradTiling;
using AscendC::LayerNormSeparateTiling;
using AscendC::LayerNormTiling;
using AscendC::RmsNormTiling;
