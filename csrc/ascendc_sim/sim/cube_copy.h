// The cube core's data movement: DataCopy GM->L1 with the ND->NZ conversion (Nd2NzParams), LoadData 2D
// (L1->L0A/L0B, fractal by fractal, optionally transposing each 16 x 16 fractal) and LoadDataWithTranspose.
//
// Layouts (Mmad.md, Load2D.md, 随路转换ND2NZ搬运.md):
// - NZ in L1: the matrix is cut into column strips of k0 = 32 / sizeof(T) elements; a strip's rows are 32-byte
//   blocks one after another (dstNzNStride blocks apart), the strips dstNzC0Stride blocks apart. With
//   dstNzNStride = 1 and dstNzC0Stride = rows rounded up to 16, the strips are columns of 16 x k0 fractals.
// - ZZ in L0A: 16 x k0 fractals in row-major order, each row-major. ZN in L0B: k0 x 16 fractals in row-major order,
//   each column-major (16 rows of k0 elements, one per column of B). LoadData 2D moves whole 512-byte fractals and
//   leaves the order to its strides; ifTranspose transposes each 16 x 16 fractal (16-bit types only).
// - LoadDataWithTranspose (LoadDataWithTranspose.md): one square of 32 bytes x 32 bytes' worth a repeat: half and
//   bfloat16 one 16 x 16 fractal; int8 two 16 x 32 fractals stacked into 32 x 32; float and int32 two 16 x 8 fractals
//   side by side into 16 x 16. The square is transposed and cut back into fractals the same way, which land
//   dstFracGap fractals apart inside a repeat and dstGap fractals apart between repeats (end to start).
// Timing: GM->L1 on MTE2 as a GM read; L1->L0 on MTE1 (cost_model.h).
#pragma once
#include <vector>

#include "cube_operand.h"
#include "data_copy.h"

