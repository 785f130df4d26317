// Inter-block synchronisation through GM (IBSet.md, IBWait.md): IBSet raises block blockIdx's flag of event
// eventID in gmWorkspace, IBWait waits until that flag is raised (the pair orders one block's GM writes before
// another block's reads).
//
// Written from the pages: gmWorkspace holds one 32-byte flag per (event, block), at least
// (eventStride * eventID_max + blockIdx_max + 1) * 32 bytes with eventStride = GetBlockNum() (AIV-only), and it
// must be zeroed before use; ubWorkspace holds at least 32 bytes; blockIdx is in [0, block count - 1] (IBWait: not
// the caller's own); the launch must not have more blocks than cores run at once, or the wait never ends.
// Ours: the flag of (eventID, blockIdx) is the int32 at byte (eventID * GetBlockNum() + blockIdx) * 32 of
// gmWorkspace, IBSet writes 1 there (the pages do not say what value), IBWait returns once it is non-zero and does
// not clear it; the waiting block resumes no earlier than the setter's time. A wait that no running block can
// satisfy (every other block finished or waiting) is reported instead of hanging; MIX mode (isAIVOnly = false)
// is not modelled.
#pragma once
#include <cstring>

#include "core.h"
#include "tensor.h"

namespace AscendC {
namespace ib_detail {

using ascendc_sim::Diag;
using ascendc_sim::Loc;

inline int32_t* flag(const char* api, const GlobalTensor<int32_t>& gm, const LocalTensor<int32_t>& ub,
                     int32_t blockIdx, int32_t eventID, bool isAIVOnly, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    uint32_t blocks = c.launch->block_dim;
    if (!isAIVOnly)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s<false> (MIX mode) is not modelled by the simulator; kernels here run AIV only. Use "
                          "%s<true>.",
                          api, api);
    if (blockIdx < 0 || uint32_t(blockIdx) >= blocks)
        ascendc_sim::fail(Diag::BadArgument, loc,
                          "%s: blockIdx %d is outside [0, %u] (the launch's blocks, %s.md).", api, blockIdx,
                          blocks - 1, api);
    if (eventID < 0)
        ascendc_sim::fail(Diag::BadArgument, loc, "%s: eventID %d is negative.", api, eventID);
    ascendc_sim::check_operand(ub, 8, api, "ubWorkspace", loc);  // 32 bytes
    if (blocks > c.launch->resident_cores)
        ascendc_sim::fail(Diag::SyncAllDeadlock, loc,
                          "%s with blockDim %u on %s, which runs %u blocks at once: blocks beyond the core count only "
                          "start when others finish, so IBWait can wait forever (%s.md). Launch at most %u blocks.",
                          api, blocks, c.soc().name, c.launch->resident_cores, api, c.launch->resident_cores);
    uint64_t slot = (uint64_t(eventID) * blocks + uint64_t(blockIdx)) * 32;
    uint8_t* bytes = ascendc_sim::check_gm(reinterpret_cast<const uint8_t*>(gm.GetPhyAddr()) + slot, 32, api, loc,
                                           gm.sim_home());
    return reinterpret_cast<int32_t*>(bytes);
}

inline uint64_t key(const int32_t* flag) { return reinterpret_cast<uint64_t>(flag); }

}  // namespace ib_detail

template <bool isAIVOnly = true>
void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
           int32_t eventID, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    int32_t* flag = ib_detail::flag("IBSet", gmWorkspace, ubWorkspace, blockIdx, eventID, isAIVOnly, loc);
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::LaunchState& launch = *c.launch;
    std::lock_guard<std::mutex> lock(launch.barrier_mutex);
    const int32_t one = 1;
    std::memcpy(flag, &one, sizeof one);
    launch.ib_set_time.emplace_back(ib_detail::key(flag), ascendc_sim::core_time(c));
    launch.barrier_cv.notify_all();
}

template <bool isAIVOnly = true>
void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
            int32_t eventID, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    int32_t* flag = ib_detail::flag("IBWait", gmWorkspace, ubWorkspace, blockIdx, eventID, isAIVOnly, loc);
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::LaunchState& launch = *c.launch;
    if (uint32_t(blockIdx) == c.block_idx)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "IBWait: block %d waits for its own flag; blockIdx names another block (IBWait.md).",
                          blockIdx);
    std::unique_lock<std::mutex> lock(launch.barrier_mutex);
    auto raised = [&] {
        int32_t value;
        std::memcpy(&value, flag, sizeof value);
        return value != 0;
    };
    ++launch.ib_waiting;
    launch.barrier_cv.notify_all();  // a block waiting on another may now see that nobody is left to set its flag
    while (!raised()) {
        if (launch.abort.load()) {
            --launch.ib_waiting;
            throw ascendc_sim::KernelAborted{};
        }
        if (launch.barrier_finished + launch.ib_waiting >= launch.block_dim) {
            --launch.ib_waiting;
            ascendc_sim::fail(ascendc_sim::Diag::SyncAllDeadlock, loc,
                              "IBWait for block %d, event %d: every other block has finished or waits too, and none "
                              "raised that flag; on the NPU this waits forever. Check the IBSet that should pair "
                              "with it (its blockIdx and eventID), and that gmWorkspace starts zeroed.",
                              blockIdx, eventID);
        }
        launch.barrier_cv.wait(lock);
    }
    --launch.ib_waiting;
    for (const auto& [address, time] : launch.ib_set_time)
        if (address == ib_detail::key(flag)) ascendc_sim::align_pipes(c, time);
}

}  // namespace AscendC
