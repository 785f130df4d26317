// The state of one simulated AI core (one block of a launch) and of the launch it belongs to,
// plus the checks every API call shares: GM bounds, UB operands, dtype support, counters.
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <vector>

#include "cost_model.h"
#include "diagnostics.h"
#include "kernel_type.h"
#include "launch_abi.h"
#include "op_table.h"
#include "types.h"

namespace ascendc_sim {

// Time stamps of one UB buffer (a queue slot or a TBuf), for the cost model's hazards, and the
// last accesses for the cross-pipe synchronisation check (note_read, note_write).
struct BufferTiming {
    double write_end = 0.0;
    double read_end = 0.0;
    int8_t writer = -1;  // pipe of the last write not yet known to be synchronised, -1: none
    int8_t reader = -1;  // pipe of the last read, for write-after-read
    uint64_t write_seq = 0;
    uint64_t read_seq = 0;
    Loc write_loc;
    Loc read_loc;
    void synced() { writer = reader = -1; }
};

struct GmWrite {
    uint64_t begin;
    uint64_t end;
    uint32_t epoch;
    Loc loc;
    bool scalar = false;  // GlobalTensor::SetValue: the whole 64-byte cache lines it dirties
    uint32_t phase = 0;   // the core's GM phase (launches with cube cores: GmClock)
};

// The order of GM accesses between the cores of a launch with cube cores (their race check, launch.cpp): each core
// counts its phases, a new one after each signal (CrossCoreSetFlag, arriving at SyncAll) and each wait, and knows per
// core of the launch (core_index) how many of that core's phases are complete before its own current one.
using GmClock = std::vector<uint32_t>;

// One CrossCoreSetFlag (cross_core.h): when it fires on its pipe, and the setter's GM clock.
struct CrossSet {
    double time;
    GmClock gm;
};

constexpr uint64_t kCacheLineBytes = 64;

constexpr int kEventKinds = 64;  // HardEvent values
constexpr int kEventIds = 8;

// What one pipe has been synchronised with: for each pipe, the sequence number up to which its
// work is known to be done. Handed from pipe to pipe by flags and queues, so it is transitive.
struct PipeClock {
    uint64_t seen[ASCENDC_SIM_PIPES] = {};
};

inline std::atomic<uint64_t> g_launch_serial{0};

struct LaunchState {
    uint64_t serial = ++g_launch_serial;  // tells launches apart (per-core state kept in thread_locals)
    const SimSocProfile* soc = nullptr;
    std::vector<SimRegion> regions;  // sorted by base
    uint32_t block_dim = 0;
    uint32_t resident_cores = 0;  // blocks that run at the same time
    KernelShape shape;  // the kernel type (kernel_type.h): vector cores per block
    bool auto_sync = false;  // SimLaunchRequest::auto_sync: the compiler synchronises the scalar pipe itself
    std::atomic<bool> abort{false};
    std::mutex atomic_mutex;  // serialises atomic-add copies to GM

    // The launch's cores: vector cores first (block * sub_blocks + sub_block), then one cube core per block in a type
    // with cube cores (vector_cores() + block). Per-core tables (core_done, cross_sets) use these indices.
    uint32_t vector_cores() const { return block_dim * shape.sub_blocks; }  // what SyncAll<true> waits for
    uint32_t cube_cores() const { return shape.with_cube ? block_dim : 0; }
    uint32_t total_cores() const { return vector_cores() + cube_cores(); }

