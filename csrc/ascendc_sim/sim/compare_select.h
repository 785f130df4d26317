// Compare / CompareScalar (element-wise comparison into a bit mask) and Select (pick per mask bit).
//
// From asc-devkit v8.5.0 Compare.md, CompareScalar.md and Select.md:
// - The mask is little endian: bit i of byte k is element 8k + i (CompareScalar.md's worked example).
// - The count form needs count * sizeof(T) to be a multiple of 256 bytes.
// - half and float support every CMPMODE, int32_t only EQ; dst is uint8_t (Compare also int8_t); see kMaskWidths.
// - On Atlas A2/A3 the level-0 mask argument of Compare/CompareScalar is reserved: every lane of each
//   repeat is compared. The level-0 form writes each repeat's bits right after the previous
//   repeat's (assumption: the page does not say how dst strides apply to a bit mask).
// - Select mode 0 (VSEL_CMPMASK_SPR) uses the first 256/sizeof(T) bits of selMask for every repeat;
//   modes 1 (VSEL_TENSOR_SCALAR_MODE) and 2 (VSEL_TENSOR_TENSOR_MODE) consume selMask continuously.
//   In level-0 form the mask argument then filters: lanes it leaves out keep dst's old value.
//   Modes 1 and 2 need 8 KB of UB kept free on A2/A3 as the instruction's scratch.
// Comparisons follow IEEE 754: NaN compares unequal to everything (assumption).
#pragma once
#include "vector_ops.h"

namespace AscendC {

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };

enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

namespace sim_detail {

constexpr uint32_t kCompareTypes = dtype_bit(DType::F16) | dtype_bit(DType::F32) | dtype_bit(DType::I32);
constexpr uint32_t kSelectTypes = dtype_bit(DType::F16) | dtype_bit(DType::F32);
// The pages name uint8_t (Compare also int8_t) for the mask; the mask is bits, which Select reads through any of
// uint8_t..uint64_t, and public kernels (Ascend's own DrivingSDK among them) write it through LocalTensor<uint16_t>:
// the unsigned widths are taken too (assumption: the instruction writes bits whatever the tensor's element type).
constexpr uint32_t kMaskWidths = dtype_bit(DType::U8) | dtype_bit(DType::U16) | dtype_bit(DType::U32) |
                                 dtype_bit(DType::U64);
constexpr uint32_t kCompareDst = dtype_bit(DType::I8) | kMaskWidths;
constexpr uint32_t kCompareScalarDst = kMaskWidths;
constexpr uint32_t kSelMaskTypes = dtype_bit(DType::U8) | dtype_bit(DType::U16) | dtype_bit(DType::U32) |
                                   dtype_bit(DType::U64);

inline const char* cmp_mode_name(CMPMODE m) {
    static const char* const names[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
    int i = static_cast<int>(m);
    return i < 6 ? names[i] : "an unknown CMPMODE";
}

template <CMPMODE M, typename T>
inline bool compare(T a, T b) {
    if constexpr (M == CMPMODE::LT) return a < b;
    else if constexpr (M == CMPMODE::GT) return a > b;
    else if constexpr (M == CMPMODE::EQ) return a == b;
    else if constexpr (M == CMPMODE::LE) return a <= b;
    else if constexpr (M == CMPMODE::GE) return a >= b;
    else return a != b;
}

template <typename Body>
inline void with_cmp_mode(CMPMODE mode, Body&& body) {
    switch (mode) {
        case CMPMODE::LT: body(std::integral_constant<CMPMODE, CMPMODE::LT>{}); break;
        case CMPMODE::GT: body(std::integral_constant<CMPMODE, CMPMODE::GT>{}); break;
        case CMPMODE::EQ: body(std::integral_constant<CMPMODE, CMPMODE::EQ>{}); break;
        case CMPMODE::LE: body(std::integral_constant<CMPMODE, CMPMODE::LE>{}); break;
        case CMPMODE::GE: body(std::integral_constant<CMPMODE, CMPMODE::GE>{}); break;
        case CMPMODE::NE: body(std::integral_constant<CMPMODE, CMPMODE::NE>{}); break;
    }
}

template <typename T, typename U>
inline void check_compare(const char* api, CMPMODE mode, uint32_t dst_types, Loc loc) {
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kCompareTypes, kCompareTypes, api, loc);
    if ((dst_types & dtype_bit(ascendc_sim::dtype_of<U>)) == 0)
        ascendc_sim::fail(ascendc_sim::Diag::UnsupportedDtype, loc,
                          "%s writes its bit mask to a LocalTensor<%s>; use LocalTensor<uint8_t>%s for dst.", api,
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<U>),
                          (dst_types & dtype_bit(DType::I8)) ? " (or int8_t)" : "");
    if (static_cast<int>(mode) > 5)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc, "%s: cmpMode %d is not a CMPMODE (LT GT EQ LE GE NE).",
                          api, static_cast<int>(mode));
    if (std::is_same_v<T, int32_t> && mode != CMPMODE::EQ)
        ascendc_sim::fail(ascendc_sim::Diag::UnsupportedDtype, loc,
                          "%s on int32_t supports only CMPMODE::EQ, not CMPMODE::%s (%s.md). Cast the data to float "
                          "first to compare with the other modes.",
                          api, cmp_mode_name(mode), api);
}

