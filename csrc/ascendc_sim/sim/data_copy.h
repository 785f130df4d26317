// DataCopy (GM<->UB, UB<->UB; count and strided forms) and DataCopyPad (unaligned lengths).
#pragma once
#include "pipe.h"

namespace AscendC {

struct DataCopyParams {
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;   // DataCopy: 32-byte blocks; DataCopyPad: bytes
    uint16_t srcStride = 0;  // gap between blocks (end to start)
    uint16_t dstStride = 0;
    DataCopyParams() = default;
    DataCopyParams(uint16_t count, uint16_t len, uint16_t src_stride, uint16_t dst_stride)
        : blockCount(count), blockLen(len), srcStride(src_stride), dstStride(dst_stride) {}
};

struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;   // bytes
    uint32_t srcStride = 0;  // GM: bytes; UB: 32-byte blocks
    uint32_t dstStride = 0;  // GM: bytes; UB: 32-byte blocks
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t count, uint32_t len, uint32_t src_stride, uint32_t dst_stride, uint32_t reserved)
        : blockCount(count), blockLen(len), srcStride(src_stride), dstStride(dst_stride), rsv(reserved) {}
};

template <typename T>
struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;  // elements
    uint8_t rightPadding = 0;
    T paddingValue = T(0);
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool is_pad, uint8_t left, uint8_t right, T value)
        : isPad(is_pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool is_pad, uint8_t left, uint8_t right, uint64_t value)
        : isPad(is_pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

namespace sim_detail {

// L1 -> bias table (C1 -> C2), cube_copy.h.
template <typename T, typename U>
void copy_to_bias_table(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& params,
                        ascendc_sim::Loc loc);

using ascendc_sim::CoreState;
using ascendc_sim::Diag;
using ascendc_sim::fail;
using ascendc_sim::Loc;

// One block of a copy: `bytes` from src_offset to dst_offset (bytes from each tensor's start).
struct CopyBlock {
    uint64_t src_offset;
    uint64_t dst_offset;
    uint64_t bytes;
};

struct CopyPlan {
    uint32_t count;
    uint64_t bytes;      // per block
    uint64_t src_pitch;  // bytes from one block's start to the next
    uint64_t dst_pitch;
    uint64_t src_span() const { return count ? (count - 1) * src_pitch + bytes : 0; }
    uint64_t dst_span() const { return count ? (count - 1) * dst_pitch + bytes : 0; }
};

inline void check_block_count(uint32_t count, const char* api, Loc loc) {
    if (count < 1 || count > 4095)
        fail(Diag::BadArgument, loc,
             "%s: blockCount is %u; it must be 1 to 4095. %s", api, count,
             count == 0 ? "Skip the copy when there is nothing to move."
                        : "Split the copy into several calls of at most 4095 blocks.");
}

// DataCopy/DataCopyPad dtypes (基础数据搬运.md, DataCopyPad(ISASI).md): every 1/2/4/8-byte type on
// Atlas A2/A3; no bfloat16_t on 310P.
constexpr uint32_t kCopyTypesA2 = ascendc_sim::dtype_bit(ascendc_sim::DType::Count) - 1;
constexpr uint32_t kCopyTypes310P = kCopyTypesA2 & ~ascendc_sim::dtype_bit(ascendc_sim::DType::BF16);

template <typename T>
void check_copy_dtype(const char* api, Loc loc) {
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kCopyTypesA2, kCopyTypes310P, api, loc);
}

// DataCopy needs GM aligned to the element size (基础数据搬运.md; DataCopyPad does not). A
// misaligned address usually means an element offset added to the GM_ADDR byte pointer.
template <typename T>
void check_gm_element_aligned(const GlobalTensor<T>& gm, const char* api, Loc loc) {
    uint64_t address = reinterpret_cast<uint64_t>(gm.GetPhyAddr());
    if (address % sizeof(T) == 0) return;
    const ascendc_sim::GmHome& home = gm.sim_home();
    fail(Diag::BadArgument, loc,
         "%s: the GM address is %llu bytes into kernel argument %d, not a multiple of sizeof(%s) = %zu. Add element "
         "offsets to a typed pointer ((__gm__ %s *)x + offset), not to the GM_ADDR byte pointer.",
         api, (unsigned long long)(home.arg_index >= 0 ? address - home.base : address), home.arg_index,
         ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), sizeof(T), ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
}

// int4b_t (two elements per byte, tensor.h): a copy moves the bytes that hold the elements, through int8_t views
// of the same memory, so that every size check counts bytes. A count must be even (whole bytes).
template <typename T>
GlobalTensor<int8_t> int4_bytes(const GlobalTensor<T>& g, const char* api, Loc loc) {
    if (g.GetPhyAddr() == nullptr)
        fail(Diag::BadArgument, loc,
             "%s: the GlobalTensor<int4b_t> was offset by an odd number of elements, into the middle of a byte. "
             "Offset int4b_t tensors by even element counts.",
             api);
    GlobalTensor<int8_t> bytes;
    bytes.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t*>(g.GetPhyAddr()), g.GetSize() / 2);
    return bytes;
}

