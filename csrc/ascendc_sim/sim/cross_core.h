// Inter-core synchronisation of the separated architecture: CrossCoreSetFlag<modeId, pipe>(flagId) and
// CrossCoreWaitFlag(flagId) (CrossCoreSetFlag(ISASI).md, CrossCoreWaitFlag(ISASI).md).
//
// The pages: each flagId (0-10 on Atlas A2/A3) has a counter; SetFlag adds one, WaitFlag blocks while it is 0. Mode 0
// synchronises all AIV cores: what follows CrossCoreWaitFlag runs once every AIV core has run CrossCoreSetFlag.
// Mode 1 (the two AIV of one AI Core) and mode 2 (AIC with AIV) need sub-blocks and a cube core, which the simulator,
// running vector-only kernels one AIV per block, does not have: unsupported_api.
//
// What the simulator models: mode 0 as the pages' example uses it, CrossCoreSetFlag<0, pipe>(id) then
// CrossCoreWaitFlag(id) on every block, a barrier over the launch's blocks (SyncAll's, with its deadlock checks and
// its pipe alignment; the set's pipe finishes its work before the barrier, as every pipe does). A wait with no set of
// the flag before it on the block, or a second set before the wait, is reported (unsupported_api), not guessed.
#pragma once
#include <cstdint>

#include "pipe.h"

namespace ascendc_sim {

// Per block: the flag ids (bits) this block set in mode 0 and has not waited on yet.
struct CrossCorePending {
    uint64_t launch = 0;
    uint32_t block = UINT32_MAX;
    uint32_t flags = 0;
};
inline thread_local CrossCorePending cross_core_pending;

inline uint32_t& cross_core_flags(CoreState& c) {
    CrossCorePending& p = cross_core_pending;
    if (p.launch != c.launch->serial || p.block != c.block_idx) p = {c.launch->serial, c.block_idx, 0};
    return p.flags;
}

constexpr uint16_t kCrossCoreFlagIds = 11;  // 0-10

inline void check_cross_core_flag(uint16_t flagId, const char* api, Loc loc) {
    if (flagId >= kCrossCoreFlagIds)
        fail(Diag::BadArgument, loc, "%s: flagId %u is out of range; the inter-core flags are 0-10 on Atlas A2/A3",
             api, unsigned(flagId));
}

}  // namespace ascendc_sim

namespace AscendC {

template <uint8_t modeId, pipe_t pipe>
void CrossCoreSetFlag(uint16_t flagId, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    using namespace ascendc_sim;
    CoreState& c = core(loc);
    if (modeId != 0)
        fail(Diag::UnsupportedApi, loc,
             "CrossCoreSetFlag<%u>: modes 1 and 2 synchronise the two AIV sub-blocks of an AI Core or the AIC with its "
             "AIV; the simulator runs vector-only kernels, one AIV per block. Mode 0 (all AIV cores) is modelled",
             unsigned(modeId));
    check_cross_core_flag(flagId, "CrossCoreSetFlag", loc);
    uint32_t& pending = cross_core_flags(c);
    if (pending & (1u << flagId))
        fail(Diag::UnsupportedApi, loc,
             "CrossCoreSetFlag<0>(%u) again before CrossCoreWaitFlag(%u): the simulator models a set followed by its "
             "wait on every block (a barrier over the AIV cores), not a counter set several times",
             unsigned(flagId), unsigned(flagId));
    pending |= 1u << flagId;
}

template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
void CrossCoreWaitFlag(uint16_t flagId, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    using namespace ascendc_sim;
    CoreState& c = core(loc);
    check_cross_core_flag(flagId, "CrossCoreWaitFlag", loc);
    uint32_t& pending = cross_core_flags(c);
    if (!(pending & (1u << flagId)))
        fail(Diag::UnsupportedApi, loc,
             "CrossCoreWaitFlag(%u) with no CrossCoreSetFlag<0>(%u) before it on this block: the simulator models a "
             "set followed by its wait on every block (a barrier over the AIV cores)",
             unsigned(flagId), unsigned(flagId));
    pending &= ~(1u << flagId);
    sim_detail::sync_all(loc);
}

}  // namespace AscendC
