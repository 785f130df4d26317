// CrossCoreSetFlag / CrossCoreWaitFlag between the vector cores of a launch.
//
// From asc-devkit v8.5.0 CrossCoreSetFlag(ISASI).md and CrossCoreWaitFlag(ISASI).md:
// - template <uint8_t modeId, pipe_t pipe> CrossCoreSetFlag(uint16_t flagId) and CrossCoreWaitFlag(flagId); flagId
//   0..10 on Atlas A2/A3; each flag id is a counter, set at most 15 times.
// - mode 0: all vector cores of the launch: what follows CrossCoreWaitFlag runs once every AIV has run
//   CrossCoreSetFlag. mode 1: the vector cores of one AI Core, once both have run CrossCoreSetFlag. mode 2: between
//   an AI Core's cube core and its vector cores.
// - a pure vector kernel must declare KERNEL_TYPE_MIX_AIV_1_0 to use them; a mixed one its AIC:AIV type. The
//   simulator refuses them only where KERNEL_TYPE_AIV_ONLY is declared (an undeclared kernel runs as MIX_AIV_1_0).
// The simulator: a core's k-th wait on (mode, flag) passes once every core of its group has made its k-th set, and
// the waiting pipe resumes no earlier than the latest of those sets finished on its pipe. A mode-0 wait also starts a
// new GM epoch, as SyncAll does: writes after it are ordered after every core's writes before its set. Mode 1
// orders time only; the GM race check does not see writes ordered by it. Mode 2 waits for the cube side, which is
// not simulated (kernel_type.h): unsupported_api; a vector core's mode-2 set for its cube core has no effect here.
#pragma once
#include "pipe.h"

