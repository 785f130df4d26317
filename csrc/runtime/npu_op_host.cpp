// torch_ascendgen: the driver of an operator project's host library on the NPU. It follows the op's
// op_host/<op>.cpp in one translation unit (torch_ascendgen/targets/npu/op_project.py), which defines
// ASCENDGEN_OP_TYPE (the OpDef class OP_ADD registers) first. The library is loaded only in the sandboxed
// NPU child (through ctypes); nothing here runs in the caller's process.
//
// ascendgen_op_host_tiling runs the op's TilingFunc for one call's shapes, dtypes and attributes and reports
// block dim, tiling key, the tiling bytes and the workspace size. The TilingContext is built the documented way
// to run a TilingFunc outside the graph engine, context_ascendc::ContextBuilder ("ContextBuilder 简介",
// hiascend.com .../canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_1007.html; SetOpNameType,
// NodeIoNum, IrInstanceNum, AddInputTd, AddOutputTd, AddAttr, PlatformInfo, BuildTilingContext on the pages
// that follow it). The platform description comes from fe::PlatformInfoManager (assumed: it is what fills
// the fe::PlatFormInfos the PlatformInfo page asks for; not on a documentation page found).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "platform/platform_info.h"
#include "tiling/context/context_builder.h"

#ifndef ASCENDGEN_OP_TYPE
#error "define ASCENDGEN_OP_TYPE as the OpDef class (the argument of OP_ADD) before including npu_op_host.cpp"
#endif
#define ASCENDGEN_STRING2(x) #x
#define ASCENDGEN_STRING(x) ASCENDGEN_STRING2(x)

namespace ascendgen_op_host {

constexpr int32_t kHostAbiVersion = 1;
constexpr size_t kTilingCapacity = 64 * 1024;  // the tiling bytes a launch carries at most
constexpr size_t kMaxWorkspaces = 16;
constexpr size_t kErrorCapacity = 1024;

}  // namespace ascendgen_op_host

// Mirrored by op_project.HostPlan (ctypes): keep the two in step.
struct AscendgenOpPlan {
    uint32_t status;        // the TilingFunc's ge::graphStatus (0: GRAPH_SUCCESS)
    uint32_t block_dim;
    uint64_t tiling_key;
    uint64_t tiling_size;   // bytes of `tiling` the TilingFunc wrote (GetRawTilingData()->GetDataSize())
    uint64_t workspace_bytes;
    uint8_t tiling[ascendgen_op_host::kTilingCapacity];
    char error[ascendgen_op_host::kErrorCapacity];
};

namespace ascendgen_op_host {

struct TensorArgs {
    uint32_t count;
    const int32_t* dtypes;  // ge::DataType values
    const int32_t* ranks;
    const int64_t* dims;    // every tensor's dims, one after another
};

gert::StorageShape storage_shape(const int64_t* dims, int32_t rank)
{
    gert::StorageShape shape;
    for (int32_t d = 0; d < rank; ++d) {
        shape.MutableOriginShape().AppendDim(dims[d]);
        shape.MutableStorageShape().AppendDim(dims[d]);
    }
    return shape;
}

std::vector<std::string> words(const std::string& line)
{
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string word; in >> word;) out.push_back(word);
    return out;
}

std::string unhex(const std::string& text)
{
    if (text == "-") return "";
    std::string out;
    for (size_t i = 0; i + 1 < text.size(); i += 2) out.push_back(char(std::stoi(text.substr(i, 2), nullptr, 16)));
    return out;
}

// One attribute line, "<name> <Kind> <count> <values...>" (op_project.attr_text): floats in hex, strings
// hex-encoded. Added in the OpDef's declaration order, the order the TilingFunc's GetAttrs() indexes.
void add_attr(context_ascendc::ContextBuilder& builder, const std::string& line)
{
    std::vector<std::string> w = words(line);
    if (w.size() < 3 || w.size() != 3 + std::stoul(w[2])) throw std::runtime_error("malformed attribute: " + line);
    const std::string& name = w[0];
    const std::string& kind = w[1];
    std::vector<std::string> values(w.begin() + 3, w.end());
    if (kind == "Int") {
        builder.AddAttr(name, static_cast<int64_t>(std::stoll(values.at(0))));
    } else if (kind == "Float") {
        builder.AddAttr(name, std::strtof(values.at(0).c_str(), nullptr));
    } else if (kind == "Bool") {
        builder.AddAttr(name, values.at(0) == "1");
    } else if (kind == "String") {
        builder.AddAttr(name, unhex(values.at(0)));
    } else if (kind == "ListInt") {
        std::vector<int64_t> list;
        for (const auto& v : values) list.push_back(std::stoll(v));
        builder.AddAttr(name, list);
    } else if (kind == "ListFloat") {
        std::vector<float> list;
        for (const auto& v : values) list.push_back(std::strtof(v.c_str(), nullptr));
        builder.AddAttr(name, list);
    } else if (kind == "ListBool") {
        std::vector<bool> list;
        for (const auto& v : values) list.push_back(v == "1");
        builder.AddAttr(name, list);
    } else {
        throw std::runtime_error("attribute " + name + " has the unknown kind " + kind);
    }
}