inline void check_compare_count(uint64_t count, uint32_t esize, const char* api, Loc loc) {
    if ((count * esize) % ascendc_sim::kRepeatBytes != 0)
        ascendc_sim::fail(ascendc_sim::Diag::CompareCount, loc,
                          "%s: count %llu covers %llu bytes, which is not a multiple of 256: the count form compares "
                          "whole 256-byte repeats (%u elements of this type). Round the count up to %llu and fill "
                          "the padding elements (e.g. Duplicate) so they compare harmlessly.",
                          api, (unsigned long long)count, (unsigned long long)(count * esize),
                          ascendc_sim::kRepeatBytes / esize,
                          (unsigned long long)((count * esize + 255) / 256 * 256 / esize));
}

// Packs the comparison of elements [0, n) (n a multiple of 8) into bytes, bit i of byte k = element 8k+i.
template <CMPMODE M, typename T, typename Src1>
inline void pack_compare(uint8_t* out, const T* a, Src1 b_at, uint64_t n) {
    for (uint64_t k = 0; k < n / 8; ++k) {
        uint32_t byte = 0;
        for (uint32_t i = 0; i < 8; ++i) byte |= uint32_t(compare<M>(a[8 * k + i], b_at(8 * k + i))) << i;
        out[k] = static_cast<uint8_t>(byte);
    }
}

// Level-0 Compare/CompareScalar: every lane of each repeat, sources by their strides; the bits of
// repeat r land at dst bytes [r * lanes / 8, (r + 1) * lanes / 8).
template <typename T, typename U, typename Cmp>
void compare_level0(const char* api, const LocalTensor<U>& dst, const Stream* srcs, uint64_t repeats, Cmp cmp,
                    Loc loc) {
    constexpr uint32_t lanes = 256 / sizeof(T);
    constexpr uint32_t per_block = lanes / 8;
    ascendc_sim::check_operand(dst, (repeats * lanes / 8 + sizeof(U) - 1) / sizeof(U), api, "dst", loc);
    uint8_t* out = bytes_of(dst);
    for (uint64_t r = 0; r < repeats; ++r)
        for (uint32_t blk = 0; blk < 8; ++blk) {
            const T* x = reinterpret_cast<const T*>(srcs[0].base + (r * srcs[0].rep + blk * srcs[0].blk) * 32ull);
            const T* y = reinterpret_cast<const T*>(srcs[1].base + (r * srcs[1].rep + blk * srcs[1].blk) * 32ull);
            uint8_t* o = out + (r * lanes + blk * per_block) / 8;
            for (uint32_t k = 0; k < per_block; k += 8) {
                uint32_t byte = 0;
                for (uint32_t i = 0; i < 8; ++i) byte |= uint32_t(cmp(x[k + i], y[k + i])) << i;
                o[k / 8] = static_cast<uint8_t>(byte);
            }
        }
}

}  // namespace sim_detail

// ---- Compare ----------------------------------------------------------------------------------------

