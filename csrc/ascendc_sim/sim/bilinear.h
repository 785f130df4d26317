// BilinearInterpolation (ISASI, the 基础算术 chapter): gathered 32-byte blocks of src0 scaled by src1
// and summed into dst, in horizontal and vertical iterations.
//
// From asc-devkit v8.5.0 BilinearInterpolation(ISASI).md (half only on Atlas A2/A3):
// - Horizontal iteration i reads 8 offsets from src0Offset, each the start of one src0 DataBlock;
//   repeatMode false: all 8 blocks are multiplied by one src1 value, true: block k by the k-th of 8
//   src1 values. The products are added block by block into dst, whose address stays the same for
//   the hRepeat horizontal iterations of one vertical iteration.
// - Vertical iteration v writes 8 DataBlocks (dstBlkStride apart) at dst + v * vROffset elements;
//   hRepeat, vRepeat in 1..255; vROffset in [128, 65535) with vROffset * sizeof(T) 32-byte aligned;
//   src0, src1 and src0Offset may not overlap, nor may two vertical iterations' dst blocks.
// - sharedTmpBuffer: at least src0.GetSize() * 32 + src1.GetSize() * 32 bytes.
// The page's worked example (src0 1..512, src1 2..17, offsets 0, 32, ... 992, hRepeat = vRepeat = 2,
// repeatMode false -> 389, 394, 399, ... 4096) fixes the reading order: the iterations consume
// src0Offset and src1 in order across both loops, and offsets count bytes.
// Assumptions: the first horizontal iteration of a vertical one writes dst (no stale dst is added),
// later ones add; each product and sum rounds to half; the mask picks lanes of the 8 dst blocks, and
// lanes it leaves out keep dst; an offset that is not a multiple of 32 or points past src0 is reported.
#pragma once
#include "vector_ops.h"

namespace AscendC {
namespace sim_detail {

struct BilinearArgs {
    uint32_t h_repeat;
    bool repeat_mode;
    uint32_t dst_blk;
    uint32_t v_offset;
    uint32_t v_repeat;
};

template <typename T>
void check_bilinear(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& offsets,
                    const LocalTensor<T>& src1, const LocalTensor<uint8_t>& tmp, const BilinearArgs& a, Loc loc) {
    const char* api = "BilinearInterpolation";
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, dtype_bit(DType::F16), dtype_bit(DType::F16), api, loc);
    if (a.h_repeat < 1 || a.h_repeat > 255 || a.v_repeat < 1 || a.v_repeat > 255)
        ascendc_sim::fail(ascendc_sim::Diag::RepeatOverflow, loc,
                          "%s: hRepeat %u and vRepeat %u must both be in 1..255.", api, a.h_repeat, a.v_repeat);
    if (a.v_offset < 128 || a.v_offset >= 65535 || (a.v_offset * sizeof(T)) % 32 != 0)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "%s: vROffset %u must be in [128, 65535) elements and a multiple of 32 bytes "
                          "(BilinearInterpolation.md).",
                          api, a.v_offset);
    const uint64_t v_span = (7ull * a.dst_blk + 1) * 32 / sizeof(T);  // one vertical iteration's dst, elements
    if (v_span > a.v_offset && a.v_repeat > 1)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "%s: a vertical iteration writes %llu elements of dst (8 blocks, dstBlkStride %u) but "
                          "vROffset is %u, so two vertical iterations overlap, which the page forbids. Raise "
                          "vROffset to at least %llu.",
                          api, (unsigned long long)v_span, a.dst_blk, a.v_offset, (unsigned long long)v_span);
    const uint64_t iterations = uint64_t(a.h_repeat) * a.v_repeat;
    ascendc_sim::check_operand(offsets, iterations * 8, api, "src0Offset", loc);
    ascendc_sim::check_operand(src1, iterations * (a.repeat_mode ? 8 : 1), api, "src1", loc);
    ascendc_sim::check_operand(src0, 0, api, "src0", loc);
    ascendc_sim::check_operand(dst, (a.v_repeat - 1ull) * a.v_offset + v_span, api, "dst", loc);
    const uint64_t tmp_bytes = (uint64_t(src0.GetSize()) + src1.GetSize()) * 32;
    ascendc_sim::check_operand(tmp, 0, api, "sharedTmpBuffer", loc);
    if (tmp.GetSize() < tmp_bytes)
        ascendc_sim::fail(ascendc_sim::Diag::LocalOverrun, loc,
                          "%s: sharedTmpBuffer has %u bytes but needs src0.GetSize() * 32 + src1.GetSize() * 32 = "
                          "%llu (BilinearInterpolation.md).",
                          api, tmp.GetSize(), (unsigned long long)tmp_bytes);
    const struct {
        const void* p;
        uint64_t bytes;
        const char* name;
    } in[3] = {{src0.GetPhyAddrPtr(), uint64_t(src0.GetSize()) * sizeof(T), "src0"},
               {src1.GetPhyAddrPtr(), uint64_t(src1.GetSize()) * sizeof(T), "src1"},
               {offsets.GetPhyAddrPtr(), uint64_t(offsets.GetSize()) * 4, "src0Offset"}};
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j) {
            const uint8_t* x = static_cast<const uint8_t*>(in[i].p);
            const uint8_t* y = static_cast<const uint8_t*>(in[j].p);
            if (x < y + in[j].bytes && y < x + in[i].bytes)
                ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                                  "%s: %s and %s overlap in UB, which the page forbids. Give each its own buffer.",
                                  api, in[i].name, in[j].name);
        }
}

