// Checks and bookkeeping shared by the high-level APIs of softmax.h, normalization.h, quant.h, cumsum.h,
// arange.h and glu.h: SoC support, operand sizes, temporary space, overlap, poisoning of what the pages leave
// undefined, and the booking of one composite call on the V pipe.
#pragma once
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "tensor.h"

namespace AscendC {
namespace hl_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::dtype_bit;
using ascendc_sim::Loc;
using ascendc_sim::OpId;

constexpr uint32_t kHalfFloat = dtype_bit(DType::F16) | dtype_bit(DType::F32);

// As `p310`: 310P (Atlas inference AI Core) takes the A2/A3 types except bfloat16_t, which it lacks. The mirrored
// v8.5.0 pages list only A2/A3; hiascend's CANN 9.0.0 pages mark SoftMax, LayerNorm, RmsNorm, DeepNorm, SwiGLU and
// AscendDequant supported on "Atlas 推理系列产品 AI Core" as well, and the rest of the group is assumed alike.
constexpr uint32_t kSameAsA2 = ~0u;

// The API's element types on this SoC: `a2` on Atlas A2/A3, `p310` on 310P (0: the API is not there).
inline void check_soc_dtype(const char* api, DType dtype, uint32_t a2, uint32_t p310, Loc loc) {
    const SimSocProfile& soc = ascendc_sim::core(loc).soc();
    if (p310 == kSameAsA2) p310 = a2 & ~dtype_bit(DType::BF16);
    if (soc.arch == 1 && p310 == 0)
        ascendc_sim::fail(Diag::UnsupportedApi, loc,
                          "%s is not available on %s (its API page lists only Atlas A2/A3). Write it from basic "
                          "vector instructions, or target an Atlas A2/A3 SoC.",
                          api, soc.name);
    ascendc_sim::check_dtype(dtype, a2, p310, api, loc);
}

inline bool overlaps(const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes) {
    auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
    return a_bytes != 0 && b_bytes != 0 && x < y + b_bytes && y < x + a_bytes;
}

// One operand's UB span, for the overlap checks.
struct Span {
    const void* p;
    uint64_t bytes;
    const char* role;
};

template <typename T>
Span span(const LocalTensor<T>& t, uint64_t elements, const char* role) {
    return Span{t.GetPhyAddrPtr(), elements * sizeof(T), role};
}

// `a` and `b` must not share UB unless the page allows them to be the very same buffer (`same_ok`).
inline void check_apart(const char* api, const Span& a, const Span& b, bool same_ok, Loc loc) {
    if (!overlaps(a.p, a.bytes, b.p, b.bytes)) return;
    if (same_ok && a.p == b.p) return;
    ascendc_sim::fail(Diag::BadArgument, loc,
                      "%s: %s and %s overlap in UB%s, which the %s page does not allow. Give each its own buffer.",
                      api, a.role, b.role, same_ok ? " without being the same buffer" : "", api);
}

// Temporary space: a sharedTmpBuffer of at least `min_bytes`, apart from every operand; without one, the
// framework takes `min_bytes` from the UB left after InitBuffer.
inline void check_tmp(const char* api, const LocalTensor<uint8_t>* tmp, uint64_t min_bytes,
                      std::initializer_list<Span> operands, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (tmp == nullptr) {
        uint64_t left = uint64_t(c.soc().ub_bytes) - c.ub_used;
        if (left < min_bytes)
            ascendc_sim::fail(Diag::UbOverflow, loc,
                              "%s without sharedTmpBuffer takes %llu bytes of temporary space from the UB left after "
                              "the InitBuffer calls, but only %llu bytes are left on %s. Allocate less with "
                              "InitBuffer, or pass a sharedTmpBuffer.",
                              api, (unsigned long long)min_bytes, (unsigned long long)left, c.soc().name);
        return;
    }
    ascendc_sim::check_operand(*tmp, 0, api, "sharedTmpBuffer", loc);
    if (tmp->GetSize() < min_bytes)
        ascendc_sim::fail(Diag::LocalOverrun, loc,
                          "%s: sharedTmpBuffer has %u bytes but this call needs at least %llu bytes of temporary "
                          "space (the minimum the host's Get...MaxMinTmpSize/Get...MinTmpSize reports). Give the tmp "
                          "buffer at least %llu bytes.",
                          api, (unsigned)tmp->GetSize(), (unsigned long long)min_bytes,
                          (unsigned long long)min_bytes);
    for (const Span& s : operands)
        if (overlaps(tmp->GetPhyAddrPtr(), tmp->GetSize(), s.p, s.bytes))
            ascendc_sim::fail(Diag::BadArgument, loc,
                              "%s: sharedTmpBuffer overlaps %s in UB; the page does not allow the temporary space to "
                              "share memory with an operand. Give it its own buffer (a separate TBuf).",
                              api, s.role);
}

// After the call the temporary space holds intermediates the kernel must not rely on: NaN bytes.
inline void poison_tmp(const LocalTensor<uint8_t>* tmp, uint64_t bytes) {
    if (tmp == nullptr) return;
    uint64_t n = bytes < tmp->GetSize() ? bytes : tmp->GetSize();
    std::memset(tmp->GetPhyAddrPtr(), 0xFF, n);
}

template <typename T>
T poison_value() {
    if constexpr (std::is_integral_v<T>) return T(0x5A);
    else return T(std::numeric_limits<float>::quiet_NaN());
}

template <typename T>
float to_float(T v) {
    return static_cast<float>(v);
}

// Books a composite call: `float_elements` worth of float repeats `passes` times (a 16-bit type adds a Cast
// in and a Cast out), reading `sources`, writing `dest`; every further output is marked written on V.
inline void book(OpId op, uint64_t float_elements, uint32_t passes, bool narrow,
                 std::initializer_list<ascendc_sim::BufferTiming*> sources, ascendc_sim::BufferTiming* dest,
                 std::initializer_list<ascendc_sim::BufferTiming*> more_outputs, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    uint64_t repeats = ascendc_sim::repeats_for<float>(float_elements) * (passes + (narrow ? 2 : 0));
    ascendc_sim::count_vector(c, op, repeats < 1 ? 1 : repeats, sources, dest);
    for (ascendc_sim::BufferTiming* t : more_outputs)
        if (t != nullptr && t != dest) ascendc_sim::schedule(c, ascendc_sim::kPipeV, 0.0, {}, t);
}

}  // namespace hl_detail
}  // namespace AscendC
