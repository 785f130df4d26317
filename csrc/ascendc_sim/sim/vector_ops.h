// Elementwise vector instructions (count form). Each call checks its operands and dtype for the
// SoC, computes with the rounding of the instruction's dtype, and books its repeats on the V pipe.
#pragma once
#include <cmath>

#include "tensor.h"

namespace AscendC {
namespace sim_detail {

using ascendc_sim::dtype_bit;
using ascendc_sim::DType;

constexpr uint32_t kArithTypes = dtype_bit(DType::F16) | dtype_bit(DType::F32) | dtype_bit(DType::I16) | dtype_bit(DType::I32);
constexpr uint32_t kFloatTypes = dtype_bit(DType::F16) | dtype_bit(DType::F32);

struct BinarySpec {
    ascendc_sim::OpId op;
    const char* name;
    uint32_t a2_dtypes;
    uint32_t p310_dtypes;
};

template <typename T, typename F>
void binary_count(const BinarySpec& spec, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                  int32_t count, F f, ascendc_sim::Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, spec.a2_dtypes, spec.p310_dtypes, spec.name, loc);
    if (count <= 0) return;
    ascendc_sim::check_operand(dst, count, spec.name, "dst", loc);
    ascendc_sim::check_operand(a, count, spec.name, "src0", loc);
    ascendc_sim::check_operand(b, count, spec.name, "src1", loc);
    T* d = dst.GetPhyAddrPtr();
    const T* x = a.GetPhyAddrPtr();
    const T* y = b.GetPhyAddrPtr();
    for (int32_t i = 0; i < count; ++i) d[i] = f(x[i], y[i]);
    ascendc_sim::count_vector(c, spec.op, ascendc_sim::repeats_for<T>(count), {a.timing(), b.timing()}, dst.timing());
}

}  // namespace sim_detail

#define ASCENDC_SIM_BINARY(NAME, A2, P310, EXPR)                                                                   \
    template <typename T>                                                                                          \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count, \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                   \
        static constexpr sim_detail::BinarySpec spec{ascendc_sim::OpId::NAME, #NAME, A2, P310};                    \
        sim_detail::binary_count(spec, dst, src0, src1, count, [](T x, T y) -> T { return EXPR; }, loc);           \
    }

ASCENDC_SIM_BINARY(Add, sim_detail::kArithTypes, sim_detail::kArithTypes, T(x + y))
ASCENDC_SIM_BINARY(Sub, sim_detail::kArithTypes, sim_detail::kArithTypes, T(x - y))
ASCENDC_SIM_BINARY(Mul, sim_detail::kArithTypes, sim_detail::kArithTypes, T(x * y))
ASCENDC_SIM_BINARY(Div, sim_detail::kFloatTypes, sim_detail::kFloatTypes, T(x / y))
ASCENDC_SIM_BINARY(Max, sim_detail::kArithTypes, sim_detail::kArithTypes, (x > y || x != x) ? x : y)
ASCENDC_SIM_BINARY(Min, sim_detail::kArithTypes, sim_detail::kArithTypes, (x < y || x != x) ? x : y)

}  // namespace AscendC
