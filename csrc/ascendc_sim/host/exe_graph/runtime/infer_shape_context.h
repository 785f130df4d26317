// gert::InferShapeContext and gert::InferDataTypeContext (clean-room, from the documented host API): an op's
// InferShape sets its output shapes from the input shapes and attributes; InferDataType its output dtypes.
// GetInput* index input instances; GetOptional/Required/DynamicInput* the OpDef's inputs (as TilingContext).
#pragma once
#include "exe_graph/runtime/op_call.h"

namespace gert {

class InferShapeContext {
public:
    explicit InferShapeContext(ascendgen_host::OpCall* call) : call_(call), attrs_(&call->attrs) {}

    const Shape* GetInputShape(size_t i) const { return shape(ascendgen_host::instance_at(*call_, i)); }
    const Shape* GetOptionalInputShape(size_t ir) const { return shape(ascendgen_host::ir_at(*call_, ir)); }
    const Shape* GetRequiredInputShape(size_t ir) const { return shape(ascendgen_host::ir_at(*call_, ir)); }
    const Shape* GetDynamicInputShape(size_t ir, size_t i) const {
        return shape(ascendgen_host::ir_at(*call_, ir, i));
    }
    const Tensor* GetInputTensor(size_t i) const {
        const auto* t = ascendgen_host::instance_at(*call_, i);
        return t ? &t->tensor : nullptr;
    }
    Shape* GetOutputShape(size_t i) {
        return i < call_->outputs.size() ? &call_->outputs[i].shape.MutableOriginShape() : nullptr;
    }
    const RuntimeAttrs* GetAttrs() const { return &attrs_; }
    const char* GetNodeName() const { return call_->op_type.c_str(); }
    const char* GetNodeType() const { return call_->op_type.c_str(); }

private:
    static const Shape* shape(const ascendgen_host::TensorArg* t) { return t ? &t->shape.GetOriginShape() : nullptr; }

    ascendgen_host::OpCall* call_;
    RuntimeAttrs attrs_;
};

class InferDataTypeContext {
public:
    explicit InferDataTypeContext(ascendgen_host::OpCall* call) : call_(call), attrs_(&call->attrs) {}

    ge::DataType GetInputDataType(size_t i) const { return dtype(ascendgen_host::instance_at(*call_, i)); }
    ge::DataType GetOptionalInputDataType(size_t ir) const { return dtype(ascendgen_host::ir_at(*call_, ir)); }
    ge::DataType GetRequiredInputDataType(size_t ir) const { return dtype(ascendgen_host::ir_at(*call_, ir)); }
    ge::DataType GetDynamicInputDataType(size_t ir, size_t i) const {
        return dtype(ascendgen_host::ir_at(*call_, ir, i));
    }
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
    static ge::DataType dtype(const ascendgen_host::TensorArg* t) { return t ? t->desc.GetDataType() : ge::DT_UNDEFINED; }

    ascendgen_host::OpCall* call_;
    RuntimeAttrs attrs_;
};

}  // namespace gert
