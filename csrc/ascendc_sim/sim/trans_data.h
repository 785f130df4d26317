// TransData<config>(dst, src[, sharedTmpBuffer], TransDataParams{srcLayout, dstLayout}) (TransData.md,
// v8.5.0): NCDHW <-> NDC1HWC0 and NCDHW <-> FRACTAL_Z_3D for 16-bit types on Atlas A2/A3.
//
// - C splits into C1 = ceil(C / 16) and C0 = 16, N into N1 = ceil(N / 16) and N0 = 16. The layouts'
//   shapes give the sizes ((N, C, D, H, W), (N, D, C1, H, W, C0), (D, C1, H, W, N1, N0, C0)); the
//   two must agree (bad_argument). Strides are not read.
// - An NCDHW operand stores each (n, c, d) plane of H*W elements padded to 32 bytes (16 elements):
//   the kernel pads its input so, and the output's padding is "invalid data" (poisoned).
// - Channels (and, for FRACTAL_Z_3D, batches) past C (N) in the split formats are not described, so
//   they are poisoned.
// - src and dst must not overlap, nor sharedTmpBuffer either (bad_argument); the tmp size has no
//   formula (GetTransDataMaxMinTmpSize) and is not checked. 310P: unsupported_api. Cost: Composite,
//   booked as two TransDataTo5HD passes over the data.
#pragma once
#include <cstring>
#include <tuple>
#include <vector>

#include "layout.h"
#include "vector_ops.h"