template <typename T>
LocalTensor<int8_t> int4_bytes(const LocalTensor<T>& t, const char*, Loc) {
    return t.template ReinterpretCast<int8_t>();
}

inline uint32_t int4_count_bytes(uint32_t count, const char* api, Loc loc) {
    if (count % 2 != 0)
        fail(Diag::BadArgument, loc,
             "%s of %u elements of int4b_t: an odd count ends inside a byte. Copy an even count.", api, count);
    if ((count / 2) % ascendc_sim::kBlockBytes != 0)
        fail(Diag::DataCopyAlignment, loc,
             "%s of %u elements of int4b_t = %u bytes, not a multiple of 32 bytes; the NPU silently copies only %u "
             "bytes. Copy whole 32-byte blocks (64 int4b_t elements) and move the tail with DataCopyPad on an int8_t "
             "view.",
             api, count, count / 2, count / 2 / 32 * 32);
    return count / 2;
}

template <typename T>
void check_whole_blocks(uint32_t count, const char* api, Loc loc) {
    uint64_t bytes = uint64_t(count) * sizeof(T);
    if (bytes % ascendc_sim::kBlockBytes != 0)
        fail(Diag::DataCopyAlignment, loc,
             "%s of %u elements of %s = %llu bytes, not a multiple of 32 bytes; the NPU silently copies only "
             "%llu bytes. Copy whole 32-byte blocks and move the tail with DataCopyPad (or pad the buffer).",
             api, count, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), (unsigned long long)bytes,
             (unsigned long long)(bytes / 32 * 32));
}

// The offset of `data` in the memory it lies in: UB, or one of the cube core's memories (local_memory.h), so that a
// plain DataCopy GM <-> L1 (基础数据搬运.md: GM -> A1/B1/C1, A1/B1 -> GM) is checked in L1.
inline uint64_t local_byte_offset(const CoreState& c, const void* data) {
    auto p = static_cast<const uint8_t*>(data);
    if (c.cube_memory != nullptr && (c.ub == nullptr || p < c.ub || p >= c.ub + c.soc().ub_bytes))
        for (int m = int(ascendc_sim::Memory::L1); m < ascendc_sim::kLocalMemories; ++m) {
            uint64_t offset = ascendc_sim::local_offset(c, data, ascendc_sim::Memory(m));
            if (offset < ascendc_sim::memory_bytes(c.soc(), ascendc_sim::Memory(m))) return offset;
        }
    return ascendc_sim::ub_offset(c, data);
}