template <typename T, typename U>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             uint32_t count, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    sim_detail::check_compare<T, U>("Compare", cmpMode, sim_detail::kCompareDst, loc);
    if (count == 0) return;
    sim_detail::check_compare_count(count, sizeof(T), "Compare", loc);
    ascendc_sim::check_operand(src0, count, "Compare", "src0", loc);
    ascendc_sim::check_operand(src1, count, "Compare", "src1", loc);
    ascendc_sim::check_operand(dst, (count / 8 + sizeof(U) - 1) / sizeof(U), "Compare", "dst", loc);
    uint8_t* out = sim_detail::bytes_of(dst);
    const T* a = src0.GetPhyAddrPtr();
    const T* b = src1.GetPhyAddrPtr();
    sim_detail::with_cmp_mode(cmpMode, [&](auto m) {
        sim_detail::pack_compare<decltype(m)::value>(out, a, [b](uint64_t i) { return b[i]; }, count);
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Compare, ascendc_sim::repeats_for<T>(count),
                              {src0.timing(), src1.timing()}, dst.timing());
}

namespace sim_detail {
template <typename T, typename U>
void compare_tensor_level0(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                           CMPMODE mode, int64_t repeat, const BinaryRepeatParams& rp, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_compare<T, U>("Compare", mode, kCompareDst, loc);
    check_repeat_arg(repeat, "Compare", loc);
    if (repeat == 0) return;
    constexpr uint32_t lanes = 256 / sizeof(T);
    Plan p;
    p.repeats = static_cast<uint64_t>(repeat);
    prefix_bits(p.bits, lanes);
    const Stream s[2] = {{bytes_of(src0), sizeof(T), rp.src0BlkStride, rp.src0RepStride},
                         {bytes_of(src1), sizeof(T), rp.src1BlkStride, rp.src1RepStride}};
    check_level0_operand(src0, s[0], p, lanes, "Compare", "src0", loc);
    check_level0_operand(src1, s[1], p, lanes, "Compare", "src1", loc);
    with_cmp_mode(mode, [&](auto m) {
        compare_level0<T>("Compare", dst, s, p.repeats, [](T a, T b) { return compare<decltype(m)::value>(a, b); }, loc);
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Compare, p.repeats, {src0.timing(), src1.timing()}, dst.timing());
}
}  // namespace sim_detail

// The mask of the level-0 form is a reserved parameter on A2/A3 (Compare.md): all lanes compare.
template <typename T, typename U, bool isSetMask = true>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const uint64_t mask[], const int64_t repeatTime, const BinaryRepeatParams& repeatParams,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    (void)mask;
    sim_detail::compare_tensor_level0(dst, src0, src1, cmpMode, repeatTime, repeatParams, loc);
}

template <typename T, typename U, bool isSetMask = true>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const uint64_t mask, const int64_t repeatTime, const BinaryRepeatParams& repeatParams,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    (void)mask;
    sim_detail::compare_tensor_level0(dst, src0, src1, cmpMode, repeatTime, repeatParams, loc);
}

// ---- CompareScalar ------------------------------------------------------------------------------------

template <typename T, typename U>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                   uint32_t count, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    sim_detail::check_compare<T, U>("CompareScalar", cmpMode, sim_detail::kCompareScalarDst, loc);
    if (count == 0) return;
    sim_detail::check_compare_count(count, sizeof(T), "CompareScalar", loc);
    ascendc_sim::check_operand(src0, count, "CompareScalar", "src0", loc);
    ascendc_sim::check_operand(dst, (count / 8 + sizeof(U) - 1) / sizeof(U), "CompareScalar", "dst", loc);
    uint8_t* out = sim_detail::bytes_of(dst);
    const T* a = src0.GetPhyAddrPtr();
    const T s = src1Scalar;
    sim_detail::with_cmp_mode(cmpMode, [&](auto m) {
        sim_detail::pack_compare<decltype(m)::value>(out, a, [s](uint64_t) { return s; }, count);
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::CompareScalar, ascendc_sim::repeats_for<T>(count), {src0.timing()},
                              dst.timing());
}

