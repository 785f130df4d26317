// TCubeTiling, the Matmul tiling the host fills (matmul_tiling::MatmulApiTiling / MultiCoreMatmulTiling::GetTiling,
// host/tiling/matmul_tiling.h) and the kernel hands to REGIST_MATMUL_OBJ / Matmul::Init (sim/matmul.h). Plain C++
// with no simulator state, so that host code, kernel code and an op_host TilingData
// (TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData)) share one definition.
//
// Fields: the TCubeTiling page (TCubeTiling结构体.md, asc-devkit v8.5.0; hiascend atlasascendc_api_07_0673) names
// them, all `int`. The layout is ours: 31 int32_t in this order, 124 bytes, which is what a host that packs the bytes
// itself (Python struct "<31i") must write:
//   usedCoreNum M N Ka Kb singleCoreM singleCoreN singleCoreK baseM baseN baseK depthA1 depthB1 stepM stepN isBias
//   transLength iterateOrder shareMode shareL1Size shareL0CSize shareUbSize batchM batchN singleBatchM singleBatchN
//   stepKa stepKb dbL0A dbL0B dbL0C
// (the page's table order, with stepKa/stepKb and dbL0A/B/C after the reserved batch fields; assumption: the order
// public kernels that copy the struct word by word were written against).
// Each field also has set_<field>/get_<field>, as an op_host TilingData class field does (tilingdata_base.h).
#pragma once
#include <cstdint>

#define ASCENDC_SIM_TCUBE_TILING_FIELDS(X)                                                                      \
    X(usedCoreNum) X(M) X(N) X(Ka) X(Kb) X(singleCoreM) X(singleCoreN) X(singleCoreK) X(baseM) X(baseN) X(baseK) \
    X(depthA1) X(depthB1) X(stepM) X(stepN) X(isBias) X(transLength) X(iterateOrder) X(shareMode) X(shareL1Size)  \
    X(shareL0CSize) X(shareUbSize) X(batchM) X(batchN) X(singleBatchM) X(singleBatchN) X(stepKa) X(stepKb)        \
    X(dbL0A) X(dbL0B) X(dbL0C)

struct TCubeTiling {
#define ASCENDC_SIM_TCUBE_FIELD(name)                     \
    int32_t name = 0;                                     \
    void set_##name(int32_t value) { name = value; }      \
    int32_t get_##name() const { return name; }
    ASCENDC_SIM_TCUBE_TILING_FIELDS(ASCENDC_SIM_TCUBE_FIELD)
#undef ASCENDC_SIM_TCUBE_FIELD
    size_t GetDataSize() const { return sizeof(*this); }
};

static_assert(sizeof(TCubeTiling) == 31 * sizeof(int32_t), "TCubeTiling is 31 int32_t fields");

namespace AscendC {
using ::TCubeTiling;
}  // namespace AscendC

namespace optiling {
using ::TCubeTiling;
}  // namespace optiling
