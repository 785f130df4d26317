// Fixpipe (Fixpipe.md): CO1 (L0C) -> GM on the cube's FIX pipe, converting on the way (quantPre, ReLU) and, by
// default (CFG_ROW_MAJOR), from the NZ layout of L0C to ND rows; and its older spelling DataCopy(GM, CO1,
// DataCopyCO12DstParams) with SetFixpipeNz2ndFlag / SetFixpipePreQuantFlag (随路量化激活搬运.md).
//
// Layout: L0C holds columns of 16 x 16 fractals (mmad.h): element (i, j) of one NZ matrix at
// (j / 16) * srcStride * 16 + i * 16 + j % 16, srcStride in rows of 16 elements (C0_Size = 16 * sizeof(U)).
// - ND (CFG_ROW_MAJOR): dst[i * dstStride + j] for i < mSize, j < nSize; ndNum matrices, srcNdStride * 1024 bytes
//   apart in L0C and dstNdStride elements apart in GM. The padding of the fractals is dropped.
// - NZ (CFG_NZ): each column of fractals goes out as mSize rows of 16 elements, the columns dstStride 32-byte
//   blocks apart in GM (start to start); nSize a multiple of 16.
// Conversion (Fixpipe.md table 3, QuantMode_t): NoQuant (float -> float, int32 -> int32), F322F16 (float -> half),
// F322BF16 (float -> bfloat16), DEQF16 / VDEQF16 (int32 -> half, times a scale), QF322B8_PRE / VQF322B8_PRE
// (float -> int8/uint8, times a scale), REQ8 / VREQ8 (int32 -> int8/uint8, times a scale). A scalar mode's scale is
// deqScalar, a tensor mode's the column's uint64_t in cbufWorkspace (L1). A scale is the float in the low 32 bits
// (the page's example: `static_cast<uint64_t>(*reinterpret_cast<int32_t*>(&scale))`) with its low 13 mantissa bits
// cleared: the Fixpipe computes with a 1-8-10 float (Fixpipe.md constraints). Rounding to half, bfloat16 and the
// 8-bit types: to nearest, ties to even, 8-bit saturated (assumption: the pages do not say). ReLU (reluEn) applies
// after the scale (assumption). isChannelSplit is not simulated. unitFlag 2/3 stands for the M -> FIX synchronisation.
#pragma once
#include <cmath>
#include <limits>
#include <vector>

#include "cube_operand.h"
#include "data_copy.h"

// QuantMode_t (Fixpipe.md, 随路量化激活搬运.md): a plain enum, written as QuantMode_t::F322F16 outside AscendC.
enum QuantMode_t : uint8_t {
    NoQuant,
    F322F16,
    F322BF16,
    DEQF16,
    VDEQF16,
    QF322B8_PRE,
    VQF322B8_PRE,
    REQ8,
    VREQ8,
};

namespace AscendC {

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR };
struct FixpipeConfig {
    CO2Layout format;
};
inline constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
inline constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};

// Fixpipe.md table 3.
struct FixpipeParamsV220 {
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint16_t srcStride = 0;  // rows of 16 elements between the columns of fractals in L0C
    uint32_t dstStride = 0;  // ND: elements per GM row; NZ: 32-byte blocks between columns
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;  // 1024-byte units
    uint32_t dstNdStride = 0;  // elements
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
    FixpipeParamsV220() = default;
    // As public kernels construct it: FixpipeParamsV220(nSize, mSize, srcStride, dstStride, reluEn).
    FixpipeParamsV220(uint16_t n_size, uint16_t m_size, uint16_t src_stride, uint32_t dst_stride, bool relu_en)
        : nSize(n_size), mSize(m_size), srcStride(src_stride), dstStride(dst_stride), reluEn(relu_en) {}
};

