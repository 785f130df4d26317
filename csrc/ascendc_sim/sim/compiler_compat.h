// What kernels get from the NPU compiler (bisheng, a clang) rather than from the AscendC API, so that code written
// against it compiles unmodified with g++:
// - bisheng accepts, in C++17, a call such as `ReduceSum<float>(dst, src, work, n)` with no `using namespace
//   AscendC`: explicit template arguments do not stop argument-dependent lookup (a clang extension, standard in
//   C++20). g++ in C++17 needs the name to be known as a template first. The declarations below make it so; they
//   take a type no call can pass, so overload resolution always picks AscendC's own function.
// - the intrinsics `pipe_barrier(pipe)`, `set_mask_count()` and `set_mask_norm()` that kernels written before
//   PipeBarrier<pipe>, SetMaskCount and SetMaskNorm call (ggml's and KsanaLLM's among them);
// - the scalar unit's `min`/`max` on two numbers, unqualified (the TIK scalar_min/scalar_max pages: int64 and
//   float32 scalars): the result has the operands' common type.
#pragma once
#include "pipe.h"

namespace ascendc_sim {
struct NeverPassed {
    NeverPassed() = delete;
};
}  // namespace ascendc_sim

#define ASCENDC_SIM_ADL_NAMES(X)                                                                                   \
    X(Add) X(Sub) X(Mul) X(Div) X(Max) X(Min) X(Adds) X(Muls) X(Maxs) X(Mins) X(Exp) X(Ln) X(Abs) X(Sqrt)          \
    X(Rsqrt) X(Reciprocal) X(Relu) X(LeakyRelu) X(Not) X(And) X(Or) X(Axpy) X(Duplicate) X(Cast) X(Compare)        \
    X(CompareScalar) X(Select) X(ReduceSum) X(ReduceMax) X(ReduceMin) X(WholeReduceSum) X(WholeReduceMax)           \
    X(WholeReduceMin) X(BlockReduceSum) X(BlockReduceMax) X(BlockReduceMin) X(PairReduceSum) X(RepeatReduceSum)    \
    X(DataCopy) X(DataCopyPad) X(Brcb) X(Gather) X(GatherMask) X(Sigmoid) X(Tanh) X(Gelu) X(Silu) X(SoftMax)        \
    X(LayerNorm) X(RmsNorm) X(CumSum) X(SetVectorMask) X(SetAtomicAdd) X(SetFlag) X(WaitFlag) X(PipeBarrier)

#define ASCENDC_SIM_ADL_NAME(name) template <typename...> void name(ascendc_sim::NeverPassed);
ASCENDC_SIM_ADL_NAMES(ASCENDC_SIM_ADL_NAME)
#undef ASCENDC_SIM_ADL_NAME

inline void pipe_barrier(pipe_t pipe, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    switch (pipe) {
        case PIPE_S: return AscendC::PipeBarrier<PIPE_S>(loc);
        case PIPE_ALL: return AscendC::PipeBarrier<PIPE_ALL>(loc);
        case PIPE_V: return AscendC::PipeBarrier<PIPE_V>(loc);
        case PIPE_MTE2: return AscendC::PipeBarrier<PIPE_MTE2>(loc);
        case PIPE_MTE3: return AscendC::PipeBarrier<PIPE_MTE3>(loc);
        default: return AscendC::PipeBarrier<PIPE_ALL>(loc);  // pipes the simulator does not model: all of them
    }
}

namespace AscendC {
// CANN's internal helper class, not part of the documented API; public kernels call its ResetMask.
struct AscendCUtils {
    static void ResetMask(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) { AscendC::ResetMask(loc); }
};
}  // namespace AscendC

inline void set_mask_count(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) { AscendC::SetMaskCount(loc); }
inline void set_mask_norm(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) { AscendC::SetMaskNorm(loc); }

template <typename T, typename U, typename = std::enable_if_t<std::is_arithmetic_v<T> && std::is_arithmetic_v<U>>>
inline std::common_type_t<T, U> min(T a, U b) {
    using R = std::common_type_t<T, U>;
    return static_cast<R>(b) < static_cast<R>(a) ? static_cast<R>(b) : static_cast<R>(a);
}

template <typename T, typename U, typename = std::enable_if_t<std::is_arithmetic_v<T> && std::is_arithmetic_v<U>>>
inline std::common_type_t<T, U> max(T a, U b) {
    using R = std::common_type_t<T, U>;
    return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(b) : static_cast<R>(a);
}

// The toolkit's compile-time type test that kernels use beside the API pages' Std::is_same (DrivingSDK's unique_v2
// among them): IsSameType<T, U>::value.
namespace AscendC {
template <typename T, typename U>
struct IsSameType {
    static constexpr bool value = std::is_same<T, U>::value;
};
}  // namespace AscendC
