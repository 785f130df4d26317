// Data movement beyond DataCopy: InitGlobalMemory (fill GM), Gather (by byte offsets), GatherMask
// (select by a bit pattern), the high-level Broadcast and Scatter (310P only), written from
// InitGlobalMemory.md, Gather.md, GatherMask.md, Broadcast.md and Scatter(ISASI).md.
#pragma once
#include <vector>

#include "data_copy.h"
#include "vector_ops.h"

namespace AscendC {

struct GatherMaskParams {
    uint8_t src0BlockStride = 1;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = 0;
    uint8_t src1RepeatStride = 0;
    GatherMaskParams() = default;
    GatherMaskParams(uint8_t src0_blk, uint16_t repeat, uint16_t src0_rep, uint8_t src1_rep)
        : src0BlockStride(src0_blk), repeatTimes(repeat), src0RepeatStride(src0_rep), src1RepeatStride(src1_rep) {}
};

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V1;

namespace sim_detail {

using ascendc_sim::DType;

// InitGlobalMemory.md: the same six types on Atlas A2/A3 and 310P.
constexpr uint32_t kInitGmTypes = kFillTypes;
// Gather.md and GatherMask.md: 16- and 32-bit types, bfloat16_t on A2/A3 only.
constexpr uint32_t kGatherTypes = kFillTypes;
constexpr uint32_t kGatherTypesA2 = kFillTypesA2;

// ---- InitGlobalMemory ----------------------------------------------------------------------------

// The fill goes through a scratch area of UB (hence the documented MTE3_MTE2 sync after it), which
// is why InitGlobalMemory.md allows it only before any InitBuffer.
inline void check_init_gm_before_buffers(const CoreState& c, Loc loc) {
    if (c.ub_used != 0)
        fail(Diag::BadArgument, loc,
             "InitGlobalMemory after InitBuffer: %u bytes of UB are already allocated, and the fill uses UB as "
             "scratch, so it would overwrite them (InitGlobalMemory.md allows it only before InitBuffer). Call "
             "InitGlobalMemory first in the kernel, before pipe.InitBuffer.",
             c.ub_used);
}

template <typename T>
void init_global_memory(const GlobalTensor<T>& gm, uint64_t size, T value, Loc loc) {
    const char* api = "InitGlobalMemory";
    CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kInitGmTypes, kInitGmTypes, api, loc);
    check_init_gm_before_buffers(c, loc);
    if (size == 0) return;
    check_gm_element_aligned(gm, api, loc);
    uint64_t bytes = size * sizeof(T);
    T* at = reinterpret_cast<T*>(ascendc_sim::check_gm(gm.GetPhyAddr(), bytes, api, loc, gm.sim_home()));
    std::vector<T> fill(size, value);
    store_gm(c, at, fill.data(), bytes, loc, gm.GetPhyAddr());
    c.report->ub_to_gm_bytes += bytes;
    c.report->data_copies += 1;
    int op = static_cast<int>(ascendc_sim::OpId::InitGlobalMemory);
    c.report->op_instrs[op] += 1;
    c.report->op_repeats[op] += (bytes + ascendc_sim::kRepeatBytes - 1) / ascendc_sim::kRepeatBytes;
    ascendc_sim::schedule(c, ascendc_sim::kPipeMte3, ascendc_sim::CostModel::gm_copy_ns(bytes, true, c.soc()), {},
                          nullptr);
}

// ---- Gather ---------------------------------------------------------------------------------------

template <typename T>
void check_gather_operands(const LocalTensor<T>& dst, const LocalTensor<T>& src, const char* api, Loc loc) {
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kGatherTypesA2, kGatherTypes, api, loc);
    ascendc_sim::check_operand(src, 0, api, "src", loc);
    ascendc_sim::check_operand(dst, 0, api, "dst", loc);
    if (dst.GetPhyAddrPtr() == src.GetPhyAddrPtr())
        fail(Diag::BadArgument, loc,
             "%s: src and dst are the same UB memory; Gather.md does not allow the source and the destination to "
             "share an address. Gather into a separate buffer.",
             api);
}