inline void check_ub_span(const void* data, uint64_t span, uint64_t capacity, const char* api, const char* role,
                          Loc loc) {
    CoreState& c = ascendc_sim::core(loc);
    uint64_t offset = local_byte_offset(c, data);
    if (offset % ascendc_sim::kBlockBytes != 0)
        fail(Diag::UbMisaligned, loc,
             "%s: the UB %s starts at byte offset %llu, not 32-byte aligned; UB operands of data copies must "
             "start on a 32-byte boundary. Offset LocalTensors only by multiples of 32 bytes (copy into an aligned "
             "buffer and shift with a vector op, or use GM offsets instead).",
             api, role, (unsigned long long)offset);
    if (span > capacity)
        fail(Diag::LocalOverrun, loc,
             "%s: the copy spans %llu bytes of the UB %s, which has only %llu bytes (UB offset %llu). "
             "Shrink the copy or the strides, or allocate a larger buffer.",
             api, (unsigned long long)span, role, (unsigned long long)capacity, (unsigned long long)offset);
}

// Element-wise accumulation into GM for SetAtomicAdd/Max/Min, under the launch's atomic lock.
template <typename T>
void atomic_store(CoreState& c, T* dst, const T* src, uint64_t count, Loc loc) {
    if (c.atomic_dtype != ascendc_sim::dtype_of<T>)
        fail(Diag::BadArgument, loc,
             "atomic copy of %s to GM while the atomic mode was set for %s; the accumulation would treat the "
             "bytes as the wrong type. Call SetAtomicAdd<%s>() (or Max/Min) before this copy, and SetAtomicNone() "
             "after it.",
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), ascendc_sim::dtype_name(c.atomic_dtype),
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    std::lock_guard<std::mutex> guard(c.launch->atomic_mutex);
    for (uint64_t i = 0; i < count; ++i) {
        float a = float(dst[i]), b = float(src[i]);
        if constexpr (std::is_integral_v<T>) {
            if (c.atomic_mode == 1) dst[i] = T(dst[i] + src[i]);
            else if (c.atomic_mode == 2) dst[i] = std::max(dst[i], src[i]);
            else dst[i] = std::min(dst[i], src[i]);
        } else {
            if (c.atomic_mode == 1) dst[i] = T(a + b);
            else if (c.atomic_mode == 2) dst[i] = T(std::max(a, b));
            else dst[i] = T(std::min(a, b));
        }
    }
}

// `dst`: where the bytes are (check_gm); `visible`: the kernel's address of them, for the race check.
template <typename T>
void store_gm(CoreState& c, T* dst, const T* src, uint64_t bytes, Loc loc, const void* visible) {
    if (c.atomic_mode != 0) {
        atomic_store(c, dst, src, bytes / sizeof(T), loc);
    } else {
        std::memcpy(dst, src, bytes);
        ascendc_sim::record_gm_write(c, visible, bytes, loc);
    }
}

template <typename T>
void gm_to_ub(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const CopyPlan& plan, const char* api, Loc loc) {
    CoreState& c = ascendc_sim::core(loc);
    check_ub_span(dst.GetPhyAddrPtr(), plan.dst_span(), uint64_t(dst.GetSize()) * sizeof(T), api, "destination", loc);
    const uint8_t* gm = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
    uint8_t* ub = reinterpret_cast<uint8_t*>(dst.GetPhyAddrPtr());
    for (uint32_t i = 0; i < plan.count; ++i)
        std::memcpy(ub + i * plan.dst_pitch,
                    ascendc_sim::check_gm_read(gm + i * plan.src_pitch, plan.bytes, api, loc, src.sim_home()), plan.bytes);
    uint64_t moved = plan.bytes * plan.count;
    c.report->gm_to_ub_bytes += moved;
    c.report->data_copies += 1;
    ascendc_sim::schedule(c, ascendc_sim::kPipeMte2, ascendc_sim::CostModel::gm_copy_ns(moved, false, c.soc()), {},
                          dst.timing(), ascendc_sim::CostModel::gm_read_latency_ns(c.soc()));
}

