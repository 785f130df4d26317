// The DEQSCALE register and SetDeqScale (量化设置): the dequantisation parameters that Cast
// int32_t -> half, CastDeq and AddDeqRelu read.
//
// From asc-devkit v8.5.0 SetDeqScale.md, CastDeq.md, AddDeqRelu.md, Cast.md:
// - SetDeqScale(half scale): the s32 -> f16 scenes (AddDeqRelu, Cast, CastDeq int32_t -> half):
//   Deq(x) = x / 2^17 * scale * 2^17 (AddDeqRelu.md; Cast.md's int32_t -> half row, where roundMode
//   has no effect).
// - SetDeqScale(float scale, int16_t offset, bool signMode): CastDeq int16_t -> int8_t/uint8_t with
//   isVecDeq = false: dst = src * scale + offset; only the low 9 bits of offset count; signMode
//   true gives int8_t, false uint8_t.
// - SetDeqScale(LocalTensor<uint64_t> vdeq, VdeqInfo): 16 groups (scale, offset, signMode) in a
//   128-byte UB tensor, for CastDeq with isVecDeq = true.
// The register holds one of the three forms; an instruction that needs another form, or runs before
// any SetDeqScale, is reported (its value would be whatever the register last held).
// Assumptions (not on the pages): the Deq product is formed in float and rounded once to half;
// the int8/uint8 results round to nearest even and saturate; the 128-byte vdeq tensor's encoding is
// the simulator's own (scale bits 0..31, offset bits 32..40, signMode bit 41 of each uint64_t), so it
// must be written by SetDeqScale, as on the NPU, and is read back when CastDeq runs.
#pragma once
#include <cmath>

#include "vector_ops.h"

namespace AscendC {

const uint8_t VDEQ_TENSOR_SIZE = 16;

struct VdeqInfo {
    VdeqInfo() {}
    VdeqInfo(const float vdeqScaleIn[VDEQ_TENSOR_SIZE], const int16_t vdeqOffsetIn[VDEQ_TENSOR_SIZE],
             const bool vdeqSignModeIn[VDEQ_TENSOR_SIZE]) {
        for (int32_t i = 0; i < VDEQ_TENSOR_SIZE; ++i) {
            vdeqScale[i] = vdeqScaleIn[i];
            vdeqOffset[i] = vdeqOffsetIn[i];
            vdeqSignMode[i] = vdeqSignModeIn[i];
        }
    }
    float vdeqScale[VDEQ_TENSOR_SIZE] = {0};
    int16_t vdeqOffset[VDEQ_TENSOR_SIZE] = {0};
    bool vdeqSignMode[VDEQ_TENSOR_SIZE] = {0};
};

namespace sim_detail {

enum class DeqForm : uint8_t { Unset, Half, Scalar, Vector };

struct DeqRegister {
    DeqForm form = DeqForm::Unset;
    half scale16 = half(0.0f);
    float scale = 0.0f;
    int16_t offset = 0;
    bool sign = false;
    const uint64_t* vdeq = nullptr;  // the UB tensor of the vector form
    ascendc_sim::BufferTiming* vdeq_timing = nullptr;
    Loc set_loc;
};

inline DeqRegister& deq_register(ascendc_sim::CoreState& c) {
    return core_register<DeqRegister>(c, c.report->op_instrs[static_cast<int>(ascendc_sim::OpId::SetDeqScale)]);
}

inline DeqRegister& write_deq_register(ascendc_sim::CoreState& c) {
    c.report->op_instrs[static_cast<int>(ascendc_sim::OpId::SetDeqScale)] += 1;
    DeqRegister& r = deq_register(c);
    r.set_loc = c.loc;
    return r;
}

inline const char* deq_form_call(DeqForm f) {
    switch (f) {
        case DeqForm::Half: return "SetDeqScale(half scale)";
        case DeqForm::Scalar: return "SetDeqScale(float scale, int16_t offset, bool signMode)";
        case DeqForm::Vector: return "SetDeqScale(vdeqTensor, vdeqInfo)";
        default: return "no SetDeqScale";
    }
}

// The register as `api` needs it: set, and in form `want`.
inline const DeqRegister& require_deq(ascendc_sim::CoreState& c, DeqForm want, const char* api, Loc loc) {
    const DeqRegister& r = deq_register(c);
    if (r.form == DeqForm::Unset)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "%s reads the DEQSCALE register, which no SetDeqScale has set in this block: on the NPU it "
                          "holds whatever was there before. Call %s first.",
                          api, deq_form_call(want));
    if (r.form != want)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "%s needs DEQSCALE set by %s, but the last SetDeqScale (line %d) was %s, which this "
                          "instruction does not read. Call %s before it.",
                          api, deq_form_call(want), r.set_loc.line, deq_form_call(r.form), deq_form_call(want));
    return r;
}