// 随路量化激活搬运.md table 3, in the order of its example `DataCopyCO12DstParams(nSize, mSize, dstStride, srcStride,
// deqMode, 0, false, nz2ndEn)`.
struct DataCopyCO12DstParams {
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint32_t dstStride = 0;
    uint16_t srcStride = 0;
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint8_t reluPre = 0;
    bool channelSplit = false;
    bool nz2ndEn = false;
    uint8_t sid = 0;
    uint8_t unitFlag = 0;
    DataCopyCO12DstParams() = default;
    DataCopyCO12DstParams(uint16_t n_size, uint16_t m_size, uint32_t dst_stride, uint16_t src_stride,
                          QuantMode_t quant_pre, uint8_t relu_pre, bool channel_split, bool nz2nd_en)
        : nSize(n_size), mSize(m_size), dstStride(dst_stride), srcStride(src_stride), quantPre(quant_pre),
          reluPre(relu_pre), channelSplit(channel_split), nz2ndEn(nz2nd_en) {}
};

namespace sim_detail {

// What one Fixpipe does, whichever API asked for it.
struct FixJob {
    bool nd = true;
    uint32_t n, m, src_stride, dst_stride;
    uint32_t nd_num = 1, src_nd_stride = 0, dst_nd_stride = 0;
    QuantMode_t mode = NoQuant;
    uint64_t scalar = 0;
    const uint64_t* column_scales = nullptr;
    bool relu = false;
    uint8_t unit_flag = 0;
};

inline float fix_scale(uint64_t bits) {
    uint32_t word = static_cast<uint32_t>(bits) & 0xFFFFE000u;
    float scale;
    std::memcpy(&scale, &word, sizeof scale);
    return scale;
}

inline bool is_vector_mode(QuantMode_t m) { return m == VDEQF16 || m == VQF322B8_PRE || m == VREQ8; }
inline bool is_scaled(QuantMode_t m) { return m != NoQuant && m != F322F16 && m != F322BF16; }

inline const char* quant_name(QuantMode_t m) {
    static const char* const names[] = {"NoQuant", "F322F16", "F322BF16", "DEQF16", "VDEQF16",
                                        "QF322B8_PRE", "VQF322B8_PRE", "REQ8", "VREQ8"};
    return m <= VREQ8 ? names[m] : "an unknown mode";
}

// Whether quantPre converts U (the L0C type) into T (the GM type).
template <typename T, typename U>
constexpr bool fix_pair(QuantMode_t m) {
    constexpr bool f32 = std::is_same_v<U, float>, i32 = std::is_same_v<U, int32_t>;
    constexpr bool b8 = std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>;
    switch (m) {
        case NoQuant: return std::is_same_v<T, U> && (f32 || i32);
        case F322F16: return f32 && std::is_same_v<T, half>;
        case F322BF16: return f32 && std::is_same_v<T, bfloat16_t>;
        case DEQF16: case VDEQF16: return i32 && std::is_same_v<T, half>;
        case QF322B8_PRE: case VQF322B8_PRE: return f32 && b8;
        case REQ8: case VREQ8: return i32 && b8;
    }
    return false;
}

template <typename T>
T saturate_round(float x) {
    if constexpr (std::is_integral_v<T>) {
        if (std::isnan(x)) return T(0);
        float r = std::nearbyint(x);  // the default rounding mode: to nearest, ties to even
        r = std::min(std::max(r, float(std::numeric_limits<T>::min())), float(std::numeric_limits<T>::max()));
        return static_cast<T>(r);
    } else {
        return T(x);
    }
}

template <typename T, typename U>
T fix_convert(U v, QuantMode_t mode, float scale, bool relu) {
    if constexpr (std::is_same_v<T, U>) {
        return relu && v < U(0) ? U(0) : v;
    } else {
        float x = static_cast<float>(v);
        if (is_scaled(mode)) x *= scale;
        if (relu && x < 0.0f) x = 0.0f;
        return saturate_round<T>(x);
    }
}

template <typename T, typename U>
void check_fix_job(const FixJob& job, const char* api, Loc loc) {
    using ascendc_sim::dtype_name;
    using ascendc_sim::dtype_of;
    if (!std::is_same_v<U, float> && !std::is_same_v<U, int32_t>)
        fail(Diag::CubeDtype, loc, "%s: the source is %s; L0C (CO1) holds float or int32_t, what Mmad accumulates.",
             api, dtype_name(dtype_of<U>));
    if (!fix_pair<T, U>(job.mode))
        fail(Diag::CubeDtype, loc,
             "%s: quantPre %s does not turn %s into %s. float -> float / int32_t -> int32_t: NoQuant; float -> half: "
             "F322F16; float -> bfloat16_t: F322BF16; int32_t -> half: DEQF16/VDEQF16; float -> int8_t/uint8_t: "
             "QF322B8_PRE/VQF322B8_PRE; int32_t -> int8_t/uint8_t: REQ8/VREQ8 (Fixpipe.md table 3).",
             api, quant_name(job.mode), dtype_name(dtype_of<U>), dtype_name(dtype_of<T>));
    if (is_vector_mode(job.mode) && job.column_scales == nullptr)
        fail(Diag::BadArgument, loc,
             "%s: quantPre %s takes a scale per column from a LocalTensor<uint64_t> in L1: call the overload "
             "Fixpipe(dst, src, cbufWorkspace, params), or use the scalar mode with deqScalar.",
             api, quant_name(job.mode));
    using ascendc_sim::cube::check_range;
    check_range(api, "nSize", job.n, 1, 4095, loc);
    check_range(api, "mSize", job.m, 1, job.nd ? 8192 : 65535, loc);
    if (job.dst_stride == 0)
        fail(Diag::BadArgument, loc, "%s: dstStride is 0; it must not be (Fixpipe.md table 3).", api);
    if (!job.nd && job.n % 16 != 0)
        fail(Diag::CubeAlignment, loc,
             "%s: without NZ2ND (CFG_NZ) nSize must be a multiple of 16, not %u (Fixpipe.md table 3).", api, job.n);
    if (job.src_stride < job.m)
        fail(Diag::BadArgument, loc,
             "%s: srcStride is %u rows but mSize is %u: the rows of one column of fractals would run into the next. "
             "srcStride counts the rows between the columns of fractals in L0C (Mmad's m rounded up to 16).",
             api, job.src_stride, job.m);
}

// The L0C elements the job reads (bytes, for the operand check).
template <typename U>
uint64_t fix_src_bytes(const FixJob& job) {
    uint64_t last_column = (job.n - 1) / 16;
    uint64_t per_matrix = (last_column * job.src_stride + job.m) * 16 * sizeof(U);
    return uint64_t(job.nd_num - 1) * job.src_nd_stride * 1024 + per_matrix;
}

// Runs the job over L0C, handing each converted output row (or 16-element row of a column, NZ) to
// `put(element offset in dst, row, count)`.
template <typename T, typename U, typename Put>
void fixpipe_rows(const U* l0c, const FixJob& job, Put&& put) {
    float scalar = fix_scale(job.scalar);
    static thread_local std::vector<T> row;
    row.resize(job.nd ? job.n : 16);
    auto scale_of = [&](uint32_t j) { return job.column_scales ? fix_scale(job.column_scales[j]) : scalar; };
    for (uint32_t nd = 0; nd < job.nd_num; ++nd) {
        const U* matrix = l0c + uint64_t(nd) * job.src_nd_stride * 1024 / sizeof(U);
        if (job.nd) {
            for (uint32_t i = 0; i < job.m; ++i) {
                for (uint32_t j = 0; j < job.n; ++j)
                    row[j] = fix_convert<T, U>(matrix[uint64_t(j / 16) * job.src_stride * 16 + i * 16 + j % 16],
                                               job.mode, scale_of(j), job.relu);
                put(uint64_t(nd) * job.dst_nd_stride + uint64_t(i) * job.dst_stride, row.data(), job.n);
            }
            continue;
        }
        for (uint32_t column = 0; column < job.n / 16; ++column)
            for (uint32_t i = 0; i < job.m; ++i) {
                for (uint32_t j = 0; j < 16; ++j)
                    row[j] = fix_convert<T, U>(matrix[uint64_t(column) * job.src_stride * 16 + i * 16 + j], job.mode,
                                               scale_of(column * 16 + j), job.relu);
                uint64_t at = (uint64_t(column) * job.dst_stride * 32 + uint64_t(i) * 16 * sizeof(T)) / sizeof(T);
                put(at, row.data(), 16);
            }
    }
}

// Elements of the destination the job reaches.
template <typename T>
uint64_t fix_dst_extent(const FixJob& job) {
    if (job.nd)
        return uint64_t(job.nd_num - 1) * job.dst_nd_stride + uint64_t(job.m - 1) * job.dst_stride + job.n;
    return (uint64_t(job.n / 16 - 1) * job.dst_stride * 32 + uint64_t(job.m) * 16 * sizeof(T)) / sizeof(T);
}

// unitFlag 2/3 (Fixpipe.md, Mmad.md): the hardware hands each finished fractal of the Mmad to the Fixpipe, so the
// FIX pipe is synchronised with the M pipe's work without a flag.
inline void unit_flag_sync(CoreState& c, const FixJob& job) {
    if (job.unit_flag == 2 || job.unit_flag == 3)
        ascendc_sim::wait_clock(c, ascendc_sim::kPipeFix, ascendc_sim::signal_clock(c, ascendc_sim::kPipeM));
}

template <typename T, typename U>
void fixpipe_to_gm(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixJob& job,
                   ascendc_sim::BufferTiming* workspace_timing, const char* api, Loc loc) {
    ASCENDC_SIM_CUBE_API();
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_fix_job<T, U>(job, api, loc);
    const U* l0c = ascendc_sim::cube::operand(src, {TPosition::CO1}, fix_src_bytes<U>(job), 64, api, "src", loc);
    check_gm_element_aligned(dst, api, loc);
    unit_flag_sync(c, job);
    uint64_t written = 0;
    fixpipe_rows<T, U>(l0c, job, [&](uint64_t offset, const T* row, uint64_t count) {
        T* at = dst.GetPhyAddr() + offset;
        uint8_t* bytes = ascendc_sim::check_gm(at, count * sizeof(T), api, loc, dst.sim_home());
        store_gm(c, reinterpret_cast<T*>(bytes), row, count * sizeof(T), loc, at);
        written += count * sizeof(T);
    });
    c.report->ub_to_gm_bytes += written;
    c.report->data_copies += 1;
    ascendc_sim::schedule(c, ascendc_sim::kPipeFix, ascendc_sim::CostModel::fixpipe_ns(written, c.soc()),
                          {src.timing(), workspace_timing}, nullptr);
}

// CO1 -> L1 (A1/B1/C1), as public kernels write a result back for the next Mmad (随路量化激活搬运.md: CO1 -> A1).
// Timing: the FIX pipe at the MTE1 rate (assumption: the L1 side is the faster one).
template <typename T, typename U>
void fixpipe_to_l1(const LocalTensor<T>& dst, const LocalTensor<U>& src, const FixJob& job, const char* api, Loc loc) {
    ASCENDC_SIM_CUBE_API();
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_fix_job<T, U>(job, api, loc);
    const U* l0c = ascendc_sim::cube::operand(src, {TPosition::CO1}, fix_src_bytes<U>(job), 64, api, "src", loc);
    T* to = ascendc_sim::cube::operand(dst, {TPosition::A1, TPosition::B1, TPosition::C1},
                                       fix_dst_extent<T>(job) * sizeof(T), 32, api, "dst", loc);
    unit_flag_sync(c, job);
    uint64_t written = 0;
    fixpipe_rows<T, U>(l0c, job, [&](uint64_t offset, const T* row, uint64_t count) {
        std::memcpy(static_cast<void*>(to + offset), row, count * sizeof(T));
        written += count * sizeof(T);
    });
    ascendc_sim::schedule(c, ascendc_sim::kPipeFix, ascendc_sim::CostModel::mte1_ns(written, c.soc()), {src.timing()},
                          dst.timing());
}

inline FixJob fix_job(const FixpipeParamsV220& p, bool nd) {
    FixJob job;
    job.nd = nd;
    job.n = p.nSize;
    job.m = p.mSize;
    job.src_stride = p.srcStride;
    job.dst_stride = p.dstStride;
    job.nd_num = nd ? std::max<uint32_t>(p.ndNum, 1) : 1;
    job.src_nd_stride = p.srcNdStride;
    job.dst_nd_stride = p.dstNdStride;
    job.mode = p.quantPre;
    job.scalar = p.deqScalar;
    job.relu = p.reluEn;
    job.unit_flag = p.unitFlag;
    return job;
}

inline void check_v220(const FixpipeParamsV220& p, const char* api, Loc loc) {
    if (p.isChannelSplit)
        fail(Diag::UnsupportedApi, loc, "%s: isChannelSplit is not simulated. Leave it false.", api);
    if (p.ndNum == 0)
        fail(Diag::BadArgument, loc,
             "%s: ndNum is 0, so the instruction is not executed (Fixpipe.md: a warning on the NPU). Pass 1 for one "
             "matrix.",
             api);
}

// The registers of the older DataCopy(GM, CO1) form (SetFixpipeNz2ndFlag, SetFixpipePreQuantFlag), per core.
struct FixpipeRegisters {
    uint64_t launch = 0;
    const CoreState* core = nullptr;
    uint16_t nd_num = 1, src_nd_stride = 0, dst_nd_stride = 0;
    uint64_t quant_scalar = 0;
};

inline FixpipeRegisters& fixpipe_registers(const CoreState& c) {
    static thread_local FixpipeRegisters r;
    if (r.core != &c || r.launch != c.launch->serial) r = FixpipeRegisters{c.launch->serial, &c};
    return r;
}

}  // namespace sim_detail