namespace AscendC {

// DataFormat (TransData.md, ShapeInfo.md) is tensor.h's.

struct TransDataConfig {
    DataFormat srcFormat;
    DataFormat dstFormat;
};

template <typename T, typename U>
struct TransDataParams {
    T srcLayout;
    U dstLayout;
};

namespace trans_data_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::Loc;
using ascendc_sim::fail;

constexpr uint32_t kTypes = ascendc_sim::dtype_bit(DType::I16) | ascendc_sim::dtype_bit(DType::U16) |
                            ascendc_sim::dtype_bit(DType::F16) | ascendc_sim::dtype_bit(DType::BF16);
constexpr int64_t kC0 = 16;

inline int64_t ceil16(int64_t v) { return (v + kC0 - 1) / kC0; }

struct Dims {
    int64_t n = 0, c = 0, d = 0, h = 0, w = 0;
    int64_t c1() const { return ceil16(c); }
    int64_t n1() const { return ceil16(n); }
    int64_t hw_pad() const { return ceil16(h * w) * kC0; }
};

template <typename Layout, size_t... I>
std::vector<int64_t> dims_of(const Layout& layout, std::index_sequence<I...>) {
    return {int64_t(std::get<I>(layout.GetShape()))...};
}

template <typename Layout>
auto shape_of(const Layout& layout) {
    using S = std::decay_t<decltype(layout.GetShape())>;
    return dims_of(layout, std::make_index_sequence<std::tuple_size_v<S>>{});
}

[[noreturn]] inline void mismatch(const char* what, Loc loc) {
    fail(Diag::BadArgument, loc,
         "TransData: the source and destination layouts disagree (%s). Give NCDHW as (N, C, D, H, W), NDC1HWC0 as "
         "(N, D, ceil(C/16), H, W, 16) and FRACTAL_Z_3D as (D, ceil(C/16), H, W, ceil(N/16), 16, 16).",
         what);
}

// The NCDHW sizes, checked against the split format's shape.
inline Dims dims(DataFormat split, const std::vector<int64_t>& ncdhw, const std::vector<int64_t>& other, Loc loc) {
    Dims d{ncdhw[0], ncdhw[1], ncdhw[2], ncdhw[3], ncdhw[4]};
    if (d.n <= 0 || d.c <= 0 || d.d <= 0 || d.h <= 0 || d.w <= 0)
        fail(Diag::BadArgument, loc, "TransData: the NCDHW shape (%lld, %lld, %lld, %lld, %lld) needs positive sizes.",
             (long long)d.n, (long long)d.c, (long long)d.d, (long long)d.h, (long long)d.w);
    if (split == DataFormat::NDC1HWC0) {
        if (other.size() != 6) mismatch("NDC1HWC0 needs 6 dimensions", loc);
        if (other[0] != d.n || other[1] != d.d || other[2] != d.c1() || other[3] != d.h || other[4] != d.w ||
            other[5] != kC0)
            mismatch("N, D, C1, H, W or C0 of NDC1HWC0", loc);
    } else {
        if (other.size() != 7) mismatch("FRACTAL_Z_3D needs 7 dimensions", loc);
        if (other[0] != d.d || other[1] != d.c1() || other[2] != d.h || other[3] != d.w || other[4] != d.n1() ||
            other[5] != kC0 || other[6] != kC0)
            mismatch("D, C1, H, W, N1, N0 or C0 of FRACTAL_Z_3D", loc);
    }
    return d;
}

// Element offset of (n, c, d, hw) in the split format, or -1 when the element is padding there.
inline int64_t split_offset(DataFormat split, const Dims& x, int64_t n, int64_t c, int64_t d, int64_t hw) {
    int64_t c1 = c / kC0, c0 = c % kC0;
    if (split == DataFormat::NDC1HWC0) return (((n * x.d + d) * x.c1() + c1) * (x.h * x.w) + hw) * kC0 + c0;
    int64_t n1 = n / kC0, n0 = n % kC0;
    return ((((d * x.c1() + c1) * (x.h * x.w) + hw) * x.n1() + n1) * kC0 + n0) * kC0 + c0;
}

inline int64_t split_elems(DataFormat split, const Dims& x) {
    return split == DataFormat::NDC1HWC0 ? x.n * x.d * x.c1() * x.h * x.w * kC0
                                         : x.d * x.c1() * x.h * x.w * x.n1() * kC0 * kC0;
}

inline bool overlaps(const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes) {
    auto p = reinterpret_cast<uintptr_t>(a), q = reinterpret_cast<uintptr_t>(b);
    return p < q + b_bytes && q < p + a_bytes;
}

template <typename T>
void check_operands(const LocalTensor<T>& dst, uint64_t dst_elems, const LocalTensor<T>& src, uint64_t src_elems,
                    const LocalTensor<uint8_t>* tmp, Loc loc) {
    ascendc_sim::check_operand(src, src_elems, "TransData", "srcTensor", loc);
    ascendc_sim::check_operand(dst, dst_elems, "TransData", "dstTensor", loc);
    uint64_t sb = src_elems * sizeof(T), db = dst_elems * sizeof(T);
    if (overlaps(src.GetPhyAddrPtr(), sb, dst.GetPhyAddrPtr(), db))
        fail(Diag::BadArgument, loc, "TransData: srcTensor and dstTensor overlap; the page does not allow it.");
    if (tmp == nullptr) return;
    ascendc_sim::check_operand(*tmp, 0, "TransData", "sharedTmpBuffer", loc);
    if (overlaps(tmp->GetPhyAddrPtr(), tmp->GetSize(), src.GetPhyAddrPtr(), sb) ||
        overlaps(tmp->GetPhyAddrPtr(), tmp->GetSize(), dst.GetPhyAddrPtr(), db))
        fail(Diag::BadArgument, loc, "TransData: sharedTmpBuffer overlaps srcTensor or dstTensor; give it its own buffer.");
}

template <const TransDataConfig& config, typename T, typename U, typename S>
void run(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp,
         const TransDataParams<U, S>& params, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (c.soc().arch == 1)
        fail(Diag::UnsupportedApi, loc, "TransData is documented for Atlas A2/A3 only, not %s.", c.soc().name);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, "TransData", loc);
    constexpr DataFormat from = config.srcFormat, to = config.dstFormat;
    constexpr bool to_split = from == DataFormat::NCDHW;
    constexpr DataFormat split = to_split ? to : from;
    static_assert((from == DataFormat::NCDHW && (to == DataFormat::NDC1HWC0 || to == DataFormat::FRACTAL_Z_3D)) ||
                      (to == DataFormat::NCDHW && (from == DataFormat::NDC1HWC0 || from == DataFormat::FRACTAL_Z_3D)),
                  "TransData supports NCDHW <-> NDC1HWC0 and NCDHW <-> FRACTAL_Z_3D only");
    auto src_shape = shape_of(params.srcLayout);
    auto dst_shape = shape_of(params.dstLayout);
    Dims x;
    if constexpr (to_split) {
        if (src_shape.size() != 5) mismatch("NCDHW needs 5 dimensions", loc);
        x = dims(split, src_shape, dst_shape, loc);
    } else {
        if (dst_shape.size() != 5) mismatch("NCDHW needs 5 dimensions", loc);
        x = dims(split, dst_shape, src_shape, loc);
    }
    const int64_t plain = x.n * x.c * x.d * x.hw_pad(), packed = split_elems(split, x);
    check_operands(dst, to_split ? packed : plain, src, to_split ? plain : packed, tmp, loc);
    T* d = dst.GetPhyAddrPtr();
    const T* s = src.GetPhyAddrPtr();
    std::memset(d, 0xFF, uint64_t(to_split ? packed : plain) * sizeof(T));  // padding: undefined
    for (int64_t n = 0; n < x.n; ++n)
        for (int64_t ch = 0; ch < x.c; ++ch)
            for (int64_t dd = 0; dd < x.d; ++dd)
                for (int64_t hw = 0; hw < x.h * x.w; ++hw) {
                    int64_t at_plain = ((n * x.c + ch) * x.d + dd) * x.hw_pad() + hw;
                    int64_t at_split = split_offset(split, x, n, ch, dd, hw);
                    if (to_split) d[at_split] = s[at_plain];
                    else d[at_plain] = s[at_split];
                }
    uint64_t repeats = 2 * ascendc_sim::repeats_for<T>(uint64_t(std::max(plain, packed)));
    ascendc_sim::count_vector(c, ascendc_sim::OpId::TransData, repeats, {src.timing()}, dst.timing());
}

}  // namespace trans_data_detail

template <const TransDataConfig& config, typename T, typename U, typename S>
void TransData(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const LocalTensor<uint8_t>& sharedTmpBuffer, const TransDataParams<U, S>& params,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    trans_data_detail::run<config>(dstTensor, srcTensor, &sharedTmpBuffer, params, loc);
}

template <const TransDataConfig& config, typename T, typename U, typename S>
void TransData(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const TransDataParams<U, S>& params,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    trans_data_detail::run<config>(dstTensor, srcTensor, nullptr, params, loc);
}

}  // namespace AscendC
