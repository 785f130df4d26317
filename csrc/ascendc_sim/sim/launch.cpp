// The kernel-independent part of a launch: worker threads, the per-block run, the checks that
// need the whole launch, and the time estimate. Compiled once per machine and toolchain into the
// build cache (torch_ascendgen/build.py) and linked into every kernel library, so that a kernel
// build compiles only the kernel.
#include "launch.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <new>
#include <numeric>
#include <queue>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// The library's KERNEL_TASK_TYPE(_DEFAULT) records (kernel_type.h), bounded by the linker; both null when the
// kernel declares none. Hidden, so that they never resolve to another library's records.
extern "C" {
extern const ascendc_sim::KernelTypeRecord __start_ascendc_sim_ktype[] __attribute__((weak, visibility("hidden")));
extern const ascendc_sim::KernelTypeRecord __stop_ascendc_sim_ktype[] __attribute__((weak, visibility("hidden")));
// The unit markers (ASCENDC_SIM_CUBE_API, ASCENDC_SIM_VECTOR_API in kernel_type.h): one byte per call site.
extern const uint8_t __start_ascendc_sim_cube[] __attribute__((weak, visibility("hidden")));
extern const uint8_t __stop_ascendc_sim_cube[] __attribute__((weak, visibility("hidden")));
extern const uint8_t __start_ascendc_sim_vec[] __attribute__((weak, visibility("hidden")));
extern const uint8_t __stop_ascendc_sim_vec[] __attribute__((weak, visibility("hidden")));
}

