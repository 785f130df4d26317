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
    gert::StorageShape shape;
    gert::CompileTimeTensorDesc desc;
    gert::Tensor tensor;
    std::vector<uint8_t> values;  // a ValueDepend input's elements (empty: the tiling does not see them)

    void sync() { tensor.Set(shape, desc, values.empty() ? nullptr : values.data()); }
};

struct OpCall {
    std::string op_type;
    // Per OpDef Input(), its instances: none for an OPTIONAL input left out, several for a DYNAMIC one.
    std::vector<std::vector<TensorArg>> ir_inputs;
    std::vector<TensorArg*> input_instances;  // every instance in order: what GetInputShape(i) and friends index
    std::vector<TensorArg> outputs;           // in the OpDef's Output() order
    std::vector<gert::AttrValue> attrs;
    fe::PlatFormInfos platform;
    std::vector<uint8_t> tiling = std::vector<uint8_t>(kTilingCapacity, 0);
    size_t tiling_size = 0;
    uint32_t block_dim = 0;
    uint64_t tiling_key = 0;
    std::vector<size_t> workspaces;
    uint32_t schedule_mode = 0;

    // Call once ir_inputs is complete (the instance pointers point into it).
    void index_instances() {
        input_instances.clear();
        for (auto& instances : ir_inputs)
            for (auto& t : instances) {
                t.sync();  // its values pointer, now that the tensor is at its place
                input_instances.push_back(&t);
            }
    }
};

// An input by its instance index (GetInputShape, GetInputDesc, GetInputTensor): absent OPTIONAL inputs take no
// index, a DYNAMIC input one per tensor.
inline TensorArg* instance_at(const OpCall& call, size_t index) {
    return index < call.input_instances.size() ? call.input_instances[index] : nullptr;
}

// An input by its OpDef (IR) index and, for a DYNAMIC input, the index within it.
inline TensorArg* ir_at(OpCall& call, size_t ir_index, size_t relative = 0) {
    if (ir_index >= call.ir_inputs.size() || relative >= call.ir_inputs[ir_index].size()) return nullptr;
    return &call.ir_inputs[ir_index][relative];
}

inline TensorArg* output_at(OpCall& call, size_t index) {
    return index < call.outputs.size() ? &call.outputs[index] : nullptr;
}

}  // namespace ascendgen_host