// Names of a Gather/Scatter operand in messages: the indexed tensor and its base/offset parameters.
struct IndexedNames {
    const char* api;
    const char* tensor;
    const char* base;
    const char* offset;
};
constexpr IndexedNames kGatherNames{"Gather", "src", "srcBaseAddr", "srcOffset"};
constexpr IndexedNames kScatterNames{"Scatter", "dst", "dstBaseAddr", "dstOffset"};

// Element i is at base + offset[i] bytes from the indexed tensor's start (Gather.md, Scatter(ISASI).md).
// It must be element-aligned and inside that tensor; past it the hardware reaches whatever else is in UB.
template <typename T>
T* indexed_element(const LocalTensor<T>& t, uint32_t base, uint32_t offset, uint64_t index, const IndexedNames& n,
                   Loc loc) {
    uint64_t at = uint64_t(base) + offset;
    const char* type = ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>);
    if (at % sizeof(T) != 0)
        fail(Diag::BadArgument, loc,
             "%s: element %llu is at byte %llu of %s (%s %u + %s %u), not a multiple of sizeof(%s) = %zu; the NPU "
             "would move misaligned data. %s and %s are byte offsets: multiply element indices by sizeof(%s).",
             n.api, (unsigned long long)index, (unsigned long long)at, n.tensor, n.base, base, n.offset, offset, type,
             sizeof(T), n.offset, n.base, type);
    if (at + sizeof(T) > uint64_t(t.GetSize()) * sizeof(T))
        fail(Diag::LocalOverrun, loc,
             "%s: element %llu is at byte %llu of %s (%s %u + %s %u), past the end of %s (%u elements of %s = %llu "
             "bytes). Offsets are in bytes from %s's start: check the index-to-offset conversion and clamp indices "
             "to the tensor's length.",
             n.api, (unsigned long long)index, (unsigned long long)at, n.tensor, n.base, base, n.offset, offset,
             n.tensor, (unsigned)t.GetSize(), type, (unsigned long long)t.GetSize() * sizeof(T), n.tensor);
    return t.GetPhyAddrPtr() + at / sizeof(T);
}

template <typename T>
void gather_count(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offsets,
                  uint32_t base, uint32_t count, Loc loc) {
    const char* api = "Gather";
    CoreState& c = ascendc_sim::core(loc);
    check_gather_operands(dst, src, api, loc);
    if (count == 0) return;  // Gather.md: a NOP on Atlas A2/A3
    ascendc_sim::check_operand(dst, count, api, "dst", loc);
    ascendc_sim::check_operand(offsets, count, api, "srcOffset", loc);
    const uint32_t* off = offsets.GetPhyAddrPtr();
    std::vector<T> out(count);
    for (uint32_t i = 0; i < count; ++i) out[i] = *indexed_element(src, base, off[i], i, kGatherNames, loc);
    std::memcpy(dst.GetPhyAddrPtr(), out.data(), count * sizeof(T));
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Gather, ascendc_sim::repeats_for<T>(count),
                              {src.timing(), offsets.timing()}, dst.timing());
}

// Level-0 form: repeat r writes dst lanes at r * dstRepStride blocks and reads their offsets from
// srcOffset[r * lanes + lane] (the offsets are consumed contiguously, one per lane).
template <typename T>
void gather_level0(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offsets,
                   uint32_t base, const MaskArg& mask, int64_t repeat, uint16_t dst_rep, Loc loc) {
    const char* api = "Gather";
    CoreState& c = ascendc_sim::core(loc);
    check_gather_operands(dst, src, api, loc);
    constexpr uint32_t lanes = 256 / sizeof(T);
    Plan p = make_plan<true>(c, mask, lanes, sizeof(T), repeat, api, loc);
    if (p.repeats == 0) return;
    const Stream s[1] = {{bytes_of(dst), sizeof(T), 1, dst_rep}};
    check_level0_operand(dst, s[0], p, lanes, api, "dst", loc);
    uint64_t last_lane = (p.repeats - 1) * lanes + uint64_t(highest_lane(p.bits));
    ascendc_sim::check_operand(offsets, last_lane + 1, api, "srcOffset", loc);
    const uint32_t* off = offsets.GetPhyAddrPtr();
    walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool, uint32_t n, uint64_t lane) {
        T* d = reinterpret_cast<T*>(ptr[0]);
        for (uint32_t k = 0; k < n; ++k)
            if ((bits >> k) & 1) d[k] = *indexed_element(src, base, off[lane + k], lane + k, kGatherNames, loc);
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Gather, p.repeats, {src.timing(), offsets.timing()},
                              dst.timing());
}

