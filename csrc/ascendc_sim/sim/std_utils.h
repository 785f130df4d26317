// AscendC::Std: the C++ standard-library subset AscendC documents for kernels (algorithm, type traits,
// tuple, utility). Where the documented semantics are the standard's, the name is the std:: one.
#pragma once
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace AscendC {
namespace Std {

// Documented as `T max(const T src0, const U src1)`: the result has the first operand's type.
template <typename T, typename U>
constexpr T max(const T src0, const U src1) {
    return src0 > src1 ? src0 : static_cast<T>(src1);
}
template <typename T, typename U>
constexpr T min(const T src0, const U src1) {
    return src0 < src1 ? src0 : static_cast<T>(src1);
}

using std::integral_constant;
using std::bool_constant;
using std::true_type;
using std::false_type;
template <size_t v>
using Int = std::integral_constant<size_t, v>;

using std::is_same;
using std::is_same_v;
using std::enable_if;
using std::enable_if_t;
using std::conditional;
using std::conditional_t;
using std::is_convertible;
using std::is_convertible_v;
using std::is_base_of;
using std::is_base_of_v;
using std::is_void;
using std::is_integral;
using std::is_floating_point;
using std::is_arithmetic;
using std::is_pointer;
using std::is_const;
using std::is_reference;
using std::is_lvalue_reference;
using std::is_rvalue_reference;
using std::remove_cv;
using std::remove_cv_t;
using std::remove_const;
using std::remove_const_t;
using std::remove_volatile;
using std::remove_volatile_t;
using std::remove_reference;
using std::remove_reference_t;
using std::remove_pointer;
using std::remove_pointer_t;
using std::add_const;
using std::add_pointer;
using std::decay;
using std::decay_t;

using std::declval;
using std::forward;
using std::move;
using std::index_sequence;
using std::make_index_sequence;
using std::integer_sequence;
using std::make_integer_sequence;

using std::tuple;
using std::make_tuple;
using std::tie;
using std::get;
using std::ignore;
using std::tuple_size;
using std::tuple_element;

}  // namespace Std
}  // namespace AscendC