namespace ascendc_sim {
namespace {

bool kernel_type_error(SimError& error, const KernelTypeRecord& r, const char* text) {
    char message[768];
    std::snprintf(message, sizeof message, "%s %s", kernel_type_name(r.type), text);
    error = SimError{Diag::UnsupportedApi, message, Loc{r.file, r.line}};
    return false;
}

// The record that applies to a launch with tiling key `key` (-1: none): KERNEL_TASK_TYPE of the key, else
// KERNEL_TASK_TYPE_DEFAULT (设置Kernel类型.md). Null when the kernel declares no type (it runs as AIV_ONLY).
bool find_kernel_type(int64_t key, const KernelTypeRecord*& chosen, SimError& error) {
    const KernelTypeRecord *keyed = nullptr, *fallback = nullptr, *other_key = nullptr;
    for (const KernelTypeRecord* r = __start_ascendc_sim_ktype; r != nullptr && r < __stop_ascendc_sim_ktype; ++r) {
        const KernelTypeRecord*& slot = r->key < 0 ? fallback : r->key == key ? keyed : other_key;
        if (slot != nullptr && slot->type != r->type && r->key == slot->key) {
            char text[512];
            std::snprintf(text, sizeof text,
                          "here and %s at line %d: one library declares two kernel types for the same tiling key "
                          "(several kernel entries with different KERNEL_TASK_TYPE_DEFAULT in one file?). The simulator "
                          "keeps one kernel type per file: put kernels of different types in different files.",
                          kernel_type_name(slot->type), slot->line);
            return kernel_type_error(error, *r, text);
        }
        slot = r;
    }
    chosen = keyed != nullptr ? keyed : fallback;
    if (chosen == nullptr && other_key != nullptr) {
        char text[512];
        std::snprintf(text, sizeof text,
                      "is declared with KERNEL_TASK_TYPE for tiling key %lld, but this launch's key is %lld and the "
                      "kernel has no KERNEL_TASK_TYPE_DEFAULT: every key needs a kernel type (设置Kernel类型.md: "
                      "without a default the kernel does not compile). Add KERNEL_TASK_TYPE_DEFAULT(...).",
                      (long long)other_key->key, (long long)key);
        return kernel_type_error(error, *other_key, text);
    }
    return true;
}

bool library_uses(const uint8_t* start, const uint8_t* stop) { return start != nullptr && stop > start; }

// A kernel that declares no type, on Atlas A2/A3: cube APIs and no vector buffers run on cube cores only (AIC_ONLY),
// cube APIs and vector buffers on an AIC and two AIVs per block (MIX_AIC_1_2). Assumption: bisheng decides the type
// of an undeclared kernel-launch kernel from the code it compiles; 1:2 is the ratio of the A2/A3 AI Core.
void infer_kernel_shape(const SimSocProfile& soc, KernelShape& shape) {
    if (soc.arch != 0 || !library_uses(__start_ascendc_sim_cube, __stop_ascendc_sim_cube)) return;
    const bool vector = library_uses(__start_ascendc_sim_vec, __stop_ascendc_sim_vec);
    shape.type = vector ? KERNEL_TYPE_MIX_AIC_1_2 : KERNEL_TYPE_AIC_ONLY;
    shape.with_cube = true;
    shape.sub_blocks = vector ? 2 : 0;
    shape.inferred = true;
}

// What the launch's cores are, from its kernel type and SoC (kernel_type.h).
bool resolve_kernel_shape(int64_t key, const SimSocProfile& soc, KernelShape& shape, SimError& error) {
    const KernelTypeRecord* r = nullptr;
    if (!find_kernel_type(key, r, error)) return false;
    if (r == nullptr) {
        infer_kernel_shape(soc, shape);
        return true;
    }
    shape.type = r->type;
    shape.declared = Loc{r->file, r->line};
    const bool a2 = soc.arch == 0;
    switch (r->type) {
        case KERNEL_TYPE_AIV_ONLY:
        case KERNEL_TYPE_MIX_AIV_1_0:
            return true;
        case KERNEL_TYPE_MIX_AIC_1_1:
        case KERNEL_TYPE_MIX_AIC_1_2:
            if (!a2)
                return kernel_type_error(error, *r, "is for Atlas A2/A3 (separate cube and vector cores); this SoC "
                                                    "does not support it (设置Kernel类型.md).");
            shape.with_cube = true;
            shape.sub_blocks = r->type == KERNEL_TYPE_MIX_AIC_1_2 ? 2 : 1;
            return true;
        case KERNEL_TYPE_AIC_ONLY:
        case KERNEL_TYPE_MIX_AIC_1_0:
            if (!a2)
                return kernel_type_error(error, *r, "is for Atlas A2/A3 (separate cube and vector cores); this SoC "
                                                    "does not support it (设置Kernel类型.md).");
            shape.with_cube = true;
            shape.sub_blocks = 0;
            return true;
        case KERNEL_TYPE_AICORE:
        case KERNEL_TYPE_MIX_VECTOR_CORE:
            if (!a2) return true;  // the coupled 310P: one AI Core per block
            return kernel_type_error(error, *r, "is not supported on Atlas A2/A3 (设置Kernel类型.md).");
        default:
            return kernel_type_error(error, *r, "is reserved or unknown (设置Kernel类型.md): declare "
                                                "KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_AIC_ONLY, "
                                                "KERNEL_TYPE_MIX_AIC_1_0, KERNEL_TYPE_MIX_AIC_1_1 or KERNEL_TYPE_MIX_AIC_1_2.");
    }
}

constexpr uint8_t kUbPoison = 0xFF;  // uninitialised UB reads as NaN / -1, never as zeros

// One worker's UB: allocated once, grown to the largest SoC asked for.
class UbMemory {
public:
    UbMemory() = default;
    UbMemory(const UbMemory&) = delete;
    UbMemory& operator=(const UbMemory&) = delete;
    ~UbMemory() { std::free(data_); }

    uint8_t* get(uint32_t bytes) {
        if (bytes > capacity_) {
            uint32_t capacity = (bytes + 4095u) / 4096u * 4096u;
            auto* data = static_cast<uint8_t*>(std::aligned_alloc(4096, capacity));
            if (data == nullptr) throw std::bad_alloc();
            std::free(data_);
            data_ = data;
            capacity_ = capacity;
        }
        return data_;
    }

private:
    uint8_t* data_ = nullptr;
    uint32_t capacity_ = 0;
};

// Threads that run the blocks of a launch. They outlive the launch (starting threads per launch
// cost more than small kernels take) and end after a second without work, so that the many kernel
// libraries of a long session do not each hold a set of idle threads.
class WorkerPool {
public:
    using Job = std::function<void(uint8_t* ub)>;