// ---- GatherMask -------------------------------------------------------------------------------------

// The lanes one repeat of GatherMask reads, and which of them the pattern keeps.
struct GatherMaskPlan {
    uint64_t repeats = 0;
    uint32_t lanes_per_repeat = 0;  // lanes of a full repeat that take part
    uint32_t tail = 0;              // lanes of the last repeat when it is partial (310P counter mode)
    uint32_t lanes_in(uint64_t r) const { return tail != 0 && r + 1 == repeats ? tail : lanes_per_repeat; }
};

// reduceMode false: repeatTimes repeats of 256 bytes. true (counter mode): on Atlas A2/A3 `mask`
// elements in each of repeatTimes repeats; on 310P `mask` elements in all (GatherMask.md 配置方式一/二).
// repeatTimes is GatherMaskParams' uint16_t, not the other APIs' uint8_t, and GatherMask.md states no range below
// that type's: 256 and more are taken (DrivingSDK's unique_v2 gathers 8192 float pairs in 256 repeats).
template <typename T>
GatherMaskPlan gather_mask_plan(const CoreState& c, bool reduce_mode, uint32_t mask, uint16_t repeat,
                                uint8_t src0_block_stride, Loc loc) {
    constexpr uint32_t lanes = 256 / sizeof(T);
    GatherMaskPlan g;
    if (!reduce_mode) return GatherMaskPlan{repeat, lanes, 0};
    if (mask == 0)
        fail(Diag::BadMask, loc,
             "GatherMask in counter mode (reduceMode = true) with mask 0; the mask is an element count from 1. "
             "Pass the number of elements, or reduceMode = false for whole 256-byte repeats.");
    if (c.soc().arch == 1) {
        g.repeats = (mask + lanes - 1) / lanes;
        g.lanes_per_repeat = lanes;
        g.tail = mask - uint32_t(g.repeats - 1) * lanes;
        if (g.tail == lanes) g.tail = 0;
        return g;
    }
    // GatherMask.md's 配置方式一 figure: mask 70 of uint32_t with src0BlockStride 1 reads 70 consecutive elements
    // (and 70 pattern bits) per repeat. With other block strides such a repeat's layout is not documented.
    if (mask > lanes && src0_block_stride != 1)
        fail(Diag::BadMask, loc,
             "GatherMask in counter mode on %s takes mask elements per repeat; mask %u is more than the %u elements "
             "of %zu bytes in one 256-byte repeat with src0BlockStride %u, which the simulator does not model (the "
             "documentation shows such a repeat only with src0BlockStride 1). Use mask <= %u with more repeats.",
             c.soc().name, mask, lanes, sizeof(T), unsigned(src0_block_stride), lanes);
    return GatherMaskPlan{repeat, mask, 0};
}

// Built-in patterns 1..7 (GatherMask.md): lane l is kept when bit l of the pattern is set, the
// pattern written with lane 0 rightmost ("01010101" keeps the even lanes).
inline bool builtin_pattern_keeps(uint8_t pattern, uint32_t lane) {
    switch (pattern) {
        case 1: return lane % 2 == 0;
        case 2: return lane % 2 == 1;
        case 3: case 4: case 5: case 6: return lane % 4 == uint32_t(pattern - 3);
        default: return true;  // 7
    }
}

