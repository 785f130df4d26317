#include "add_n_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    uint32_t tensorNum = context->GetComputeNodeInputNum();
    const gert::StorageShape *first = context->GetDynamicInputShape(0, 0);
    if (tensorNum == 0 || first == nullptr) {
        return ge::GRAPH_FAILED;
    }
    int64_t totalLength = first->GetStorageShape().GetShapeSize();
    for (uint32_t i = 1; i < tensorNum; i++) {
        if (context->GetDynamicInputShape(0, i)->GetStorageShape().GetShapeSize() != totalLength) {
            return ge::GRAPH_FAILED;
        }
    }
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    uint32_t alignNum = 32 / typeSize;
    // whole 64-byte cache lines per core, so that no two cores share one
    uint32_t lineNum = 64 / typeSize;
    uint32_t blockLength = ((totalLength + coreNum - 1) / coreNum + lineNum - 1) / lineNum * lineNum;
    uint32_t blockDim = (totalLength + blockLength - 1) / blockLength;
    uint32_t tileLength = 2048 / typeSize / alignNum * alignNum;

    AddNTilingData tiling;
    tiling.set_tensorNum(tensorNum);
    tiling.set_blockLength(blockLength);
    tiling.set_lastBlockLength(totalLength - (blockDim - 1) * blockLength);
    tiling.set_tileLength(tileLength < blockLength ? tileLength : blockLength);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
    *context->GetOutputShape(0) = *context->GetDynamicInputShape(0, 0);
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class AddNCustom : public OpDef {
public:
    explicit AddNCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(DYNAMIC).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(AddNCustom);
} // namespace ops
