// LoadData 3Dv2 (Load3D.md): image to column, A1 -> A2, on MTE1; SetFmatrix, SetLoadDataPaddingValue,
// SetLoadDataRepeat, SetLoadDataBoundary.
//
// From Load3D.md ("Load3d数据格式说明") and the InitConstValue.md / SetFmatrix.md examples (weights [C1, Kh, Kw, Cout,
// C0] loaded straight into B2 and multiplied with the img2col of a [C1, H, W, C0] feature map):
// - the feature map in L1 is [C1, l1H, l1W, C0], C0 = 32 bytes of T, C1 = channelSize / C0;
// - row m of the img2col matrix is the output position (ho, wo) = (m / Wo, m % Wo), Wo = (l1W + padLeft + padRight -
//   dilationW * (filterW - 1) - 1) / strideW + 1; column k is (c1, kh, kw, c0) with c0 fastest, then kw, kh, c1;
// - element (m, k) reads feature map point (h, w) = (ho * strideH - padTop + kh * dilationH, wo * strideW - padLeft +
//   kw * dilationW) of channel c1 * C0 + c0, or padValue outside the map;
// - the instruction writes rows [mStartPt, mStartPt + mExtension) and columns [kStartPt, kStartPt + kExtension) of
//   that matrix into A2 as a ZZ matrix of its own (16 x C0 fractals, ceil(kExtension / C0) of them a row).
// - into B2 (LoadData.md: Load3D "A1->A2; B1->B2", dst "B2:小N大Z格式"): the same fractals in the same order, each
//   written transposed (column-major), so that the img2col matrix is Mmad's B with its rows (mExtension) as K and its
//   columns (kExtension) as N. Simulated for half and bfloat16_t, whose fractal is 16 x 16 on both sides; float's
//   8 x 16 B fractal does not match a 16 x 8 img2col fractal (assumption: no page shows that case), so refused.
// Simulated: A1 -> A2, B1 -> B2 (2-byte types), channelSize a multiple of C0, one repeat (SetLoadDataRepeat
// repeatTime 0 or 1), no boundary.
// Not simulated (unsupported_api): enTranspose, the small-channel sizes (4, 8, N * C0 + 4 ...), filterSizeW/H,
// Load3Dv1.
#pragma once
#include "cube_copy.h"