namespace sim_detail {
template <typename T, typename U>
void compare_scalar_level0(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T scalar, CMPMODE mode,
                           int64_t repeat, const UnaryRepeatParams& rp, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_compare<T, U>("CompareScalar", mode, kCompareScalarDst, loc);
    check_repeat_arg(repeat, "CompareScalar", loc);
    if (repeat == 0) return;
    constexpr uint32_t lanes = 256 / sizeof(T);
    Plan p;
    p.repeats = static_cast<uint64_t>(repeat);
    prefix_bits(p.bits, lanes);
    const Stream s[2] = {{bytes_of(src0), sizeof(T), rp.srcBlkStride, rp.srcRepStride},
                         {bytes_of(src0), sizeof(T), rp.srcBlkStride, rp.srcRepStride}};
    check_level0_operand(src0, s[0], p, lanes, "CompareScalar", "src0", loc);
    with_cmp_mode(mode, [&](auto m) {
        compare_level0<T>("CompareScalar", dst, s, p.repeats,
                          [scalar](T a, T) { return compare<decltype(m)::value>(a, scalar); }, loc);
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::CompareScalar, p.repeats, {src0.timing()}, dst.timing());
}
}  // namespace sim_detail

template <typename T, typename U, bool isSetMask = true>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                   const uint64_t mask[], const int64_t repeatTime, const UnaryRepeatParams& repeatParams,
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    (void)mask;
    sim_detail::compare_scalar_level0(dst, src0, src1Scalar, cmpMode, repeatTime, repeatParams, loc);
}

template <typename T, typename U, bool isSetMask = true>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                   const uint64_t mask, const int64_t repeatTime, const UnaryRepeatParams& repeatParams,
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    (void)mask;
    sim_detail::compare_scalar_level0(dst, src0, src1Scalar, cmpMode, repeatTime, repeatParams, loc);
}

// ---- Select -------------------------------------------------------------------------------------------

namespace sim_detail {

inline const char* sel_mode_name(SELMODE m) {
    static const char* const names[] = {"VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE", "VSEL_TENSOR_TENSOR_MODE"};
    int i = static_cast<int>(m);
    return i < 3 ? names[i] : "an unknown SELMODE";
}

template <typename T, typename U>
inline void check_select(ascendc_sim::CoreState& c, SELMODE mode, bool scalar_src1, Loc loc) {
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kSelectTypes, kSelectTypes, "Select", loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<U>, kSelMaskTypes, kSelMaskTypes, "Select (selMask)", loc);
    if (scalar_src1 && mode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "Select with a scalar src1 needs SELMODE::VSEL_TENSOR_SCALAR_MODE, not %s. Pass a tensor "
                          "src1 for VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE.",
                          sel_mode_name(mode));
    if (!scalar_src1 && mode != SELMODE::VSEL_CMPMASK_SPR && mode != SELMODE::VSEL_TENSOR_TENSOR_MODE)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "Select with a tensor src1 needs SELMODE::VSEL_TENSOR_TENSOR_MODE or VSEL_CMPMASK_SPR, not "
                          "%s. VSEL_TENSOR_SCALAR_MODE takes a scalar src1.",
                          sel_mode_name(mode));
    const SimSocProfile& soc = c.soc();
    if (soc.arch == 0 && mode != SELMODE::VSEL_CMPMASK_SPR && uint64_t(c.ub_used) + 8192 > soc.ub_bytes)
        ascendc_sim::fail(ascendc_sim::Diag::UbOverflow, loc,
                          "Select in %s uses 8 KB of UB as scratch on %s (Select.md), but the kernel's buffers "
                          "already take %u of %u bytes. Shrink the buffers so that at least 8192 bytes of UB stay "
                          "free.",
                          sel_mode_name(mode), soc.name, c.ub_used, soc.ub_bytes);
}

inline bool mask_bit(const uint8_t* m, uint64_t i) { return (m[i >> 3] >> (i & 7)) & 1; }

