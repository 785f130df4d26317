// The compile-time description of a Matmul object: CubeFormat, LayoutMode, MatmulType, MatmulConfig with the
// documented templates (CFG_NORM, CFG_MDL, Get*Config) and MatmulCallBackFunc (Matmul使用说明.md table 1,
// Matmul模板参数.md, MatmulConfig.md, asc-devkit v8.5.0). The simulator reads from them the position, format, type and
// transpose ability of each matrix; the MatmulConfig fields are kept so that kernels that set them compile, and only
// scheduleType (OUTER_PRODUCT is refused) and the callbacks (refused) change what the simulator does.
#pragma once
#include <cstdint>

#include "tensor.h"

// Global, as kernels write it unqualified next to AscendC::TPosition.
enum class CubeFormat { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };

namespace AscendC {

using ::CubeFormat;

enum class LayoutMode { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
};

enum class IterateOrder { ORDER_M = 0, ORDER_N, UNDEF };
enum class ScheduleType { INNER_PRODUCT = 0, OUTER_PRODUCT };
enum class BatchMode { NONE = 0, BATCH_LESS_THAN_L1, BATCH_LARGE_THAN_L1, SINGLE_LARGE_THAN_L1 };
enum class IterateMode : uint8_t { ITERATE_MODE_NORMAL = 0b1, ITERATE_MODE_ALL = 0b10, ITERATE_MODE_BATCH = 0b100,
                                   ITERATE_MODE_N_BATCH = 0b1000, ITERATE_MODE_DEFAULT = 0b11111111 };
enum class BatchOutMode { SINGLE_BATCH = 0, MULTI_BATCH, DYNAMIC };

// MatmulConfig.md's fields, in the page's order (aggregate-initialised by kernels: MatmulConfig{false, true, ...}).
struct MatmulConfig {
    bool doNorm = true;
    bool doBasicBlock = false;
    bool doMultiDataLoad = false;
    uint32_t basicM = 0;
    uint32_t basicN = 0;
    uint32_t basicK = 0;
    bool intrinsicsCheck = false;
    bool isNBatch = false;
    bool enVecND2NZ = false;
    bool doSpecialBasicBlock = false;
    uint32_t doMTE2Preload = 0;
    uint32_t singleCoreM = 0;
    uint32_t singleCoreN = 0;
    uint32_t singleCoreK = 0;
    uint32_t stepM = 0;
    uint32_t stepN = 0;
    uint32_t baseMN = 0;
    uint32_t singleCoreMN = 0;
    bool enUnitFlag = true;
    bool isPerTensor = false;
    bool hasAntiQuantOffset = false;
    bool doIBShareNorm = false;
    bool doSpecialMDL = false;
    bool enableInit = true;
    BatchMode batchMode = BatchMode::NONE;
    bool enableEnd = true;
    bool enableGetTensorC = true;
    bool enableSetOrgShape = true;
    bool enableSetBias = true;
    bool enableSetTail = true;
    bool enableQuantVector = true;
    bool enableSetDefineData = true;
    uint8_t iterateMode = uint8_t(IterateMode::ITERATE_MODE_DEFAULT);
    bool enableReuse = true;
    bool enableUBReuse = false;
    bool enableL1CacheUB = false;
    bool intraBlockPartSum = false;
    IterateOrder iterateOrder = IterateOrder::UNDEF;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool enableDoubleCache = false;
    bool isBiasBatch = true;
    bool enableStaticPadZeros = false;
    bool isPartialOutput = false;
    bool enableMixDualMaster = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
    bool enableRelu = false;
};

namespace matmul_config_detail {
constexpr MatmulConfig with(MatmulConfig c, bool norm, bool basic, bool mdl, bool special_basic, bool special_mdl,
                            bool ib_share) {
    c.doNorm = norm;
    c.doBasicBlock = basic;
    c.doMultiDataLoad = mdl;
    c.doSpecialBasicBlock = special_basic;
    c.doSpecialMDL = special_mdl;
    c.doIBShareNorm = ib_share;
    return c;
}
}  // namespace matmul_config_detail

// The getters take the pages' optional arguments (intrinsicsLimit, batchLoop, isVecND2NZ, ...); the simulator's
// Matmul does not depend on them, so they are accepted and not kept. GetBasicConfig keeps the basic block.
template <typename... Options>
constexpr MatmulConfig GetNormalConfig(Options...) {
    return matmul_config_detail::with(MatmulConfig{}, true, false, false, false, false, false);
}
template <typename... Options>
constexpr MatmulConfig GetMDLConfig(Options...) {
    return matmul_config_detail::with(MatmulConfig{}, false, false, true, false, false, false);
}
template <typename... Options>
constexpr MatmulConfig GetSpecialMDLConfig(Options...) {
    return matmul_config_detail::with(MatmulConfig{}, false, false, false, false, true, false);
}
template <typename... Options>
constexpr MatmulConfig GetIBShareNormConfig(Options...) {
    return matmul_config_detail::with(MatmulConfig{}, false, false, false, false, false, true);
}
template <typename... Options>
constexpr MatmulConfig GetBasicConfig(uint32_t basicM, uint32_t basicN, uint32_t basicK, Options...) {
    MatmulConfig c = matmul_config_detail::with(MatmulConfig{}, false, true, false, false, false, false);
    c.basicM = basicM;
    c.basicN = basicN;
    c.basicK = basicK;
    return c;
}
template <typename... Options>
constexpr MatmulConfig GetSpecialBasicConfig(uint32_t basicM, uint32_t basicN, uint32_t basicK, Options...) {
    MatmulConfig c = GetBasicConfig(basicM, basicN, basicK);
    c.doBasicBlock = false;
    c.doSpecialBasicBlock = true;
    return c;
}

constexpr MatmulConfig CFG_NORM = GetNormalConfig();
constexpr MatmulConfig CFG_MDL = GetMDLConfig();
constexpr MatmulConfig CFG_IBSHARE_NORM = GetIBShareNormConfig();
constexpr MatmulConfig MM_CFG_BB = GetBasicConfig(128, 128, 128);

// MatmulCallBackFunc.md: user copy functions for GM->A1/B1 and CO1->GM. Not simulated (refused at Init).
template <auto DataCopyOut = nullptr, auto CopyA1 = nullptr, auto CopyB1 = nullptr>
struct MatmulCallBackFunc {
    static constexpr bool any = !(DataCopyOut == nullptr && CopyA1 == nullptr && CopyB1 == nullptr);
};

}  // namespace AscendC