template <typename T>
void ub_to_gm(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const CopyPlan& plan, const char* api, Loc loc) {
    CoreState& c = ascendc_sim::core(loc);
    check_ub_span(src.GetPhyAddrPtr(), plan.src_span(), uint64_t(src.GetSize()) * sizeof(T), api, "source", loc);
    uint8_t* gm = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
    const uint8_t* ub = reinterpret_cast<const uint8_t*>(src.GetPhyAddrPtr());
    for (uint32_t i = 0; i < plan.count; ++i) ascendc_sim::check_gm(gm + i * plan.dst_pitch, plan.bytes, api, loc, dst.sim_home());
    for (uint32_t i = 0; i < plan.count; ++i) {
        uint8_t* at = gm + i * plan.dst_pitch;
        store_gm(c, reinterpret_cast<T*>(ascendc_sim::check_gm(at, plan.bytes, api, loc, dst.sim_home())),
                 reinterpret_cast<const T*>(ub + i * plan.src_pitch), plan.bytes, loc, at);
    }
    uint64_t moved = plan.bytes * plan.count;
    c.report->ub_to_gm_bytes += moved;
    c.report->data_copies += 1;
    ascendc_sim::schedule(c, ascendc_sim::kPipeMte3, ascendc_sim::CostModel::gm_copy_ns(moved, true, c.soc()),
                          {src.timing()}, nullptr);
}

template <typename T>
void ub_to_ub(const LocalTensor<T>& dst, const LocalTensor<T>& src, const CopyPlan& plan, const char* api, Loc loc) {
    CoreState& c = ascendc_sim::core(loc);
    check_ub_span(src.GetPhyAddrPtr(), plan.src_span(), uint64_t(src.GetSize()) * sizeof(T), api, "source", loc);
    check_ub_span(dst.GetPhyAddrPtr(), plan.dst_span(), uint64_t(dst.GetSize()) * sizeof(T), api, "destination", loc);
    uint8_t* to = reinterpret_cast<uint8_t*>(dst.GetPhyAddrPtr());
    const uint8_t* from = reinterpret_cast<const uint8_t*>(src.GetPhyAddrPtr());
    for (uint32_t i = 0; i < plan.count; ++i) std::memmove(to + i * plan.dst_pitch, from + i * plan.src_pitch, plan.bytes);
    uint64_t moved = plan.bytes * plan.count;
    c.report->ub_to_ub_bytes += moved;
    int op = static_cast<int>(ascendc_sim::OpId::CopyUB);
    c.report->op_instrs[op] += 1;
    c.report->op_repeats[op] += (moved + 255) / 256;
    ascendc_sim::schedule(c, ascendc_sim::kPipeV, ascendc_sim::CostModel::ub_copy_ns(moved, c.soc()), {src.timing()},
                          dst.timing());
}

inline CopyPlan contiguous_plan(uint64_t bytes) { return CopyPlan{1, bytes, bytes, bytes}; }

inline CopyPlan block_plan(const DataCopyParams& p, const char* api, Loc loc) {
    check_block_count(p.blockCount, api, loc);
    if (p.blockLen == 0)
        fail(Diag::BadArgument, loc,
             "%s: blockLen is 0; in DataCopyParams it counts 32-byte blocks (1 to 65535). Pass bytes / 32, and move "
             "a part shorter than 32 bytes with DataCopyPad.",
             api);
    uint64_t bytes = uint64_t(p.blockLen) * 32;
    return CopyPlan{p.blockCount, bytes, bytes + uint64_t(p.srcStride) * 32, bytes + uint64_t(p.dstStride) * 32};
}

// DataCopyPad's blockLen is in bytes (not elements, not blocks), 1 to 2097151.
template <typename T>
void check_pad_len(uint32_t len, const char* api, Loc loc) {
    if (len == 0 || len > 2097151 || len % sizeof(T) != 0)
        fail(Diag::BadArgument, loc,
             "%s: blockLen is %u; for DataCopyPad it is a byte count from 1 to 2097151 that covers whole elements "
             "(a multiple of sizeof(%s) = %zu). Pass count * sizeof(%s).",
             api, len, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), sizeof(T),
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
}

inline void require_pad_support(Loc loc) {
    const SimSocProfile& soc = ascendc_sim::core(loc).soc();
    if (!soc.has_datacopy_pad)
        fail(Diag::UnsupportedApi, loc,
             "DataCopyPad is not available on %s. Copy whole 32-byte blocks with DataCopy and handle the tail "
             "by copying the last full 32 bytes (overlapping the previous tile) or by padding the tensor.",
             soc.name);
}

