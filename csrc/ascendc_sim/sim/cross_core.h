// CrossCoreSetFlag / CrossCoreWaitFlag between the cores of a launch.
//
// From asc-devkit v8.5.0 CrossCoreSetFlag(ISASI).md and CrossCoreWaitFlag(ISASI).md:
// - template <uint8_t modeId, pipe_t pipe> CrossCoreSetFlag(uint16_t flagId) and CrossCoreWaitFlag(flagId); flagId
//   0..10 on Atlas A2/A3; each flag id is a counter, set at most 15 times.
// - mode 0: between all cores of one kind in the launch: on AIV, what follows CrossCoreWaitFlag runs once every AIV
//   has run CrossCoreSetFlag; on AIC, once every AIC has. mode 1: the vector cores of one AI Core, once both have
//   run CrossCoreSetFlag (AIV only). mode 2: inside one AI Core, between its cube core and its vector cores: an AIV's
//   wait passes once the AIC has set the flag, the AIC's wait once every AIV of its AI Core has.
// - a pure vector kernel must declare KERNEL_TYPE_MIX_AIV_1_0 to use them; a mixed one its AIC:AIV type. The
//   simulator refuses them only where KERNEL_TYPE_AIV_ONLY is declared (an undeclared kernel runs as MIX_AIV_1_0).
// The simulator: a core's k-th wait on (mode, flag) passes once every core its group waits for has made its k-th set,
// and the waiting pipe resumes no earlier than the latest of those sets finished on its pipe. A mode-0 wait also
// starts a new GM epoch, as SyncAll does: writes after it are ordered after every core's writes before its set. Every
// wait also hands the setters' GM accesses on to the waiter (ordered_before in launch.cpp's race check of launches
// with cube cores). Modes 1 and 2 in a launch of vector cores only order time only.
#pragma once
#include "pipe.h"

