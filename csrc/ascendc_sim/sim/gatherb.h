// Gatherb (ISASI, the 离散与聚合 chapter): whole 32-byte DataBlocks of src0 gathered by byte offsets.
//
// From asc-devkit v8.5.0 Gatherb(ISASI).md: uint16_t/uint32_t on Atlas A2/A3; each repeat gathers 8
// DataBlocks, block k from src0 + offset[k] bytes (offsets are uint32_t, >= 0, 32-byte multiples);
// repeatTime in 1..255; GatherRepeatParams' dstBlkStride/dstRepStride place the blocks in dst (its
// other fields are reserved). The page's example: offsets 224, 192, ... 0 reverse the 8 blocks.
// Assumptions: repeat r reads offset[8r .. 8r+7] (the page shows one repeat); an offset that is not
// a 32-byte multiple or points past src0 is reported rather than read.
#pragma once
#include "vector_ops.h"

namespace AscendC {

// The field names of the page's table 3; the two-argument constructor is (dstBlkStride, dstRepStride),
// as the page's example GatherRepeatParams params{1, 8} uses it.
struct GatherRepeatParams {
    GatherRepeatParams() {}
    GatherRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint16_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint16_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint16_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

template <typename T>
void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& offset,
             const uint8_t repeatTime, const GatherRepeatParams& repeatParams,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    using ascendc_sim::DType;
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    constexpr uint32_t types = ascendc_sim::dtype_bit(DType::U16) | ascendc_sim::dtype_bit(DType::U32);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, types, types, "Gatherb", loc);
    if (repeatTime == 0)
        ascendc_sim::fail(ascendc_sim::Diag::RepeatOverflow, loc,
                          "Gatherb: repeatTime is 0; it must be in 1..255 (Gatherb.md), 8 DataBlocks per repeat.");
    const uint64_t repeats = repeatTime;
    const uint64_t blk = repeatParams.dstBlkStride, rep = repeatParams.dstRepStride;
    ascendc_sim::check_operand(offset, repeats * 8, "Gatherb", "offset", loc);
    ascendc_sim::check_operand(src0, 0, "Gatherb", "src0", loc);
    ascendc_sim::check_operand(dst, 0, "Gatherb", "dst", loc);
    const uint64_t dst_bytes = ((repeats - 1) * rep + 7 * blk + 1) * 32;
    if (dst_bytes > uint64_t(dst.GetSize()) * sizeof(T))
        ascendc_sim::fail(ascendc_sim::Diag::LocalOverrun, loc,
                          "Gatherb: dst is written up to byte %llu (%llu repeats of 8 blocks, dstBlkStride %llu, "
                          "dstRepStride %llu) but the LocalTensor has only %llu bytes.",
                          (unsigned long long)dst_bytes, (unsigned long long)repeats, (unsigned long long)blk,
                          (unsigned long long)rep, (unsigned long long)(uint64_t(dst.GetSize()) * sizeof(T)));
    const uint64_t src_bytes = uint64_t(src0.GetSize()) * sizeof(T);
    const uint32_t* off = offset.GetPhyAddrPtr();
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src0.GetPhyAddrPtr());
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.GetPhyAddrPtr());
    for (uint64_t i = 0; i < repeats * 8; ++i)
        if (off[i] % 32 != 0 || off[i] + 32ull > src_bytes)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Gatherb: offset[%llu] is %u bytes, which is not the start of a whole 32-byte "
                              "DataBlock inside src0 (%llu bytes). Offsets count bytes from src0 and must be "
                              "multiples of 32.",
                              (unsigned long long)i, off[i], (unsigned long long)src_bytes);
    uint8_t block[32];
    for (uint64_t r = 0; r < repeats; ++r)
        for (uint64_t k = 0; k < 8; ++k) {
            std::memcpy(block, s + off[r * 8 + k], 32);  // a copy: dst may share UB with src0
            std::memcpy(d + (r * rep + k * blk) * 32, block, 32);
        }
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Gatherb, repeats, {src0.timing(), offset.timing()},
                              dst.timing());
}

}  // namespace AscendC