    // SyncAll barriers over the resident blocks (pipe.h): [0] the vector cores (SyncAll<true>; in a launch of cube
    // cores only, the cube cores), [1] every core (SyncAll<false>).
    std::mutex barrier_mutex;
    std::condition_variable barrier_cv;
    struct Barrier {
        uint32_t waiting = 0;
        uint64_t generation = 0;
        double time = 0.0;
        double release_time = 0.0;
        GmClock clock;  // launches with cube cores: the arrivals' GM clocks, merged
        GmClock release_clock;
    } barriers[2];
    uint32_t barrier_finished = 0;  // vector cores that have ended
    uint32_t cube_finished = 0;     // cube cores that have ended
    // CrossCoreSetFlag/WaitFlag (cross_core.h), under barrier_mutex: per core, whether it has ended, and per mode,
    // flag and core the times of its sets.
    std::vector<uint8_t> core_done;
    std::vector<std::vector<CrossSet>> cross_sets;
    bool gm_order = false;  // a launch with cube cores: GM accesses are ordered by GmClocks (record_gm_access)
    // IBSet/IBWait (sim/ib_sync.h), under barrier_mutex: blocks waiting in IBWait, and when each flag was set.
    uint32_t ib_waiting = 0;
    std::vector<std::pair<uint64_t, double>> ib_set_time;  // (flag address, core time of the IBSet)
};

struct TPipeState;

// The memories a LocalTensor can live in (通用约束 page, atlasascendc_api_07_0004, table 1): the vector core's Unified
// Buffer, the cube core's L1, L0A, L0B, L0C, bias table (BT) and Fixpipe buffer (FB); GM for the positions that are
// Global Memory on Atlas A2/A3 (CO2, SPM). sim/local_memory.h maps TPositions onto them.
enum class Memory : uint8_t { UB, L1, L0A, L0B, L0C, BT, FB, GM };
constexpr int kLocalMemories = 7;  // UB .. FB: the ones carved on a core

// The cube memories of the running thread: L1, L0A, L0B, L0C, BT and FB one after another, grown to the largest
// SoC asked for and handed to each core that carves from them (poisoned once per core).
inline thread_local std::vector<uint8_t> t_cube_memory;

struct CoreState {
    LaunchState* launch = nullptr;
    SimCoreReport* report = nullptr;
    uint32_t block_idx = 0;
    uint32_t sub_block = 0;  // the vector core's index in its block (mixed launches, kernel_type.h)
    bool cube = false;  // a cube (AIC) core: ASCEND_IS_AIC, the L1/L0 buffers, no UB
    uint8_t* cube_memory = nullptr;  // L1 .. FB of this core (local_memory.h), taken at its first cube InitBuffer
    uint32_t local_used[kLocalMemories] = {};  // bytes given to buffers per Memory; UB keeps ub_used
    uint16_t cross_waits[3][16] = {};  // CrossCoreWaitFlag calls so far per mode (0, 1, 2) and flag id
    uint8_t* ub = nullptr;
    uint8_t* ub_shadow = nullptr;  // checked launches: where the kernel sees this UB (LocalTensor::GetPhyAddr)
    uint32_t ub_used = 0;
    uint32_t queue_held[32] = {};  // per TPosition: queue tensors allocated and not freed (the event-ID limit)
    uint32_t buffers = 0;             // queue buffers and TBufs, at most 64 per kernel
    double pipe_free[ASCENDC_SIM_PIPES] = {};
    double pipe_done[ASCENDC_SIM_PIPES] = {};  // when the results of everything issued on the pipe are in place
    double flag_time[kEventKinds][kEventIds] = {};
    uint8_t flag_pending[kEventKinds][kEventIds] = {};
    Loc flag_loc[kEventKinds][kEventIds] = {};
    PipeClock flag_clock[kEventKinds][kEventIds] = {};
    // Cross-pipe ordering: every UB access gets a sequence number; clock[to].seen[from] is the last
    // number of `from`'s work that `to` has been synchronised with (SetFlag/WaitFlag, queues, barriers).
    uint64_t seq = 0;
    PipeClock clock[ASCENDC_SIM_PIPES] = {};
    Loc loc;  // the kernel line of the API call being run
    std::vector<GmWrite> gm_writes;
    uint32_t epoch = 0;
    // Launches with cube cores (LaunchState::gm_order): every GM access, the core's phase and what it has seen of the
    // others per phase (from the phase in `first` on).
    std::vector<GmWrite> gm_accesses;
    uint32_t gm_phase = 0;
    GmClock gm_seen;
    struct GmSeen {
        uint32_t first;
        GmClock seen;
    };
    std::vector<GmSeen> gm_history;
    int atomic_mode = 0;  // 0 none, 1 add, 2 max, 3 min
    DType atomic_dtype = DType::F32;
    bool has_deferred = false;
    SimError deferred;
    void* current_pipe = nullptr;
    // Static tensor programming (static_tensor.h): whether InitSocState ran, and one timing per static tensor address.
    bool soc_state_initialized = false;
    std::map<uint32_t, BufferTiming> static_timings;

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

// Whether the running core is a cube (AIC) core; false outside a launch.
inline bool on_cube_core() { return t_core != nullptr && t_core->cube; }

// The core's index in the launch's per-core tables (LaunchState::total_cores).
inline uint32_t core_index(const CoreState& c) {
    const LaunchState& l = *c.launch;
    return c.cube ? l.vector_cores() + c.block_idx : c.block_idx * l.shape.sub_blocks + c.sub_block;
}

inline CoreState& core(Loc loc = Loc::here()) {
    if (t_core == nullptr)
        fail(Diag::NotInKernel, loc, "AscendC API called outside a kernel launch (no current core). Call AscendC APIs only from "
             "the kernel entry and the functions it calls, not from host code or a static initialiser.");
    if (t_core->launch->abort.load(std::memory_order_relaxed)) throw KernelAborted{};
    t_core->loc = loc;
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

// Where the simulator reads and writes the bytes at a kernel's GM address inside `region`: in a
// checked launch the kernel's addresses are inaccessible and the data lives at the region's alias.
inline uint8_t* gm_data(uint64_t base, uint64_t alias, uint64_t address) {
    return reinterpret_cast<uint8_t*>(alias != 0 ? alias + (address - base) : address);
}

// The kernel argument a GlobalTensor was set on (SetGlobalBuffer), so that an access through it
// is checked against that one tensor even when another tensor lies right behind it in memory.
struct GmHome {
    uint64_t base = 0;
    uint64_t bytes = 0;
    int32_t arg_index = -1;  // -1: not set on a launcher tensor
    uint64_t alias = 0;
};

inline GmHome gm_home(const void* address) {
    if (t_core == nullptr) return {};
    const SimRegion* region = find_region(*t_core->launch, reinterpret_cast<uint64_t>(address));
    return region ? GmHome{region->base, region->bytes, region->arg_index, region->alias} : GmHome{};
}

[[noreturn]] inline void fail_past_end(const char* api, uint64_t begin, uint64_t bytes, uint64_t base, uint64_t size,
                                       int32_t arg, Loc loc) {
    uint64_t end = begin + bytes;
    if (begin >= base + size)
        fail(Diag::GmOutOfBounds, loc,
             "%s accesses %llu bytes of GM starting %llu bytes past the end of kernel argument %d (a %llu-byte "
             "tensor; bytes [%llu, %llu) from its start). Check the per-block offset and the loop bound: no tile "
             "may start at or after the tensor's end.",
             api, (unsigned long long)bytes, (unsigned long long)(begin - base - size), arg,
             (unsigned long long)size, (unsigned long long)(begin - base), (unsigned long long)(end - base));
    fail(Diag::GmOutOfBounds, loc,
         "%s accesses GM bytes [%llu, %llu) of kernel argument %d, which has only %llu bytes: %llu bytes past its "
         "end. Clamp the last tile to the remaining length (and move a tail that is not a multiple of 32 bytes "
         "with DataCopyPad).",
         api, (unsigned long long)(begin - base), (unsigned long long)(end - base), arg, (unsigned long long)size,
         (unsigned long long)(end - base - size));
}

// ---- GM order between cores (launches with cube cores) ---------------------------------------------------------

// A GM access (read or write: a write is recorded here too), for the race check of launches with cube cores.
inline void record_gm_access(CoreState& c, uint64_t begin, uint64_t bytes, Loc loc) {
    uint64_t end = begin + bytes;
    if (!c.gm_accesses.empty()) {
        GmWrite& last = c.gm_accesses.back();
        if (last.phase == c.gm_phase && begin >= last.begin && begin <= last.end) {
            last.end = std::max(last.end, end);
            return;
        }
    }
    c.gm_accesses.push_back(GmWrite{begin, end, c.epoch, loc, false, c.gm_phase});
}

// What a core hands on when it signals (CrossCoreSetFlag, SyncAll): its phases so far and what it has seen; its
// accesses after the signal are in a new phase. Empty in launches of vector cores only.
inline GmClock gm_signal(CoreState& c) {
    if (!c.launch->gm_order) return {};
    GmClock k = c.gm_seen;
    k[core_index(c)] = ++c.gm_phase;
    return k;
}

// A core waits for a signal: what the signaller had done is complete before the waiter's next phase.
inline void gm_wait(CoreState& c, const GmClock& k) {
    if (k.empty()) return;
    for (size_t i = 0; i < k.size(); ++i) c.gm_seen[i] = std::max(c.gm_seen[i], k[i]);
    c.gm_history.push_back(CoreState::GmSeen{++c.gm_phase, c.gm_seen});
}

inline void merge_clock(GmClock& into, const GmClock& k) {
    if (into.size() < k.size()) into.resize(k.size(), 0);
    for (size_t i = 0; i < k.size(); ++i) into[i] = std::max(into[i], k[i]);
}

// Constant data the kernel defines itself (`const static __gm__ half table[] = {...}` in the kernel source, as public
// cube kernels keep their triangular matrices): it lies in the kernel's own loaded image (which holds the simulator
// too), from its ELF header to the end of its data, as the linker marks them. Its bounds are not known, only that
// the access stays inside that image; so it is only read (check_gm_read), never written: a write there would reach
// the simulator's own state.
extern "C" const char __ehdr_start[] __attribute__((visibility("hidden")));
extern "C" const char _end[] __attribute__((visibility("hidden")));

inline bool in_kernel_image(uint64_t begin, uint64_t bytes) {
    uint64_t first = reinterpret_cast<uint64_t>(__ehdr_start), last = reinterpret_cast<uint64_t>(_end);
    return begin >= first && begin + bytes <= last;
}

// Every GM access must lie inside one tensor the launcher passed: the one its GlobalTensor was set
// on when `home` is known, else the one it starts in. Running past the end of one tensor into its
// neighbour is caught even if both are views of one allocation. Returns where the simulator finds
// the bytes (gm_data): every API access to GM goes through here, and only through here.
inline uint8_t* check_gm(const void* address, uint64_t bytes, const char* api, Loc loc, const GmHome& home = {},
                         bool read_only = false) {
    uint64_t begin = reinterpret_cast<uint64_t>(address);
    if (bytes == 0) return reinterpret_cast<uint8_t*>(begin);
    CoreState& c = core(loc);
    if (c.launch->gm_order) record_gm_access(c, begin, bytes, loc);
    if (home.arg_index >= 0) {
        if (begin >= home.base && begin + bytes <= home.base + home.bytes) return gm_data(home.base, home.alias, begin);
        if (begin >= home.base) fail_past_end(api, begin, bytes, home.base, home.bytes, home.arg_index, loc);
    }
    const SimRegion* region = find_region(*c.launch, begin);
    if (region == nullptr && read_only && in_kernel_image(begin, bytes)) return reinterpret_cast<uint8_t*>(begin);
    if (region == nullptr) {
        const SimRegion* below = nullptr;
        for (const SimRegion& r : c.launch->regions)
            if (r.base <= begin) below = &r;
        if (below != nullptr && below->bytes > 0)
            fail_past_end(api, begin, bytes, below->base, below->bytes, below->arg_index, loc);
        fail(Diag::GmOutOfBounds, loc,
             "%s accesses GM address 0x%llx (%llu bytes), which is not inside any tensor passed to the kernel. "
             "Check the GM_ADDR argument used and the offset added to it (a null or never-set GlobalTensor?).",
             api, (unsigned long long)begin, (unsigned long long)bytes);
    }
    if (begin + bytes > region->base + region->bytes)
        fail_past_end(api, begin, bytes, region->base, region->bytes, region->arg_index, loc);
    return gm_data(region->base, region->alias, begin);
}

// A GM read: as check_gm, and constant data in the kernel's own image may be read too (in_kernel_image).
inline const uint8_t* check_gm_read(const void* address, uint64_t bytes, const char* api, Loc loc,
                                    const GmHome& home = {}) {
    return check_gm(address, bytes, api, loc, home, true);
}

// A GM write, for the write-race check at the end of the launch. Copies under SetAtomicAdd/Max/Min
// are not races. A scalar SetValue goes through the core's data cache, which writes whole 64-byte
// lines back, so cores must keep their scalar writes a cache line apart (SetValue-3.md).
inline void record_gm_write(CoreState& c, const void* address, uint64_t bytes, Loc loc, bool scalar = false) {
    if (bytes == 0 || (c.atomic_mode != 0 && !scalar)) return;
    uint64_t begin = reinterpret_cast<uint64_t>(address);
    uint64_t end = begin + bytes;
    if (scalar) {
        begin &= ~(kCacheLineBytes - 1);
        end = (end + kCacheLineBytes - 1) & ~(kCacheLineBytes - 1);
    }
    if (!c.gm_writes.empty()) {
        GmWrite& last = c.gm_writes.back();
        if (last.epoch == c.epoch && last.phase == c.gm_phase && last.scalar == scalar && begin >= last.begin &&
            begin <= last.end) {
            last.end = std::max(last.end, end);
            return;
        }
    }
    c.gm_writes.push_back(GmWrite{begin, end, c.epoch, loc, scalar, c.gm_phase});
}

// ---- UB operands -------------------------------------------------------------------------------

inline uint64_t ub_offset(const CoreState& c, const void* p) {
    return static_cast<uint64_t>(static_cast<const uint8_t*>(p) - c.ub);
}

// The UB address a kernel is given (LocalTensor::GetPhyAddr). In a checked launch it lies in an
// inaccessible shadow of the core's UB: scalar work through a raw UB pointer would be invisible to
// the cost model, so it faults instead (LocalTensor GetValue/SetValue are charged).
inline uint64_t ub_visible(const void* p) {
    const CoreState* c = t_core;
    auto address = reinterpret_cast<uint64_t>(p);
    if (c == nullptr || c->ub_shadow == nullptr || p == nullptr) return address;
    uint64_t offset = address - reinterpret_cast<uint64_t>(c->ub);
    if (offset > c->soc().ub_bytes) return address;  // not in UB: a cube memory (local_memory.h)
    return reinterpret_cast<uint64_t>(c->ub_shadow) + offset;
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
    if (c.cube)
        fail(Diag::WrongCore, loc,
             "%s: %s is a UB operand, and this is a cube core (AIC), which has no Unified Buffer on Atlas A2/A3. "
             "Guard vector code with `if ASCEND_IS_AIV { ... }` (预定义宏 page, atlas_ascendc_10_10053).",
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
    const char* hint = dtype == DType::BF16
                           ? (soc.arch == 1 ? " This SoC has no bfloat16 at all: use half or float tensors."
                                            : " bfloat16 has no vector arithmetic here: Cast it to float, compute, "
                                              "and Cast back.")
                           : " Cast the data to a supported type first, or use another instruction.";
    fail(Diag::UnsupportedDtype, loc, "%s does not support %s on %s (supported: %s).%s", api, dtype_name(dtype),
         soc.name, names.empty() ? "none" : names.c_str(), hint);
}

// ---- counters and the time line -------------------------------------------------------------------

inline double ready_time(std::initializer_list<const BufferTiming*> sources) {
    double t = 0.0;
    for (const BufferTiming* s : sources)
        if (s != nullptr) t = std::max(t, s->write_end);
    return t;
}

// ---- cross-pipe synchronisation ---------------------------------------------------------------------

inline const char* pipe_name(int pipe) {
    static const char* const names[ASCENDC_SIM_PIPES] = {"MTE2", "V", "MTE3", "S", "MTE1", "M", "FIX"};
    return names[pipe];
}

// The pipes of one core run in parallel; an instruction may use a UB buffer that another pipe wrote
// (or is reading) only after a synchronisation from that pipe: a queue's EnQue/DeQue, a
// SetFlag/WaitFlag pair or PipeBarrier<PIPE_ALL> (SetFlag-WaitFlag(ISASI).md).
[[noreturn]] inline void fail_pipe_race(CoreState& c, int pipe, int other, bool write_after_read, const Loc& other_loc) {
    fail(Diag::PipeRace, c.loc,
         "this call %s a UB buffer on the %s pipe that the %s pipe %s at line %d, with no synchronisation from %s "
         "to %s in between; on the NPU the pipes run in parallel, so it %s. Pass the tensor through a TQue "
         "(EnQue, then DeQue before use), or put SetFlag<HardEvent::%s_%s>(id) after line %d and "
         "WaitFlag<HardEvent::%s_%s>(id) before this call.",
         write_after_read ? "writes" : "reads", pipe_name(pipe), pipe_name(other),
         write_after_read ? "read" : "wrote", other_loc.line, pipe_name(other), pipe_name(pipe),
         write_after_read ? "may overwrite data before it has been read" : "may read stale data",
         pipe_name(other), pipe_name(pipe), other_loc.line, pipe_name(other), pipe_name(pipe));
}

// With auto_sync (--cce-auto-sync) the compiler inserts the waits between the scalar pipe and the others itself
// (支持自动同步.md: MTE2-Scalar, MTE3-Scalar, Vector-Scalar, Vector-Vector), so no hand-over involving S races.
inline bool synchronised_by_compiler(const CoreState& c, int a, int b) {
    return c.launch->auto_sync && (a == kPipeS || b == kPipeS);
}

inline void note_read(CoreState& c, BufferTiming* b, int pipe) {
    if (b == nullptr) return;
    if (b->writer >= 0 && b->writer != pipe && c.clock[pipe].seen[b->writer] < b->write_seq &&
        !synchronised_by_compiler(c, pipe, b->writer))
        fail_pipe_race(c, pipe, b->writer, false, b->write_loc);
    b->reader = int8_t(pipe);
    b->read_seq = ++c.seq;
    b->read_loc = c.loc;
}

inline void note_write(CoreState& c, BufferTiming* b, int pipe) {
    if (b == nullptr) return;
    if (b->writer >= 0 && b->writer != pipe && c.clock[pipe].seen[b->writer] < b->write_seq &&
        !synchronised_by_compiler(c, pipe, b->writer))
        fail_pipe_race(c, pipe, b->writer, false, b->write_loc);
    // A scalar read is done when the next instruction issues, so only MTE/V reads can be overtaken.
    if (b->reader >= 0 && b->reader != pipe && b->reader != kPipeS && c.clock[pipe].seen[b->reader] < b->read_seq &&
        !synchronised_by_compiler(c, pipe, b->reader))
        fail_pipe_race(c, pipe, b->reader, true, b->read_loc);
    b->writer = int8_t(pipe);
    b->write_seq = ++c.seq;
    b->write_loc = c.loc;
}

// What `from` hands on when it signals now (SetFlag, EnQue): all its own work so far, and what it
// has itself waited for.
inline PipeClock signal_clock(const CoreState& c, int from) {
    PipeClock k = c.clock[from];
    k.seen[from] = c.seq;
    return k;
}

// `to` waits for a signal (WaitFlag, DeQue).
inline void wait_clock(CoreState& c, int to, const PipeClock& k) {
    for (int p = 0; p < ASCENDC_SIM_PIPES; ++p) c.clock[to].seen[p] = std::max(c.clock[to].seen[p], k.seen[p]);
}

inline void sync_all_pipes(CoreState& c) {
    for (PipeClock& k : c.clock)
        for (uint64_t& s : k.seen) s = c.seq;
}

// Books one instruction on `pipe`: it starts when the pipe is free, its sources are written and its
// destination's previous readers and writer are done.
inline void schedule(CoreState& c, int pipe, double cost_ns, std::initializer_list<BufferTiming*> sources,
                     BufferTiming* dest, double latency_ns = 0.0) {
    for (BufferTiming* s : sources)
        if (s != dest) note_read(c, s, pipe);
    note_write(c, dest, pipe);
    double start = c.pipe_free[pipe];
    for (const BufferTiming* s : sources)
        if (s != nullptr) start = std::max(start, s->write_end);
    if (dest != nullptr) start = std::max({start, dest->read_end, dest->write_end});
    double end = start + cost_ns;
    c.pipe_free[pipe] = end;
    c.pipe_done[pipe] = std::max(c.pipe_done[pipe], end + latency_ns);
    c.report->pipe_busy_ns[pipe] += cost_ns;
    for (BufferTiming* s : sources)
        if (s != nullptr) s->read_end = std::max(s->read_end, end);
    if (dest != nullptr) dest->write_end = end + latency_ns;
}

// One scalar UB load or store on the S pipe (LocalTensor GetValue/SetValue/operator()): it waits for
// the buffer's data, and the scalar pipe does one at a time (cost_model.h).
inline void charge_scalar_ub(CoreState& c, const BufferTiming* b) {
    double start = std::max(c.pipe_free[kPipeS], b != nullptr ? b->write_end : 0.0);
    double cost = CostModel::scalar_ub_ns(c.soc());
    c.pipe_free[kPipeS] = start + cost;
    c.report->pipe_busy_ns[kPipeS] += cost;
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
    return std::max(*std::max_element(c.pipe_free, c.pipe_free + ASCENDC_SIM_PIPES),
                    *std::max_element(c.pipe_done, c.pipe_done + ASCENDC_SIM_PIPES));
}

inline void align_pipes(CoreState& c, double t) {
    for (double& p : c.pipe_free) p = std::max(p, t);
    for (double& p : c.pipe_done) p = std::max(p, t);
}

}  // namespace ascendc_sim