namespace AscendC {

// 随路转换ND2NZ搬运.md table 3 (field order as its example `Nd2NzParams{1, 32, 32, 0, 32, 32, 1, 0}` reads them).
struct Nd2NzParams {
    uint16_t ndNum = 1;
    uint16_t nValue = 0;
    uint16_t dValue = 0;
    uint16_t srcNdMatrixStride = 0;  // elements
    uint16_t srcDValue = 0;          // elements
    uint16_t dstNzC0Stride = 0;      // 32-byte blocks
    uint16_t dstNzNStride = 0;       // 32-byte blocks
    uint16_t dstNzMatrixStride = 0;  // elements
    Nd2NzParams() = default;
    Nd2NzParams(uint16_t nd_num, uint16_t n_value, uint16_t d_value, uint16_t src_nd_matrix_stride,
                uint16_t src_d_value, uint16_t dst_nz_c0_stride, uint16_t dst_nz_n_stride,
                uint16_t dst_nz_matrix_stride)
        : ndNum(nd_num), nValue(n_value), dValue(d_value), srcNdMatrixStride(src_nd_matrix_stride),
          srcDValue(src_d_value), dstNzC0Stride(dst_nz_c0_stride), dstNzNStride(dst_nz_n_stride),
          dstNzMatrixStride(dst_nz_matrix_stride) {}
};

// Load2D.md table 3; the field order as the 随路量化激活搬运.md example `{0, weRepeat, 1, 0, 0, false, 0}` reads it.
struct LoadData2DParams {
    uint16_t startIndex = 0;   // fractals (512 bytes)
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;    // fractals, start to start
    uint8_t sid = 0;
    uint16_t dstGap = 0;       // fractals, end to start
    bool ifTranspose = false;
    uint8_t addrMode = 0;
    LoadData2DParams() = default;
    LoadData2DParams(uint16_t start_index, uint8_t repeat_times, uint16_t src_stride, uint8_t sid_, uint16_t dst_gap,
                     bool if_transpose, uint8_t addr_mode)
        : startIndex(start_index), repeatTimes(repeat_times), srcStride(src_stride), sid(sid_), dstGap(dst_gap),
          ifTranspose(if_transpose), addrMode(addr_mode) {}
};
using LoadData2dParams = LoadData2DParams;  // the spelling of Fixpipe.md's example

// LoadDataWithTranspose.md table 3.
struct LoadData2dTransposeParams {
    uint16_t startIndex = 0;  // squares
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;   // squares, start to start
    uint16_t dstGap = 0;      // fractals: end of a repeat's first fractal to the next repeat's first
    uint16_t dstFracGap = 0;  // fractals: between the fractals of one repeat, end to start
    uint8_t addrMode = 0;
    LoadData2dTransposeParams() = default;
    LoadData2dTransposeParams(uint16_t start_index, uint8_t repeat_times, uint16_t src_stride, uint16_t dst_gap,
                              uint16_t dst_frac_gap, uint8_t addr_mode = 0)
        : startIndex(start_index), repeatTimes(repeat_times), srcStride(src_stride), dstGap(dst_gap),
          dstFracGap(dst_frac_gap), addrMode(addr_mode) {}
};

namespace sim_detail {

using ascendc_sim::cube::kFractalBytes;

// Nd2Nz dtypes on Atlas A2/A3 (随路转换ND2NZ搬运.md table 4); 310P: the same without bfloat16 (assumption).
using ascendc_sim::DType;
constexpr uint32_t kNd2NzTypes = ascendc_sim::cube::dtypes(DType::I8, DType::U8, DType::I16, DType::U16, DType::I32,
                                                           DType::U32, DType::F16, DType::BF16, DType::F32);
constexpr uint32_t kNd2NzTypes310P = kNd2NzTypes & ~ascendc_sim::dtype_bit(ascendc_sim::DType::BF16);

inline void check_nd2nz(const Nd2NzParams& p, const char* api, Loc loc) {
    using ascendc_sim::cube::check_range;
    check_range(api, "ndNum", p.ndNum, 0, 4095, loc);
    check_range(api, "nValue", p.nValue, 0, 16384, loc);
    check_range(api, "srcDValue", p.srcDValue, 1, 65535, loc);
    check_range(api, "dstNzC0Stride", p.dstNzC0Stride, 1, 16384, loc);
    check_range(api, "dstNzNStride", p.dstNzNStride, 1, 16384, loc);
    if (p.ndNum > 1) check_range(api, "dstNzMatrixStride", p.dstNzMatrixStride, 1, 65535, loc);
}

// Elements of the destination an Nd2Nz copy reaches (the last row's last 32-byte block included).
template <typename T>
uint64_t nd2nz_dst_extent(const Nd2NzParams& p) {
    constexpr uint64_t c0 = ascendc_sim::cube::k0<T>();
    uint64_t strips = (uint64_t(p.dValue) + c0 - 1) / c0;
    return uint64_t(p.ndNum - 1) * p.dstNzMatrixStride + (strips - 1) * p.dstNzC0Stride * c0 +
           uint64_t(p.nValue - 1) * p.dstNzNStride * c0 + c0;
}

// Row `row` of ND matrix `nd` (dValue elements at `src`) into its NZ place; the last block's tail is zero.
template <typename T>
void nd2nz_row(T* dst, const T* src, const Nd2NzParams& p, uint32_t nd, uint32_t row) {
    constexpr uint32_t c0 = ascendc_sim::cube::k0<T>();
    T* base = dst + uint64_t(nd) * p.dstNzMatrixStride + uint64_t(row) * p.dstNzNStride * c0;
    for (uint32_t col = 0; col < p.dValue; col += c0) {
        uint32_t n = std::min<uint32_t>(c0, p.dValue - col);
        T* block = base + uint64_t(col / c0) * p.dstNzC0Stride * c0;
        std::memcpy(block, src + col, n * sizeof(T));
        if (n < c0) std::memset(static_cast<void*>(block + n), 0, (c0 - n) * sizeof(T));
    }
}

template <typename T>
void nd2nz_from_gm(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p, Loc loc) {
    // No ASCENDC_SIM_CUBE_API(): GM->VECIN Nd2Nz is a vector core's copy; a cube kernel marks itself by its LoadData.
    const char* api = "DataCopy(GM->L1, Nd2NzParams)";
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kNd2NzTypes, kNd2NzTypes310P, api, loc);
    check_nd2nz(p, api, loc);
    if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) return;
    T* to = ascendc_sim::cube::operand(dst, {TPosition::A1, TPosition::B1, TPosition::C1, TPosition::VECIN},
                                       nd2nz_dst_extent<T>(p) * sizeof(T), 32, api, "dst", loc);
    check_gm_element_aligned(src, api, loc);
    for (uint32_t nd = 0; nd < p.ndNum; ++nd)
        for (uint32_t row = 0; row < p.nValue; ++row) {
            const T* from = src.GetPhyAddr() + uint64_t(nd) * p.srcNdMatrixStride + uint64_t(row) * p.srcDValue;
            auto* at = ascendc_sim::check_gm_read(from, uint64_t(p.dValue) * sizeof(T), api, loc, src.sim_home());
            nd2nz_row(to, reinterpret_cast<const T*>(at), p, nd, row);
        }
    uint64_t moved = uint64_t(p.ndNum) * p.nValue * p.dValue * sizeof(T);
    c.report->gm_to_ub_bytes += moved;
    c.report->data_copies += 1;
    ascendc_sim::schedule(c, ascendc_sim::kPipeMte2, ascendc_sim::CostModel::gm_copy_ns(moved, false, c.soc()), {},
                          dst.timing(), ascendc_sim::CostModel::gm_read_latency_ns(c.soc()));
}