template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& intriParams,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::check_v220(intriParams, "Fixpipe", loc);
    sim_detail::FixJob job = sim_detail::fix_job(intriParams, config.format == CO2Layout::ROW_MAJOR);
    sim_detail::fixpipe_to_gm(dst, src, job, nullptr, "Fixpipe", loc);
}

// CO1 -> L1: the result in ND or NZ rows in A1/B1/C1, for a following LoadData.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& intriParams,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::check_v220(intriParams, "Fixpipe(CO1->L1)", loc);
    sim_detail::fixpipe_to_l1(dst, src, sim_detail::fix_job(intriParams, config.format == CO2Layout::ROW_MAJOR),
                              "Fixpipe(CO1->L1)", loc);
}

// The tensor-quantisation overload: a uint64_t scale per column in L1 (VDEQF16, VQF322B8_PRE, VREQ8).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR, typename S,
          typename std::enable_if<std::is_same<S, uint64_t>::value, bool>::type = true>
void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace,
             const FixpipeParamsV220& intriParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const char* api = "Fixpipe(cbufWorkspace)";
    sim_detail::check_v220(intriParams, api, loc);
    sim_detail::FixJob job = sim_detail::fix_job(intriParams, config.format == CO2Layout::ROW_MAJOR);
    job.column_scales = ascendc_sim::cube::operand(cbufWorkspace, {TPosition::A1, TPosition::B1, TPosition::C1},
                                                   uint64_t(job.n) * sizeof(uint64_t), 32, api, "cbufWorkspace", loc);
    sim_detail::fixpipe_to_gm(dst, src, job, cbufWorkspace.timing(), api, loc);
}