    // Runs `job` on `participants` threads at the same time, the calling thread being one of them,
    // each with its own UB of `ub_bytes`; returns when all have returned. Jobs of one library run
    // one launch at a time. Throws (before any job has started) when threads or memory run out.
    void run(uint32_t participants, uint32_t ub_bytes, const Job& job) {
        std::lock_guard<std::mutex> one_launch(launch_mutex_);
        uint8_t* own_ub = caller_ub_.get(ub_bytes);
        std::unique_lock<std::mutex> lock(mutex_);
        if (pid_ != getpid()) {  // a forked child inherits the state but not the threads
            pid_ = getpid();
            helpers_ = 0;
        }
        uint32_t wanted = participants - 1;
        while (helpers_ < wanted) {
            std::thread([this, seen = generation_] { helper_loop(seen); }).detach();
            ++helpers_;
        }
        job_ = &job;
        ub_bytes_ = ub_bytes;
        wanted_ = wanted;
        claimed_ = finished_ = 0;
        ++generation_;
        for (uint32_t i = 0; i < wanted; ++i) wake_.notify_one();
        lock.unlock();
        job(own_ub);
        lock.lock();
        done_.wait(lock, [&] { return finished_ == wanted_; });
        job_ = nullptr;
    }

private:
    void helper_loop(uint64_t seen) {
        UbMemory ub;
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            if (generation_ != seen) {
                seen = generation_;
                if (claimed_ < wanted_) {
                    ++claimed_;
                    const Job* job = job_;
                    uint32_t bytes = ub_bytes_;
                    lock.unlock();
                    try {
                        (*job)(ub.get(bytes));
                    } catch (...) {  // no UB memory: the other participants take the blocks
                    }
                    lock.lock();
                    if (++finished_ == wanted_) done_.notify_one();
                    continue;
                }
            }
            if (wake_.wait_for(lock, std::chrono::seconds(1)) == std::cv_status::timeout && generation_ == seen) {
                --helpers_;
                return;
            }
        }
    }

