// gert::CompileTimeTensorDesc and gert::Tensor (clean-room, from the documented host API) as a TilingContext
// or InferShapeContext hands them out: dtype, formats and shape. Tensor values never reach the host (the
// simulator runs no ValueDepend tiling): asking for them is reported.
#pragma once
#include "exe_graph/runtime/shape.h"
#include "graph/types.h"
#include "register/host_error.h"

namespace gert {

class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetStorageFormat() const { return format_; }
    ge::Format GetOriginFormat() const { return format_; }
    void SetDataType(ge::DataType dtype) { dtype_ = dtype; }
    void SetFormat(ge::Format format) { format_ = format; }

private:
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    ge::Format format_ = ge::FORMAT_ND;
};

class Tensor {
public:
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    const StorageShape& GetShape() const { return shape_; }
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    ge::DataType GetDataType() const { return desc_.GetDataType(); }
    ge::Format GetStorageFormat() const { return desc_.GetStorageFormat(); }
    ge::Format GetOriginFormat() const { return desc_.GetOriginFormat(); }
    template <typename T>
    const T* GetData() const {
        ascendgen_host::host_fail("GetInputTensor(i)->GetData<T>(): the simulator passes input shapes to tiling, "
                                  "not input values (ValueDepend inputs are not simulated); compute the tiling "
                                  "from shapes and attributes");
    }

    void Set(const StorageShape& shape, const CompileTimeTensorDesc& desc) {
        shape_ = shape;
        desc_ = desc;
    }

private:
    StorageShape shape_;
    CompileTimeTensorDesc desc_;
};

}  // namespace gert