// Count form. Mode 0 reuses the first `lanes` bits for every repeat; modes 1 and 2 read bit i.
template <typename T, typename U, typename Src1>
void select_count(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0, Src1 src1_at,
                  ascendc_sim::BufferTiming* src1_timing, SELMODE mode, uint32_t count, bool scalar_src1, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_select<T, U>(c, mode, scalar_src1, loc);
    if (count == 0) return;
    constexpr uint32_t lanes = 256 / sizeof(T);
    const uint64_t mask_bits = mode == SELMODE::VSEL_CMPMASK_SPR ? std::min<uint64_t>(lanes, count) : count;
    ascendc_sim::check_operand(dst, count, "Select", "dst", loc);
    ascendc_sim::check_operand(src0, count, "Select", "src0", loc);
    ascendc_sim::check_operand(sel, ((mask_bits + 7) / 8 + sizeof(U) - 1) / sizeof(U), "Select", "selMask", loc);
    T* d = dst.GetPhyAddrPtr();
    const T* x = src0.GetPhyAddrPtr();
    const uint8_t* m = bytes_of(sel);
    if (mode == SELMODE::VSEL_CMPMASK_SPR) {
        for (uint32_t i = 0; i < count; ++i) d[i] = mask_bit(m, i % lanes) ? x[i] : src1_at(i);
    } else {
        for (uint32_t i = 0; i < count; ++i) d[i] = mask_bit(m, i) ? x[i] : src1_at(i);
    }
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Select, ascendc_sim::repeats_for<T>(count),
                              {sel.timing(), src0.timing(), src1_timing}, dst.timing());
}

// The lanes of plan `p`: dst = selMask bit ? src0 : src1 (or the scalar). `m` holds the selMask bits;
// `reuse` (mode 0): every repeat uses the first `lanes` bits.
template <typename T, bool kScalar>
void select_walk(const Plan& p, const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>* src1,
                 T scalar, const uint8_t* m, bool reuse, const BinaryRepeatParams& rp, Loc loc) {
    constexpr uint32_t lanes = 256 / sizeof(T);
    const Stream s[3] = {{bytes_of(dst), sizeof(T), rp.dstBlkStride, rp.dstRepStride},
                         {bytes_of(src0), sizeof(T), rp.src0BlkStride, rp.src0RepStride},
                         {kScalar ? bytes_of(src0) : bytes_of(*src1), sizeof(T), rp.src1BlkStride, rp.src1RepStride}};
    check_level0_operand(dst, s[0], p, lanes, "Select", "dst", loc);
    check_level0_operand(src0, s[1], p, lanes, "Select", "src0", loc);
    if constexpr (!kScalar) check_level0_operand(*src1, s[2], p, lanes, "Select", "src1", loc);
    walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool, uint32_t n, uint64_t lane) {
        T* d = reinterpret_cast<T*>(ptr[0]);
        const T* x = reinterpret_cast<const T*>(ptr[1]);
        const T* y = reinterpret_cast<const T*>(ptr[2]);
        for (uint32_t k = 0; k < n; ++k)
            if ((bits >> k) & 1) {
                const bool pick0 = mask_bit(m, reuse ? (lane + k) % lanes : lane + k);
                if constexpr (kScalar) d[k] = pick0 ? x[k] : scalar;
                else d[k] = pick0 ? x[k] : y[k];
            }
    });
}

template <typename T, typename U, bool isSetMask, bool kScalar>
void select_level0(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0,
                   const LocalTensor<T>* src1, T scalar, SELMODE mode, const MaskArg& mask, int64_t repeat,
                   const BinaryRepeatParams& rp, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_select<T, U>(c, mode, kScalar, loc);
    constexpr uint32_t lanes = 256 / sizeof(T);
    Plan p = make_plan<isSetMask>(c, mask, lanes, sizeof(T), repeat, "Select", loc);
    if (p.repeats == 0) return;
    const bool reuse = mode == SELMODE::VSEL_CMPMASK_SPR;
    const uint64_t mask_bits = reuse ? lanes : p.repeats * lanes;
    ascendc_sim::check_operand(sel, (mask_bits / 8 + sizeof(U) - 1) / sizeof(U), "Select", "selMask", loc);
    select_walk<T, kScalar>(p, dst, src0, src1, scalar, bytes_of(sel), reuse, rp, loc);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Select, p.repeats,
                              {sel.timing(), src0.timing(), kScalar ? nullptr : src1->timing()}, dst.timing());
}

}  // namespace sim_detail

template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
            SELMODE selMode, uint32_t count, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::select_count(dst, selMask, src0, [src1](uint32_t) { return src1; }, nullptr, selMode, count, true,
                             loc);
}

template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint32_t count,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    if (count != 0) ascendc_sim::check_operand(src1, count, "Select", "src1", loc);
    const T* y = src1.GetPhyAddrPtr();
    sim_detail::select_count(dst, selMask, src0, [y](uint32_t i) { return y[i]; }, src1.timing(), selMode, count,
                             false, loc);
}