// One 512-byte fractal, transposed as a 16 x 16 matrix of 16-bit elements.
inline void transpose_fractal16(uint16_t* dst, const uint16_t* src) {
    for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t col = 0; col < 16; ++col) dst[col * 16 + r] = src[r * 16 + col];
}

// Load2D.md: only A1->A2 and B1->B2 may transpose. A1 and B1 are both L1 and kernels mix them (a B1 buffer loaded
// into A2), so the simulator asks only for L1 -> L0A/L0B.
inline void check_load_positions(TPosition dst, TPosition src, bool transpose, const char* api, Loc loc) {
    bool from_l1 = src == TPosition::A1 || src == TPosition::B1;
    bool to_l0 = dst == TPosition::A2 || dst == TPosition::B2;
    if (transpose && !(from_l1 && to_l0))
        fail(Diag::BadArgument, loc,
             "%s: a transposing load goes A1->A2 or B1->B2 only (Load2D.md), not %s->%s.", api,
             ascendc_sim::cube::position_name(src), ascendc_sim::cube::position_name(dst));
}

template <typename T>
void load_2d(const LocalTensor<T>& dst, const T* from, uint64_t src_room, const LoadData2DParams& p, TPosition src_pos,
             ascendc_sim::BufferTiming* src_timing, int pipe, const char* api, Loc loc) {
    ASCENDC_SIM_CUBE_API();
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (p.repeatTimes == 0) return;  // assumption: no fractals, no work (the page's range starts at 1)
    check_load_positions(dst.GetPosition(), src_pos, p.ifTranspose, api, loc);
    if (p.ifTranspose && sizeof(T) != 2)
        fail(Diag::CubeDtype, loc,
             "%s: ifTranspose works on 16-bit types only (uint16_t/int16_t/half, Load2D.md), not %s. Use "
             "LoadDataWithTranspose for 8- and 32-bit data.",
             api, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    uint64_t last = p.startIndex + uint64_t(p.repeatTimes - 1) * p.srcStride;
    if ((last + 1) * kFractalBytes > src_room)
        fail(Diag::LocalOverrun, loc,
             "%s: the last repeat reads fractal %llu (startIndex %u + %u repeats x srcStride %u) but the source has "
             "only %llu whole 512-byte fractals. Check startIndex, repeatTimes and srcStride.",
             api, (unsigned long long)last, p.startIndex, p.repeatTimes, p.srcStride,
             (unsigned long long)(src_room / kFractalBytes));
    uint64_t dst_pitch = (1 + uint64_t(p.dstGap)) * kFractalBytes;
    uint64_t span = uint64_t(p.repeatTimes - 1) * dst_pitch + kFractalBytes;
    bool to_l0 = dst.GetPosition() == TPosition::A2 || dst.GetPosition() == TPosition::B2;
    auto* to = reinterpret_cast<uint8_t*>(ascendc_sim::cube::operand(
        dst, {TPosition::A2, TPosition::B2, TPosition::A1, TPosition::B1}, span, to_l0 ? kFractalBytes : 32, api,
        "dst", loc));
    auto* src = reinterpret_cast<const uint8_t*>(from);
    for (uint32_t i = 0; i < p.repeatTimes; ++i) {
        const uint8_t* fractal = src + (p.startIndex + uint64_t(i) * p.srcStride) * kFractalBytes;
        uint8_t* out = to + i * dst_pitch;
        if (p.ifTranspose)
            transpose_fractal16(reinterpret_cast<uint16_t*>(out), reinterpret_cast<const uint16_t*>(fractal));
        else
            std::memmove(out, fractal, kFractalBytes);
    }
    uint64_t moved = uint64_t(p.repeatTimes) * kFractalBytes;
    double cost = pipe == ascendc_sim::kPipeMte1 ? ascendc_sim::CostModel::mte1_ns(moved, c.soc())
                                                 : ascendc_sim::CostModel::gm_copy_ns(moved, false, c.soc());
    double latency = pipe == ascendc_sim::kPipeMte1 ? 0.0 : ascendc_sim::CostModel::gm_read_latency_ns(c.soc());
    ascendc_sim::schedule(c, pipe, cost, {src_timing}, dst.timing(), latency);
}

// LoadDataWithTranspose's square: the fractals one repeat reads and writes, and how they form the square.
template <typename T>
struct TransposeSquare {
    static constexpr uint32_t side = sizeof(T) == 4 ? 16 : 32 / sizeof(T);  // elements per side
    static constexpr uint32_t fractals = side * side * sizeof(T) / kFractalBytes;
    static constexpr bool stacked = sizeof(T) == 1;  // fractals on top of each other (int8), else side by side
    static constexpr uint32_t cols = kFractalBytes / 16 / sizeof(T);  // columns of one fractal (k0)

    // Element (r, col) of the square, read from the `fractals` fractals at `src`.
    static T at(const T* src, uint32_t r, uint32_t col) {
        if (stacked) return src[(r / 16) * 16 * cols + (r % 16) * cols + col];
        return src[(col / cols) * 16 * cols + r * cols + col % cols];
    }
    // Where element (r, col) of the transposed square goes: fractal index and the offset in it.
    static void place(uint32_t r, uint32_t col, uint32_t& fractal, uint32_t& offset) {
        if (stacked) {
            fractal = r / 16;
            offset = (r % 16) * cols + col;
        } else {
            fractal = col / cols;
            offset = r * cols + col % cols;
        }
    }
};

// LoadDataWithTranspose dtypes (LoadDataWithTranspose.md table 1); int4b_t is not simulated.
constexpr uint32_t kTransposeTypes = ascendc_sim::cube::dtypes(DType::I8, DType::U8, DType::F16, DType::BF16,
                                                               DType::F32, DType::I32, DType::U32);

// 基础数据搬运.md: C1 -> C2 (L1 -> bias table) of float or int32_t, or half converted to float; blockLen counts 64
// bytes of the source, srcStride 32-byte blocks and dstStride 64-byte units (gaps, end to start). On MTE1
// (assumption: the pipe that moves L1 to the other cube buffers).
template <typename T, typename U>
void copy_to_bias_table(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& params, Loc loc) {
    const char* api = "DataCopy(C1->C2)";
    ASCENDC_SIM_CUBE_API();
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    constexpr bool same = std::is_same_v<T, U> && (std::is_same_v<T, float> || std::is_same_v<T, int32_t>);
    constexpr bool widen = std::is_same_v<T, float> && std::is_same_v<U, half>;
    if constexpr (!same && !widen) {
        fail(Diag::CubeDtype, loc,
             "%s: %s -> %s; the bias table takes float or int32_t, or half converted to float (基础数据搬运.md "
             "tables 5 and 7).",
             api, ascendc_sim::dtype_name(ascendc_sim::dtype_of<U>), ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    } else {
        check_block_count(params.blockCount, api, loc);
        ascendc_sim::cube::check_range(api, "blockLen", params.blockLen, 1, 65535, loc);
        uint64_t count = uint64_t(params.blockLen) * 64 / sizeof(U);  // elements a block
        uint64_t src_pitch = count * sizeof(U) + uint64_t(params.srcStride) * 32;
        uint64_t dst_pitch = count * sizeof(T) + uint64_t(params.dstStride) * 64;
        uint64_t blocks = params.blockCount;
        auto* from = reinterpret_cast<const uint8_t*>(ascendc_sim::cube::operand(
            src, {TPosition::C1, TPosition::A1, TPosition::B1}, (blocks - 1) * src_pitch + count * sizeof(U), 32, api,
            "src", loc));
        auto* to = reinterpret_cast<uint8_t*>(ascendc_sim::cube::operand(
            dst, {TPosition::C2}, (blocks - 1) * dst_pitch + count * sizeof(T), 64, api, "dst", loc));
        for (uint64_t b = 0; b < blocks; ++b) {
            auto* out = reinterpret_cast<T*>(to + b * dst_pitch);
            auto* in = reinterpret_cast<const U*>(from + b * src_pitch);
            for (uint64_t i = 0; i < count; ++i) out[i] = static_cast<T>(in[i]);
        }
        double cost = ascendc_sim::CostModel::mte1_ns(blocks * count * sizeof(U), c.soc());
        ascendc_sim::schedule(c, ascendc_sim::kPipeMte1, cost, {src.timing()}, dst.timing());
    }
}

}  // namespace sim_detail

// 基础数据搬运.md table 7: C1 -> C2 with half converted to float (the same-type copy is DataCopy(LocalTensor<T>,
// LocalTensor<T>, DataCopyParams), which hands a C2 destination here too).
template <typename T, typename U, typename std::enable_if<!std::is_same<T, U>::value, bool>::type = true>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& params,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::copy_to_bias_table(dst, src, params, loc);
}

