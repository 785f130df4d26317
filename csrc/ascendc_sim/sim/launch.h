// Runs a kernel entry on block_dim logical cores, each with its own UB, and reports counters,
// the time estimate and the first diagnostic. Included once per kernel library, by the
// export shim the build writes next to the kernel source (see ASCENDC_SIM_EXPORT_KERNEL).
#pragma once
#include <cstdlib>
#include <memory>
#include <thread>
#include <utility>

#include "core.h"

namespace ascendc_sim {

template <typename T>
constexpr SimArgInfo arg_info() {
    using U = std::remove_cv_t<std::remove_reference_t<T>>;
    if constexpr (std::is_pointer_v<U>) return {SIM_ARG_POINTER, int32_t(sizeof(U))};
    else if constexpr (std::is_floating_point_v<U> || std::is_same_v<U, half>) return {SIM_ARG_FLOAT, int32_t(sizeof(U))};
    else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) return {SIM_ARG_INT, int32_t(sizeof(U))};
    else if constexpr (std::is_integral_v<U> || std::is_enum_v<U>) return {SIM_ARG_UINT, int32_t(sizeof(U))};
    else {
        static_assert(std::is_trivially_copyable_v<U>, "kernel parameters must be pointers, scalars or POD structs");
        return {SIM_ARG_STRUCT, int32_t(sizeof(U))};
    }
}

template <typename... Args>
int signature_of(void (*)(Args...), const SimArgInfo** out) {
    static const SimArgInfo infos[sizeof...(Args) + 1] = {arg_info<Args>()..., SimArgInfo{-1, 0}};
    *out = infos;
    return int(sizeof...(Args));
}

template <typename... Args, size_t... I>
void call_entry(void (*entry)(Args...), void** values, std::index_sequence<I...>) {
    entry(*static_cast<std::remove_cv_t<std::remove_reference_t<Args>>*>(values[I])...);
}

struct BlockOutcome {
    bool failed = false;
    SimError error;
    std::vector<GmWrite> writes;
};

inline void copy_text(char* dst, size_t size, const std::string& text) {
    std::snprintf(dst, size, "%s", text.c_str());
}

inline void finish_checks(CoreState& c) {
    if (c.has_deferred) throw c.deferred;
    for (int kind = 0; kind < kEventKinds; ++kind)
        for (int id = 0; id < kEventIds; ++id)
            if (c.flag_pending[kind][id])
                fail(Diag::UnpairedFlag, c.flag_loc[kind][id],
                     "SetFlag on event id %d is never waited on before the kernel ends; every SetFlag needs a "
                     "WaitFlag with the same HardEvent and id",
                     id);
}

// Runs one block on the calling thread. Diagnostics are caught here; the other blocks are told to stop.
template <typename Invoke>
void run_block(LaunchState& launch, uint32_t block, uint8_t* ub, SimCoreReport* report, BlockOutcome& outcome,
               Invoke&& invoke) {
    CoreState c;
    c.launch = &launch;
    c.report = report;
    c.block_idx = block;
    c.ub = ub;
    std::memset(ub, 0xFF, launch.soc->ub_bytes);  // uninitialised UB reads as NaN / -1, never as zeros
    t_core = &c;
    try {
        invoke();
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
    }
    t_core = nullptr;
    report->est_ns = core_time(c);
    outcome.writes = std::move(c.gm_writes);
    std::lock_guard<std::mutex> lock(launch.barrier_mutex);
    ++launch.barrier_finished;
    launch.barrier_cv.notify_all();
}

