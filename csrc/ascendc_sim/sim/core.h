// The state of one simulated AI core (one block of a launch) and of the launch it belongs to,
// plus the checks every API call shares: GM bounds, UB operands, dtype support, counters.
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "cost_model.h"
#include "diagnostics.h"
#include "launch_abi.h"
#include "op_table.h"
#include "types.h"

namespace ascendc_sim {

// Time stamps of one UB buffer (a queue slot or a TBuf), for the cost model's hazards.
struct BufferTiming {
    double write_end = 0.0;
    double read_end = 0.0;
};

struct GmWrite {
    uint64_t begin;
    uint64_t end;
    uint32_t epoch;
    Loc loc;
};

constexpr int kEventKinds = 64;  // HardEvent values
constexpr int kEventIds = 8;

struct LaunchState {
    const SimSocProfile* soc = nullptr;
    std::vector<SimRegion> regions;  // sorted by base
    uint32_t block_dim = 0;
    uint32_t resident_cores = 0;  // blocks that run at the same time
    std::atomic<bool> abort{false};
    std::mutex atomic_mutex;  // serialises atomic-add copies to GM

    // SyncAll barrier over the resident blocks.
    std::mutex barrier_mutex;
    std::condition_variable barrier_cv;
    uint32_t barrier_waiting = 0;
    uint32_t barrier_finished = 0;
    uint64_t barrier_generation = 0;
    double barrier_time = 0.0;
    double barrier_release_time = 0.0;
};

struct TPipeState;

struct CoreState {
    LaunchState* launch = nullptr;
    SimCoreReport* report = nullptr;
    uint32_t block_idx = 0;
    uint8_t* ub = nullptr;
    uint32_t ub_used = 0;
    uint32_t queue_buffers[32] = {};  // per TPosition, for the event-ID limit
    double pipe_free[ASCENDC_SIM_PIPES] = {};
    double flag_time[kEventKinds][kEventIds] = {};
    uint8_t flag_pending[kEventKinds][kEventIds] = {};
    Loc flag_loc[kEventKinds][kEventIds] = {};
    std::vector<GmWrite> gm_writes;
    uint32_t epoch = 0;
    int atomic_mode = 0;  // 0 none, 1 add, 2 max, 3 min
    DType atomic_dtype = DType::F32;
    bool has_deferred = false;
    SimError deferred;
    void* current_pipe = nullptr;

    const SimSocProfile& soc() const { return *launch->soc; }