    std::mutex launch_mutex_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    pid_t pid_ = getpid();
    uint64_t generation_ = 0;
    uint32_t helpers_ = 0;
    uint32_t wanted_ = 0;
    uint32_t claimed_ = 0;
    uint32_t finished_ = 0;
    uint32_t ub_bytes_ = 0;
    const Job* job_ = nullptr;
    UbMemory caller_ub_;
};

// Never destroyed: detached helpers may still be waiting on it while the process exits.
WorkerPool& pool() {
    static WorkerPool* instance = new WorkerPool;
    return *instance;
}

// What one core (a block, or one vector or cube core of a block in a mixed launch) left behind.
struct BlockOutcome {
    bool failed = false;
    SimError error;
    std::vector<GmWrite> writes;
    std::vector<GmWrite> accesses;  // launches with cube cores (gm_order)
    std::vector<CoreState::GmSeen> seen;
};

void copy_text(char* dst, size_t size, const std::string& text) { std::snprintf(dst, size, "%s", text.c_str()); }

void finish_checks(CoreState& c) {
    if (c.has_deferred) throw c.deferred;
    for (int kind = 0; kind < kEventKinds; ++kind)
        for (int id = 0; id < kEventIds; ++id)
            if (c.flag_pending[kind][id])
                fail(Diag::UnpairedFlag, c.flag_loc[kind][id],
                     "SetFlag on event id %d is never waited on before the kernel ends; every SetFlag needs a "
                     "WaitFlag with the same HardEvent and id",
                     id);
}

// Fills a block's UB with the poison byte. Non-temporal stores keep 192 KB of poison from
// evicting the launching thread's working set (the Python that called the kernel) from the caches.
void poison_ub(uint8_t* ub, uint32_t bytes) {
#if defined(__SSE2__)
    if (reinterpret_cast<uintptr_t>(ub) % 16 == 0 && bytes % 16 == 0) {
        const __m128i value = _mm_set1_epi8(static_cast<char>(kUbPoison));
        for (uint32_t at = 0; at < bytes; at += 16) _mm_stream_si128(reinterpret_cast<__m128i*>(ub + at), value);
        _mm_sfence();
        return;
    }
#endif
    std::memset(ub, kUbPoison, bytes);
}

// A block's report from those of its vector cores: counters add up, and the block ends when its last core does
// (its cores run in parallel).
void merge_report(SimCoreReport& block, const SimCoreReport& core) {
    block.gm_to_ub_bytes += core.gm_to_ub_bytes;
    block.ub_to_gm_bytes += core.ub_to_gm_bytes;
    block.ub_to_ub_bytes += core.ub_to_ub_bytes;
    block.gm_scalar_reads += core.gm_scalar_reads;
    block.gm_scalar_writes += core.gm_scalar_writes;
    block.data_copies += core.data_copies;
    for (int i = 0; i < ASCENDC_SIM_MAX_OPS; ++i) {
        block.op_instrs[i] += core.op_instrs[i];
        block.op_repeats[i] += core.op_repeats[i];
    }
    for (int p = 0; p < ASCENDC_SIM_PIPES; ++p) block.pipe_busy_ns[p] += core.pipe_busy_ns[p];
    block.est_ns = std::max(block.est_ns, core.est_ns);
}

// The simulator keeps one record per GM write (a run of contiguous bytes) for the write-race check; a kernel that
// writes large outputs one element at a time, at strided addresses, makes one record per element.
std::string out_of_memory_text(const char* when, size_t writes) {
    return std::string("the simulator ran out of memory ") + when + ": it records every GM write for the race check (" +
           std::to_string(writes) + " records so far), and this kernel writes global memory in pieces that do not "
           "join into contiguous runs (e.g. one element at a time, at strided addresses). Write whole rows or "
           "tiles with one DataCopy/DataCopyPad each; on the NPU such writes are also one DMA per element.";
}

// One core of a launch: vector core `sub_block` of `block`, or the block's cube core.
struct CoreSlot {
    uint32_t block;
    uint32_t sub_block;
    bool cube;
};

// Runs one core on the calling thread. Diagnostics are caught here; the other cores are told to stop.
void run_block(LaunchState& launch, CoreSlot slot, uint8_t* ub, uint8_t* ub_shadow, SimCoreReport* report,
               BlockOutcome& outcome, BlockBody body, void** arg_values) {
    CoreState c;
    c.launch = &launch;
    c.report = report;
    c.block_idx = slot.block;
    c.sub_block = slot.sub_block;
    c.cube = slot.cube;
    if (!slot.cube) {  // the AIC of Atlas A2/A3 has no UB (local_memory.h)
        c.ub = ub;
        c.ub_shadow = ub_shadow;
        poison_ub(ub, launch.soc->ub_bytes);
    }
    if (launch.gm_order) {
        c.gm_seen.assign(launch.total_cores(), 0);
        c.gm_history.push_back(CoreState::GmSeen{0, c.gm_seen});
    }
    t_core = &c;
    try {
        body(arg_values);
        finish_checks(c);
    } catch (const SimError& e) {
        outcome.failed = true;
        outcome.error = e;
        launch.abort.store(true);
    } catch (const KernelAborted&) {
    } catch (const std::bad_alloc&) {  // the simulator's own bookkeeping, not the kernel's memory
        outcome.failed = true;
        outcome.error = SimError{Diag::BadArgument, out_of_memory_text("while this core ran", c.gm_writes.size()),
                                 Loc{}};
        launch.abort.store(true);
    } catch (const std::exception& e) {
        outcome.failed = true;
        outcome.error = SimError{Diag::BadArgument, std::string("C++ exception in the kernel: ") + e.what(), Loc{}};
        launch.abort.store(true);
    } catch (...) {
        outcome.failed = true;
        outcome.error = SimError{Diag::BadArgument, "the kernel threw a C++ exception that is not a std::exception", Loc{}};
        launch.abort.store(true);
    }
    t_core = nullptr;
    report->est_ns = core_time(c);
    outcome.writes = std::move(c.gm_writes);
    outcome.accesses = std::move(c.gm_accesses);
    outcome.seen = std::move(c.gm_history);
    std::lock_guard<std::mutex> lock(launch.barrier_mutex);
    launch.core_done[core_index(c)] = 1;
    ++(slot.cube ? launch.cube_finished : launch.barrier_finished);
    launch.barrier_cv.notify_all();
}

// "block 3", or in a mixed launch "block 3 sub-block 1" (GetBlockIdx 7) and "block 3 cube core (AIC)".
std::string core_name(uint32_t core, const LaunchState& launch) {
    const uint32_t sub_blocks = launch.shape.sub_blocks;
    if (core >= launch.vector_cores())
        return "block " + std::to_string(core - launch.vector_cores()) + " cube core (AIC)";
    if (sub_blocks == 1 && !launch.shape.with_cube) return "block " + std::to_string(core);
    return "block " + std::to_string(core / sub_blocks) + " sub-block " + std::to_string(core % sub_blocks) +
           " (GetBlockIdx " + std::to_string(core) + ")";
}

// The block a core belongs to (LaunchState core indices).
int32_t block_of(uint32_t core, const LaunchState& launch) {
    if (core >= launch.vector_cores()) return int32_t(core - launch.vector_cores());
    return int32_t(core / std::max<uint32_t>(1, launch.shape.sub_blocks));
}

// Two cores writing the same GM bytes between the same SyncAlls, without atomics, is a race, whatever values
// they write: CANN's own race check (msSanitizer racecheck, 竞争检测 page atlasopdev_16_0043) reports every
// write-after-write to the same GM bytes from two cores, and asc-devkit issue #1723 confirms two AIV cores of one
// block writing identical data to the same GM as an operator design fault. The two vector cores of a block in a
// mixed launch are two cores (kernel_type.h). Outcomes are indexed by core: block * sub-blocks + sub-block.
bool find_write_race(const std::vector<BlockOutcome>& outcomes, const LaunchState& launch, SimError& error,
                     int32_t& block) {
    struct Tagged {
        GmWrite w;
        uint32_t block;  // the core
    };
    std::vector<Tagged> all;
    for (uint32_t b = 0; b < outcomes.size(); ++b)
        for (const GmWrite& w : outcomes[b].writes) all.push_back({w, b});
    std::sort(all.begin(), all.end(), [](const Tagged& a, const Tagged& b) {
        return a.w.epoch != b.w.epoch ? a.w.epoch < b.w.epoch : a.w.begin < b.w.begin;
    });
    const Tagged* best = nullptr;   // reaches furthest
    const Tagged* other = nullptr;  // reaches furthest among blocks other than best's
    for (const Tagged& t : all) {
        if (best != nullptr && best->w.epoch != t.w.epoch) best = other = nullptr;
        const Tagged* rival = (best != nullptr && best->block != t.block) ? best : other;
        if (rival != nullptr && rival->w.end > t.w.begin) {
            uint64_t end = std::min(rival->w.end, t.w.end);
            const SimRegion* region = find_region(launch, end - 1);  // a cache line may start before the tensor
            uint64_t base = region ? region->base : 0;
            uint64_t begin = std::max(t.w.begin, base);
            const char* cache_lines =
                rival->w.scalar || t.w.scalar
                    ? " GlobalTensor::SetValue writes whole 64-byte cache lines back through the core's data cache, "
                      "so the scalar writes of different blocks must also be a cache line apart (start each block's "
                      "range on a 64-byte boundary, or move the data with DataCopy)."
                    : "";
            uint32_t subs = launch.shape.sub_blocks;
            std::string first = core_name(rival->block, launch), second = core_name(t.block, launch);
            const char* split = subs == 1 ? ""
                                          : " In this mixed launch each block runs its vector code on several vector "
                                            "cores: split a block's work by GetSubBlockIdx(), or index by "
                                            "GetBlockIdx() over 2 * GetBlockNum() cores.";
            char text[1280];
            std::snprintf(text, sizeof text,
                          "%s and %s both write GM bytes [%llu, %llu) of kernel argument %d without atomics "
                          "(%s at line %d); the result depends on which core writes last, and even identical "
                          "values are a write-after-write race. Give each core a disjoint range (check the "
                          "per-block offset and the tail), or use SetAtomicAdd for accumulation.%s%s",
                          first.c_str(), second.c_str(), (unsigned long long)(begin - base),
                          (unsigned long long)(end - base), region ? region->arg_index : -1, first.c_str(),
                          rival->w.loc.line, cache_lines, split);
            error = SimError{Diag::GmWriteRace, text, t.w.loc};
            block = block_of(t.block, launch);
            return true;
        }
        if (best == nullptr || t.w.end > best->w.end) {
            if (best != nullptr && best->block != t.block) other = best;
            best = &t;
        } else if (t.block != best->block && (other == nullptr || t.w.end > other->w.end)) {
            other = &t;
        }
    }
    return false;
}

// Launches with cube cores: whether access `a` of core `from` is complete before phase `phase` of core `to` began,
// by what `to` had seen of `from` then (the GmClocks that flags and SyncAll hand on: core.h).
bool ordered_before(const std::vector<BlockOutcome>& outcomes, uint32_t from, const GmWrite& a, uint32_t to,
                    uint32_t phase) {
    const std::vector<CoreState::GmSeen>& seen = outcomes[to].seen;
    auto after = std::upper_bound(seen.begin(), seen.end(), phase,
                                  [](uint32_t p, const CoreState::GmSeen& s) { return p < s.first; });
    if (after == seen.begin()) return false;
    const GmClock& clock = (after - 1)->seen;
    return from < clock.size() && clock[from] > a.phase;
}

// The message of a race find_ordered_race found: core `writer`'s write `w` and core `other`'s access `a` overlap in
// GM bytes [begin, end); a write-after-write when `other` wrote them too.
std::string ordered_race_text(const LaunchState& launch, const BlockOutcome& other_outcome, uint32_t writer,
                              const GmWrite& w, uint32_t other, const GmWrite& a, uint64_t begin, uint64_t end) {
    const SimRegion* region = find_region(launch, end - 1);
    uint64_t base = region ? region->base : 0;
    bool both_write = std::any_of(other_outcome.writes.begin(), other_outcome.writes.end(),
                                  [&](const GmWrite& x) { return x.begin < end && x.end > begin; });
    std::string first = core_name(writer, launch), second = core_name(other, launch);
    const bool siblings = writer < launch.vector_cores() && other < launch.vector_cores();
    char text[1280];
    if (both_write)
        std::snprintf(text, sizeof text,
                      "%s and %s both write GM bytes [%llu, %llu) of kernel argument %d without atomics (%s at line "
                      "%d), with nothing ordering the two; the result depends on which core writes last, and even "
                      "identical values are a write-after-write race. Give each core a disjoint range, or use "
                      "SetAtomicAdd for accumulation.%s",
                      first.c_str(), second.c_str(), (unsigned long long)(begin - base),
                      (unsigned long long)(end - base), region ? region->arg_index : -1, first.c_str(), w.loc.line,
                      siblings ? " Split a block's vector work by GetSubBlockIdx(), or index by GetBlockIdx() over "
                                 "GetSubBlockNum() * GetBlockNum() cores."
                               : " Or order them: CrossCoreSetFlag after the first write, CrossCoreWaitFlag before "
                                 "the second.");
    else
        std::snprintf(text, sizeof text,
                      "%s writes GM bytes [%llu, %llu) of kernel argument %d (line %d) and %s reads them (line %d) "
                      "with nothing ordering the two: the reader may see the old or the new data. Hand data between "
                      "cores with a flag: the writer calls CrossCoreSetFlag after its copy to GM and the reader "
                      "CrossCoreWaitFlag before its copy from GM (mode 2 between an AI Core's AIC and its AIVs, mode "
                      "0 among all AICs or all AIVs), or SyncAll<false>() on every core.",
                      first.c_str(), (unsigned long long)(begin - base), (unsigned long long)(end - base),
                      region ? region->arg_index : -1, w.loc.line, second.c_str(), a.loc.line);
    return text;
}

// Launches with cube cores: a GM write of one core and an access (read or write) of another to the same bytes are a
// race unless a flag or SyncAll orders them (the GmClocks). The cube and vector cores of a mixed kernel pass data
// through GM workspaces, so a read the writer has not signalled reads stale data: msSanitizer's racecheck (竞争检测
// page, atlasopdev_16_0043) reports read-after-write and write-after-read between cores as well as write-after-write.
bool find_ordered_race(const std::vector<BlockOutcome>& outcomes, const LaunchState& launch, SimError& error,
                       int32_t& block) {
    struct Tagged {
        const GmWrite* w;
        uint32_t core;
    };
    std::vector<Tagged> writes;
    for (uint32_t k = 0; k < outcomes.size(); ++k)
        for (const GmWrite& w : outcomes[k].writes) writes.push_back({&w, k});
    std::sort(writes.begin(), writes.end(), [](const Tagged& a, const Tagged& b) { return a.w->begin < b.w->begin; });
    std::vector<uint64_t> reach(writes.size());  // the furthest end among writes[0..i]
    for (size_t i = 0; i < writes.size(); ++i) reach[i] = std::max(i ? reach[i - 1] : 0, writes[i].w->end);
    for (uint32_t k = 0; k < outcomes.size(); ++k)
        for (const GmWrite& a : outcomes[k].accesses) {
            size_t i = std::upper_bound(writes.begin(), writes.end(), a.end,
                                        [](uint64_t end, const Tagged& t) { return end <= t.w->begin; }) -
                       writes.begin();
            while (i-- > 0 && reach[i] > a.begin) {
                const Tagged& t = writes[i];
                if (t.core == k || t.w->end <= a.begin) continue;
                if (ordered_before(outcomes, t.core, *t.w, k, a.phase) ||
                    ordered_before(outcomes, k, a, t.core, t.w->phase))
                    continue;
                uint64_t begin = std::max(a.begin, t.w->begin), end = std::min(a.end, t.w->end);
                error = SimError{Diag::GmWriteRace, ordered_race_text(launch, outcomes[k], t.core, *t.w, k, a, begin,
                                                                       end),
                                 a.loc};
                block = block_of(k, launch);
                return true;
            }
        }
    return false;
}

// The chip's time for the launch (cost_model.h): the task scheduler hands out blocks in order, one
// every kBlockDispatchNs, each to the core that frees up first; the launch ends when the last core
// does, and no sooner than the chip's HBM can move all the bytes.
void estimate_launch(const LaunchState& launch, SimLaunchResult* result) {
    std::priority_queue<double, std::vector<double>, std::greater<double>> core_free;
    for (uint32_t i = 0; i < launch.resident_cores; ++i) core_free.push(0.0);
    double makespan = 0.0, bytes = 0.0;
    for (uint32_t b = 0; b < launch.block_dim; ++b) {
        const SimCoreReport& r = result->cores[b];
        double start = std::max(core_free.top(), CostModel::kBlockDispatchNs * (b + 1));
        core_free.pop();
        core_free.push(start + r.est_ns);
        makespan = std::max(makespan, start + r.est_ns);
        bytes += double(r.gm_to_ub_bytes + r.ub_to_gm_bytes);
    }
    result->est_hbm_ns = bytes / launch.soc->hbm_bytes_per_ns;
    result->est_launch_ns = CostModel::kLaunchNs;
    result->est_ns = CostModel::kLaunchNs + std::max(makespan, result->est_hbm_ns);
}

void report_error(SimLaunchResult* result, const SimError& error, int32_t block) {
    result->status = 1;
    copy_text(result->diag.kind, sizeof result->diag.kind, diag_name(error.kind));
    copy_text(result->diag.message, sizeof result->diag.message, error.message);
    copy_text(result->diag.file, sizeof result->diag.file, error.loc.file ? error.loc.file : "");
    result->diag.line = error.loc.line;
    result->diag.block = block;
}

// The order in which the blocks are handed to cores: in order for seed 0, else a permutation drawn
// from the seed, so that repeated launches show results that depend on which block runs first.
std::vector<uint32_t> block_order(uint32_t blocks, uint64_t seed) {
    std::vector<uint32_t> order(blocks);
    std::iota(order.begin(), order.end(), 0u);
    if (seed != 0) std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
    return order;
}

}  // namespace