// SetFixpipeNz2ndFlag.md: the NZ2ND matrices of the next DataCopy(GM, CO1) with nz2ndEn.
inline void SetFixpipeNz2ndFlag(uint16_t ndNum, uint16_t srcNdStride, uint16_t dstNdStride,
                                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::FixpipeRegisters& r = sim_detail::fixpipe_registers(ascendc_sim::core(loc));
    ascendc_sim::cube::check_range("SetFixpipeNz2ndFlag", "ndNum", ndNum, 1, 65535, loc);
    r.nd_num = ndNum;
    r.src_nd_stride = srcNdStride;
    r.dst_nd_stride = dstNdStride;
}

// SetFixpipePreQuantFlag.md: the scale of the scalar quantisation modes of the next DataCopy(GM, CO1).
template <typename T = uint64_t>
void SetFixpipePreQuantFlag(uint64_t config, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::fixpipe_registers(ascendc_sim::core(loc)).quant_scalar = config;
}

namespace sim_detail {

// The job of DataCopy(dst, CO1, DataCopyCO12DstParams), with the registers the Set* calls left.
inline FixJob co12_job(const DataCopyCO12DstParams& p, const char* api, Loc loc) {
    if (p.channelSplit) fail(Diag::UnsupportedApi, loc, "%s: channelSplit is not simulated. Leave it false.", api);
    if (is_vector_mode(p.quantPre))
        fail(Diag::UnsupportedApi, loc,
             "%s: the tensor quantisation modes (SetFixPipeConfig) are not simulated on this path; use "
             "Fixpipe(dst, src, cbufWorkspace, FixpipeParamsV220).",
             api);
    const FixpipeRegisters& r = fixpipe_registers(ascendc_sim::core(loc));
    FixJob job;
    job.nd = p.nz2ndEn;
    job.n = p.nSize;
    job.m = p.mSize;
    job.src_stride = p.srcStride;
    job.dst_stride = p.dstStride;
    job.nd_num = job.nd ? r.nd_num : 1;
    job.src_nd_stride = r.src_nd_stride;
    job.dst_nd_stride = r.dst_nd_stride;
    job.mode = p.quantPre;
    job.scalar = r.quant_scalar;
    job.relu = p.reluPre != 0;
    job.unit_flag = p.unitFlag;
    return job;
}

}  // namespace sim_detail

