#include <algorithm>
#include "add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t QUEUE_NUM = 3;  // x, y in; z out

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    // sizes vary between calls: read them from the context, never assume a shape
    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    if (typeSize == 0 || coreNum == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t alignElems = BLOCK_BYTES / typeSize;
    uint32_t alignedBlocks = (totalLength + alignElems - 1) / alignElems;
    uint32_t usedCores = std::max<uint32_t>(1, std::min(coreNum, alignedBlocks));
    uint32_t coreLength = (alignedBlocks + usedCores - 1) / usedCores * alignElems;
    uint32_t blockDim = coreLength == 0 ? 1 : (totalLength + coreLength - 1) / coreLength;
    uint32_t tileLength = static_cast<uint32_t>(ubSize / 2 / (QUEUE_NUM * BUFFER_NUM) / typeSize) / alignElems * alignElems;
    tileLength = std::max(alignElems, std::min(tileLength, coreLength));

    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    const float *alpha = attrs->GetAttrPointer<float>(0);

    AddCustomTilingData tiling;
    tiling.set_totalLength(totalLength);
    tiling.set_coreLength(coreLength);
    tiling.set_tileLength(tileLength);
    tiling.set_alpha(alpha == nullptr ? 0.5f : *alpha);
    context->SetBlockDim(std::max<uint32_t>(1, blockDim));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AddCustom : public OpDef {
public:
    explicit AddCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(0.5);

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AddCustom);
}  // namespace ops
