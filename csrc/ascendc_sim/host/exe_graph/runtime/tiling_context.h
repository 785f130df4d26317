// gert::TilingContext and gert::TilingData (clean-room, from the documented host API): what an op's TilingFunc
// reads (input/output shapes and descs, attributes, the SoC) and sets (block dim, tiling key, the tiling bytes and
// their size, workspace sizes). GetInput* index input instances; GetOptional/Required/DynamicInput* the OpDef's
// inputs. An input that is not there reads as nullptr.
#pragma once
#include <cstring>
#include <string>

#include "exe_graph/runtime/op_call.h"

namespace gert {

class TilingData {
public:
    explicit TilingData(ascendgen_host::OpCall* call = nullptr) : call_(call) {}
    void* GetData() { return call_->tiling.data(); }
    const void* GetData() const { return call_->tiling.data(); }
    size_t GetCapacity() const { return call_->tiling.size(); }
    size_t GetDataSize() const { return call_->tiling_size; }
    void SetDataSize(size_t size) {
        if (size > GetCapacity())
            ascendgen_host::host_fail("GetRawTilingData()->SetDataSize(" + std::to_string(size) +
                                      "): larger than the tiling capacity of " + std::to_string(GetCapacity()) +
                                      " bytes; make the TilingData smaller");
        call_->tiling_size = size;
    }

private:
    ascendgen_host::OpCall* call_;
};

class TilingContext {
public:
    explicit TilingContext(ascendgen_host::OpCall* call) : call_(call), attrs_(&call->attrs), raw_(call) {}

    // By instance index: absent OPTIONAL inputs take none, a DYNAMIC input one per tensor.
    const StorageShape* GetInputShape(size_t i) const { return shape(ascendgen_host::instance_at(*call_, i)); }
    const CompileTimeTensorDesc* GetInputDesc(size_t i) const { return desc(ascendgen_host::instance_at(*call_, i)); }
    const Tensor* GetInputTensor(size_t i) const { return tensor(ascendgen_host::instance_at(*call_, i)); }
    // By the OpDef's input index (and, for DYNAMIC inputs, the index within).
    const StorageShape* GetOptionalInputShape(size_t ir) const { return shape(ascendgen_host::ir_at(*call_, ir)); }
    const StorageShape* GetRequiredInputShape(size_t ir) const { return shape(ascendgen_host::ir_at(*call_, ir)); }
    const StorageShape* GetDynamicInputShape(size_t ir, size_t i) const {
        return shape(ascendgen_host::ir_at(*call_, ir, i));
    }
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir) const { return desc(ascendgen_host::ir_at(*call_, ir)); }
    const CompileTimeTensorDesc* GetRequiredInputDesc(size_t ir) const { return desc(ascendgen_host::ir_at(*call_, ir)); }
    const CompileTimeTensorDesc* GetDynamicInputDesc(size_t ir, size_t i) const {
        return desc(ascendgen_host::ir_at(*call_, ir, i));
    }
    const Tensor* GetOptionalInputTensor(size_t ir) const { return tensor(ascendgen_host::ir_at(*call_, ir)); }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return tensor(ascendgen_host::ir_at(*call_, ir)); }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t i) const {
        return tensor(ascendgen_host::ir_at(*call_, ir, i));
    }
    const StorageShape* GetOutputShape(size_t i) const { return shape(ascendgen_host::output_at(*call_, i)); }
    const CompileTimeTensorDesc* GetOutputDesc(size_t i) const { return desc(ascendgen_host::output_at(*call_, i)); }
    size_t GetComputeNodeInputNum() const { return call_->input_instances.size(); }
    size_t GetComputeNodeOutputNum() const { return call_->outputs.size(); }
    const RuntimeAttrs* GetAttrs() const { return &attrs_; }

    ge::graphStatus SetBlockDim(uint32_t block_dim) {
        call_->block_dim = block_dim;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetBlockDim() const { return call_->block_dim; }
    ge::graphStatus SetTilingKey(uint64_t key) {
        call_->tiling_key = key;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return call_->tiling_key; }
    ge::graphStatus SetScheduleMode(uint32_t mode) {
        call_->schedule_mode = mode;
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus SetNeedAtomic(bool) { return ge::GRAPH_SUCCESS; }
    int32_t GetDeterministic() const { return 0; }

    TilingData* GetRawTilingData() { return &raw_; }
    // The tiling bytes as a T (the tiling struct written directly): its size becomes the data size.
    template <typename T>
    T* GetTilingData() {
        if (sizeof(T) > raw_.GetCapacity())
            ascendgen_host::host_fail("GetTilingData<T>(): a " + std::to_string(sizeof(T)) +
                                      "-byte struct does not fit the tiling capacity of " +
                                      std::to_string(raw_.GetCapacity()) + " bytes");
        if (call_->tiling_size < sizeof(T)) call_->tiling_size = sizeof(T);
        return reinterpret_cast<T*>(raw_.GetData());
    }

    size_t* GetWorkspaceSizes(size_t count) {
        if (count == 0 || count > ascendgen_host::kMaxWorkspaces)
            ascendgen_host::host_fail("GetWorkspaceSizes(" + std::to_string(count) +
                                      "): ask for 1 workspace (the kernel receives one workspace pointer)");
        if (call_->workspaces.size() < count) call_->workspaces.resize(count, 0);
        return call_->workspaces.data();
    }
    size_t GetWorkspaceNum() const { return call_->workspaces.size(); }

    fe::PlatFormInfos* GetPlatformInfo() { return &call_->platform; }
    const char* GetNodeName() const { return call_->op_type.c_str(); }
    const char* GetNodeType() const { return call_->op_type.c_str(); }

    template <typename T>
    const T* GetCompileInfo() const {
        ascendgen_host::host_fail("TilingContext::GetCompileInfo: the simulator runs no TilingParse step; compute "
                                  "what the tiling needs in TilingFunc");
    }

private:
    static const StorageShape* shape(const ascendgen_host::TensorArg* t) { return t ? &t->shape : nullptr; }
    static const CompileTimeTensorDesc* desc(const ascendgen_host::TensorArg* t) { return t ? &t->desc : nullptr; }
    static const Tensor* tensor(const ascendgen_host::TensorArg* t) { return t ? &t->tensor : nullptr; }

    ascendgen_host::OpCall* call_;
    RuntimeAttrs attrs_;
    TilingData raw_;
};

}  // namespace gert
