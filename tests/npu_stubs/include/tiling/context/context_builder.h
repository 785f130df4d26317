// STUB for tests (tests/sim/test_npu_op_project.py): context_ascendc::ContextBuilder with the setters the NPU
// op-host driver calls (names and parameters as on the ContextBuilder pages of the CANN 8.0 Ascend C API
// reference), filling the stub gert::TilingContext. Not CANN's header.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "exe_graph/runtime/tiling_context.h"

namespace context_ascendc {

class KernelRunContextHolder {
public:
    template <typename T>
    T* GetContext() { return &context; }
    gert::TilingContext context;
};

class ContextBuilder {
public:
    ContextBuilder& SetOpNameType(const std::string& name, const std::string& type) {
        name_ = name;
        type_ = type;
        return *this;
    }
    ContextBuilder& NodeIoNum(size_t inputs, size_t outputs) {
        holder_->context.inputs.resize(inputs);
        holder_->context.outputs.resize(outputs);
        return *this;
    }
    ContextBuilder& IrInstanceNum(std::vector<uint32_t> instances) { instances_ = instances; return *this; }
    ContextBuilder& AddInputTd(int32_t index, ge::DataType dtype, ge::Format, ge::Format, gert::StorageShape shape) {
        holder_->context.inputs.at(index) = {dtype, shape};
        return *this;
    }
    ContextBuilder& AddOutputTd(int32_t index, ge::DataType dtype, ge::Format, ge::Format, gert::StorageShape shape) {
        holder_->context.outputs.at(index) = {dtype, shape};
        return *this;
    }
    ContextBuilder& AddAttr(const std::string& name, int64_t v) { return add(name).i = v, *this; }
    ContextBuilder& AddAttr(const std::string& name, bool v) { return add(name).b = v, *this; }
    ContextBuilder& AddAttr(const std::string& name, float v) { return add(name).f = v, *this; }
    ContextBuilder& AddAttr(const std::string& name, const std::string& v) { return add(name).s = v, *this; }
    ContextBuilder& AddAttr(const std::string& name, const std::vector<int64_t>& v) { return add(name).ints = v, *this; }
    ContextBuilder& AddAttr(const std::string& name, const std::vector<float>& v) { return add(name).floats = v, *this; }
    ContextBuilder& AddAttr(const std::string& name, const std::vector<bool>& v) { return add(name).bools = v, *this; }
    ContextBuilder& TilingData(void* data) {
        holder_->context.tiling = static_cast<gert::TilingData*>(data);
        return *this;
    }
    ContextBuilder& Workspace(void* sizes) {
        holder_->context.workspaces = static_cast<gert::ContinuousVector*>(sizes);
        return *this;
    }
    ContextBuilder& PlatformInfo(void* info) { holder_->context.platform = info; return *this; }
    std::shared_ptr<KernelRunContextHolder> BuildTilingContext() {
        if (instances_.size() != holder_->context.inputs.size())
            throw std::runtime_error("stub ContextBuilder: IrInstanceNum does not match NodeIoNum");
        return holder_;
    }

private:
    gert::StubAttr& add(const std::string& name) {
        holder_->context.attrs.attrs.push_back({});
        holder_->context.attrs.attrs.back().name = name;
        return holder_->context.attrs.attrs.back();
    }
    std::string name_, type_;
    std::vector<uint32_t> instances_;
    std::shared_ptr<KernelRunContextHolder> holder_ = std::make_shared<KernelRunContextHolder>();
};

}  // namespace context_ascendc