inline void check_builtin_pattern(const CoreState& c, uint8_t pattern, Loc loc) {
    uint8_t highest = c.soc().arch == 1 ? 6 : 7;
    if (pattern < 1 || pattern > highest)
        fail(Diag::BadArgument, loc,
             "GatherMask: built-in src1Pattern %u is out of range; %s supports patterns 1 to %u (GatherMask.md: 1 even "
             "lanes, 2 odd lanes, 3..6 one lane in four, 7 all lanes%s). Pass a LocalTensor for a custom pattern.",
             unsigned(pattern), c.soc().name, unsigned(highest), highest == 6 ? ", not on this SoC" : "");
}

// Runs the selection: keep(r, lane) says whether lane `lane` of repeat r is kept.
template <typename T, typename Keep>
uint64_t gather_mask_run(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const GatherMaskParams& params,
                         const GatherMaskPlan& g, Keep&& keep, Loc loc) {
    const char* api = "GatherMask";
    constexpr uint32_t per_block = 32 / sizeof(T);
    const uint64_t blk = params.src0BlockStride, rep = params.src0RepeatStride;
    uint64_t src_end = 0;
    for (uint64_t r = 0; r < g.repeats; ++r) {
        uint32_t last = g.lanes_in(r) - 1;
        src_end = std::max(src_end, r * rep * 32 + (last / per_block) * blk * 32 + (last % per_block + 1) * sizeof(T));
    }
    if (src_end > uint64_t(src0.GetSize()) * sizeof(T))
        fail(Diag::LocalOverrun, loc,
             "%s: src0 is read up to byte %llu (%llu repeats, src0BlockStride %llu, src0RepeatStride %llu blocks) "
             "but the LocalTensor has only %u elements of %s. Lower repeatTimes or the strides.",
             api, (unsigned long long)src_end, (unsigned long long)g.repeats, (unsigned long long)blk,
             (unsigned long long)rep, (unsigned)src0.GetSize(), ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    const uint8_t* s = bytes_of(src0);
    std::vector<T> kept;
    for (uint64_t r = 0; r < g.repeats; ++r)
        for (uint32_t l = 0; l < g.lanes_in(r); ++l)
            if (keep(r, l)) {
                T v;
                std::memcpy(&v, s + r * rep * 32 + (l / per_block) * blk * 32 + (l % per_block) * sizeof(T), sizeof(T));
                kept.push_back(v);
            }
    ascendc_sim::check_operand(dst, kept.size(), api, "dst", loc);
    if (!kept.empty()) std::memcpy(dst.GetPhyAddrPtr(), kept.data(), kept.size() * sizeof(T));
    return kept.size();
}

// GatherMask.md: the call leaves the mask register in normal mode.
inline void leave_normal_mode(CoreState& c) { mask_register(c).counter = false; }

template <typename T>
void check_gather_mask_dtype(Loc loc) {
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kGatherTypesA2, kGatherTypes, "GatherMask", loc);
}

template <typename T>
void gather_mask_builtin(const LocalTensor<T>& dst, const LocalTensor<T>& src0, uint8_t pattern, bool reduce_mode,
                         uint32_t mask, const GatherMaskParams& params, uint64_t& kept, Loc loc) {
    CoreState& c = ascendc_sim::core(loc);
    check_gather_mask_dtype<T>(loc);
    check_builtin_pattern(c, pattern, loc);
    ascendc_sim::check_operand(src0, 0, "GatherMask", "src0", loc);
    ascendc_sim::check_operand(dst, 0, "GatherMask", "dst", loc);
    GatherMaskPlan g = gather_mask_plan<T>(c, reduce_mode, mask, params.repeatTimes, params.src0BlockStride, loc);
    kept = gather_mask_run(dst, src0, params, g,
                           [&](uint64_t, uint32_t lane) { return builtin_pattern_keeps(pattern, lane); }, loc);
    leave_normal_mode(c);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::GatherMask, g.repeats, {src0.timing()}, dst.timing());
}