// SetPadValue(ISASI).md: a pad value for DataCopyPad GM->VECIN/VECOUT (pos MAX: both). Its example pads
// with it while isPad is false, so a set register stands in for the otherwise undefined padding.
struct PadValueRegister {
    const CoreState* core = nullptr;
    uint64_t launch = 0;
    TPosition pos = TPosition::MAX;
    ascendc_sim::DType dtype = ascendc_sim::DType::F32;
    uint64_t bits = 0;
};

inline PadValueRegister& pad_value_register() {
    static thread_local PadValueRegister r;
    return r;
}

// The value SetPadValue left for a copy of T into `pos`, if any (a different T: bad_argument).
template <typename T>
bool pad_register_value(const CoreState& c, TPosition pos, T& value, Loc loc) {
    const PadValueRegister& r = pad_value_register();
    if (r.core != &c || r.launch != c.launch->serial) return false;
    if (r.pos != TPosition::MAX && r.pos != pos) return false;
    if (r.dtype != ascendc_sim::dtype_of<T>)
        fail(Diag::BadArgument, loc,
             "DataCopyPad pads %s data, but SetPadValue set a %s value; the page requires the pad value's type to "
             "match the copied data. Call SetPadValue<%s>.",
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), ascendc_sim::dtype_name(r.dtype),
             ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    std::memcpy(&value, &r.bits, sizeof(T));
    return true;
}

template <typename T>
void pad_in(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count, uint32_t len, uint32_t src_gap,
            uint32_t dst_gap_blocks, bool is_pad, uint32_t left, uint32_t right, T value, Loc loc) {
    const char* api = "DataCopyPad(GM->UB)";
    require_pad_support(loc);
    check_copy_dtype<T>(api, loc);
    check_block_count(count, api, loc);
    check_pad_len<T>(len, api, loc);
    if (left * sizeof(T) > 32 || right * sizeof(T) > 32)
        fail(Diag::BadArgument, loc,
             "%s: leftPadding %u / rightPadding %u elements of %zu bytes; each side may pad at most 32 bytes "
             "(DataCopyPad(ISASI).md). Pad less, or fill the rest with Duplicate.",
             api, left, right, sizeof(T));
    uint64_t row = uint64_t(left) * sizeof(T) + len + uint64_t(right) * sizeof(T);
    uint64_t padded = (row + 31) / 32 * 32;
    CopyPlan plan{count, padded, len + uint64_t(src_gap), padded + uint64_t(dst_gap_blocks) * 32};
    CoreState& c = ascendc_sim::core(loc);
    check_ub_span(dst.GetPhyAddrPtr(), plan.dst_span(), uint64_t(dst.GetSize()) * sizeof(T), api, "destination", loc);
    const uint8_t* gm = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
    uint8_t* ub = reinterpret_cast<uint8_t*>(dst.GetPhyAddrPtr());
    uint64_t elems = padded / sizeof(T);
    for (uint32_t i = 0; i < count; ++i) {
        const uint8_t* from = ascendc_sim::check_gm_read(gm + i * plan.src_pitch, len, api, loc, src.sim_home());
        T* row_out = reinterpret_cast<T*>(ub + i * plan.dst_pitch);
        // Padding and the dummy fill up to 32 bytes (DataCopyPad(ISASI).md): with no left/right padding
        // the dummy is the block's first element; with padding, the pad value when isPad, otherwise
        // undefined on the NPU, so poisoned here.
        T first;
        std::memcpy(&first, from, sizeof(T));
        bool padded_sides = left != 0 || right != 0;
        if (padded_sides && !is_pad && pad_register_value(c, dst.GetPosition(), value, loc)) is_pad = true;
        for (uint64_t e = 0; e < elems; ++e) {
            if (padded_sides && !is_pad) std::memset(row_out + e, 0xFF, sizeof(T));
            else row_out[e] = padded_sides ? value : first;
        }
        std::memcpy(reinterpret_cast<uint8_t*>(row_out) + left * sizeof(T), from, len);
    }
    c.report->gm_to_ub_bytes += uint64_t(len) * count;
    c.report->data_copies += 1;
    ascendc_sim::schedule(c, ascendc_sim::kPipeMte2,
                          ascendc_sim::CostModel::gm_copy_ns(uint64_t(len) * count, false, c.soc()), {}, dst.timing(),
                          ascendc_sim::CostModel::gm_read_latency_ns(c.soc()));
}