namespace AscendC {
namespace sim_detail {

constexpr int kCrossFlags = 11;
constexpr int kCrossCounterMax = 15;
constexpr int kCrossModes = 3;

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

// Checks the call; returns the index of (mode, flag) in the launch's set table.
inline int cross_core_check(int mode, uint16_t flag, const char* api, ascendc_sim::Loc loc) {
    using namespace ascendc_sim;
    CoreState& c = core(loc);
    const KernelShape& shape = c.launch->shape;
    if (flag >= kCrossFlags)
        fail(Diag::BadArgument, loc, "%s: flagId %u is out of range; Atlas A2/A3 have flag ids 0 to 10.", api,
             unsigned(flag));
    if (mode >= kCrossModes) fail(Diag::BadArgument, loc, "%s: modeId %d is not 0, 1 or 2.", api, mode);
    // A kernel that declares no type at all runs as the MIX_AIV_1_0 these flags need (assumption: the project
    // build decides undeclared types, and public vector kernels that use the flags declare none); one that
    // declares KERNEL_TYPE_AIV_ONLY has said otherwise.
    if (shape.type == KERNEL_TYPE_AIV_ONLY && shape.declared.line != 0)
        fail(Diag::BadArgument, loc,
             "%s in a kernel declared KERNEL_TYPE_AIV_ONLY: a pure vector kernel must declare "
             "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0) to use the cross-core flags.",
             api);
    if (mode == 2 && (!shape.with_cube || shape.sub_blocks == 0))
        fail(Diag::BadArgument, loc, "%s mode 2 pairs a cube core with its vector cores, and a %s launch has %s.", api,
             kernel_type_name(shape.type), shape.with_cube ? "no vector cores" : "no cube cores");
    if (mode == 1 && c.cube)
        fail(Diag::WrongCore, loc,
             "%s mode 1 synchronises the vector cores of one AI Core and is for AIV code; this is a cube core. Use "
             "mode 2 between the AIC and its AIVs, or mode 0 between all AICs.",
             api);
    if (mode == 0 && c.launch->block_dim > c.launch->resident_cores)
        fail(Diag::SyncAllDeadlock, loc,
             "%s mode 0 waits for every %s core of the launch, but blockDim %u is more than the %u blocks that "
             "run at once: the others only start when these finish, so it waits forever.",
             api, c.cube ? "cube" : "vector", c.launch->block_dim, c.launch->resident_cores);
    if (c.launch->cross_sets.empty())
        c.launch->cross_sets.resize(size_t(kCrossModes) * kCrossFlags * c.launch->total_cores());
    return mode * kCrossFlags + flag;
}

// The cores whose sets a wait of `mode` needs: [first, first + count) in the launch's core indices (core.h).
struct CrossGroup {
    uint32_t first;
    uint32_t count;
};

inline CrossGroup cross_group(const ascendc_sim::CoreState& c, int mode) {
    const ascendc_sim::LaunchState& l = *c.launch;
    const uint32_t subs = l.shape.sub_blocks, vectors = l.vector_cores();
    if (mode == 0) return c.cube ? CrossGroup{vectors, l.cube_cores()} : CrossGroup{0, vectors};
    if (mode == 1) return {c.block_idx * subs, subs};
    return c.cube ? CrossGroup{c.block_idx * subs, subs} : CrossGroup{vectors + c.block_idx, 1};
}

// "vector core 3 (GetBlockIdx)" or "the cube core of block 1".
inline std::string cross_core_name(const ascendc_sim::LaunchState& l, uint32_t index) {
    if (index >= l.vector_cores()) return "the cube core of block " + std::to_string(index - l.vector_cores());
    return "vector core " + std::to_string(index) + " (GetBlockIdx)";
}

}  // namespace sim_detail

template <uint8_t modeId, pipe_t pipe>
void CrossCoreSetFlag(uint16_t flagId, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    using namespace ascendc_sim;
    auto& c = core(loc);
    auto& launch = *c.launch;
    std::lock_guard<std::mutex> lock(launch.barrier_mutex);
    int slot = sim_detail::cross_core_check(modeId, flagId, "CrossCoreSetFlag", loc);
    std::vector<CrossSet>& sets = launch.cross_sets[slot * launch.total_cores() + core_index(c)];
    if (int(sets.size()) - int(c.cross_waits[modeId][flagId]) >= sim_detail::kCrossCounterMax && modeId != 2)
        fail(Diag::BadArgument, loc,
             "CrossCoreSetFlag: flag %u of mode %d is set a 16th time with no CrossCoreWaitFlag in between; a flag's "
             "counter holds at most 15 sets (CrossCoreSetFlag(ISASI).md).",
             unsigned(flagId), int(modeId));
    int p = sim_detail::sim_pipe_of(pipe);
    double done = p < 0 ? core_time(c) : std::max(c.pipe_free[p], c.pipe_done[p]);
    sets.push_back(CrossSet{done, gm_signal(c)});
    launch.barrier_cv.notify_all();
}

// The defaults (modeId 0, PIPE_S) are CrossCoreWaitFlag's only (asc-devkit issue 1613 / PR 5493: CrossCoreSetFlag's
// template arguments have no defaults; on the 2201 architecture a wait's modeId and pipe do not change what the
// hardware does). Kernels write `CrossCoreWaitFlag<0x2>(id)`.
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
void CrossCoreWaitFlag(uint16_t flagId, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    using namespace ascendc_sim;
    auto& c = core(loc);
    auto& launch = *c.launch;
    std::unique_lock<std::mutex> lock(launch.barrier_mutex);
    int slot = sim_detail::cross_core_check(modeId, flagId, "CrossCoreWaitFlag", loc);
    const uint32_t cores = launch.total_cores(), me = core_index(c);
    const sim_detail::CrossGroup group = sim_detail::cross_group(c, modeId);
    const size_t round = c.cross_waits[modeId][flagId];
    double release = 0.0;
    for (uint32_t g = group.first; g < group.first + group.count; ++g) {
        const std::vector<CrossSet>& sets = launch.cross_sets[slot * cores + g];
        if (g == me && sets.size() <= round)
            fail(Diag::UnpairedFlag, loc,
                 "CrossCoreWaitFlag<%d>(%u) before this core's own CrossCoreSetFlag on the flag: the wait needs every "
                 "core of the group, this one included, to have set it, so on the NPU it waits forever. Call "
                 "CrossCoreSetFlag first.",
                 int(modeId), unsigned(flagId));
        launch.barrier_cv.wait(lock, [&] { return sets.size() > round || launch.core_done[g] || launch.abort.load(); });
        if (launch.abort.load()) throw KernelAborted{};
        if (sets.size() <= round)
            fail(Diag::UnpairedFlag, loc,
                 "CrossCoreWaitFlag<%d>(%u) waits for set %zu of %s, which ended after %zu CrossCoreSetFlag on that "
                 "flag; on the NPU this waits forever. Every core the wait depends on must set the flag once for "
                 "each wait.",
                 int(modeId), unsigned(flagId), round + 1, sim_detail::cross_core_name(launch, g).c_str(), sets.size());
        release = std::max(release, sets[round].time);
        gm_wait(c, sets[round].gm);
    }
    ++c.cross_waits[modeId][flagId];
    int p = sim_detail::sim_pipe_of(pipe);
    if (p < 0) align_pipes(c, release);
    else c.pipe_free[p] = std::max(c.pipe_free[p], release);
    if (modeId == 0 && !launch.shape.with_cube) ++c.epoch;
}

// The one-argument form of the 8.0.RC2/RC3 pages (`__aicore__ inline void CrossCoreWaitFlag(uint16_t flagId)`),
// which public kernels still call: a wait of mode 0 on every pipe, as those pages' mode-0 example uses it.
inline void CrossCoreWaitFlag(uint16_t flagId, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    CrossCoreWaitFlag<0, PIPE_ALL>(flagId, loc);
}

}  // namespace AscendC
