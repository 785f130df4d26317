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

// What the launch's vector cores are, from its kernel type and SoC (kernel_type.h).
bool resolve_kernel_shape(int64_t key, const SimSocProfile& soc, KernelShape& shape, SimError& error) {
    const KernelTypeRecord* r = nullptr;
    if (!find_kernel_type(key, r, error)) return false;
    if (r == nullptr) return true;
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
            return kernel_type_error(error, *r, "starts cube (AIC) cores only, and the simulator runs vector cores "
                                                "only: the cube side of AscendC is not simulated.");
        case KERNEL_TYPE_AICORE:
        case KERNEL_TYPE_MIX_VECTOR_CORE:
            if (!a2) return true;  // the coupled 310P: one AI Core per block
            return kernel_type_error(error, *r, "is not supported on Atlas A2/A3 (设置Kernel类型.md).");
        default:
            return kernel_type_error(error, *r, "is reserved or unknown (设置Kernel类型.md): declare "
                                                "KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_1 "
                                                "or KERNEL_TYPE_MIX_AIC_1_2.");
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

// What one core (a block, or one vector core of a block in a mixed launch) left behind.
struct BlockOutcome {
    bool failed = false;
    SimError error;
    std::vector<GmWrite> writes;
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

// Runs one core (vector core `sub_block` of `block`) on the calling thread. Diagnostics are caught here; the
// other cores are told to stop.
void run_block(LaunchState& launch, uint32_t block, uint32_t sub_block, uint8_t* ub, uint8_t* ub_shadow,
               SimCoreReport* report, BlockOutcome& outcome, BlockBody body, void** arg_values) {
    CoreState c;
    c.launch = &launch;
    c.report = report;
    c.block_idx = block;
    c.sub_block = sub_block;
    c.ub = ub;
    c.ub_shadow = ub_shadow;
    poison_ub(ub, launch.soc->ub_bytes);
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
    std::lock_guard<std::mutex> lock(launch.barrier_mutex);
    launch.core_done[block * launch.shape.sub_blocks + sub_block] = 1;
    ++launch.barrier_finished;
    launch.barrier_cv.notify_all();
}

// "block 3", or in a mixed launch "block 3 sub-block 1" (GetBlockIdx 7).
std::string core_name(uint32_t core, uint32_t sub_blocks) {
    if (sub_blocks == 1) return "block " + std::to_string(core);
    return "block " + std::to_string(core / sub_blocks) + " sub-block " + std::to_string(core % sub_blocks) +
           " (GetBlockIdx " + std::to_string(core) + ")";
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
            std::string first = core_name(rival->block, subs), second = core_name(t.block, subs);
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
            block = int32_t(t.block / subs);
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

int run_launch(BlockBody body, const SimLaunchRequest* request, SimLaunchResult* result, int64_t tiling_key) {
    result->status = 0;
    KernelShape shape;
    SimError problem;
    if (!resolve_kernel_shape(tiling_key, *request->soc, shape, problem)) {
        report_error(result, problem, -1);
        return 1;
    }
    const uint32_t subs = shape.sub_blocks;
    // A type with cube cores takes a whole AI Core (one AIC, its AIVs) per block: half the vector cores on A2/A3.
    uint32_t block_slots = shape.with_cube ? std::max<uint32_t>(1, request->soc->vector_cores / 2) : request->soc->vector_cores;
    uint32_t resident = std::max<uint32_t>(1, std::min(request->block_dim, block_slots));
    uint32_t participants = resident * subs;
    const SimSocProfile soc = CostModel::launch_profile(*request->soc, participants);
    LaunchState launch;
    launch.soc = &soc;
    launch.auto_sync = request->auto_sync != 0;
    launch.block_dim = request->block_dim;
    launch.resident_cores = resident;
    launch.shape = shape;
    launch.regions.assign(request->regions, request->regions + request->n_regions);
    std::sort(launch.regions.begin(), launch.regions.end(),
              [](const SimRegion& a, const SimRegion& b) { return a.base < b.base; });
    const uint32_t cores = request->block_dim * subs;
    std::vector<BlockOutcome> outcomes(cores);
    launch.core_done.assign(cores, 0);
    for (uint32_t b = 0; b < request->block_dim; ++b) result->cores[b] = SimCoreReport{};
    std::mutex report_mutex;
    const std::vector<uint32_t> order = block_order(request->block_dim, request->block_order_seed);
    std::atomic<uint32_t> next{0};
    std::atomic<uint32_t> slots{0};  // each participant's place in the UB shadow (checked launches)
    // All resident cores run at once, as on the NPU: SyncAll needs every one of them to arrive, and a block's
    // vector cores are handed out one after the other, so they run side by side.
    try {
        pool().run(participants, soc.ub_bytes, [&](uint8_t* ub) {
            uint32_t slot = slots.fetch_add(1);
            uint8_t* shadow = request->ub_shadow && slot < participants
                                  ? reinterpret_cast<uint8_t*>(request->ub_shadow + slot * request->ub_shadow_stride)
                                  : nullptr;
            for (uint32_t i; (i = next.fetch_add(1)) < cores;) {
                uint32_t b = order[i / subs], sub = i % subs;
                SimCoreReport own{};
                run_block(launch, b, sub, ub, shadow, &own, outcomes[b * subs + sub], body, request->arg_values);
                std::lock_guard<std::mutex> lock(report_mutex);
                merge_report(result->cores[b], own);
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

    for (uint32_t core = 0; core < cores; ++core)
        if (outcomes[core].failed) {
            report_error(result, outcomes[core].error, int32_t(core / subs));
            return 1;
        }
    SimError race;
    int32_t race_block = -1;
    try {
        if (find_write_race(outcomes, launch, race, race_block)) {
            report_error(result, race, race_block);
            return 1;
        }
        estimate_launch(launch, result);
    } catch (const std::bad_alloc&) {
        size_t writes = 0;
        for (const BlockOutcome& outcome : outcomes) writes += outcome.writes.size();
        report_error(result, SimError{Diag::BadArgument, out_of_memory_text("after the launch", writes), Loc{}}, -1);
        return 1;
    }
    return 0;
}

int report_escaped(SimLaunchResult* result, const char* what) {
    report_error(result, SimError{Diag::BadArgument, std::string("the simulator failed outside any core's run: ") +
                                                         what, Loc{}}, -1);
    return 1;
}

}  // namespace ascendc_sim