namespace {

// Blocks that run at once: a type with cube cores takes a whole AI Core (one AIC and its AIVs) per block.
uint32_t resident_blocks(const SimSocProfile& soc, const KernelShape& shape, uint32_t block_dim) {
    uint32_t ai_cores = soc.cube_cores != 0 ? soc.cube_cores : std::max<uint32_t>(1, soc.vector_cores / 2);
    uint32_t slots = shape.with_cube ? ai_cores : soc.vector_cores;
    return std::max<uint32_t>(1, std::min(block_dim, slots));
}

// Hands out a launch's cores: the vector cores from one list and the cube cores from another, each in block order.
// A thread takes from its own list first (vector threads the vector cores, cube threads the cube cores), then from
// the other, so that every resident core of both kinds runs at once, as on the NPU (flags and SyncAll need it).
class CoreDispenser {
public:
    CoreDispenser(const std::vector<uint32_t>& order, const KernelShape& shape)
        : order_(order), subs_(shape.sub_blocks), cube_count_(shape.with_cube ? uint32_t(order.size()) : 0) {}

    bool take(bool prefer_cube, CoreSlot& slot) {
        return prefer_cube ? (take_cube(slot) || take_vector(slot)) : (take_vector(slot) || take_cube(slot));
    }

private:
    bool take_vector(CoreSlot& slot) {
        uint32_t i = next_vector_.fetch_add(1);
        if (i >= uint32_t(order_.size()) * subs_) return false;
        slot = CoreSlot{order_[i / subs_], i % subs_, false};
        return true;
    }
    bool take_cube(CoreSlot& slot) {
        uint32_t i = next_cube_.fetch_add(1);
        if (i >= cube_count_) return false;
        slot = CoreSlot{order_[i], 0, true};
        return true;
    }