// Load2D.md: L1 -> L0A/L0B (A1->A2, B1->B2), fractal by fractal.
template <typename T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& params,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const char* api = "LoadData(2D)";
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sim_detail::kNd2NzTypes, sim_detail::kNd2NzTypes310P, api, loc);
    const T* from = ascendc_sim::cube::operand(src, {TPosition::A1, TPosition::B1}, 0, 32, api, "src", loc);
    sim_detail::load_2d(dst, from, uint64_t(src.GetSize()) * sizeof(T), params, src.GetPosition(), src.timing(),
                        ascendc_sim::kPipeMte1, api, loc);
}

// Load2D.md: GM -> A1/B1/A2/B2. On the MTE2 pipe (assumption: it reads GM, as every GM->local copy does).
template <typename T>
void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const LoadData2DParams& params,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const char* api = "LoadData(2D, GM)";
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sim_detail::kNd2NzTypes, sim_detail::kNd2NzTypes310P, api, loc);
    if (params.ifTranspose)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "%s: ifTranspose works on A1->A2 and B1->B2 loads only (Load2D.md), not from GM.", api);
    if (params.repeatTimes == 0) return;
    uint64_t last = params.startIndex + uint64_t(params.repeatTimes - 1) * params.srcStride;
    uint64_t bytes = (last + 1) * sim_detail::kFractalBytes;
    auto* from = ascendc_sim::check_gm_read(src.GetPhyAddr(), bytes, api, loc, src.sim_home());
    sim_detail::load_2d(dst, reinterpret_cast<const T*>(from), bytes, params,
                        TPosition::GM, nullptr, ascendc_sim::kPipeMte2, api, loc);
}

