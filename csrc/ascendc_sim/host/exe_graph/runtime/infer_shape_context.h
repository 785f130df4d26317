// gert::InferShapeContext and gert::InferDataTypeContext (clean-room, from the documented host API): an op's
// InferShape sets its output shapes from the input shapes and attributes; InferDataType its output dtypes.
#pragma once
#include "exe_graph/runtime/op_call.h"

namespace gert {

class InferShapeContext {
public:
    explicit InferShapeContext(ascendgen_host::OpCall* call) : call_(call), attrs_(&call->attrs) {}

    const Shape* GetInputShape(size_t i) const {
        const auto* t = ascendgen_host::tensor_at(call_->inputs, i);
        return t ? &t->shape.GetOriginShape() : nullptr;
    }
    const Shape* GetOptionalInputShape(size_t i) const { return GetInputShape(i); }
    const Tensor* GetInputTensor(size_t i) const {
        const auto* t = ascendgen_host::tensor_at(call_->inputs, i);
        return t ? &t->tensor : nullptr;
    }
    Shape* GetOutputShape(size_t i) {
        return i < call_->outputs.size() ? &call_->outputs[i].shape.MutableOriginShape() : nullptr;
    }
    const RuntimeAttrs* GetAttrs() const { return &attrs_; }
    const char* GetNodeName() const { return call_->op_type.c_str(); }
    const char* GetNodeType() const { return call_->op_type.c_str(); }

private:
    ascendgen_host::OpCall* call_;
    RuntimeAttrs attrs_;
};

class InferDataTypeContext {
public:
    explicit InferDataTypeContext(ascendgen_host::OpCall* call) : call_(call), attrs_(&call->attrs) {}

    ge::DataType GetInputDataType(size_t i) const {
        const auto* t = ascendgen_host::tensor_at(call_->inputs, i);
        return t ? t->desc.GetDataType() : ge::DT_UNDEFINED;
    }
    ge::DataType GetOptionalInputDataType(size_t i) const { return GetInputDataType(i); }
    ge::DataType GetOutputDataType(size_t i) const {
        return i < call_->outputs.size() ? call_->outputs[i].desc.GetDataType() : ge::DT_UNDEFINED;
    }
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType dtype) {
        if (i >= call_->outputs.size()) return ge::GRAPH_FAILED;
        call_->outputs[i].desc.SetDataType(dtype);
        return ge::GRAPH_SUCCESS;
    }
    const RuntimeAttrs* GetAttrs() const { return &attrs_; }
    const char* GetNodeName() const { return call_->op_type.c_str(); }

private:
    ascendgen_host::OpCall* call_;
    RuntimeAttrs attrs_;
};

}  // namespace gert