    const std::vector<uint32_t>& order_;
    const uint32_t subs_;
    const uint32_t cube_count_;
    std::atomic<uint32_t> next_vector_{0};
    std::atomic<uint32_t> next_cube_{0};
};

// The first diagnostic of the launch's cores, its race check, and the time estimate; returns result->status.
int finish_launch(const LaunchState& launch, std::vector<BlockOutcome>& outcomes, SimLaunchResult* result) {
    for (uint32_t core = 0; core < outcomes.size(); ++core)
        if (outcomes[core].failed) {
            report_error(result, outcomes[core].error, block_of(core, launch));
            return 1;
        }
    SimError race;
    int32_t race_block = -1;
    try {
        bool raced = launch.gm_order ? find_ordered_race(outcomes, launch, race, race_block)
                                     : find_write_race(outcomes, launch, race, race_block);
        if (raced) {
            report_error(result, race, race_block);
            return 1;
        }
        estimate_launch(launch, result);
    } catch (const std::bad_alloc&) {
        size_t writes = 0;
        for (const BlockOutcome& outcome : outcomes) writes += outcome.writes.size() + outcome.accesses.size();
        report_error(result, SimError{Diag::BadArgument, out_of_memory_text("after the launch", writes), Loc{}}, -1);
        return 1;
    }
    return 0;
}

}  // namespace

