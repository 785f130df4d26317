// gert::Shape and gert::StorageShape (clean-room, from the documented host API): up to kMaxDimNum dims; the
// simulator's tensors are ND, so a tensor's origin and storage shapes are the same.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "register/host_error.h"

namespace gert {

class Shape {
public:
    static constexpr size_t kMaxDimNum = 8;
    static constexpr int64_t kInvalidDimValue = INT64_MIN;

    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) {
        for (int64_t d : dims) AppendDim(d);
    }

    size_t GetDimNum() const { return dim_num_; }
    void SetDimNum(size_t n) {
        if (n > kMaxDimNum) ascendgen_host::host_fail("gert::Shape::SetDimNum(" + std::to_string(n) + "): at most 8 dims");
        dim_num_ = n;
    }
    int64_t GetDim(size_t i) const { return i < dim_num_ ? dims_[i] : kInvalidDimValue; }
    Shape& SetDim(size_t i, int64_t v) {
        if (i >= dim_num_) ascendgen_host::host_fail("gert::Shape::SetDim(" + std::to_string(i) + "): the shape has " +
                                                     std::to_string(dim_num_) + " dims; SetDimNum first");
        dims_[i] = v;
        return *this;
    }
    Shape& AppendDim(int64_t v) {
        if (dim_num_ >= kMaxDimNum) ascendgen_host::host_fail("gert::Shape::AppendDim: at most 8 dims");
        dims_[dim_num_++] = v;
        return *this;
    }
    int64_t GetShapeSize() const {
        int64_t size = 1;
        for (size_t i = 0; i < dim_num_; ++i) {
            if (dims_[i] < 0) return -1;
            size *= dims_[i];
        }
        return size;
    }
    bool IsScalar() const { return dim_num_ == 0; }
    void SetScalar() { dim_num_ = 0; }
    const int64_t& operator[](size_t i) const { return dims_[i]; }
    int64_t& operator[](size_t i) { return dims_[i]; }
    bool operator==(const Shape& o) const {
        if (dim_num_ != o.dim_num_) return false;
        for (size_t i = 0; i < dim_num_; ++i)
            if (dims_[i] != o.dims_[i]) return false;
        return true;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }

private:
    size_t dim_num_ = 0;
    int64_t dims_[kMaxDimNum] = {};
};

class StorageShape {
public:
    StorageShape() = default;
    explicit StorageShape(const Shape& shape) : origin_(shape), storage_(shape) {}
    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }

private:
    Shape origin_;
    Shape storage_;
};

}  // namespace gert