void add_tensors(context_ascendc::ContextBuilder& builder, const TensorArgs& tensors, bool inputs)
{
    const int64_t* dims = tensors.dims;
    for (uint32_t i = 0; i < tensors.count; ++i) {
        auto dtype = static_cast<ge::DataType>(tensors.dtypes[i]);
        gert::StorageShape shape = storage_shape(dims, tensors.ranks[i]);
        dims += tensors.ranks[i];
        if (inputs) {
            builder.AddInputTd(int32_t(i), dtype, ge::FORMAT_ND, ge::FORMAT_ND, shape);
        } else {
            builder.AddOutputTd(int32_t(i), dtype, ge::FORMAT_ND, ge::FORMAT_ND, shape);
        }
    }
}

TilingFunction op_tiling_function()
{
    static ops::ASCENDGEN_OP_TYPE definition(ASCENDGEN_STRING(ASCENDGEN_OP_TYPE));  // runs its AICore().SetTiling
    (void)definition;
    return recorded_tiling;
}

void run_tiling(const char* soc_version, const TensorArgs& inputs, const TensorArgs& outputs, const char* attrs,
                AscendgenOpPlan* plan)
{
    TilingFunction tiling = op_tiling_function();
    if (tiling == nullptr)
        throw std::runtime_error(std::string("the OpDef ") + ASCENDGEN_STRING(ASCENDGEN_OP_TYPE) +
                                 " registers no tiling function: call this->AICore().SetTiling(<TilingFunc>) in "
                                 "its constructor");
    fe::PlatFormInfos platform;
    fe::OptionalInfos optional;
    if (fe::PlatformInfoManager::Instance().InitializePlatformInfo() != 0 ||
        fe::PlatformInfoManager::Instance().GetPlatformInfos(soc_version, platform, optional) != 0)
        throw std::runtime_error(std::string("CANN has no platform description of ") + soc_version +
                                 " (is CANN's set_env.sh sourced?)");
    auto tiling_data = gert::TilingData::CreateCap(kTilingCapacity);
    auto workspaces = gert::ContinuousVector::Create<size_t>(kMaxWorkspaces);
    context_ascendc::ContextBuilder builder;
    builder.SetOpNameType(ASCENDGEN_STRING(ASCENDGEN_OP_TYPE), ASCENDGEN_STRING(ASCENDGEN_OP_TYPE))
        .NodeIoNum(inputs.count, outputs.count)
        .IrInstanceNum(std::vector<uint32_t>(inputs.count, 1));
    add_tensors(builder, inputs, true);
    add_tensors(builder, outputs, false);
    std::istringstream lines(attrs == nullptr ? "" : attrs);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty()) add_attr(builder, line);
    }
    builder.TilingData(tiling_data.get()).Workspace(workspaces.get()).PlatformInfo(&platform);
    auto holder = builder.BuildTilingContext();
    gert::TilingContext* context = holder->GetContext<gert::TilingContext>();
    plan->status = static_cast<uint32_t>(tiling(context));
    plan->block_dim = context->GetBlockDim();
    plan->tiling_key = context->GetTilingKey();
    const gert::TilingData* raw = context->GetRawTilingData();
    plan->tiling_size = raw->GetDataSize();
    if (plan->tiling_size > kTilingCapacity) throw std::runtime_error("the tiling data overran its capacity");
    std::memcpy(plan->tiling, raw->GetData(), plan->tiling_size);
    const auto* sizes = reinterpret_cast<const gert::ContinuousVector*>(workspaces.get());
    const auto* values = static_cast<const size_t*>(sizes->GetData());
    plan->workspace_bytes = 0;
    for (size_t i = 0; i < sizes->GetSize(); ++i) plan->workspace_bytes += values[i];
}

}  // namespace ascendgen_op_host

extern "C" __attribute__((visibility("default"))) int32_t ascendgen_op_host_abi_version()
{
    return ascendgen_op_host::kHostAbiVersion;
}

// Returns 0 with `plan` filled (its status is the TilingFunc's), or 1 with plan->error saying what failed.
extern "C" __attribute__((visibility("default"))) int32_t ascendgen_op_host_tiling(
    const char* soc_version, uint32_t input_count, const int32_t* input_dtypes, const int32_t* input_ranks,
    const int64_t* input_dims, uint32_t output_count, const int32_t* output_dtypes, const int32_t* output_ranks,
    const int64_t* output_dims, const char* attrs, AscendgenOpPlan* plan)
{
    if (plan == nullptr || soc_version == nullptr) return 1;
    std::memset(plan->error, 0, sizeof(plan->error));
    try {
        ascendgen_op_host::run_tiling(soc_version, {input_count, input_dtypes, input_ranks, input_dims},
                                      {output_count, output_dtypes, output_ranks, output_dims}, attrs, plan);
        return 0;
    } catch (const std::exception& error) {
        std::strncpy(plan->error, error.what(), sizeof(plan->error) - 1);
    } catch (...) {
        std::strncpy(plan->error, "the host code threw a non-standard exception", sizeof(plan->error) - 1);
    }
    return 1;
}
