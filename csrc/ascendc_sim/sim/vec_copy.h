// Copy: the vector unit's UB -> UB move with a mask and block / repeat strides (Copy.md, v8.5.0).
//
// - Level-0 form only (mask[] bitwise or continuous mask, repeatTime, CopyRepeatParams
//   {dstStride, srcStride, dstRepeatSize, srcRepeatSize}, all in 32-byte blocks); lanes the mask
//   leaves off keep dst's old values. Bits are copied as they are (no arithmetic, so no 310P
//   saturation of half values).
// - Strides up to 65535, repeat sizes up to 4095 (bad_argument past them); both operands 32-byte
//   aligned and inside their tensors (ub_misaligned / local_overrun, vector_ops.h's checks).
// - isSetMask = false in counter mode: unlike other instructions, the mask register holds the
//   elements of EACH repeat and repeatTime counts (the page's Counter-mode note); a count above one
//   repeat's lanes is not described, so it is reported.
// dtypes: uint16/int16/half/bfloat16/uint32/int32/float on Atlas A2/A3, the same without
// bfloat16_t on 310P (vector_ops.h's convention for pages that list A2/A3 only). Cost: Simple.
#pragma once
#include "vector_ops.h"

namespace AscendC {

struct CopyRepeatParams {
    CopyRepeatParams() {}
    CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, const uint16_t dstRepeatSizeIn,
                     const uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn),
          srcRepeatSize(srcRepeatSizeIn) {}
    uint16_t dstStride = DEFAULT_BLK_STRIDE;
    uint16_t srcStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepeatSize = DEFAULT_REPEAT_STRIDE;
    uint16_t srcRepeatSize = DEFAULT_REPEAT_STRIDE;
};

namespace copy_detail {

using ascendc_sim::Diag;
using ascendc_sim::Loc;
using ascendc_sim::fail;

constexpr uint32_t kTypes = sim_detail::kFillTypes;
constexpr uint32_t kTypesA2 = sim_detail::kFillTypesA2;

template <typename T, bool isSetMask>
sim_detail::Plan plan(ascendc_sim::CoreState& c, const sim_detail::MaskArg& mask, int64_t repeat, Loc loc) {
    constexpr uint32_t lanes = 256 / sizeof(T);
    if (!isSetMask) {
        const sim_detail::MaskRegister& m = sim_detail::mask_register(c);
        if (m.counter) {
            sim_detail::check_repeat_arg(repeat, "Copy", loc);
            if (m.lo == 0 || m.lo > lanes)
                fail(Diag::BadMask, loc,
                     "Copy in counter mode takes the mask register as the elements of each repeat (Copy.md), so it "
                     "must be in 1..%u for %zu-byte elements, not %llu. Set SetVectorMask<T, MaskMode::COUNTER>(n) "
                     "with n per repeat and pass repeatTime.",
                     lanes, sizeof(T), (unsigned long long)m.lo);
            sim_detail::Plan p;
            p.repeats = static_cast<uint64_t>(repeat);
            sim_detail::prefix_bits(p.bits, m.lo);
            return p;
        }
    }
    return sim_detail::make_plan<isSetMask>(c, mask, lanes, sizeof(T), repeat, "Copy", loc);
}

template <typename T, bool isSetMask>
void copy_level0(const LocalTensor<T>& dst, const LocalTensor<T>& src, const sim_detail::MaskArg& mask, int64_t repeat,
                 const CopyRepeatParams& rp, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypesA2, kTypes, "Copy", loc);
    if (rp.dstRepeatSize > 4095 || rp.srcRepeatSize > 4095)
        fail(Diag::BadArgument, loc,
             "Copy: dstRepeatSize %u / srcRepeatSize %u; the repeat sizes of CopyRepeatParams are in [0, 4095] "
             "blocks of 32 bytes.",
             unsigned(rp.dstRepeatSize), unsigned(rp.srcRepeatSize));
    constexpr uint32_t lanes = 256 / sizeof(T);
    sim_detail::Plan p = plan<T, isSetMask>(c, mask, repeat, loc);
    if (p.repeats == 0) return;
    const sim_detail::Stream s[2] = {{sim_detail::bytes_of(dst), sizeof(T), rp.dstStride, rp.dstRepeatSize},
                                     {sim_detail::bytes_of(src), sizeof(T), rp.srcStride, rp.srcRepeatSize}};
    sim_detail::check_level0_operand(dst, s[0], p, lanes, "Copy", "dst", loc);
    sim_detail::check_level0_operand(src, s[1], p, lanes, "Copy", "src", loc);
    sim_detail::walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool full, uint32_t n, uint64_t) {
        T* d = reinterpret_cast<T*>(ptr[0]);
        const T* x = reinterpret_cast<const T*>(ptr[1]);
        for (uint32_t k = 0; k < n; ++k)
            if (full || ((bits >> k) & 1)) std::memcpy(d + k, x + k, sizeof(T));
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::VecCopy, p.repeats, {src.timing()}, dst.timing());
}

}  // namespace copy_detail

template <typename T, bool isSetMask = true>
void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime,
          const CopyRepeatParams& repeatParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    copy_detail::copy_level0<T, isSetMask>(dst, src, {mask, 0}, repeatTime, repeatParams, loc);
}

template <typename T, bool isSetMask = true>
void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask, const uint8_t repeatTime,
          const CopyRepeatParams& repeatParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    copy_detail::copy_level0<T, isSetMask>(dst, src, {nullptr, mask}, repeatTime, repeatParams, loc);
}

}  // namespace AscendC