namespace AscendC {

struct IsResetLoad3dConfig {
    bool isSetFMatrix = true;
    bool isSetPadding = true;
};
inline constexpr IsResetLoad3dConfig IS_RESER_LOAD3D_DEFAULT_CONFIG = {true, true};

enum class FmatrixMode : uint8_t { FMATRIX_LEFT = 0, FMATRIX_RIGHT = 1 };

// Load3D.md table 4, in its order (SetFmatrix.md's example `{padList, H, W, channelSize, k, howoRound, 0, 0, 1, 1,
// Kw, Kh, dilationW, dilationH, false, false, 0}`).
template <typename T>
struct LoadData3DParamsV2 {
    uint8_t padList[4] = {0, 0, 0, 0};  // left, right, top, bottom
    uint16_t l1H = 0;
    uint16_t l1W = 0;
    uint16_t channelSize = 0;
    uint16_t kExtension = 0;
    uint16_t mExtension = 0;
    uint16_t kStartPt = 0;
    uint16_t mStartPt = 0;
    uint8_t strideW = 1;
    uint8_t strideH = 1;
    uint8_t filterW = 1;
    uint8_t filterH = 1;
    uint8_t dilationFilterW = 1;
    uint8_t dilationFilterH = 1;
    bool enTranspose = false;
    bool enSmallK = false;
    T padValue = T(0);
    bool filterSizeW = false;
    bool filterSizeH = false;
    bool fMatrixCtrl = false;
    LoadData3DParamsV2() = default;
    LoadData3DParamsV2(const uint8_t pad_list[4], uint16_t l1_h, uint16_t l1_w, uint16_t channel_size,
                       uint16_t k_extension, uint16_t m_extension, uint16_t k_start_pt, uint16_t m_start_pt,
                       uint8_t stride_w, uint8_t stride_h, uint8_t filter_w, uint8_t filter_h, uint8_t dilation_w,
                       uint8_t dilation_h, bool en_transpose, bool en_small_k, T pad_value, bool filter_size_w = false,
                       bool filter_size_h = false, bool f_matrix_ctrl = false)
        : l1H(l1_h), l1W(l1_w), channelSize(channel_size), kExtension(k_extension), mExtension(m_extension),
          kStartPt(k_start_pt), mStartPt(m_start_pt), strideW(stride_w), strideH(stride_h), filterW(filter_w),
          filterH(filter_h), dilationFilterW(dilation_w), dilationFilterH(dilation_h), enTranspose(en_transpose),
          enSmallK(en_small_k), padValue(pad_value), filterSizeW(filter_size_w), filterSizeH(filter_size_h),
          fMatrixCtrl(f_matrix_ctrl) {
        for (int i = 0; i < 4; ++i) padList[i] = pad_list[i];
    }
};

// SetLoadDataRepeat.md table 2. Constructor order (repeatStride, repeatTime, repeatMode): an assumption that reads
// SetFmatrix.md's `SetLoadDataRepeat({0, 1, 0})` as one repeat.
struct LoadDataRepeatParam {
    uint16_t repeatStride = 0;
    uint8_t repeatTime = 1;
    uint8_t repeatMode = 0;
    LoadDataRepeatParam() = default;
    LoadDataRepeatParam(uint16_t repeat_stride, uint8_t repeat_time, uint8_t repeat_mode)
        : repeatStride(repeat_stride), repeatTime(repeat_time), repeatMode(repeat_mode) {}
};

namespace sim_detail {

// The Load3D registers of the running core (SetFmatrix, SetLoadDataPaddingValue, SetLoadDataRepeat,
// SetLoadDataBoundary).
struct Load3dRegisters {
    uint64_t launch = 0;
    const CoreState* core = nullptr;
    uint16_t l1H = 0, l1W = 0;
    uint8_t padList[4] = {0, 0, 0, 0};
    uint64_t pad_bits = 0;
    uint8_t repeat_time = 1;
    uint32_t boundary = 0;
};

inline Load3dRegisters& load3d_registers(const CoreState& c) {
    static thread_local Load3dRegisters r;
    if (r.core != &c || r.launch != c.launch->serial) r = Load3dRegisters{c.launch->serial, &c};
    return r;
}

struct Img2Col {
    uint32_t h, w, c1, kh, kw;  // feature map and filter
    uint32_t stride_h, stride_w, dilation_h, dilation_w;
    int32_t pad_left, pad_top;
    uint32_t wo;  // output width
};

template <typename T>
void check_load3d(const LoadData3DParamsV2<T>& p, TPosition dst, const Load3dRegisters& r, const char* api, Loc loc) {
    using ascendc_sim::cube::check_range;
    constexpr uint32_t c0 = ascendc_sim::cube::k0<T>();
    if (dst != TPosition::A2 && dst != TPosition::B2)
        fail(Diag::BadArgument, loc, "%s: Load3Dv2 writes into A2 (L0A) or B2 (L0B), not into %s (LoadData.md).",
             api, ascendc_sim::cube::position_name(dst));
    if (dst == TPosition::B2 && sizeof(T) != 2)
        fail(Diag::UnsupportedApi, loc,
             "%s: Load3Dv2 into B2 is simulated for half and bfloat16_t only, not for %s. Load B with LoadData2D "
             "(ifTranspose) or LoadDataWithTranspose instead.",
             api, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    if (p.enTranspose || p.enSmallK || p.filterSizeW || p.filterSizeH || p.fMatrixCtrl)
        fail(Diag::UnsupportedApi, loc,
             "%s: enTranspose, enSmallK, filterSizeW/H and fMatrixCtrl are not simulated; leave them false.", api);
    if (p.channelSize == 0 || p.channelSize % c0 != 0)
        fail(Diag::UnsupportedApi, loc,
             "%s: channelSize %u is not a multiple of C0 = %u; the small-channel layouts (4, 8, N * C0 + 4 ... in "
             "Load3D.md table 4) are not simulated. Pad the channels to a multiple of %u.",
             api, p.channelSize, c0, c0);
    if (r.repeat_time > 1 || r.boundary != 0)
        fail(Diag::UnsupportedApi, loc,
             "%s: SetLoadDataRepeat with repeatTime %u and SetLoadDataBoundary %u are not simulated; one repeat and no "
             "boundary are.",
             api, r.repeat_time, r.boundary);
    check_range(api, "strideW", p.strideW, 1, 63, loc);
    check_range(api, "strideH", p.strideH, 1, 63, loc);
    check_range(api, "filterW", p.filterW, 1, 255, loc);
    check_range(api, "filterH", p.filterH, 1, 255, loc);
    check_range(api, "dilationFilterW", p.dilationFilterW, 1, 255, loc);
    check_range(api, "dilationFilterH", p.dilationFilterH, 1, 255, loc);
    check_range(api, "kExtension", p.kExtension, 1, 65535, loc);
    check_range(api, "mExtension", p.mExtension, 1, 65535, loc);
    if (p.kStartPt % c0 != 0)
        fail(Diag::CubeAlignment, loc, "%s: kStartPt %u must be a multiple of C0 = %u (Load3D.md table 4).", api,
             p.kStartPt, c0);
}

// The feature-map element that img2col element (m, k) reads, or -1 where it is padding.
inline int64_t img2col_index(const Img2Col& g, uint32_t c0, uint32_t m, uint32_t k) {
    uint32_t per_c1 = g.kh * g.kw * c0;
    uint32_t c1 = k / per_c1, rest = k % per_c1;
    uint32_t kh = rest / (g.kw * c0), kw = rest / c0 % g.kw, c = k % c0;
    int64_t h = int64_t(m / g.wo) * g.stride_h - g.pad_top + int64_t(kh) * g.dilation_h;
    int64_t w = int64_t(m % g.wo) * g.stride_w - g.pad_left + int64_t(kw) * g.dilation_w;
    if (c1 >= g.c1 || h < 0 || w < 0 || h >= g.h || w >= g.w) return -1;
    return int64_t(((uint64_t(c1) * g.h + h) * g.w + w) * c0 + c);
}

// Bytes of the feature map from its start to the last element the load reads: the instruction reads only the rows
// and columns it writes, so a kernel may hand it a tensor that ends before the whole feature map does.
template <typename T>
uint64_t img2col_read_bytes(const Img2Col& g, const LoadData3DParamsV2<T>& p) {
    constexpr uint32_t c0 = ascendc_sim::cube::k0<T>();
    int64_t last = -1;
    for (uint32_t i = 0; i < p.mExtension; ++i)
        for (uint32_t j = 0; j < p.kExtension; j += c0)  // c0 apart: one 32-byte block of channels
            last = std::max(last, img2col_index(g, c0, p.mStartPt + i, p.kStartPt + j));
    return last < 0 ? 0 : (uint64_t(last) / c0 + 1) * c0 * sizeof(T);
}

template <typename T>
T img2col_at(const T* fm, const Img2Col& g, uint32_t m, uint32_t k, T pad) {
    int64_t at = img2col_index(g, ascendc_sim::cube::k0<T>(), m, k);
    return at < 0 ? pad : fm[at];
}

}  // namespace sim_detail

// SetFmatrix.md: the feature map's height, width and padding for Load3D calls made with isSetFMatrix = false.
inline void SetFmatrix(uint16_t l1H, uint16_t l1W, const uint8_t padList[4], const FmatrixMode& fmatrixMode,
                       ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::Load3dRegisters& r = sim_detail::load3d_registers(ascendc_sim::core(loc));
    (void)fmatrixMode;  // FMATRIX_LEFT only; both matrices use it (SetFmatrix.md)
    r.l1H = l1H;
    r.l1W = l1W;
    for (int i = 0; i < 4; ++i) r.padList[i] = padList[i];
}

// SetLoadDataPaddingValue.md: the pad value for Load3D calls made with isSetPadding = false.
template <typename T>
void SetLoadDataPaddingValue(const T padValue, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::Load3dRegisters& r = sim_detail::load3d_registers(ascendc_sim::core(loc));
    r.pad_bits = 0;
    std::memcpy(&r.pad_bits, &padValue, sizeof(T));
}

inline void SetLoadDataRepeat(const LoadDataRepeatParam& repeatParams,
                              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::load3d_registers(ascendc_sim::core(loc)).repeat_time = repeatParams.repeatTime;
}

inline void SetLoadDataBoundary(uint32_t boundaryValue, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::load3d_registers(ascendc_sim::core(loc)).boundary = boundaryValue;
}

// Load3D.md: Load3Dv2, A1 -> A2 and B1 -> B2.
template <typename T, const IsResetLoad3dConfig& defaultConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG, typename U = T,
          typename std::enable_if<std::is_same<T, U>::value, bool>::type = true>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<U>& params,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const char* api = "LoadData(3Dv2)";
    ASCENDC_SIM_CUBE_API();
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    constexpr uint32_t c0 = ascendc_sim::cube::k0<T>();
    using ascendc_sim::DType;
    constexpr uint32_t types = ascendc_sim::cube::dtypes(DType::I8, DType::U8, DType::F16, DType::BF16, DType::F32,
                                                         DType::I32, DType::U32);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, types, types, api, loc);
    const sim_detail::Load3dRegisters& r = sim_detail::load3d_registers(c);
    sim_detail::check_load3d(params, dst.GetPosition(), r, api, loc);
    const uint8_t* pads = defaultConfig.isSetFMatrix ? params.padList : r.padList;
    uint32_t h = defaultConfig.isSetFMatrix ? params.l1H : r.l1H, w = defaultConfig.isSetFMatrix ? params.l1W : r.l1W;
    T pad = params.padValue;
    if (!defaultConfig.isSetPadding) std::memcpy(&pad, &r.pad_bits, sizeof(T));
    int64_t span_w = int64_t(w) + pads[0] + pads[1] - int64_t(params.dilationFilterW) * (params.filterW - 1) - 1;
    if (span_w < 0 || h == 0 || w == 0)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "%s: the filter (width %u, dilation %u) does not fit the padded feature map width %u + %u + "
                          "%u.",
                          api, params.filterW, params.dilationFilterW, w, pads[0], pads[1]);
    sim_detail::Img2Col g{h, w, params.channelSize / c0, params.filterH, params.filterW, params.strideH, params.strideW,
                          params.dilationFilterH, params.dilationFilterW, pads[0], pads[2],
                          uint32_t(span_w / params.strideW + 1)};
    const T* fm = ascendc_sim::cube::operand(src, {TPosition::A1, TPosition::B1},
                                             sim_detail::img2col_read_bytes(g, params), 32, api, "src", loc);
    uint32_t k_blocks = (params.kExtension + c0 - 1) / c0;
    uint64_t m_blocks = (params.mExtension + 15u) / 16u;
    T* out = ascendc_sim::cube::operand(dst, {TPosition::A2, TPosition::B2}, m_blocks * k_blocks * 512, 512, api,
                                        "dst", loc);
    bool transposed = dst.GetPosition() == TPosition::B2;  // 小N: each fractal column-major
    for (uint32_t i = 0; i < params.mExtension; ++i)
        for (uint32_t j = 0; j < params.kExtension; ++j) {
            uint64_t inner = transposed ? (j % c0) * 16 + i % 16 : (i % 16) * c0 + j % c0;
            out[(uint64_t(i / 16) * k_blocks + j / c0) * 16 * c0 + inner] =
                sim_detail::img2col_at(fm, g, params.mStartPt + i, params.kStartPt + j, pad);
        }
    double cost = ascendc_sim::CostModel::mte1_ns(m_blocks * k_blocks * 512, c.soc());
    ascendc_sim::schedule(c, ascendc_sim::kPipeMte1, cost, {src.timing()}, dst.timing());
}

}  // namespace AscendC
