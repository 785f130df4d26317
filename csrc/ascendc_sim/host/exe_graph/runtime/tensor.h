// gert::CompileTimeTensorDesc and gert::Tensor (clean-room, from the documented host API) as a TilingContext
// or InferShapeContext hands them out: dtype, formats and shape, and the values of inputs the OpDef declares
// ValueDepend. Asking for the values of another input, or reading them as a type of another size, is reported.
#pragma once
#include <string>

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
        if (data_ == nullptr)
            ascendgen_host::host_fail("Tensor::GetData<T>(): the tiling sees the values of inputs declared "
                                      "ValueDepend only; add .ValueDepend(REQUIRED) to the input in the OpDef");
        if (sizeof(T) != size_t(ge::GetSizeByDataType(desc_.GetDataType())))
            ascendgen_host::host_fail("Tensor::GetData<T>(): T has " + std::to_string(sizeof(T)) +
                                      " bytes, the tensor's elements " +
                                      std::to_string(ge::GetSizeByDataType(desc_.GetDataType())));
        return static_cast<const T*>(data_);
    }
    const void* GetAddr() const { return data_; }

    void Set(const StorageShape& shape, const CompileTimeTensorDesc& desc, const void* data) {
        shape_ = shape;
        desc_ = desc;
        data_ = data;
    }

private:
    StorageShape shape_;
    CompileTimeTensorDesc desc_;
    const void* data_ = nullptr;
};

}  // namespace gert