template <typename T>
void bilinear(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& offsets,
              const LocalTensor<T>& src1, const MaskArg& mask, const BilinearArgs& a,
              const LocalTensor<uint8_t>& tmp, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    check_bilinear(dst, src0, offsets, src1, tmp, a, loc);
    constexpr uint32_t lanes = 256 / sizeof(T), per_block = 32 / sizeof(T);
    const Plan p = make_plan<true>(c, mask, lanes, sizeof(T), 1, "BilinearInterpolation", loc);
    const uint32_t* off = offsets.GetPhyAddrPtr();
    const T* s0 = src0.GetPhyAddrPtr();
    const T* s1 = src1.GetPhyAddrPtr();
    const uint64_t src0_bytes = uint64_t(src0.GetSize()) * sizeof(T);
    uint64_t iter = 0;
    for (uint32_t v = 0; v < a.v_repeat; ++v)
        for (uint32_t h = 0; h < a.h_repeat; ++h, ++iter)
            for (uint32_t k = 0; k < 8; ++k) {
                const uint32_t byte = off[iter * 8 + k];
                if (byte % 32 != 0 || byte + 32ull > src0_bytes)
                    ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                                      "BilinearInterpolation: src0Offset[%llu] is %u, which is not the byte offset "
                                      "of a whole 32-byte DataBlock inside src0 (%llu bytes).",
                                      (unsigned long long)(iter * 8 + k), byte, (unsigned long long)src0_bytes);
                const T scale = s1[a.repeat_mode ? iter * 8 + k : iter];
                const T* block = s0 + byte / sizeof(T);
                T* out = dst.GetPhyAddrPtr() + uint64_t(v) * a.v_offset + uint64_t(k) * a.dst_blk * per_block;
                for (uint32_t e = 0; e < per_block; ++e) {
                    const uint32_t lane = k * per_block + e;
                    if (!((p.bits[lane >> 6] >> (lane & 63)) & 1)) continue;
                    const T product = mul(block[e], scale);
                    out[e] = h == 0 ? product : add(out[e], product);
                }
            }
    ascendc_sim::count_vector(c, ascendc_sim::OpId::BilinearInterpolation, iter,
                              {src0.timing(), src1.timing(), offsets.timing()}, dst.timing());
}

}  // namespace sim_detail

template <typename T>
void BilinearInterpolation(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                           const LocalTensor<uint32_t>& src0Offset, const LocalTensor<T>& src1, const uint64_t mask[],
                           uint8_t hRepeat, bool repeatMode, uint16_t dstBlkStride, uint16_t vROffset, uint8_t vRepeat,
                           const LocalTensor<uint8_t>& sharedTmpBuffer,
                           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::bilinear(dst, src0, src0Offset, src1, sim_detail::MaskArg{mask, 0},
                         {hRepeat, repeatMode, dstBlkStride, vROffset, vRepeat}, sharedTmpBuffer, loc);
}

template <typename T>
void BilinearInterpolation(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                           const LocalTensor<uint32_t>& src0Offset, const LocalTensor<T>& src1, uint64_t mask,
                           uint8_t hRepeat, bool repeatMode, uint16_t dstBlkStride, uint16_t vROffset, uint8_t vRepeat,
                           const LocalTensor<uint8_t>& sharedTmpBuffer,
                           ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::bilinear(dst, src0, src0Offset, src1, sim_detail::MaskArg{nullptr, mask},
                         {hRepeat, repeatMode, dstBlkStride, vROffset, vRepeat}, sharedTmpBuffer, loc);
}

}  // namespace AscendC