// 随路量化激活搬运.md: CO1 -> GM with quantisation and ReLU; NZ2ND when nz2ndEn (matrices from SetFixpipeNz2ndFlag).
template <typename T, typename U>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyCO12DstParams& intriParams,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const char* api = "DataCopy(CO1->GM)";
    sim_detail::fixpipe_to_gm(dst, src, sim_detail::co12_job(intriParams, api, loc), nullptr, api, loc);
}

// The older (v200) Fixpipe(GM, CO1, FixpipeParams<T>), as TIK's fixpipe page (atlastikapi_07_0093) describes its
// fields: cburstNum bursts, one a column of fractals of L0C ([N1, M, N0]); burstLen its length in 32-byte blocks of
// the source (m * 16 * sizeof(float) / 32); srcStride the gap between bursts in L0C (end to start, 256 elements);
// dstStride the gap between bursts in GM (end to start, 32-byte blocks). With nz2ndParams.nz2ndEn the output is ND:
// originalNSize columns, dstStride elements between rows, ndNum matrices srcNdStride * 1024 bytes apart in L0C and
// dstNdStride elements apart in GM (SetFixpipeNz2ndFlag.md's units). Assumptions: with NZ2ND the columns come from
// originalNSize and cburstNum is not read; reluEn and unitFlag act as in FixpipeParamsV220.
struct QuantParams {
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;
};

