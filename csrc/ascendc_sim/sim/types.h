// Qualifiers, scalar types and dtype traits of the AscendC programming model, for the CPU.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

// Kernel files guard their <<<>>> launch wrappers with this. A kernel-launch sample built for its NPU branch
// (launch_sample.py) keeps the wrappers: the sample build rewrites <<<>>> into a simulator launch.
#if !defined(ASCENDC_CPU_DEBUG) && !defined(ASCENDC_SIM_SAMPLE_NPU_BRANCH)
#define ASCENDC_CPU_DEBUG 1
#endif
#define ASCENDC_SIM 1
// CANN's CPU-side kernel builds define it; kernels use it to pick the plain C++ spelling of the NPU compiler's
// extensions (`#ifdef __CCE_KT_TEST__ #define __aicore__ #else #define __aicore__ [aicore] #endif`).
#ifndef __CCE_KT_TEST__
#define __CCE_KT_TEST__ 1
#endif
// The NPU compiler's core version, which kernels test in #if (220: Atlas A2/A3's dav-c220, 200: 310P). One simulator
// build runs every SoC, so it compiles the A2/A3 branch; the SoC chosen at launch is what the API checks.
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
// The NPU compiler's per-pass macro for the A2/A3 vector core (dav-c220, AIV): kernels that build one file for both
// cores guard their vector code with it (`#ifdef __DAV_C220_VEC__`). The simulator runs the vector core.
// __DAV_C220_CUBE__, the cube pass's macro, is left undefined: the simulator compiles one binary for both core kinds
// and decides the kind at run time (ASCEND_IS_AIC), so defining both would put the cube branch of
// `#if defined(__DAV_C220_CUBE__) ... #elif defined(__DAV_C220_VEC__)` on the vector cores too. Kernels that must run
// cube code select it with `if ASCEND_IS_AIC` (or g_coreType, cpu_debug.h), which the simulator decides per core.
#ifndef __DAV_C220_VEC__
#define __DAV_C220_VEC__ 1
#endif

#define __global__
#define __aicore__
#define __vector__
#define __cube__
#define __gm__
#define __ubuf__
#define __cbuf__
#define GM_ADDR __gm__ uint8_t*
// Kernels write `if ASCEND_IS_AIV {`: the parentheses are the if's. Decided per simulated core at run time: a launch
// with cube cores runs the kernel on its AIC and AIV threads alike (kernel_type.h). On_cube_core is in core.h.
namespace ascendc_sim {
inline bool on_cube_core();
}  // namespace ascendc_sim
#define ASCEND_IS_AIV (!ascendc_sim::on_cube_core())
#define ASCEND_IS_AIC (ascendc_sim::on_cube_core())

// IEEE binary16 with per-operation rounding, as the vector unit's half arithmetic.
using half = _Float16;
using float16_t = _Float16;

// bfloat16 is storage only on 910B: it is moved, filled and Cast to float.
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    bfloat16_t(float value) : bits(from_float(value)) {}
    operator float() const {
        uint32_t word = static_cast<uint32_t>(bits) << 16;
        float value;
        std::memcpy(&value, &word, sizeof value);
        return value;
    }
    static uint16_t from_float(float value) {  // round to nearest, ties to even; NaN stays NaN
        uint32_t word;
        std::memcpy(&word, &value, sizeof word);
        if ((word & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((word >> 16) | 0x40u);
        word += 0x7fffu + ((word >> 16) & 1u);
        return static_cast<uint16_t>(word >> 16);
    }
    static bfloat16_t from_bits(uint16_t raw) {
        bfloat16_t b;
        b.bits = raw;
        return b;
    }
};

// int4b_t (Cast.md, AscendAntiQuant.md): a signed 4-bit integer, two to a byte. The struct is the byte that holds
// a pair (sizeof 1, which kernels that size buffers with `n * sizeof(int4b_t)` rely on); a LocalTensor or
// GlobalTensor of it counts elements, two per byte (tensor.h). Element 2k is the byte's low nibble, 2k + 1 its high
// nibble (assumption: the pages do not say; little-endian order, as ggml's Q4_0 kernels read it).
struct int4b_t {
    uint8_t storage = 0;
    int4b_t() = default;
    constexpr int4b_t(int value) : storage(static_cast<uint8_t>(value & 0xF)) {}  // a scalar: the low nibble
};

namespace AscendC {
using ::int4b_t;
}  // namespace AscendC

// Scalar conversions (ToBfloat16.md, ToFloat.md): round to nearest even, as the struct does.
namespace AscendC {
inline bfloat16_t ToBfloat16(const float& value) { return bfloat16_t(value); }
inline float ToFloat(const bfloat16_t& value) { return float(value); }
}  // namespace AscendC

namespace ascendc_sim {

enum class DType : uint8_t { F16, BF16, F32, F64, I8, U8, I16, U16, I32, U32, I64, U64, Bool, I4, Count };

template <typename T> struct DTypeOf;
template <> struct DTypeOf<half> { static constexpr DType value = DType::F16; };
template <> struct DTypeOf<bfloat16_t> { static constexpr DType value = DType::BF16; };
template <> struct DTypeOf<float> { static constexpr DType value = DType::F32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::F64; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::I8; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::U8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::I16; };
template <> struct DTypeOf<uint16_t> { static constexpr DType value = DType::U16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::I32; };
template <> struct DTypeOf<uint32_t> { static constexpr DType value = DType::U32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::I64; };
template <> struct DTypeOf<uint64_t> { static constexpr DType value = DType::U64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::Bool; };
template <> struct DTypeOf<int4b_t> { static constexpr DType value = DType::I4; };

template <typename T> constexpr DType dtype_of = DTypeOf<std::remove_cv_t<T>>::value;

constexpr uint32_t dtype_bit(DType d) { return 1u << static_cast<uint32_t>(d); }

// int4b_t tensors hold two elements per byte: their sizes and offsets in elements are twice their bytes.
template <typename T> constexpr bool is_int4_v = std::is_same_v<std::remove_cv_t<T>, int4b_t>;
template <typename T> constexpr uint64_t elems_per_unit = is_int4_v<T> ? 2 : 1;

inline const char* dtype_name(DType d) {
    static const char* const names[] = {"half", "bfloat16_t", "float", "double", "int8_t", "uint8_t",
                                        "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t",
                                        "uint64_t", "bool", "int4b_t"};
    return names[static_cast<int>(d)];
}

constexpr uint32_t kBlockBytes = 32;    // one DataBlock
constexpr uint32_t kRepeatBytes = 256;  // one vector repeat: 8 DataBlocks
constexpr uint32_t kMaxRepeat = 255;

}  // namespace ascendc_sim