// A custom pattern: bit l of the pattern words (lane 0 in bit 0 of word 0) keeps lane l; repeat r
// reads its bits from src1RepeatStride * r blocks into the pattern.
template <typename T, typename U>
void gather_mask_custom(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& pattern,
                        bool reduce_mode, uint32_t mask, const GatherMaskParams& params, uint64_t& kept, Loc loc) {
    const char* api = "GatherMask";
    CoreState& c = ascendc_sim::core(loc);
    check_gather_mask_dtype<T>(loc);
    if (!std::is_same_v<U, std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>>)
        fail(Diag::UnsupportedDtype, loc,
             "GatherMask: src1Pattern of %s with %s data; GatherMask.md takes a uint16_t pattern for 16-bit types "
             "and a uint32_t pattern for 32-bit types. Declare the pattern tensor as LocalTensor<%s>.",
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<U>), ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>),
             sizeof(T) == 2 ? "uint16_t" : "uint32_t");
    ascendc_sim::check_operand(src0, 0, api, "src0", loc);
    ascendc_sim::check_operand(dst, 0, api, "dst", loc);
    GatherMaskPlan g = gather_mask_plan<T>(c, reduce_mode, mask, params.repeatTimes, params.src0BlockStride, loc);
    const uint64_t pitch = uint64_t(params.src1RepeatStride) * 32;
    uint64_t bits_end = 0;
    for (uint64_t r = 0; r < g.repeats; ++r) bits_end = std::max(bits_end, r * pitch * 8 + g.lanes_in(r));
    ascendc_sim::check_operand(pattern, (bits_end + 8 * sizeof(U) - 1) / (8 * sizeof(U)), api, "src1Pattern", loc);
    const uint8_t* bits = reinterpret_cast<const uint8_t*>(pattern.GetPhyAddrPtr());
    kept = gather_mask_run(
        dst, src0, params, g,
        [&](uint64_t r, uint32_t lane) {
            U word;
            std::memcpy(&word, bits + r * pitch + (lane / (8 * sizeof(U))) * sizeof(U), sizeof(U));
            return ((word >> (lane % (8 * sizeof(U)))) & 1) != 0;
        },
        loc);
    leave_normal_mode(c);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::GatherMask, g.repeats, {src0.timing(), pattern.timing()},
                              dst.timing());
}

// ---- Broadcast (high-level API) -----------------------------------------------------------------------

// Broadcast.md: int8_t, uint8_t, half, float on Atlas A2/A3 and 310P.
constexpr uint32_t kBroadcastTypes =
    dtype_bit(DType::I8) | dtype_bit(DType::U8) | dtype_bit(DType::F16) | dtype_bit(DType::F32);

template <typename T>
void check_broadcast_shapes(const CoreState& c, int dim, int axis, const uint32_t* dst_shape,
                            const uint32_t* src_shape, Loc loc) {
    if ((dim != 1 && dim != 2) || (axis != 0 && axis != 1) || axis >= dim)
        fail(Diag::BadArgument, loc,
             "Broadcast<T, dim = %d, axis = %d>: Broadcast.md supports dim 1 or 2 and axis 0 or 1 (axis < dim). "
             "Reshape the tensor to at most 2 dimensions.",
             dim, axis);
    for (int d = 0; d < dim; ++d) {
        bool ok = d == axis ? src_shape[d] == 1 || src_shape[d] == dst_shape[d] : src_shape[d] == dst_shape[d];
        if (!ok || dst_shape[d] == 0)
            fail(Diag::BadArgument, loc,
                 "Broadcast: srcShape[%d] = %u does not broadcast to dstShape[%d] = %u along axis %d; the broadcast "
                 "axis of src must be 1 and the other dimension equal (and non-zero) in both shapes.",
                 d, src_shape[d], d, dst_shape[d], axis);
    }
    if (dim != 2) return;
    // Broadcast.md: the kept dimension of src must fill whole 32-byte blocks (axis 0 always, axis 1 on 310P).
    bool need = axis == 0 || c.soc().arch == 1;
    uint32_t kept = src_shape[1 - axis];
    if (need && (uint64_t(kept) * sizeof(T)) % ascendc_sim::kBlockBytes != 0)
        fail(Diag::BadArgument, loc,
             "Broadcast<%s, 2, %d>: srcShape[%d] = %u elements = %llu bytes, not a multiple of 32 bytes; Broadcast.md "
             "requires it to be 32-byte aligned%s. Pad that dimension to a multiple of %zu elements.",
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), axis, 1 - axis, kept,
             (unsigned long long)(uint64_t(kept) * sizeof(T)), axis == 1 ? " on this SoC" : "",
             ascendc_sim::kBlockBytes / sizeof(T));
}

