// Transpose(dst, src, [sharedTmpBuffer,] TransposeType, ConfusionTransposeTiling&) (Transpose-39.md): the seven
// layout changes of [B, N, S, H/N] data (H = N * H/N) between ND and NZ, with the shape from the tiling our host
// functions fill (sim/confusion_transpose_tiling.h).
//
// Layouts, as the page's shapes give them. NZ of an [R, C] matrix is [C/16, R/16, 16, 16]: element (r, c) at
// ((c/16 * R/16 + r/16) * 16 + r%16) * 16 + c%16 (the page writes 16 x 16 fractals for every listed type).
//   1 NZ2ND_0213           NZ [B, N | S, H/N]  ->  ND [B, S, N, H/N]
//   2 NZ2NZ_0213           NZ [B, N | S, H/N]  ->  NZ [B, S | N, H/N]
//   3 NZ2NZ_012_WITH_N     NZ [B | S, H]       ->  NZ [B, N | S, H/N]
//   4 NZ2ND_012_WITH_N     NZ [B | S, H]       ->  ND [B, N, S, H/N]
//   5 NZ2ND_012_WITHOUT_N  NZ [B, N | S, H/N]  ->  ND [B, S, H]
//   6 NZ2NZ_012_WITHOUT_N  NZ [B, N | S, H/N]  ->  NZ [B | S, H]
//   7 ND2ND_ONLY           ND [H, W]           ->  ND [W, H], H and W multiples of 16
// ("NZ [X | R, C]": one NZ matrix [R, C] per index X.) The page's figures also cover H/N (and for scenario 2 N) not a
// multiple of 16, with padded rows and fractals; the simulator refuses those shapes (unsupported_api) rather than
// guess the padding. Types int16_t/uint16_t/half/int32_t/uint32_t/float on Atlas A2/A3 (the page lists no other
// SoC); the other TransposeType values are "当前不支持" there (TRANSPOSE_ND2ND_B16, NCHW2NHWC and NHWC2NCHW belong to
// the TransposeParamsExt form, sim/transpose.h). src and dst may not overlap; the tmp buffer is left poisoned.
#pragma once
#include <cstring>
#include <vector>

#include "confusion_transpose_tiling.h"
#include "hl_checks.h"
#include "transpose.h"

