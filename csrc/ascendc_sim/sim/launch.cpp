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
#include <numeric>
#include <queue>
#include <random>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ascendc_sim {
namespace {

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

// Runs one block on the calling thread. Diagnostics are caught here; the other blocks are told to stop.
void run_block(LaunchState& launch, uint32_t block, uint8_t* ub, uint8_t* ub_shadow, SimCoreReport* report,
               BlockOutcome& outcome, BlockBody body, void** arg_values) {
    CoreState c;
    c.launch = &launch;
    c.report = report;
    c.block_idx = block;
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
    ++launch.barrier_finished;
    launch.barrier_cv.notify_all();
}

// Two blocks writing the same GM bytes between the same SyncAlls, without atomics, is a race.
bool find_write_race(const std::vector<BlockOutcome>& outcomes, const LaunchState& launch, SimError& error,
                     int32_t& block) {
    struct Tagged {
        GmWrite w;
        uint32_t block;
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
            char text[1024];
            std::snprintf(text, sizeof text,
                          "blocks %u and %u both write GM bytes [%llu, %llu) of kernel argument %d without atomics "
                          "(block %u at line %d); the result depends on which core writes last. Give each block a "
                          "disjoint range (check the per-block offset and the tail), or use SetAtomicAdd for "
                          "accumulation.%s",
                          rival->block, t.block, (unsigned long long)(begin - base), (unsigned long long)(end - base),
                          region ? region->arg_index : -1, rival->block, rival->w.loc.line, cache_lines);
            error = SimError{Diag::GmWriteRace, text, t.w.loc};
            block = int32_t(t.block);
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

int run_launch(BlockBody body, const SimLaunchRequest* request, SimLaunchResult* result) {
    uint32_t resident = std::max<uint32_t>(1, std::min(request->block_dim, request->soc->vector_cores));
    const SimSocProfile soc = CostModel::launch_profile(*request->soc, resident);
    LaunchState launch;
    launch.soc = &soc;
    launch.auto_sync = request->auto_sync != 0;
    launch.block_dim = request->block_dim;
    launch.resident_cores = resident;
    launch.regions.assign(request->regions, request->regions + request->n_regions);
    std::sort(launch.regions.begin(), launch.regions.end(),
              [](const SimRegion& a, const SimRegion& b) { return a.base < b.base; });
    result->status = 0;
    std::vector<BlockOutcome> outcomes(request->block_dim);
    const std::vector<uint32_t> order = block_order(request->block_dim, request->block_order_seed);
    std::atomic<uint32_t> next{0};
    std::atomic<uint32_t> slots{0};  // each participant's place in the UB shadow (checked launches)
    // All resident blocks run at once, as on the NPU: SyncAll needs every one of them to arrive.
    try {
        pool().run(resident, soc.ub_bytes, [&](uint8_t* ub) {
            uint32_t slot = slots.fetch_add(1);
            uint8_t* shadow = request->ub_shadow && slot < resident
                                  ? reinterpret_cast<uint8_t*>(request->ub_shadow + slot * request->ub_shadow_stride)
                                  : nullptr;
            for (uint32_t i; (i = next.fetch_add(1)) < request->block_dim;) {
                uint32_t b = order[i];
                run_block(launch, b, ub, shadow, &result->cores[b], outcomes[b], body, request->arg_values);
            }
        });
    } catch (const std::exception& e) {
        char text[512];
        std::snprintf(text, sizeof text,
                      "the simulator could not start %u threads with %u bytes of UB each for the launch's resident "
                      "blocks (%s); the process is out of threads or memory",
                      resident, soc.ub_bytes, e.what());
        report_error(result, SimError{Diag::BadArgument, text, Loc{}}, -1);
        return 1;
    }

    for (uint32_t b = 0; b < request->block_dim; ++b)
        if (outcomes[b].failed) {
            report_error(result, outcomes[b].error, int32_t(b));
            return 1;
        }
    SimError race;
    int32_t race_block = -1;
    if (find_write_race(outcomes, launch, race, race_block)) {
        report_error(result, race, race_block);
        return 1;
    }
    estimate_launch(launch, result);
    return 0;
}

}  // namespace ascendc_sim