// LoadDataWithTranspose.md: A1->A2 / B1->B2, each repeat a transposed square of fractals.
template <typename T>
void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           const LoadData2dTransposeParams& params, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    using Square = sim_detail::TransposeSquare<T>;
    const char* api = "LoadDataWithTranspose";
    ASCENDC_SIM_CUBE_API();
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    constexpr uint32_t types = sim_detail::kTransposeTypes;
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, types, types, api, loc);
    if (params.repeatTimes == 0) return;  // LoadDataWithTranspose.md: repeat 0 moves nothing
    constexpr uint64_t square_bytes = Square::fractals * sim_detail::kFractalBytes;
    uint64_t last = params.startIndex + uint64_t(params.repeatTimes - 1) * params.srcStride;
    const T* from = ascendc_sim::cube::operand(src, {TPosition::A1, TPosition::B1}, (last + 1) * square_bytes, 32, api,
                                               "src", loc);
    uint64_t frac_pitch = (1 + uint64_t(params.dstFracGap)) * sim_detail::kFractalBytes;
    uint64_t repeat_pitch = (1 + uint64_t(params.dstGap)) * sim_detail::kFractalBytes;
    uint64_t span = uint64_t(params.repeatTimes - 1) * repeat_pitch + (Square::fractals - 1) * frac_pitch +
                    sim_detail::kFractalBytes;
    auto* to = reinterpret_cast<uint8_t*>(ascendc_sim::cube::operand(dst, {TPosition::A2, TPosition::B2}, span,
                                                                     sim_detail::kFractalBytes, api, "dst", loc));
    sim_detail::check_load_positions(dst.GetPosition(), src.GetPosition(), true, api, loc);
    for (uint32_t i = 0; i < params.repeatTimes; ++i) {
        const T* square = from + (params.startIndex + uint64_t(i) * params.srcStride) * square_bytes / sizeof(T);
        uint8_t* out = to + i * repeat_pitch;
        for (uint32_t r = 0; r < Square::side; ++r)
            for (uint32_t col = 0; col < Square::side; ++col) {
                uint32_t fractal, offset;
                Square::place(col, r, fractal, offset);  // element (r, col) lands at (col, r) of the transpose
                reinterpret_cast<T*>(out + fractal * frac_pitch)[offset] = Square::at(square, r, col);
            }
    }
    ascendc_sim::schedule(c, ascendc_sim::kPipeMte1,
                          ascendc_sim::CostModel::mte1_ns(uint64_t(params.repeatTimes) * square_bytes, c.soc()),
                          {src.timing()}, dst.timing());
}