template <typename T>
void broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, int dim, int axis, const uint32_t* dst_shape,
               const uint32_t* src_shape, const LocalTensor<uint8_t>* tmp, Loc loc) {
    const char* api = "Broadcast";
    CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kBroadcastTypes, kBroadcastTypes, api, loc);
    check_broadcast_shapes<T>(c, dim, axis, dst_shape, src_shape, loc);
    const uint64_t rows = dim == 2 ? dst_shape[0] : 1, cols = dst_shape[dim - 1];
    const uint64_t src_rows = dim == 2 ? src_shape[0] : 1, src_cols = src_shape[dim - 1];
    ascendc_sim::check_operand(src, src_rows * src_cols, api, "src", loc);
    ascendc_sim::check_operand(dst, rows * cols, api, "dst", loc);
    if (tmp != nullptr) ascendc_sim::check_operand(*tmp, 0, api, "sharedTmpBuffer", loc);
    const uint8_t* s0 = bytes_of(src);
    const uint8_t* d0 = bytes_of(dst);
    if (d0 < s0 + src_rows * src_cols * sizeof(T) && s0 < d0 + rows * cols * sizeof(T))
        fail(Diag::BadArgument, loc,
             "Broadcast: src and dst overlap in UB; Broadcast.md does not allow it. Broadcast into a separate buffer.");
    const T* s = src.GetPhyAddrPtr();
    T* d = dst.GetPhyAddrPtr();
    for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j)
            d[i * cols + j] = s[(src_rows == 1 ? 0 : i) * src_cols + (src_cols == 1 ? 0 : j)];
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Broadcast, ascendc_sim::repeats_for<T>(rows * cols),
                              {src.timing()}, dst.timing());
}

// ---- Scatter (310P AI Core only) --------------------------------------------------------------------

// Scatter(ISASI).md: Atlas 推理系列产品 AI Core only (not Atlas A2/A3), uint16_t/half/uint32_t/float.
constexpr uint32_t kScatterTypes310P =
    dtype_bit(DType::U16) | dtype_bit(DType::F16) | dtype_bit(DType::U32) | dtype_bit(DType::F32);

template <typename T>
void check_scatter_operands(const CoreState& c, const LocalTensor<T>& dst, const LocalTensor<T>& src, Loc loc) {
    if (c.soc().arch != 1)
        fail(Diag::UnsupportedApi, loc,
             "Scatter is not available on %s (Scatter(ISASI).md: Atlas inference AI Core only). Write the elements "
             "with SetValue, or compute destination-ordered data and store it with DataCopy.",
             c.soc().name);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kScatterTypes310P, kScatterTypes310P, "Scatter", loc);
    ascendc_sim::check_operand(src, 0, "Scatter", "src", loc);
    ascendc_sim::check_operand(dst, 0, "Scatter", "dst", loc);
    if (dst.GetPhyAddrPtr() == src.GetPhyAddrPtr())
        fail(Diag::BadArgument, loc,
             "Scatter: src and dst are the same UB memory; scatter into a separate buffer.");
}

template <typename T>
void scatter_count(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offsets,
                   uint32_t base, uint32_t count, Loc loc) {
    CoreState& c = ascendc_sim::core(loc);
    check_scatter_operands(c, dst, src, loc);
    if (count == 0) return;
    ascendc_sim::check_operand(src, count, "Scatter", "src", loc);
    ascendc_sim::check_operand(offsets, count, "Scatter", "dstOffset", loc);
    const T* s = src.GetPhyAddrPtr();
    const uint32_t* off = offsets.GetPhyAddrPtr();
    for (uint32_t i = 0; i < count; ++i) *indexed_element(dst, base, off[i], i, kScatterNames, loc) = s[i];
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Scatter, ascendc_sim::repeats_for<T>(count),
                              {src.timing(), offsets.timing()}, dst.timing());
}