// Two blocks writing the same GM bytes between the same SyncAlls, without atomics, is a race.
inline bool find_write_race(const std::vector<BlockOutcome>& outcomes, const LaunchState& launch, SimError& error,
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
            const SimRegion* region = find_region(launch, t.w.begin);
            uint64_t base = region ? region->base : 0;
            char text[1024];
            std::snprintf(text, sizeof text,
                          "blocks %u and %u both write GM bytes [%llu, %llu) of kernel argument %d without atomics "
                          "(block %u at line %d); the result depends on which core writes last. Give each block a "
                          "disjoint range (check the per-block offset and the tail), or use SetAtomicAdd for "
                          "accumulation.",
                          rival->block, t.block, (unsigned long long)(t.w.begin - base),
                          (unsigned long long)(std::min(rival->w.end, t.w.end) - base), region ? region->arg_index : -1,
                          rival->block, rival->w.loc.line);
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

// Blocks run in waves of `resident` cores; the chip finishes when its last wave does, and no sooner
// than its total GM traffic allows.
inline void estimate(const LaunchState& launch, SimLaunchResult* result) {
    double chip = 0.0, wave = 0.0, bytes = 0.0;
    for (uint32_t b = 0; b < launch.block_dim; ++b) {
        const SimCoreReport& r = result->cores[b];
        wave = std::max(wave, r.est_ns);
        bytes += double(r.gm_to_ub_bytes + r.ub_to_gm_bytes);
        if ((b + 1) % launch.resident_cores == 0 || b + 1 == launch.block_dim) {
            chip += wave;
            wave = 0.0;
        }
    }
    result->est_hbm_ns = bytes / launch.soc->hbm_bytes_per_ns;
    result->est_launch_ns = CostModel::kLaunchNs;
    result->est_ns = CostModel::kLaunchNs + std::max(chip, result->est_hbm_ns);
}

inline void report_error(SimLaunchResult* result, const SimError& error, int32_t block) {
    result->status = 1;
    copy_text(result->diag.kind, sizeof result->diag.kind, diag_name(error.kind));
    copy_text(result->diag.message, sizeof result->diag.message, error.message);
    copy_text(result->diag.file, sizeof result->diag.file, error.loc.file ? error.loc.file : "");
    result->diag.line = error.loc.line;
    result->diag.block = block;
}

template <typename... Args>
int run_kernel(void (*entry)(Args...), const SimLaunchRequest* request, SimLaunchResult* result) {
    LaunchState launch;
    launch.soc = request->soc;
    launch.block_dim = request->block_dim;
    launch.resident_cores = std::max<uint32_t>(1, std::min(request->block_dim, request->soc->vector_cores));
    launch.regions.assign(request->regions, request->regions + request->n_regions);
    std::sort(launch.regions.begin(), launch.regions.end(),
              [](const SimRegion& a, const SimRegion& b) { return a.base < b.base; });
    result->status = 0;
    std::vector<BlockOutcome> outcomes(request->block_dim);
    std::atomic<uint32_t> next{0};
    auto worker = [&] {
        std::unique_ptr<uint8_t, decltype(&std::free)> ub(
            static_cast<uint8_t*>(std::aligned_alloc(4096, (request->soc->ub_bytes + 4095) / 4096 * 4096)), &std::free);
        for (uint32_t b; (b = next.fetch_add(1)) < request->block_dim;)
            run_block(launch, b, ub.get(), &result->cores[b], outcomes[b],
                      [&] { call_entry(entry, request->arg_values, std::index_sequence_for<Args...>{}); });
    };
    std::vector<std::thread> threads;
    for (uint32_t t = 1; t < launch.resident_cores; ++t) threads.emplace_back(worker);
    worker();
    for (std::thread& t : threads) t.join();

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
    estimate(launch, result);
    return 0;
}

}  // namespace ascendc_sim

#define ASCENDC_SIM_EXPORT __attribute__((visibility("default")))

// Written by the build after the kernel source: exports the kernel through the launch ABI.
#define ASCENDC_SIM_EXPORT_KERNEL(entry)                                                                       \
    extern "C" ASCENDC_SIM_EXPORT int ascendc_sim_abi_version() { return ASCENDC_SIM_ABI_VERSION; }              \
    extern "C" ASCENDC_SIM_EXPORT const char* ascendc_sim_kernel_name() { return #entry; }                      \
    extern "C" ASCENDC_SIM_EXPORT int ascendc_sim_kernel_args(const SimArgInfo** out) {                         \
        return ascendc_sim::signature_of(&entry, out);                                                         \
    }                                                                                                          \
    extern "C" ASCENDC_SIM_EXPORT int ascendc_sim_op_count() { return int(ascendc_sim::OpId::Count); }         \
    extern "C" ASCENDC_SIM_EXPORT const char* ascendc_sim_op_name(int op) {                                     \
        return ascendc_sim::op_name(static_cast<ascendc_sim::OpId>(op));                                       \
    }                                                                                                          \
    extern "C" ASCENDC_SIM_EXPORT int ascendc_sim_run(const SimLaunchRequest* request, SimLaunchResult* result) { \
        try {                                                                                                  \
            return ascendc_sim::run_kernel(&entry, request, result);                                           \
        } catch (...) {                                                                                        \
            result->status = 2;                                                                                \
            return 2;                                                                                          \
        }                                                                                                      \
    }