// InitConstValue.md table 3; the field order of its example `{1, blocks, 0, value}`.
template <typename U>
struct InitConstValueParams {
    uint16_t repeatTimes = 0;
    uint16_t blockNum = 0;  // blocks a repeat: 32 bytes in A1/B1, 512 bytes in A2/B2
    uint16_t dstGap = 0;    // blocks between repeats, end to start
    U initValue = U(0);
    InitConstValueParams() = default;
    InitConstValueParams(uint16_t repeat_times, uint16_t block_num, uint16_t dst_gap, U init_value)
        : repeatTimes(repeat_times), blockNum(block_num), dstGap(dst_gap), initValue(init_value) {}
};

// InitConstValue.md: fills A1/B1 (32-byte blocks) or A2/B2 (512-byte blocks) with a value; half, int16_t, uint16_t,
// bfloat16_t, float, int32_t, uint32_t. On MTE2 for L1 and MTE1 for L0A/L0B (assumption: the pipes whose queues
// the page's example hands the tensors on with).
template <typename T, typename U = T, typename std::enable_if<std::is_same<T, U>::value, bool>::type = true>
void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<U>& params,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    using namespace ascendc_sim;
    const char* api = "InitConstValue";
    ASCENDC_SIM_CUBE_API();
    ascendc_sim::CoreState& c = core(loc);
    constexpr uint32_t types = cube::dtypes(DType::F16, DType::I16, DType::U16, DType::BF16, DType::F32, DType::I32,
                                            DType::U32);
    check_dtype(dtype_of<T>, types, types & ~dtype_bit(DType::BF16), api, loc);
    cube::check_range(api, "repeatTimes", params.repeatTimes, 0, 32767, loc);
    cube::check_range(api, "blockNum", params.blockNum, 0, 32767, loc);
    cube::check_range(api, "dstGap", params.dstGap, 0, 32767, loc);
    if (params.repeatTimes == 0 || params.blockNum == 0) return;
    bool l0 = dst.GetPosition() == TPosition::A2 || dst.GetPosition() == TPosition::B2;
    uint64_t block = l0 ? cube::kFractalBytes : kBlockBytes;
    uint64_t pitch = (uint64_t(params.blockNum) + params.dstGap) * block;
    uint64_t span = (params.repeatTimes - 1) * pitch + params.blockNum * block;
    auto* to = reinterpret_cast<uint8_t*>(cube::operand(
        dst, {TPosition::A1, TPosition::B1, TPosition::A2, TPosition::B2}, span, uint32_t(block), api, "dst", loc));
    for (uint32_t r = 0; r < params.repeatTimes; ++r) {
        T* out = reinterpret_cast<T*>(to + r * pitch);
        std::fill(out, out + params.blockNum * block / sizeof(T), params.initValue);
    }
    uint64_t bytes = uint64_t(params.repeatTimes) * params.blockNum * block;
    int pipe = l0 ? kPipeMte1 : kPipeMte2;
    double cost = l0 ? CostModel::mte1_ns(bytes, c.soc()) : CostModel::gm_copy_ns(bytes, false, c.soc());
    schedule(c, pipe, cost, {}, dst.timing());
}