struct Nz2NdParams {
    bool nz2ndEn = false;
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;  // 1024-byte units
    uint16_t dstNdStride = 0;  // elements
    uint16_t originalNSize = 0;
    Nz2NdParams() = default;
    Nz2NdParams(bool nz2nd_en, uint16_t nd_num, uint16_t src_nd_stride, uint16_t dst_nd_stride,
                uint16_t original_n_size)
        : nz2ndEn(nz2nd_en), ndNum(nd_num), srcNdStride(src_nd_stride), dstNdStride(dst_nd_stride),
          originalNSize(original_n_size) {}
};

template <typename T>
struct FixpipeParams {
    uint16_t cburstNum = 1;
    uint16_t burstLen = 0;   // 32-byte blocks of the source
    uint16_t srcStride = 0;  // 256-element units, end to start
    uint32_t dstStride = 0;  // NZ: 32-byte blocks, end to start; NZ2ND: elements per row
    bool reluEn = false;
    uint8_t unitFlag = 0;
    QuantParams quantParams;
    Nz2NdParams nz2ndParams;
};

namespace sim_detail {

template <typename T, typename U>
FixJob v200_job(const FixpipeParams<U>& p, const char* api, Loc loc) {
    constexpr uint32_t row_bytes = 16 * sizeof(U);
    if (p.burstLen == 0 || p.burstLen * 32u % row_bytes != 0)
        fail(Diag::BadArgument, loc,
             "%s: burstLen %u (32-byte blocks) is not a whole number of %u-byte rows of 16 %s; set it to m * 16 * "
             "sizeof(%s) / 32 for an m-row column of fractals.",
             api, p.burstLen, row_bytes, ascendc_sim::dtype_name(ascendc_sim::dtype_of<U>),
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<U>));
    FixJob job;
    job.m = p.burstLen * 32u / row_bytes;
    job.src_stride = job.m + uint32_t(p.srcStride) * 16;
    job.nd = p.nz2ndParams.nz2ndEn;
    if (job.nd) {
        if (p.nz2ndParams.originalNSize == 0)
            fail(Diag::BadArgument, loc, "%s: nz2ndEn is set but originalNSize is 0; set it to the matrix's columns.",
                 api);
        job.n = p.nz2ndParams.originalNSize;
        job.dst_stride = p.dstStride;
        job.nd_num = std::max<uint32_t>(p.nz2ndParams.ndNum, 1);
        job.src_nd_stride = p.nz2ndParams.srcNdStride;
        job.dst_nd_stride = p.nz2ndParams.dstNdStride;
    } else {
        ascendc_sim::cube::check_range(api, "cburstNum", p.cburstNum, 1, 4095, loc);
        job.n = uint32_t(p.cburstNum) * 16;
        job.dst_stride = uint32_t(job.m) * 16 * sizeof(T) / 32 + p.dstStride;  // start to start
    }
    job.mode = p.quantParams.quantPre;
    job.scalar = p.quantParams.deqScalar;
    job.relu = p.reluEn;
    job.unit_flag = p.unitFlag;
    return job;
}

}  // namespace sim_detail

template <typename T, typename U, typename P>
void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParams<P>& intriParams,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const char* api = "Fixpipe(FixpipeParams)";
    static_assert(std::is_same_v<P, U>, "Fixpipe: FixpipeParams<T> takes the L0C (source) type, float or int32_t.");
    sim_detail::fixpipe_to_gm(dst, src, sim_detail::v200_job<T, U>(intriParams, api, loc), nullptr, api, loc);
}

// 随路量化激活搬运.md: CO1 -> A1 (L1) with quantisation and ReLU (NZ2ND only towards GM).
template <typename T, typename U>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyCO12DstParams& intriParams,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const char* api = "DataCopy(CO1->L1)";
    sim_detail::FixJob job = sim_detail::co12_job(intriParams, api, loc);
    job.nd = false;  // nz2ndEn: "仅在CO1 -> GM通路生效"
    job.nd_num = 1;
    sim_detail::fixpipe_to_l1(dst, src, job, api, loc);
}

}  // namespace AscendC