template <typename T>
void pad_out(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, uint32_t len,
             uint32_t src_gap_blocks, uint32_t dst_gap, Loc loc) {
    const char* api = "DataCopyPad(UB->GM)";
    require_pad_support(loc);
    check_copy_dtype<T>(api, loc);
    check_block_count(count, api, loc);
    check_pad_len<T>(len, api, loc);
    uint64_t padded = (uint64_t(len) + 31) / 32 * 32;
    CopyPlan plan{count, len, padded + uint64_t(src_gap_blocks) * 32, len + uint64_t(dst_gap)};
    ub_to_gm(dst, src, plan, api, loc);
}

// DataCopyPad of int4b_t tensors: blockLen is in bytes, so the bytes move through int8_t views; padding (counted in
// elements) would split bytes and is refused.
inline void pad_in(const LocalTensor<int4b_t>& dst, const GlobalTensor<int4b_t>& src, uint32_t count, uint32_t len,
                   uint32_t src_gap, uint32_t dst_gap_blocks, bool is_pad, uint32_t left, uint32_t right,
                   int4b_t value, Loc loc) {
    const char* api = "DataCopyPad(GM->UB)";
    if (left != 0 || right != 0)
        fail(Diag::UnsupportedApi, loc,
             "%s of int4b_t with leftPadding/rightPadding is not simulated (the padding would count half bytes). "
             "Copy through int8_t views of the tensors.",
             api);
    pad_in(int4_bytes(dst, api, loc), int4_bytes(src, api, loc), count, len, src_gap, dst_gap_blocks, is_pad, 0u, 0u,
           static_cast<int8_t>(value.storage), loc);
}

inline void pad_out(const GlobalTensor<int4b_t>& dst, const LocalTensor<int4b_t>& src, uint32_t count, uint32_t len,
                    uint32_t src_gap_blocks, uint32_t dst_gap, Loc loc) {
    const char* api = "DataCopyPad(UB->GM)";
    pad_out(int4_bytes(dst, api, loc), int4_bytes(src, api, loc), count, len, src_gap_blocks, dst_gap, loc);
}

}  // namespace sim_detail

template <typename T, TPosition pos = TPosition::MAX>
void SetPadValue(T paddingValue, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::MAX,
                  "SetPadValue: pos must be TPosition::VECIN, VECOUT or MAX");
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    sim_detail::require_pad_support(loc);
    sim_detail::PadValueRegister& r = sim_detail::pad_value_register();
    r = sim_detail::PadValueRegister{&c, c.launch->serial, pos, ascendc_sim::dtype_of<T>, 0};
    std::memcpy(&r.bits, &paddingValue, sizeof(T));
}

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    if constexpr (ascendc_sim::is_int4_v<T>) {
        const char* api = "DataCopy(GM->UB)";
        uint32_t bytes = sim_detail::int4_count_bytes(count, api, loc);
        return DataCopy(sim_detail::int4_bytes(dst, api, loc), sim_detail::int4_bytes(src, api, loc), bytes, loc);
    } else {
        sim_detail::check_copy_dtype<T>("DataCopy", loc);
        sim_detail::check_gm_element_aligned(src, "DataCopy", loc);
        sim_detail::check_whole_blocks<T>(count, "DataCopy(GM->UB)", loc);
        sim_detail::gm_to_ub(dst, src, sim_detail::contiguous_plan(uint64_t(count) * sizeof(T)),
                             "DataCopy(GM->UB)", loc);
    }
}

