// The host tiling helpers take the shape the CANN pages give them (ge::Shape); ours accept any type with
// GetDimNum()/GetDim(i) (ge::Shape, a stand-in) or a std::vector<int64_t> of dimensions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace AscendC {
namespace host_detail {

template <typename Shape>
auto dims_of(const Shape& shape) -> decltype(shape.GetDimNum(), std::vector<int64_t>()) {
    std::vector<int64_t> dims;
    for (std::size_t i = 0; i < static_cast<std::size_t>(shape.GetDimNum()); ++i) dims.push_back(shape.GetDim(i));
    return dims;
}

inline std::vector<int64_t> dims_of(const std::vector<int64_t>& shape) { return shape; }

// [m, k]: the product of every axis but the last, and the last.
struct RowShape {
    uint32_t m = 0;
    uint32_t k = 0;
};

template <typename Shape>
RowShape rows_of(const Shape& shape) {
    std::vector<int64_t> dims = dims_of(shape);
    if (dims.empty()) return {};
    int64_t m = 1;
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) m *= dims[i];
    return RowShape{static_cast<uint32_t>(m), static_cast<uint32_t>(dims.back())};
}

}  // namespace host_detail
}  // namespace AscendC
