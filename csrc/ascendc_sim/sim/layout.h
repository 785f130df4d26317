// Layout (Layout简介.md, Layout构造函数.md, layout-1.md, 运算符重载.md, GetShape.md, GetStride.md,
// MakeShape.md, MakeStride.md, MakeLayout.md, is_layout.md, MakeCoord.md, Crd2Idx.md; v8.5.0): a Shape
// and a Stride, each a Std::tuple, mapping a coordinate to the index sum(coord[i] * stride[i]); flat
// tuples only (the nested, hierarchical shapes of Crd2Idx are not simulated). TransData takes its
// shapes from these.
#pragma once
#include <tuple>
#include <type_traits>
#include <utility>

#include "std_utils.h"

namespace AscendC {

template <typename... Ts>
using Shape = Std::tuple<Ts...>;
template <typename... Ts>
using Stride = Std::tuple<Ts...>;
template <typename... Ts>
using Coord = Std::tuple<Ts...>;

template <typename... Ts>
constexpr Shape<Ts...> MakeShape(const Ts&... t) {
    return Shape<Ts...>(t...);
}

template <typename... Ts>
constexpr Stride<Ts...> MakeStride(const Ts&... t) {
    return Stride<Ts...>(t...);
}

template <typename... Ts>
constexpr Coord<Ts...> MakeCoord(const Ts&... t) {
    return Coord<Ts...>(t...);
}

template <typename ShapeType, typename StrideType>
struct Layout : Std::tuple<ShapeType, StrideType> {
    constexpr Layout(const ShapeType& shape = {}, const StrideType& stride = {})
        : Std::tuple<ShapeType, StrideType>(shape, stride) {}
    constexpr decltype(auto) layout() { return *this; }
    constexpr decltype(auto) layout() const { return *this; }
    constexpr decltype(auto) GetShape() { return std::get<0>(static_cast<Std::tuple<ShapeType, StrideType>&>(*this)); }
    constexpr decltype(auto) GetShape() const {
        return std::get<0>(static_cast<const Std::tuple<ShapeType, StrideType>&>(*this));
    }
    constexpr decltype(auto) GetStride() { return std::get<1>(static_cast<Std::tuple<ShapeType, StrideType>&>(*this)); }
    constexpr decltype(auto) GetStride() const {
        return std::get<1>(static_cast<const Std::tuple<ShapeType, StrideType>&>(*this));
    }
    // Crd2Idx for flat tuples: the coordinate's dot product with the stride.
    template <typename CoordType>
    constexpr auto operator()(const CoordType& coord) const {
        static_assert(std::tuple_size_v<CoordType> == std::tuple_size_v<StrideType>,
                      "Layout: the coordinate needs one value per stride");
        return dot(coord, std::make_index_sequence<std::tuple_size_v<StrideType>>{});
    }

private:
    template <typename CoordType, size_t... I>
    constexpr auto dot(const CoordType& coord, std::index_sequence<I...>) const {
        return (int64_t(0) + ... + (int64_t(std::get<I>(coord)) * int64_t(std::get<I>(GetStride()))));
    }
};

template <typename ShapeType, typename StrideType>
constexpr auto MakeLayout(const ShapeType& shape, const StrideType& stride) {
    return Layout<ShapeType, StrideType>(shape, stride);
}

namespace layout_detail {

template <typename ShapeType, typename StrideType, size_t... I>
constexpr int64_t delinearized(int64_t c, const ShapeType& shape, const StrideType& stride, std::index_sequence<I...>) {
    int64_t index = 0;
    // Column-major, as Crd2Idx.md's delinearize: c_i = c / (d_0 ... d_{i-1}) % d_i.
    ((index += (c % int64_t(std::get<I>(shape))) * int64_t(std::get<I>(stride)), c /= int64_t(std::get<I>(shape))), ...);
    return index;
}

}  // namespace layout_detail

// Crd2Idx.md for flat shapes: a coordinate of the shape's rank, or one integer that is delinearized
// column-major over the shape. Nested (hierarchical) shapes are not simulated.
template <typename CoordType, typename ShapeType, typename StrideType>
constexpr auto Crd2Idx(const CoordType& coord, const ShapeType& shape, const StrideType& stride) {
    if constexpr (std::is_integral_v<CoordType>) {
        return layout_detail::delinearized(int64_t(coord), shape, stride,
                                           std::make_index_sequence<std::tuple_size_v<ShapeType>>{});
    } else {
        return Layout<ShapeType, StrideType>(shape, stride)(coord);
    }
}

template <typename CoordType, typename ShapeType, typename StrideType>
constexpr auto Crd2Idx(const CoordType& coord, const Layout<ShapeType, StrideType>& layout) {
    return Crd2Idx(coord, layout.GetShape(), layout.GetStride());
}

template <typename T>
struct is_layout : std::false_type {};
template <typename S, typename D>
struct is_layout<Layout<S, D>> : std::true_type {};

}  // namespace AscendC