// Level-0 form: repeat r reads src lanes at r * srcRepStride blocks; lane l of repeat r takes its
// offset from dstOffset[r * lanes + l].
template <typename T>
void scatter_level0(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offsets,
                    uint32_t base, const MaskArg& mask, int64_t repeat, uint16_t src_rep, Loc loc) {
    CoreState& c = ascendc_sim::core(loc);
    check_scatter_operands(c, dst, src, loc);
    constexpr uint32_t lanes = 256 / sizeof(T);
    Plan p = make_plan<true>(c, mask, lanes, sizeof(T), repeat, "Scatter", loc);
    if (p.repeats == 0) return;
    const Stream s[1] = {{bytes_of(src), sizeof(T), 1, src_rep}};
    check_level0_operand(src, s[0], p, lanes, "Scatter", "src", loc);
    uint64_t last_lane = (p.repeats - 1) * lanes + uint64_t(highest_lane(p.bits));
    ascendc_sim::check_operand(offsets, last_lane + 1, "Scatter", "dstOffset", loc);
    const uint32_t* off = offsets.GetPhyAddrPtr();
    walk(p, lanes, s, [&](uint8_t* const* ptr, uint64_t bits, bool, uint32_t n, uint64_t lane) {
        const T* x = reinterpret_cast<const T*>(ptr[0]);
        for (uint32_t k = 0; k < n; ++k)
            if ((bits >> k) & 1) *indexed_element(dst, base, off[lane + k], lane + k, kScatterNames, loc) = x[k];
    });
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Scatter, p.repeats, {src.timing(), offsets.timing()},
                              dst.timing());
}

}  // namespace sim_detail

template <typename T>
void InitGlobalMemory(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value,
                      ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::init_global_memory(gmWorkspaceAddr, size, value, loc);
}

template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
            const uint32_t srcBaseAddr, const uint32_t count, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::gather_count(dst, src, srcOffset, srcBaseAddr, count, loc);
}

template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
            const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTime, const uint16_t dstRepStride,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::gather_level0(dst, src, srcOffset, srcBaseAddr, sim_detail::MaskArg{mask, 0}, repeatTime,
                              dstRepStride, loc);
}

template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
            const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTime, const uint16_t dstRepStride,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::gather_level0(dst, src, srcOffset, srcBaseAddr, sim_detail::MaskArg{nullptr, mask}, repeatTime,
                              dstRepStride, loc);
}

template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                uint64_t& rsvdCnt, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::gather_mask_custom(dst, src0, src1Pattern, reduceMode, mask, gatherMaskParams, rsvdCnt, loc);
}

template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                uint64_t& rsvdCnt, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::gather_mask_builtin(dst, src0, src1Pattern, reduceMode, mask, gatherMaskParams, rsvdCnt, loc);
}

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
               const uint32_t srcShape[dim], LocalTensor<uint8_t>& sharedTmpBuffer,
               ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::broadcast(dstLocal, srcLocal, dim, axis, dstShape, srcShape, &sharedTmpBuffer, loc);
}

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
               const uint32_t srcShape[dim], ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::broadcast(dstLocal, srcLocal, dim, axis, dstShape, srcShape, nullptr, loc);
}

template <typename T>
void Scatter(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& dstOffset,
             const uint32_t dstBaseAddr, const uint32_t count, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::scatter_count(dst, src, dstOffset, dstBaseAddr, count, loc);
}

template <typename T>
void Scatter(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& dstOffset,
             const uint32_t dstBaseAddr, const uint64_t mask[], const uint8_t repeatTime, const uint8_t srcRepStride,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::scatter_level0(dst, src, dstOffset, dstBaseAddr, sim_detail::MaskArg{mask, 0}, repeatTime,
                               srcRepStride, loc);
}

template <typename T>
void Scatter(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& dstOffset,
             const uint32_t dstBaseAddr, const uint64_t mask, const uint8_t repeatTime, const uint8_t srcRepStride,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::scatter_level0(dst, src, dstOffset, dstBaseAddr, sim_detail::MaskArg{nullptr, mask}, repeatTime,
                               srcRepStride, loc);
}

}  // namespace AscendC