template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
            SELMODE selMode, const uint64_t mask[], const int64_t repeatTime, const BinaryRepeatParams& repeatParams,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::select_level0<T, U, isSetMask, true>(dst, selMask, src0, nullptr, src1, selMode,
                                                     sim_detail::MaskArg{mask, 0}, repeatTime, repeatParams, loc);
}

template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
            SELMODE selMode, uint64_t mask, const int64_t repeatTime, const BinaryRepeatParams& repeatParams,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::select_level0<T, U, isSetMask, true>(dst, selMask, src0, nullptr, src1, selMode,
                                                     sim_detail::MaskArg{nullptr, mask}, repeatTime, repeatParams, loc);
}

template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, const uint64_t mask[], const int64_t repeatTime,
            const BinaryRepeatParams& repeatParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::select_level0<T, U, isSetMask, false>(dst, selMask, src0, &src1, T(), selMode,
                                                      sim_detail::MaskArg{mask, 0}, repeatTime, repeatParams, loc);
}

template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask, const int64_t repeatTime,
            const BinaryRepeatParams& repeatParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::select_level0<T, U, isSetMask, false>(dst, selMask, src0, &src1, T(), selMode,
                                                      sim_detail::MaskArg{nullptr, mask}, repeatTime, repeatParams, loc);
}

// ---- the CMPMASK register: Compare (结果存入寄存器), GetCmpMask, SetCmpMask, Select without a mask ------
//
// From asc-devkit v8.5.0 Compare（结果存入寄存器）.md, GetCmpMask(ISASI).md, SetCmpMask(ISASI).md and
// Select.md (不传入mask参数):
// - Compare(src0, src1, cmpMode, mask, repeatParams): half/float, one repeat (256 bytes), the bits
//   into the 128-bit CMPMASK register.
// - GetCmpMask(dst): the register into dst (16-byte aligned, at least 128 bytes of room).
// - SetCmpMask(src) (16-byte aligned) loads the register for the Select forms without a mask, which
//   take their lanes from SetVectorMask: mode 0 reads the selMask bits from it, mode 1 its scalar
//   src1 (the register's first element), mode 2 the UB address of selMask.
// Assumptions: lanes the mask leaves out, and bits 64..127 after a float compare, are 0; GetCmpMask
// writes the 16 register bytes and the rest of its 128 bytes is undefined, so poisoned (0xFF); a mode-2
// address is matched on its low 32 bits, so both the 64-bit GetPhyAddr() and a 32-bit copy of it work.
// 310P: the CANN 9 pages of GetCmpMask/SetCmpMask list "Atlas 推理系列产品 AI Core" too; same rules.

namespace sim_detail {

struct CmpMaskRegister {
    bool set = false;
    uint8_t bytes[16] = {};
    Loc set_loc;
};

inline uint64_t cmp_mask_writes(const ascendc_sim::CoreState& c) {
    return c.report->op_instrs[static_cast<int>(ascendc_sim::OpId::CompareCmpMask)] +
           c.report->op_instrs[static_cast<int>(ascendc_sim::OpId::SetCmpMask)];
}

inline CmpMaskRegister& cmp_mask_register(ascendc_sim::CoreState& c) {
    return core_register<CmpMaskRegister>(c, cmp_mask_writes(c));
}

inline const CmpMaskRegister& require_cmp_mask(ascendc_sim::CoreState& c, const char* api, Loc loc) {
    const CmpMaskRegister& r = cmp_mask_register(c);
    if (!r.set)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "%s reads the CMPMASK register, which nothing has written in this block: on the NPU it "
                          "holds whatever was there before. Write it first with SetCmpMask(tensor) or "
                          "Compare(src0, src1, cmpMode, mask, repeatParams).",
                          api);
    return r;
}