    // First diagnostic found where an exception cannot be thrown (a destructor).
    void defer(Diag kind, Loc loc, std::string message) {
        if (!has_deferred) {
            has_deferred = true;
            deferred = SimError{kind, std::move(message), loc};
        }
    }
};

inline thread_local CoreState* t_core = nullptr;

inline CoreState& core(Loc loc = Loc::here()) {
    if (t_core == nullptr)
        fail(Diag::NotInKernel, loc, "AscendC API called outside a kernel launch (no current core)");
    if (t_core->launch->abort.load(std::memory_order_relaxed)) throw KernelAborted{};
    return *t_core;
}

// ---- GM bounds ---------------------------------------------------------------------------------

inline const SimRegion* find_region(const LaunchState& launch, uint64_t address) {
    const auto& regions = launch.regions;
    auto after = std::upper_bound(regions.begin(), regions.end(), address,
                                  [](uint64_t a, const SimRegion& r) { return a < r.base; });
    if (after == regions.begin()) return nullptr;
    const SimRegion* region = &*(after - 1);
    return address < region->base + std::max<uint64_t>(region->bytes, 1) ? region : nullptr;
}

// Every GM access must lie inside one tensor the launcher passed; running past the end of one
// tensor into its neighbour is caught even if both came from one allocation.
inline void check_gm(const void* address, uint64_t bytes, const char* api, Loc loc) {
    if (bytes == 0) return;
    const CoreState& c = core(loc);
    uint64_t begin = reinterpret_cast<uint64_t>(address);
    const SimRegion* region = find_region(*c.launch, begin);
    if (region == nullptr) {
        const SimRegion* below = nullptr;
        for (const SimRegion& r : c.launch->regions)
            if (r.base <= begin) below = &r;
        if (below != nullptr && below->bytes > 0)
            fail(Diag::GmOutOfBounds, loc,
                 "%s accesses GM %llu bytes at offset %llu of kernel argument %d, which is a %llu-byte "
                 "tensor: the access starts %llu bytes past its end. Check the block offset and the "
                 "length of the last tile (use the tail length, not the full tile length).",
                 api, (unsigned long long)bytes, (unsigned long long)(begin - below->base), below->arg_index,
                 (unsigned long long)below->bytes, (unsigned long long)(begin - below->base - below->bytes));
        fail(Diag::GmOutOfBounds, loc,
             "%s accesses GM address 0x%llx (%llu bytes), which is not inside any tensor passed to the "
             "kernel. Check the GM_ADDR argument used and the offset added to it.",
             api, (unsigned long long)begin, (unsigned long long)bytes);
    }
    uint64_t end = begin + bytes;
    uint64_t region_end = region->base + region->bytes;
    if (end > region_end)
        fail(Diag::GmOutOfBounds, loc,
             "%s accesses GM bytes [%llu, %llu) of kernel argument %d, which has only %llu bytes: %llu "
             "bytes past its end. Clamp the last tile to the remaining length (and use DataCopyPad "
             "for a tail that is not a multiple of 32 bytes).",
             api, (unsigned long long)(begin - region->base), (unsigned long long)(end - region->base),
             region->arg_index, (unsigned long long)region->bytes, (unsigned long long)(end - region_end));
}

inline void record_gm_write(CoreState& c, const void* address, uint64_t bytes, Loc loc) {
    if (bytes == 0 || c.atomic_mode != 0) return;
    uint64_t begin = reinterpret_cast<uint64_t>(address);
    if (!c.gm_writes.empty()) {
        GmWrite& last = c.gm_writes.back();
        if (last.end == begin && last.epoch == c.epoch) {
            last.end = begin + bytes;
            return;
        }
    }
    c.gm_writes.push_back(GmWrite{begin, begin + bytes, c.epoch, loc});
}

// ---- UB operands -------------------------------------------------------------------------------

inline uint64_t ub_offset(const CoreState& c, const void* p) {
    return static_cast<uint64_t>(static_cast<const uint8_t*>(p) - c.ub);
}

// A vector or copy operand: a live tensor, 32-byte aligned in UB, with room for `elements`.
template <typename Tensor>
inline void check_operand(const Tensor& t, uint64_t elements, const char* api, const char* role, Loc loc) {
    CoreState& c = core(loc);
    using T = typename Tensor::PrimType;
    if (t.GetPhyAddrPtr() == nullptr)
        fail(Diag::BadArgument, loc,
             "%s: %s is an empty LocalTensor (never allocated). Get it from a queue's AllocTensor/DeQue "
             "or a TBuf's Get first.",
             api, role);
    uint64_t offset = ub_offset(c, t.GetPhyAddrPtr());
    if (offset % kBlockBytes != 0)
        fail(Diag::UbMisaligned, loc,
             "%s: %s starts at UB byte offset %llu, which is not 32-byte aligned. Vector instructions and "
             "DataCopy need 32-byte aligned UB addresses: offset LocalTensors by a multiple of %u elements.",
             api, role, (unsigned long long)offset, (unsigned)(kBlockBytes / sizeof(T)));
    if (elements > t.GetSize())
        fail(Diag::LocalOverrun, loc,
             "%s: %s needs %llu elements of %s but the LocalTensor has only %u (UB byte offset %llu). "
             "Pass a count that fits the buffer, or give the buffer more bytes in InitBuffer.",
             api, role, (unsigned long long)elements, dtype_name(dtype_of<T>), (unsigned)t.GetSize(),
             (unsigned long long)offset);
}

inline void check_repeat(uint64_t repeat_times, const char* api, Loc loc) {
    if (repeat_times > kMaxRepeat)
        fail(Diag::RepeatOverflow, loc,
             "%s: repeatTimes is %llu but one instruction can repeat at most 255 times. Split the work "
             "into several calls of at most 255 repeats, or use the count form.",
             api, (unsigned long long)repeat_times);
}

// ---- dtype support per SoC ------------------------------------------------------------------------

// `a2_dtypes` is the set supported on Atlas A2/A3 (dav-2201), `p310_dtypes` on 310P (dav-m200).
inline void check_dtype(DType dtype, uint32_t a2_dtypes, uint32_t p310_dtypes, const char* api, Loc loc) {
    const SimSocProfile& soc = core(loc).soc();
    uint32_t supported = soc.arch == 1 ? p310_dtypes : a2_dtypes;
    if ((supported & dtype_bit(dtype)) != 0) return;
    std::string names;
    for (int d = 0; d < static_cast<int>(DType::Count); ++d)
        if (supported & (1u << d)) names += std::string(names.empty() ? "" : ", ") + dtype_name(static_cast<DType>(d));
    const char* hint = dtype == DType::BF16 ? " bfloat16 has no vector arithmetic: Cast it to float, compute, and Cast back." : "";
    fail(Diag::UnsupportedDtype, loc, "%s does not support %s on %s (supported: %s).%s", api, dtype_name(dtype),
         soc.name, names.c_str(), hint);
}

// ---- counters and the time line -------------------------------------------------------------------

inline double ready_time(std::initializer_list<const BufferTiming*> sources) {
    double t = 0.0;
    for (const BufferTiming* s : sources)
        if (s != nullptr) t = std::max(t, s->write_end);
    return t;
}

// Books one instruction on `pipe`: it starts when the pipe is free, its sources are written and its
// destination's previous readers and writer are done.
inline void schedule(CoreState& c, int pipe, double cost_ns, std::initializer_list<BufferTiming*> sources,
                     BufferTiming* dest) {
    double start = c.pipe_free[pipe];
    for (const BufferTiming* s : sources)
        if (s != nullptr) start = std::max(start, s->write_end);
    if (dest != nullptr) start = std::max({start, dest->read_end, dest->write_end});
    double end = start + cost_ns;
    c.pipe_free[pipe] = end;
    c.report->pipe_busy_ns[pipe] += cost_ns;
    for (BufferTiming* s : sources)
        if (s != nullptr) s->read_end = std::max(s->read_end, end);
    if (dest != nullptr) dest->write_end = end;
}

inline void count_vector(CoreState& c, OpId op, uint64_t repeats, std::initializer_list<BufferTiming*> sources,
                         BufferTiming* dest) {
    int index = static_cast<int>(op);
    c.report->op_instrs[index] += 1;
    c.report->op_repeats[index] += repeats;
    schedule(c, kPipeV, CostModel::vector_ns(op, repeats, c.soc()), sources, dest);
}

// Repeats a count-form instruction takes: 256 bytes each.
template <typename T>
inline uint64_t repeats_for(uint64_t elements) {
    return (elements * sizeof(T) + kRepeatBytes - 1) / kRepeatBytes;
}

inline double core_time(const CoreState& c) {
    return *std::max_element(c.pipe_free, c.pipe_free + ASCENDC_SIM_PIPES);
}

inline void align_pipes(CoreState& c, double t) {
    for (double& p : c.pipe_free) p = std::max(p, t);
}

}  // namespace ascendc_sim
