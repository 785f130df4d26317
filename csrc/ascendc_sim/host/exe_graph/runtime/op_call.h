// One call of an operator project on the host: its tensors, attribute values, SoC and what its TilingFunc set.
// The contexts (TilingContext, InferShapeContext, InferDataTypeContext) are views of it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "exe_graph/runtime/platform_infos.h"
#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/tensor.h"

namespace ascendgen_host {

// Room for the tiling bytes (assumed; the documented API gives it as GetRawTilingData()->GetCapacity()).
constexpr size_t kTilingCapacity = 64 * 1024;
constexpr size_t kMaxWorkspaces = 16;

struct TensorArg {
    std::string name;
    bool present = false;  // an OPTIONAL input the caller left out is absent
    gert::StorageShape shape;
    gert::CompileTimeTensorDesc desc;
    gert::Tensor tensor;

    void sync() { tensor.Set(shape, desc); }
};

struct OpCall {
    std::string op_type;
    std::vector<TensorArg> inputs;   // in the OpDef's Input() order
    std::vector<TensorArg> outputs;  // in its Output() order
    std::vector<gert::AttrValue> attrs;
    fe::PlatFormInfos platform;
    std::vector<uint8_t> tiling = std::vector<uint8_t>(kTilingCapacity, 0);
    size_t tiling_size = 0;
    uint32_t block_dim = 0;
    uint64_t tiling_key = 0;
    std::vector<size_t> workspaces;
    uint32_t schedule_mode = 0;
};

inline const TensorArg* tensor_at(const std::vector<TensorArg>& list, size_t index) {
    return index < list.size() && list[index].present ? &list[index] : nullptr;
}

}  // namespace ascendgen_host