int run_launch(BlockBody body, const SimLaunchRequest* request, SimLaunchResult* result, int64_t tiling_key) {
    result->status = 0;
    KernelShape shape;
    SimError problem;
    if (!resolve_kernel_shape(tiling_key, *request->soc, shape, problem)) {
        report_error(result, problem, -1);
        return 1;
    }
    const uint32_t resident = resident_blocks(*request->soc, shape, request->block_dim);
    const uint32_t vector_threads = resident * shape.sub_blocks;
    const uint32_t participants = vector_threads + (shape.with_cube ? resident : 0);
    const SimSocProfile soc = CostModel::launch_profile(*request->soc, participants);
    LaunchState launch;
    launch.soc = &soc;
    launch.auto_sync = request->auto_sync != 0;
    launch.block_dim = request->block_dim;
    launch.resident_cores = resident;
    launch.shape = shape;
    launch.gm_order = shape.with_cube;
    launch.regions.assign(request->regions, request->regions + request->n_regions);
    std::sort(launch.regions.begin(), launch.regions.end(),
              [](const SimRegion& a, const SimRegion& b) { return a.base < b.base; });
    std::vector<BlockOutcome> outcomes(launch.total_cores());
    launch.core_done.assign(launch.total_cores(), 0);
    for (uint32_t b = 0; b < request->block_dim; ++b) result->cores[b] = SimCoreReport{};
    std::mutex report_mutex;
    const std::vector<uint32_t> order = block_order(request->block_dim, request->block_order_seed);
    CoreDispenser dispenser(order, shape);
    std::atomic<uint32_t> slots{0};  // each participant's place: its kind, and its UB shadow (checked launches)
    // All resident cores run at once, as on the NPU: SyncAll needs every one of them to arrive, and a block's
    // cores are handed out side by side.
    try {
        pool().run(participants, soc.ub_bytes, [&](uint8_t* ub) {
            uint32_t slot = slots.fetch_add(1);
            uint8_t* shadow = request->ub_shadow && slot < request->soc->vector_cores
                                  ? reinterpret_cast<uint8_t*>(request->ub_shadow + slot * request->ub_shadow_stride)
                                  : nullptr;
            for (CoreSlot core; dispenser.take(slot >= vector_threads, core);) {
                SimCoreReport own{};
                uint32_t index =
                    core.cube ? launch.vector_cores() + core.block : core.block * shape.sub_blocks + core.sub_block;
                run_block(launch, core, ub, shadow, &own, outcomes[index], body, request->arg_values);
                std::lock_guard<std::mutex> lock(report_mutex);
                merge_report(result->cores[core.block], own);
            }
        });
    } catch (const std::exception& e) {
        char text[512];
        std::snprintf(text, sizeof text,
                      "the simulator could not start %u threads with %u bytes of UB each for the launch's resident "
                      "cores (%s); the process is out of threads or memory",
                      participants, soc.ub_bytes, e.what());
        report_error(result, SimError{Diag::BadArgument, text, Loc{}}, -1);
        return 1;
    }
    return finish_launch(launch, outcomes, result);
}

int report_escaped(SimLaunchResult* result, const char* what) {
    report_error(result, SimError{Diag::BadArgument, std::string("the simulator failed outside any core's run: ") +
                                                         what, Loc{}}, -1);
    return 1;
}

}  // namespace ascendc_sim