template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    if constexpr (ascendc_sim::is_int4_v<T>) {
        const char* api = "DataCopy(UB->GM)";
        uint32_t bytes = sim_detail::int4_count_bytes(count, api, loc);
        return DataCopy(sim_detail::int4_bytes(dst, api, loc), sim_detail::int4_bytes(src, api, loc), bytes, loc);
    } else {
        sim_detail::check_copy_dtype<T>("DataCopy", loc);
        sim_detail::check_gm_element_aligned(dst, "DataCopy", loc);
        sim_detail::check_whole_blocks<T>(count, "DataCopy(UB->GM)", loc);
        sim_detail::ub_to_gm(dst, src, sim_detail::contiguous_plan(uint64_t(count) * sizeof(T)),
                             "DataCopy(UB->GM)", loc);
    }
}

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    if constexpr (ascendc_sim::is_int4_v<T>) {
        const char* api = "DataCopy(UB->UB)";
        uint32_t bytes = sim_detail::int4_count_bytes(count, api, loc);
        return DataCopy(sim_detail::int4_bytes(dst, api, loc), sim_detail::int4_bytes(src, api, loc), bytes, loc);
    } else {
        sim_detail::check_copy_dtype<T>("DataCopy", loc);
        sim_detail::check_whole_blocks<T>(count, "DataCopy(UB->UB)", loc);
        sim_detail::ub_to_ub(dst, src, sim_detail::contiguous_plan(uint64_t(count) * sizeof(T)),
                             "DataCopy(UB->UB)", loc);
    }
}

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    if constexpr (ascendc_sim::is_int4_v<T>) {
        const char* api = "DataCopy(GM->UB)";
        return DataCopy(sim_detail::int4_bytes(dst, api, loc), sim_detail::int4_bytes(src, api, loc), params, loc);
    } else {
        sim_detail::check_copy_dtype<T>("DataCopy", loc);
        sim_detail::check_gm_element_aligned(src, "DataCopy", loc);
        sim_detail::gm_to_ub(dst, src, sim_detail::block_plan(params, "DataCopy(GM->UB)", loc),
                             "DataCopy(GM->UB)", loc);
    }
}

template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    if constexpr (ascendc_sim::is_int4_v<T>) {
        const char* api = "DataCopy(UB->GM)";
        return DataCopy(sim_detail::int4_bytes(dst, api, loc), sim_detail::int4_bytes(src, api, loc), params, loc);
    } else {
        sim_detail::check_copy_dtype<T>("DataCopy", loc);
        sim_detail::check_gm_element_aligned(dst, "DataCopy", loc);
        sim_detail::ub_to_gm(dst, src, sim_detail::block_plan(params, "DataCopy(UB->GM)", loc),
                             "DataCopy(UB->GM)", loc);
    }
}

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    if constexpr (ascendc_sim::is_int4_v<T>) {
        const char* api = "DataCopy(UB->UB)";
        return DataCopy(sim_detail::int4_bytes(dst, api, loc), sim_detail::int4_bytes(src, api, loc), params, loc);
    } else if (dst.GetPosition() == TPosition::C2) {
        sim_detail::copy_to_bias_table(dst, src, params, loc);  // cube_copy.h
    } else {
        sim_detail::check_copy_dtype<T>("DataCopy", loc);
        sim_detail::ub_to_ub(dst, src, sim_detail::block_plan(params, "DataCopy(UB->UB)", loc),
                             "DataCopy(UB->UB)", loc);
    }
}

template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& params,
                 const DataCopyPadExtParams<T>& pad, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::pad_in(dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride, pad.isPad,
                       pad.leftPadding, pad.rightPadding, pad.paddingValue, loc);
}

template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params,
                 const DataCopyPadParams& pad, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    T value;
    std::memset(&value, 0, sizeof value);
    std::memcpy(&value, &pad.paddingValue, std::min(sizeof value, sizeof pad.paddingValue));
    sim_detail::pad_in(dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride, pad.isPad,
                       pad.leftPadding, pad.rightPadding, value, loc);
}

template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& params,
                 ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::pad_out(dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride, loc);
}

template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params,
                 ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::pad_out(dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride, loc);
}

}  // namespace AscendC