namespace AscendC {
namespace confusion_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::dtype_bit;
using ascendc_sim::fail;
using ascendc_sim::Loc;

constexpr uint32_t kTypes = dtype_bit(DType::I16) | dtype_bit(DType::U16) | dtype_bit(DType::F16) |
                            dtype_bit(DType::I32) | dtype_bit(DType::U32) | dtype_bit(DType::F32);

// Offset of (r, c) in an NZ [rows, cols] matrix.
inline uint64_t nz(uint64_t r, uint64_t c, uint64_t rows) {
    return ((c / 16 * (rows / 16) + r / 16) * 16 + r % 16) * 16 + c % 16;
}

struct Dims {
    uint64_t b, n, s, hn;
};

// Source and destination offsets of logical element (b, n, s, h) of [B, N, S, H/N] in scenario `type`.
inline void offsets(uint32_t type, const Dims& d, uint64_t b, uint64_t n, uint64_t s, uint64_t h, uint64_t& from,
                    uint64_t& to) {
    uint64_t hAll = d.n * d.hn, col = n * d.hn + h;
    uint64_t nzBns = (b * d.n + n) * d.s * d.hn + nz(s, h, d.s);  // NZ [B, N | S, H/N]
    uint64_t nzBsh = b * d.s * hAll + nz(s, col, d.s);            // NZ [B | S, H]
    switch (type) {
        case 1: from = nzBns, to = ((b * d.s + s) * d.n + n) * d.hn + h; break;
        case 2: from = nzBns, to = (b * d.s + s) * d.n * d.hn + nz(n, h, d.n); break;
        case 3: from = nzBsh, to = nzBns; break;
        case 4: from = nzBsh, to = ((b * d.n + n) * d.s + s) * d.hn + h; break;
        case 5: from = nzBns, to = (b * d.s + s) * hAll + col; break;
        default: from = nzBns, to = nzBsh; break;  // 6
    }
}

inline const char* type_name(uint32_t type) {
    static const char* const names[] = {"TRANSPOSE_TYPE_NONE",        "TRANSPOSE_NZ2ND_0213",
                                        "TRANSPOSE_NZ2NZ_0213",       "TRANSPOSE_NZ2NZ_012_WITH_N",
                                        "TRANSPOSE_NZ2ND_012_WITH_N", "TRANSPOSE_NZ2ND_012_WITHOUT_N",
                                        "TRANSPOSE_NZ2NZ_012_WITHOUT_N", "TRANSPOSE_ND2ND_ONLY"};
    return type < 8 ? names[type] : "an unsupported TransposeType";
}

inline void check_shape(uint32_t type, const ConfusionTransposeTiling& t, Loc loc) {
    const char* api = "Transpose(ConfusionTransposeTiling)";
    if (type == 7) {
        if (t.s % 16 != 0 || t.hnDiv % 16 != 0)
            fail(Diag::BadArgument, loc, "%s: TRANSPOSE_ND2ND_ONLY needs H and W multiples of 16 (Transpose-39.md); "
                 "the tiling has [%u, %u].", api, t.s, t.hnDiv);
        return;
    }
    bool n16 = type != 2 || t.n % 16 == 0;
    if (t.s % 16 != 0 || t.hnDiv % 16 != 0 || !n16)
        fail(Diag::UnsupportedApi, loc,
             "%s: %s with [B, N, S, H/N] = [%u, %u, %u, %u] is not simulated: S and H/N (and N for NZ2NZ_0213) must be "
             "multiples of 16 here; the padded fractals of other sizes are not modelled. Pad the shape to 16.",
             api, type_name(type), t.b, t.n, t.s, t.hnDiv);
}

template <typename T>
void transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp,
               TransposeType transposeType, const ConfusionTransposeTiling& t, Loc loc) {
    const char* api = "Transpose(ConfusionTransposeTiling)";
    hl_detail::check_soc_dtype(api, ascendc_sim::dtype_of<T>, kTypes, 0, loc);
    uint32_t type = static_cast<uint32_t>(transposeType);
    if (type == 0 || type > 7)
        fail(Diag::UnsupportedApi, loc,
             "%s: transposeType %u is not supported by this form (Transpose-39.md: only scenarios 1-7, "
             "TRANSPOSE_NZ2ND_0213 .. TRANSPOSE_ND2ND_ONLY; ND2ND_B16/NCHW2NHWC/NHWC2NCHW take TransposeParamsExt).",
             api, type);
    if (t.transposeType != type)
        fail(Diag::BadArgument, loc,
             "%s: the ConfusionTransposeTiling was computed for transposeTypeIn %u but the call asks for %s (%u). Pass "
             "the same type to GetTransposeTilingInfo.",
             api, t.transposeType, type_name(type), type);
    if (t.typeSize != sizeof(T))
        fail(Diag::BadArgument, loc,
             "%s: the tiling was computed for %u-byte elements but the tensors hold %s. Pass sizeof(T) as typeSize.",
             api, t.typeSize, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    if (t.stackShort)
        fail(Diag::BadArgument, loc,
             "%s: the tiling was computed with a stackBufferSize below the %u bytes this call needs (the minimum "
             "GetTransposeMaxMinTmpSize reports). Pass at least that to GetTransposeTilingInfo.",
             api, t.tmpBytes);
    check_shape(type, t, loc);
    uint64_t total = uint64_t(t.b) * t.n * t.s * t.hnDiv;
    ascendc_sim::check_operand(src, total, api, "src", loc);
    ascendc_sim::check_operand(dst, total, api, "dst", loc);
    hl_detail::Span sd = hl_detail::span(dst, total, "dst"), ss = hl_detail::span(src, total, "src");
    hl_detail::check_apart(api, sd, ss, false, loc);
    hl_detail::check_tmp(api, tmp, t.tmpBytes, {sd, ss}, loc);
    const T* s = src.GetPhyAddrPtr();
    std::vector<T> out(total);
    if (type == 7) {
        for (uint64_t r = 0; r < t.s; ++r)
            for (uint64_t c = 0; c < t.hnDiv; ++c) out[c * t.s + r] = s[r * t.hnDiv + c];
    } else {
        Dims d{t.b, t.n, t.s, t.hnDiv};
        for (uint64_t b = 0; b < d.b; ++b)
            for (uint64_t n = 0; n < d.n; ++n)
                for (uint64_t r = 0; r < d.s; ++r)
                    for (uint64_t h = 0; h < d.hn; ++h) {
                        uint64_t from = 0, to = 0;
                        offsets(type, d, b, n, r, h, from, to);
                        out[to] = s[from];
                    }
    }
    std::memcpy(dst.GetPhyAddrPtr(), out.data(), total * sizeof(T));
    hl_detail::poison_tmp(tmp, t.tmpBytes);
    // Two TransDataTo5HD passes over the data (the page's steps).
    ascendc_sim::count_vector(ascendc_sim::core(loc), ascendc_sim::OpId::ConfusionTranspose,
                              2 * ascendc_sim::repeats_for<T>(total), {src.timing()}, dst.timing());
}

}  // namespace confusion_detail

template <typename T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
               TransposeType transposeType, ConfusionTransposeTiling& tiling,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    confusion_detail::transpose(dst, src, &sharedTmpBuffer, transposeType, tiling, loc);
}

template <typename T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, TransposeType transposeType,
               ConfusionTransposeTiling& tiling, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    confusion_detail::transpose(dst, src, nullptr, transposeType, tiling, loc);
}

}  // namespace AscendC