// Deq(x) = x / 2^17 * scale * 2^17, rounded once to half (AddDeqRelu.md).
inline half deq_to_half(int32_t x, half scale) {
    const float v = static_cast<float>(x) * 0x1p-17f * static_cast<float>(scale) * 0x1p17f;
    return static_cast<half>(v);
}

// One vdeq group, packed as the simulator stores it in the 128-byte tensor.
inline uint64_t pack_vdeq(float scale, int16_t offset, bool sign) {
    uint32_t bits;
    std::memcpy(&bits, &scale, 4);
    return uint64_t(bits) | (uint64_t(uint16_t(offset) & 0x1FFu) << 32) | (uint64_t(sign) << 41);
}

struct DeqParams {
    float scale;
    int32_t offset;  // the low 9 bits, sign-extended
    bool sign;
};

inline int32_t offset9(int32_t offset) {
    const int32_t low = offset & 0x1FF;
    return low >= 256 ? low - 512 : low;
}

inline DeqParams unpack_vdeq(uint64_t word) {
    DeqParams p;
    const uint32_t bits = static_cast<uint32_t>(word);
    std::memcpy(&p.scale, &bits, 4);
    p.offset = offset9(static_cast<int32_t>((word >> 32) & 0x1FF));
    p.sign = (word >> 41) & 1;
    return p;
}

}  // namespace sim_detail

inline void SetDeqScale(half scale, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::DeqRegister& r = sim_detail::write_deq_register(ascendc_sim::core(loc));
    r.form = sim_detail::DeqForm::Half;
    r.scale16 = scale;
}

inline void SetDeqScale(float scale, int16_t offset, bool signMode, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::DeqRegister& r = sim_detail::write_deq_register(ascendc_sim::core(loc));
    r.form = sim_detail::DeqForm::Scalar;
    r.scale = scale;
    r.offset = offset;
    r.sign = signMode;
}

// Writes the 16 groups into vdeq (128 bytes of UB, uint64_t) and points the register at it.
template <typename T>
void SetDeqScale(const LocalTensor<T>& vdeq, const VdeqInfo& vdeqInfo,
                 ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (!std::is_same_v<T, uint64_t>)
        ascendc_sim::fail(ascendc_sim::Diag::UnsupportedDtype, loc,
                          "SetDeqScale(vdeq, vdeqInfo) takes a LocalTensor<uint64_t> of 16 elements (128 bytes), "
                          "not LocalTensor<%s> (SetDeqScale.md).",
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    ascendc_sim::check_operand(vdeq, 128 / sizeof(T), "SetDeqScale", "vdeq", loc);
    uint64_t* words = reinterpret_cast<uint64_t*>(vdeq.GetPhyAddrPtr());
    for (int i = 0; i < VDEQ_TENSOR_SIZE; ++i)
        words[i] = sim_detail::pack_vdeq(vdeqInfo.vdeqScale[i], vdeqInfo.vdeqOffset[i], vdeqInfo.vdeqSignMode[i]);
    const double cost = ascendc_sim::CostModel::vector_ns(ascendc_sim::OpId::SetDeqScale, 1, c.soc());
    ascendc_sim::schedule(c, ascendc_sim::kPipeV, cost, {}, vdeq.timing());
    sim_detail::DeqRegister& r = sim_detail::write_deq_register(c);
    r.form = sim_detail::DeqForm::Vector;
    r.vdeq = words;
    r.vdeq_timing = vdeq.timing();
}

}  // namespace AscendC