namespace AscendC {
namespace sim_detail {

constexpr int kCrossFlags = 11;
constexpr int kCrossCounterMax = 15;

inline int sim_pipe_of(pipe_t pipe) {
    return pipe == PIPE_MTE2 ? ascendc_sim::kPipeMte2
           : pipe == PIPE_V  ? ascendc_sim::kPipeV
           : pipe == PIPE_MTE3 ? ascendc_sim::kPipeMte3
           : pipe == PIPE_S  ? ascendc_sim::kPipeS
           : pipe == PIPE_MTE1 ? ascendc_sim::kPipeMte1
           : pipe == PIPE_M  ? ascendc_sim::kPipeM
           : pipe == PIPE_FIX ? ascendc_sim::kPipeFix
                             : -1;  // PIPE_ALL and the pipes the simulator does not model: all of them
}

// Checks the call; returns the index of (mode, flag) in the launch's set table (-1: mode 2, nothing to do).
inline int cross_core_check(int mode, uint16_t flag, bool wait, const char* api, ascendc_sim::Loc loc) {
    using namespace ascendc_sim;
    CoreState& c = core(loc);
    const KernelShape& shape = c.launch->shape;
    if (flag >= kCrossFlags)
        fail(Diag::BadArgument, loc, "%s: flagId %u is out of range; Atlas A2/A3 have flag ids 0 to 10.", api,
             unsigned(flag));
    if (mode > 2) fail(Diag::BadArgument, loc, "%s: modeId %d is not 0, 1 or 2.", api, mode);
    // A kernel that declares no type at all runs as the MIX_AIV_1_0 these flags need (assumption: the project
    // build decides undeclared types, and public vector kernels that use the flags declare none); one that
    // declares KERNEL_TYPE_AIV_ONLY has said otherwise.
    if (shape.type == KERNEL_TYPE_AIV_ONLY && shape.declared.line != 0)
        fail(Diag::BadArgument, loc,
             "%s in a kernel declared KERNEL_TYPE_AIV_ONLY: a pure vector kernel must declare "
             "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0) to use the cross-core flags.",
             api);
    if (mode == 2) {
        if (!shape.with_cube)
            fail(Diag::BadArgument, loc, "%s mode 2 pairs cube and vector cores, and a %s launch has no cube cores.",
                 api, kernel_type_name(shape.type));
        if (wait)
            fail(Diag::UnsupportedApi, loc,
                 "%s<2, ...> waits for the cube (AIC) core, and the simulator runs only the vector cores of a mixed "
                 "launch (the AIC side is not simulated); on the NPU this waits for the AIC's CrossCoreSetFlag.",
                 api);
        return -1;
    }
    if (mode == 0 && c.launch->block_dim > c.launch->resident_cores)
        fail(Diag::SyncAllDeadlock, loc,
             "%s mode 0 waits for every vector core of the launch, but blockDim %u is more than the %u blocks that "
             "run at once: the others only start when these finish, so it waits forever.",
             api, c.launch->block_dim, c.launch->resident_cores);
    if (c.launch->cross_sets.empty()) c.launch->cross_sets.resize(2 * kCrossFlags * c.launch->vector_cores());
    return mode * kCrossFlags + flag;
}

inline uint32_t core_id(const ascendc_sim::CoreState& c) { return c.block_idx * c.launch->shape.sub_blocks + c.sub_block; }

}  // namespace sim_detail

template <uint8_t modeId, pipe_t pipe>
void CrossCoreSetFlag(uint16_t flagId, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    using namespace ascendc_sim;
    auto& c = core(loc);
    auto& launch = *c.launch;
    std::lock_guard<std::mutex> lock(launch.barrier_mutex);
    int slot = sim_detail::cross_core_check(modeId, flagId, false, "CrossCoreSetFlag", loc);
    if (slot < 0) return;
    std::vector<double>& sets = launch.cross_sets[slot * launch.vector_cores() + sim_detail::core_id(c)];
    if (int(sets.size()) - int(c.cross_waits[modeId][flagId]) >= sim_detail::kCrossCounterMax)
        fail(Diag::BadArgument, loc,
             "CrossCoreSetFlag: flag %u of mode %d is set a 16th time with no CrossCoreWaitFlag in between; a flag's "
             "counter holds at most 15 sets (CrossCoreSetFlag(ISASI).md).",
             unsigned(flagId), int(modeId));
    int p = sim_detail::sim_pipe_of(pipe);
    sets.push_back(p < 0 ? core_time(c) : std::max(c.pipe_free[p], c.pipe_done[p]));
    launch.barrier_cv.notify_all();
}

template <uint8_t modeId, pipe_t pipe>
void CrossCoreWaitFlag(uint16_t flagId, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    using namespace ascendc_sim;
    auto& c = core(loc);
    auto& launch = *c.launch;
    std::unique_lock<std::mutex> lock(launch.barrier_mutex);
    int slot = sim_detail::cross_core_check(modeId, flagId, true, "CrossCoreWaitFlag", loc);
    const uint32_t cores = launch.vector_cores(), subs = launch.shape.sub_blocks;
    const uint32_t first = modeId == 0 ? 0 : c.block_idx * subs, count = modeId == 0 ? cores : subs;
    const size_t round = c.cross_waits[modeId][flagId];
    double release = 0.0;
    for (uint32_t g = first; g < first + count; ++g) {
        const std::vector<double>& sets = launch.cross_sets[slot * cores + g];
        if (g == sim_detail::core_id(c) && sets.size() <= round)
            fail(Diag::UnpairedFlag, loc,
                 "CrossCoreWaitFlag<%d>(%u) before this core's own CrossCoreSetFlag on the flag: the wait needs every "
                 "core of the group, this one included, to have set it, so on the NPU it waits forever. Call "
                 "CrossCoreSetFlag first.",
                 int(modeId), unsigned(flagId));
        launch.barrier_cv.wait(lock, [&] { return sets.size() > round || launch.core_done[g] || launch.abort.load(); });
        if (launch.abort.load()) throw KernelAborted{};
        if (sets.size() <= round)
            fail(Diag::UnpairedFlag, loc,
                 "CrossCoreWaitFlag<%d>(%u) waits for set %zu of vector core %u (GetBlockIdx), which ended after %zu "
                 "CrossCoreSetFlag on that flag; on the NPU this waits forever. Every core of the group must set the "
                 "flag once for each wait.",
                 int(modeId), unsigned(flagId), round + 1, g, sets.size());
        release = std::max(release, sets[round]);
    }
    ++c.cross_waits[modeId][flagId];
    int p = sim_detail::sim_pipe_of(pipe);
    if (p < 0) align_pipes(c, release);
    else c.pipe_free[p] = std::max(c.pipe_free[p], release);
    if (modeId == 0) ++c.epoch;
}

// The one-argument form of the 8.0.RC2/RC3 pages (`__aicore__ inline void CrossCoreWaitFlag(uint16_t flagId)`),
// which public kernels still call: a wait of mode 0 on every pipe, as those pages' mode-0 example uses it.
inline void CrossCoreWaitFlag(uint16_t flagId, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    CrossCoreWaitFlag<0, PIPE_ALL>(flagId, loc);
}

}  // namespace AscendC
