#include <cstring>
#include <stdexcept>
#include "probe_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    const int64_t mode = *context->GetAttrs()->GetAttrPointer<int64_t>(0);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    if (mode == 1) {
        volatile int *nowhere = nullptr;
        *nowhere = 1;
    } else if (mode == 2) {
        for (volatile uint64_t i = 0;; i = i + 1) {
        }
    } else if (mode == 3) {
        HugeTilingData huge;
        huge.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    } else if (mode == 4) {
        const int32_t *wrong = context->GetAttrs()->GetAttrPointer<int32_t>(0);
        (void)wrong;
    } else if (mode == 5) {
        uint64_t l2Size = 0;
        platform.GetCoreMemSize(platform_ascendc::CoreMemType::L2, l2Size);
    } else if (mode == 6) {
        throw std::runtime_error("probe asked to throw");
    } else if (mode == 8) {
        const float *values = context->GetInputTensor(0)->GetData<float>();  // x is not ValueDepend
        (void)values;
    }
    ge::Shape rows({2, 3, 4});  // what op_host code hands the high-level APIs' host tiling
    if (rows.GetDimNum() != 3 || rows.GetShapeSize() != 24 || rows.GetDim(2) != 4) {
        return ge::GRAPH_FAILED;
    }
    ProbeTilingData tiling;
    tiling.set_length(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    tiling.set_hasBias(context->GetOptionalInputShape(1) != nullptr ? 1 : 0);
    tiling.set_mode(mode);
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    tiling.set_coreNumAiv(platform.GetCoreNumAiv());
    tiling.set_coreNumAic(platform.GetCoreNumAic());
    tiling.set_ubSize(ubSize);
    tiling.set_socVersion(static_cast<uint32_t>(platform.GetSocVersion()));
    tiling.set_tschBlockDim(platform.CalcTschBlockDim(5, 0, platform.GetCoreNumAiv()) * 1000 +
                            platform.CalcTschBlockDim(platform.GetCoreNumAiv(), platform.GetCoreNumAic(),
                                                      platform.GetCoreNumAiv()));
    tiling.set_managerCoreNum(platform_ascendc::PlatformAscendCManager::GetInstance()->GetCoreNum());
    tiling.set_inputInstances(context->GetComputeNodeInputNum());
    const gert::ContinuousVector *dims = context->GetAttrs()->GetListInt(1);
    const int64_t *dimValues = reinterpret_cast<const int64_t *>(dims->GetData());
    int64_t dimsSum = 0;
    for (size_t i = 0; i < dims->GetSize(); i++) {
        dimsSum += dimValues[i];
    }
    tiling.set_dimsSum(dimsSum);
    tiling.set_dimsCount(dims->GetSize());
    tiling.set_tagLength(strlen(context->GetAttrs()->GetStr(2)));
    const gert::Tensor *scale = context->GetOptionalInputTensor(2);
    if (scale != nullptr) {
        tiling.set_scaleValue(scale->GetData<float>()[0]);
        tiling.set_hasScale(1);
    }
    if (context->GetInputShape(tiling.get_inputInstances()) != nullptr) {
        return ge::GRAPH_FAILED;  // instance indices end with the inputs given
    }
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    if (mode == 9) {
        context->GetTilingData<ProbeTilingData>()->length += 1;  // the struct in place, as newer host code writes it
    }
    size_t *workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = platform.GetLibApiWorkSpaceSize() + tiling.get_length() * sizeof(float);
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class ProbeCustom : public OpDef {
public:
    explicit ProbeCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("scale").ParamType(OPTIONAL).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).ValueDepend(OPTIONAL);
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("mode").AttrType(OPTIONAL).Int(0);
        this->Attr("dims").AttrType(OPTIONAL).ListInt({1, 2, 3});
        this->Attr("tag").AttrType(OPTIONAL).String("probe");
        this->AICore().SetTiling(optiling::TilingFunc);

        OpAICoreConfig halfOnly;  // on 310P the probe takes half tensors
        halfOnly.Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        halfOnly.Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        halfOnly.Input("scale").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        halfOnly.Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend910_93");
        this->AICore().AddConfig("ascend310p", halfOnly);
    }
};
OP_ADD(ProbeCustom);
} // namespace ops
