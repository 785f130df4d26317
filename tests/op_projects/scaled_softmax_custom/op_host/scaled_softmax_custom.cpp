#include <algorithm>
#include "scaled_softmax_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    ScaledSoftmaxTilingData tiling;
    const gert::Shape &xShape = context->GetInputShape(0)->GetStorageShape();
    size_t dimNum = xShape.GetDimNum();
    if (dimNum == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t cols = xShape.GetDim(dimNum - 1);
    uint32_t rows = cols == 0 ? 0 : xShape.GetShapeSize() / cols;
    uint32_t colsAligned = (cols + 7) / 8 * 8;

    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    // 2 input + 2 output buffers + 1 work buffer of colsAligned floats, and 32 bytes for the reductions
    if (static_cast<uint64_t>(colsAligned) * sizeof(float) * 5 + 32 > ubSize) {
        return ge::GRAPH_FAILED;
    }

    uint32_t coreNum = ascendcPlatform.GetCoreNum();
    uint32_t usedCores = std::min(coreNum, rows);
    RowSplit split;
    if (usedCores > 0) {
        split.set_formerRows((rows + usedCores - 1) / usedCores);
        split.set_tailRows(rows / usedCores);
        split.set_formerNum(rows % usedCores == 0 ? usedCores : rows % usedCores);
    }

    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    const float *scale = attrs->GetAttrPointer<float>(0);
    const bool *logMode = attrs->GetAttrPointer<bool>(1);

    uint32_t shape[2] = {rows, cols};
    tiling.set_shape(shape);
    tiling.set_colsAligned(colsAligned);
    tiling.set_scale(*scale);
    tiling.set_logMode(*logMode ? 1 : 0);
    tiling.set_split(split);

    context->SetBlockDim(usedCores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = 0;
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class ScaledSoftmaxCustom : public OpDef {
public:
    explicit ScaledSoftmaxCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("scale").AttrType(REQUIRED).Float();
        this->Attr("log").AttrType(OPTIONAL).Bool(false);

        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend910_93");
    }
};
OP_ADD(ScaledSoftmaxCustom);
} // namespace ops