// A tensor the register is loaded from or stored to: 16-byte aligned in UB, with `bytes` of room.
template <typename T>
inline void check_cmp_mask_operand(const LocalTensor<T>& t, uint64_t bytes, const char* api, const char* role,
                                   Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (t.GetPhyAddrPtr() == nullptr)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "%s: %s is an empty LocalTensor (never allocated). Get it from a queue's AllocTensor/DeQue "
                          "or a TBuf's Get first.",
                          api, role);
    const uint64_t offset = ascendc_sim::ub_offset(c, t.GetPhyAddrPtr());
    if (offset % 16 != 0)
        ascendc_sim::fail(ascendc_sim::Diag::UbMisaligned, loc,
                          "%s: %s starts at UB byte offset %llu, which is not 16-byte aligned (%s.md).", api, role,
                          (unsigned long long)offset, api);
    if (uint64_t(t.GetSize()) * sizeof(T) < bytes)
        ascendc_sim::fail(ascendc_sim::Diag::LocalOverrun, loc,
                          "%s: %s has %llu bytes but needs at least %llu (%s.md).", api, role,
                          (unsigned long long)(uint64_t(t.GetSize()) * sizeof(T)), (unsigned long long)bytes, api);
}

template <typename T, bool isSetMask>
void compare_to_cmp_mask(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode, const MaskArg& mask,
                         const BinaryRepeatParams& rp, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kSelectTypes, kSelectTypes, "Compare (cmpMask)", loc);
    if (static_cast<int>(mode) > 5)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "Compare: cmpMode %d is not a CMPMODE (LT GT EQ LE GE NE).", static_cast<int>(mode));
    constexpr uint32_t lanes = 256 / sizeof(T);
    Plan p = make_plan<isSetMask>(c, mask, lanes, sizeof(T), 1, "Compare (cmpMask)", loc);
    if (p.repeats != 1)
        ascendc_sim::fail(ascendc_sim::Diag::BadMask, loc,
                          "Compare (result in the cmpMask register) runs exactly one repeat of %u elements, but the "
                          "counter-mode mask asks for %llu repeats. Set at most %u elements, or use the Compare form "
                          "with a dst tensor.",
                          lanes, (unsigned long long)p.repeats, lanes);
    const Stream s[2] = {{bytes_of(src0), sizeof(T), rp.src0BlkStride, rp.src0RepStride},
                         {bytes_of(src1), sizeof(T), rp.src1BlkStride, rp.src1RepStride}};
    check_level0_operand(src0, s[0], p, lanes, "Compare", "src0", loc);
    check_level0_operand(src1, s[1], p, lanes, "Compare", "src1", loc);
    uint8_t bits[16] = {};
    with_cmp_mode(mode, [&](auto m) {
        walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t on, bool, uint32_t n, uint64_t lane) {
            const T* x = reinterpret_cast<const T*>(ptr[0]);
            const T* y = reinterpret_cast<const T*>(ptr[1]);
            for (uint32_t k = 0; k < n; ++k)
                if (((on >> k) & 1) && compare<decltype(m)::value>(x[k], y[k]))
                    bits[(lane + k) / 8] |= uint8_t(1u << ((lane + k) % 8));
        });
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::CompareCmpMask, 1, {src0.timing(), src1.timing()}, nullptr);
    CmpMaskRegister& r = cmp_mask_register(c);  // after the count: a new write
    r.set = true;
    std::memcpy(r.bytes, bits, 16);
    r.set_loc = loc;
}

// Mode 2's register holds selMask's UB address (SetCmpMask.md's example).
inline const uint8_t* cmp_mask_address(ascendc_sim::CoreState& c, const CmpMaskRegister& r, uint64_t bytes, Loc loc) {
    uint64_t word;
    std::memcpy(&word, r.bytes, 8);
    const uint32_t offset = uint32_t(word) - uint32_t(ascendc_sim::ub_visible(c.ub));
    if (uint64_t(offset) + bytes > c.soc().ub_bytes)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "Select (VSEL_TENSOR_TENSOR_MODE, no mask) takes selMask's UB address from the CMPMASK "
                          "register (SetCmpMask, line %d), but 0x%llx is not the address of %llu bytes inside this "
                          "core's UB. Store selMask.GetPhyAddr() into the tensor passed to SetCmpMask.",
                          r.set_loc.line, (unsigned long long)word, (unsigned long long)bytes);
    return c.ub + offset;
}

}  // namespace sim_detail

template <typename T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask[],
             const BinaryRepeatParams& repeatParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::compare_to_cmp_mask<T, isSetMask>(src0, src1, cmpMode, sim_detail::MaskArg{mask, 0}, repeatParams, loc);
}