// 随路转换ND2NZ搬运.md: GM -> A1/B1 (and GM -> VECIN) with the ND -> NZ conversion.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& params,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::nd2nz_from_gm(dst, src, params, loc);
}

// 增强数据搬运 (atlasascendc_api_07_0104, CANN 9.0.0-beta.1): "增强数据搬运功能仅在Atlas 推理系列产品AI Core产品型号的
// CO1 -> CO2 (L0C Buffer -> UB) 通路支持"; on the other paths the call is the basic DataCopy and the enhanced
// parameters have no effect. Atlas A2/A3 do not have the CO1 -> CO2 path (CO2 is Global Memory there, and the page
// marks the enhanced copy unsupported). The 310P CO1 -> CO2 conversion is not simulated (unsupported_api).
enum class BlockMode : uint8_t {
    BLOCK_MODE_NORMAL = 0,
    BLOCK_MODE_MATRIX,
    BLOCK_MODE_VECTOR,
    BLOCK_MODE_SMALL_CHANNEL,
    BLOCK_MODE_DEPTHWISE,
};

enum class DeqScale : uint8_t { DEQ_NONE = 0, DEQ, VDEQ, DEQ8, VDEQ8, DEQ16, VDEQ16 };

struct DataCopyEnhancedParams {
    BlockMode blockMode = BlockMode::BLOCK_MODE_NORMAL;
    DeqScale deqScale = DeqScale::DEQ_NONE;
    uint64_t deqValue = 0;
    uint8_t sidStoreMode = 0;
    bool isRelu = false;
};

namespace sim_detail {

template <typename T, typename U>
void refuse_co1_copy(const LocalTensor<T>& dst, const LocalTensor<U>& src, Loc loc) {
    if (src.GetPosition() != TPosition::CO1) return;
    if (ascendc_sim::core(loc).soc().arch == 0)
        fail(Diag::BadArgument, loc,
             "DataCopy(DataCopyEnhancedParams): CO1 -> %s is the Atlas 推理系列 (310P) path (L0C -> UB); Atlas A2/A3 "
             "have no CO1 -> CO2 copy (增强数据搬运.md). Move L0C out with Fixpipe (to GM, or to L1 with CFG_NZ).",
             ascendc_sim::cube::position_name(dst.GetPosition()));
    fail(Diag::UnsupportedApi, loc,
         "DataCopy(DataCopyEnhancedParams): the 310P CO1 -> CO2 copy with its on-the-fly conversion is not simulated.");
}

}  // namespace sim_detail

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& intriParams,
              const DataCopyEnhancedParams& enhancedParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    (void)enhancedParams;  // no effect off the CO1 -> CO2 path
    DataCopy(dst, src, intriParams, loc);
}

template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& intriParams,
              const DataCopyEnhancedParams& enhancedParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    (void)enhancedParams;
    DataCopy(dst, src, intriParams, loc);
}

template <typename T, typename U>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& intriParams,
              const DataCopyEnhancedParams& enhancedParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    (void)enhancedParams;
    sim_detail::refuse_co1_copy(dst, src, loc);
    DataCopy(dst, src, intriParams, loc);
}

}  // namespace AscendC
