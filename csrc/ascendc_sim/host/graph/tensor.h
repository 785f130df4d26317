// ge::Shape (clean-room, from the documented graph API): the shape op_host code builds to call the high-level
// APIs' host tiling helpers (for example SoftMaxTilingFunc(ge::Shape(dims), ...)), unlike gert::Shape, which
// the contexts hand out.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "register/host_error.h"

namespace ge {

class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}

    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t index) const { return index < dims_.size() ? dims_[index] : 0; }
    std::vector<int64_t> GetDims() const { return dims_; }
    int64_t GetShapeSize() const {
        if (dims_.empty()) return 0;
        int64_t size = 1;
        for (int64_t d : dims_) {
            if (d < 0) return -1;
            size *= d;
        }
        return size;
    }
    void SetDim(size_t index, int64_t value) {
        if (index >= dims_.size())
            ascendgen_host::host_fail("ge::Shape::SetDim(" + std::to_string(index) + "): the shape has " +
                                      std::to_string(dims_.size()) + " dims");
        dims_[index] = value;
    }

private:
    std::vector<int64_t> dims_;
};

}  // namespace ge