template <typename T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask,
             const BinaryRepeatParams& repeatParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::compare_to_cmp_mask<T, isSetMask>(src0, src1, cmpMode, sim_detail::MaskArg{nullptr, mask},
                                                  repeatParams, loc);
}

template <typename T>
void GetCmpMask(const LocalTensor<T>& dst, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    sim_detail::check_cmp_mask_operand(dst, 128, "GetCmpMask", "dst", loc);
    const sim_detail::CmpMaskRegister& r = sim_detail::require_cmp_mask(c, "GetCmpMask", loc);
    uint8_t* d = sim_detail::bytes_of(dst);
    std::memcpy(d, r.bytes, 16);
    std::memset(d + 16, 0xFF, 128 - 16);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::GetCmpMask, 1, {}, dst.timing());
}

template <typename T>
void SetCmpMask(const LocalTensor<T>& src, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    sim_detail::check_cmp_mask_operand(src, 16, "SetCmpMask", "src", loc);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::SetCmpMask, 1, {src.timing()}, nullptr);
    sim_detail::CmpMaskRegister& r = sim_detail::cmp_mask_register(c);  // after the count: a new write
    r.set = true;
    std::memcpy(r.bytes, sim_detail::bytes_of(src), 16);
    r.set_loc = loc;
}

// Modes 0 and 2 without a mask argument: lanes from SetVectorMask, selMask from the CMPMASK register.
template <typename T, SELMODE selMode>
void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            const int64_t repeatTime, const BinaryRepeatParams& repeatParams,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (selMode == SELMODE::VSEL_TENSOR_SCALAR_MODE)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "Select<T, SELMODE::VSEL_TENSOR_SCALAR_MODE>(dst, src0, src1, repeatTime, repeatParams) is "
                          "not a documented form: without a mask, mode 1 is Select(dst, selMask, src0, repeatTime, "
                          "repeatParams) with the scalar set by SetCmpMask.");
    sim_detail::check_select<T, uint8_t>(c, selMode, false, loc);
    constexpr uint32_t lanes = 256 / sizeof(T);
    sim_detail::Plan p = sim_detail::make_plan<false>(c, sim_detail::MaskArg{nullptr, 0}, lanes, sizeof(T),
                                                      repeatTime, "Select", loc);
    if (p.repeats == 0) return;
    const sim_detail::CmpMaskRegister& r = sim_detail::require_cmp_mask(c, "Select (no mask)", loc);
    const bool reuse = selMode == SELMODE::VSEL_CMPMASK_SPR;
    uint8_t bits[16];
    std::memcpy(bits, r.bytes, 16);
    const uint8_t* m = reuse ? bits : sim_detail::cmp_mask_address(c, r, (p.repeats * lanes + 7) / 8, loc);
    sim_detail::select_walk<T, false>(p, dst, src0, &src1, T(), m, reuse, repeatParams, loc);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Select, p.repeats, {src0.timing(), src1.timing()}, dst.timing());
}

// Mode 1 without a mask argument: the scalar src1 is the CMPMASK register's first element.
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const int64_t repeatTime, const BinaryRepeatParams& repeatParams,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    sim_detail::check_select<T, U>(c, SELMODE::VSEL_TENSOR_SCALAR_MODE, true, loc);
    constexpr uint32_t lanes = 256 / sizeof(T);
    sim_detail::Plan p = sim_detail::make_plan<false>(c, sim_detail::MaskArg{nullptr, 0}, lanes, sizeof(T),
                                                      repeatTime, "Select", loc);
    if (p.repeats == 0) return;
    const sim_detail::CmpMaskRegister& r = sim_detail::require_cmp_mask(c, "Select (no mask)", loc);
    T scalar;
    std::memcpy(&scalar, r.bytes, sizeof(T));
    ascendc_sim::check_operand(selMask, (p.repeats * lanes / 8 + sizeof(U) - 1) / sizeof(U), "Select", "selMask",
                               loc);
    sim_detail::select_walk<T, true>(p, dst, src0, nullptr, scalar, sim_detail::bytes_of(selMask), false,
                                     repeatParams, loc);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Select, p.repeats, {selMask.timing(), src0.timing()}, dst.timing());
}

}  // namespace AscendC
