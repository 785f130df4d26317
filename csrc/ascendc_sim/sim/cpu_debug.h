// Names of CANN's CPU debug mode (CPU域孪生调试) that kernels use under `#ifdef ASCENDC_CPU_DEBUG`, which the simulator
// defines (types.h): g_coreType with AIC/AIV, KERNEL_LOG, ASCENDC_ASSERT (compiled out); and the raw cross-core intrinsics
// ffts_cross_core_sync / wait_flag_dev, which kernels may name.
//
// - g_coreType: the running core's kind, AIC on a cube core and AIV on a vector core (CrossCoreWaitFlag.md of 8.0.RC2
//   tests `g_coreType == AIC` in its example). Here it is read per simulated core at run time (on_cube_core, core.h);
//   it cannot be assigned. assumption: the values MIX 0, AIC 1, AIV 2 are CANN's; the pages use only the names.
// - KERNEL_LOG(level, fmt, ...): a printf-style line tagged with its level (KERNEL_DEBUG, KERNEL_INFO, KERNEL_WARN,
//   KERNEL_ERROR), printed as AscendC::printf output. assumption: no API page documents it.
// - ASCENDC_ASSERT(cond, behavior): compiled out, its arguments unseen, as NPU builds compile it (CANN's CPU debug
//   checks it, but the simulator runs kernels as the NPU runs them: a public kernel whose assert is inverted, or names
//   an undeclared variable, as tcuscan's block_scan does, builds and runs on the NPU, and so it does here). Kernels
//   that want a checked assertion use the documented `assert` (debug.h).
// - ffts_cross_core_sync(pipe, config) / wait_flag_dev(flagId): the compiler intrinsics below CrossCoreSetFlag/
//   WaitFlag. Declared so that kernels naming them compile; calling one stops with unsupported_api (use the
//   documented CrossCoreSetFlag/CrossCoreWaitFlag, cross_core.h).
#pragma once
#include "debug.h"
#include "pipe.h"

namespace AscendC {

constexpr int32_t MIX = 0;
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;

}  // namespace AscendC

#define g_coreType (::ascendc_sim::on_cube_core() ? ::AscendC::AIC : ::AscendC::AIV)

namespace ascendc_sim {

template <typename... Args>
void kernel_log(const char* level, const char* fmt, const Args&... args) {
    if (!dump_on()) return;
    const char* tag = std::strncmp(level, "KERNEL_", 7) == 0 ? level + 7 : level;
    debug_detail::emit(core(Loc{}), "[" + std::string(tag) + "] " + debug_detail::format(fmt, args...));
}

[[noreturn]] inline void raw_intrinsic(const char* name, Loc loc) {
    fail(Diag::UnsupportedApi, loc,
         "%s is a compiler intrinsic the simulator does not model; synchronise the cube and vector cores with "
         "CrossCoreSetFlag/CrossCoreWaitFlag (CrossCoreSetFlag(ISASI).md).",
         name);
}

}  // namespace ascendc_sim

#define KERNEL_LOG(level, ...) ::ascendc_sim::kernel_log(#level, __VA_ARGS__)
#define ASCENDC_ASSERT(cond, ...) \
    do {                          \
    } while (0)

inline void ffts_cross_core_sync(pipe_t, uint64_t, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::raw_intrinsic("ffts_cross_core_sync", loc);
}
inline void wait_flag_dev(int64_t, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::raw_intrinsic("wait_flag_dev", loc);
}
